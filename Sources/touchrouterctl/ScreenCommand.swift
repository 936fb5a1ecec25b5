import TouchRouterClient
import TouchRouterCommandLine
import TouchRouterProtocol

/// `touchrouterctl screen NAME off|on`: an external blanker tells the daemon the screen's state
/// (docs/field.md): while `off`, the first touch wakes it and, with `wake.swallow`, is swallowed.
enum ScreenCommand: Command {
    static let spec = CommandSpec(
        name: "screen",
        abstract: "Tell the running daemon a screen is off or on (admin).",
        options: [ToolOption.json, ToolOption.socket],
        arguments: [
            ArgumentSpec(.screenName, help: "The screen's name in the config."),
            ArgumentSpec(.screenState, help: "off or on."),
        ])

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        guard let screen = arguments.argument(.screenName), let state = arguments.argument(.screenState),
            state == "off" || state == "on"
        else {
            StandardError.print("touchrouterctl screen: give a screen name and off or on")
            return .usage
        }
        let off = state == "off"
        return runOneRequest(
            arguments, command: "screen",
            request: { try await $0.setScreenState(screen, off: off) },
            message: { DaemonMessage.screenStateSet(screen: screen, off: off, seq: nil) }
        ) { _ in
            LineOutput.print("screen \(screen): \(state)")
        }
    }
}
