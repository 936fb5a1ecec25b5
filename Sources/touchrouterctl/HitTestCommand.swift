import TouchRouterCore

/// `touchrouterctl hit-test --config FILE [--screen NAME] X Y [--json]`: the view under a screen point,
/// computed offline from a config file.
enum HitTestCommand: Command {
    static let spec = CommandSpec(
        name: "hit-test",
        abstract: "Find the view under a screen point.",
        options: [
            OptionSpec(name: "config", valueName: "FILE", help: "Hit-test this config file (offline)."),
            OptionSpec(name: "screen", valueName: "NAME", help: "The screen (default: the first)."),
            OptionSpec(name: "json", help: "Print one JSON object: {\"view\", \"path\", \"local\"}."),
        ],
        arguments: [
            ArgumentSpec(name: "X", help: "The point's x in screen (layout) units."),
            ArgumentSpec(name: "Y", help: "The point's y in screen (layout) units."),
        ],
        discussion: """
            Prints the hit view's path from the screen's root and the point in that view's own
            coordinates, or that no view takes the point. --config is required for now; without it a
            later version will ask the running daemon.
            """)

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        guard let configPath = arguments.value("config") else {
            return usage("needs --config FILE (asking the running daemon is not available yet)")
        }
        guard let x = coordinate(arguments.argument("X")), let y = coordinate(arguments.argument("Y")) else {
            return usage("X and Y must be finite numbers")
        }
        let config: Config
        do {
            config = try loadConfig(path: configPath)
        } catch {
            StandardError.print(error.description)
            return .failure
        }
        let screens = config.layout.screens
        let screenName = arguments.value("screen") ?? screens[0].name
        guard let screen = config.layout.screen(named: screenName) else {
            var message = "\(configPath): no screen named \"\(screenName)\""
            if let suggestion = NearMiss.suggestion(for: screenName, among: screens.map(\.name)) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            StandardError.print(message + "; screens: " + screens.map(\.name).joined(separator: ", "))
            return .failure
        }
        let screenPoint = Point(x, y)
        let hit = screen.plainHitTest(screenPoint)
        if arguments.flag("json") {
            print(json(hit))
        } else if let hit {
            print(
                "\(hit.path.joined(separator: "/")) at local "
                    + "(\(number(hit.localPoint.x)), \(number(hit.localPoint.y)))"
            )
        } else {
            print("no view at (\(number(x)), \(number(y))) on screen \"\(screen.name)\"")
        }
        return .success
    }

    private static func usage(_ message: String) -> ExitCode {
        StandardError.print("touchrouterctl hit-test: \(message)\nSee 'touchrouterctl hit-test --help'.")
        return .usage
    }

    private static func coordinate(_ text: String?) -> Double? {
        guard let text, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// `{"view": "key7", "path": ["main", "keypad", "key7"], "local": [12.5, 40]}`, or a miss with
    /// `"view": null, "path": [], "local": null`.
    static func json(_ hit: HitResult?) -> String {
        guard let hit else { return #"{"view": null, "path": [], "local": null}"# }
        let path = hit.path.map(jsonString).joined(separator: ", ")
        let local = "[\(number(hit.localPoint.x)), \(number(hit.localPoint.y))]"
        return #"{"view": \#(jsonString(hit.viewID)), "path": [\#(path)], "local": \#(local)}"#
    }

    /// A number as JSON and people write it: `40`, `12.5`.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func jsonString(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
