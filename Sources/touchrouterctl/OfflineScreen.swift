import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterInput

/// `--config FILE [--screen NAME]`, loaded: what the offline commands (`explain`, `render`) work on.
struct OfflineScreen {
    var config: Config
    var screen: Screen

    /// Loads the config and picks the screen (default: the first), printing why on failure.
    static func load(_ arguments: ParsedArguments, command: String) -> OfflineScreen? {
        guard let configPath = arguments.value(ToolOption.config) else { return nil }
        let config: Config
        do {
            config = try loadConfig(path: configPath)
        } catch {
            StandardError.print(error.description)
            return nil
        }
        let screens = config.layout.screens
        let screenName = arguments.value(ToolOption.screen) ?? screens[0].name
        guard let screen = config.layout.screen(named: screenName) else {
            var message = "touchrouterctl \(command): \(configPath): no screen named \"\(screenName)\""
            if let suggestion = NearMiss.suggestion(for: screenName, among: screens.map(\.name)) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            StandardError.print(message + "; screens: " + screens.map(\.name).joined(separator: ", "))
            return nil
        }
        return OfflineScreen(config: config, screen: screen)
    }
}
