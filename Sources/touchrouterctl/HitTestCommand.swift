import TouchRouterClient
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol

/// `touchrouterctl hit-test [--config FILE | --socket PATH] [--screen NAME] X Y [--json]`: the view
/// under a screen point, computed offline from a config file or asked of the running daemon.
enum HitTestCommand: Command {
    static let spec = CommandSpec(
        name: "hit-test",
        abstract: "Find the view under a screen point.",
        options: [
            ToolOption.config.described("Hit-test this config file (offline)."), ToolOption.screen,
            ToolOption.json.described("Print one JSON object: {\"view\", \"path\", \"local\"}."), ToolOption.socket,
        ],
        arguments: [
            ArgumentSpec(.x, help: "The point's x in screen (layout) units."),
            ArgumentSpec(.y, help: "The point's y in screen (layout) units."),
        ],
        discussion: """
            Prints the hit view's path from the screen's root and the point in that view's own
            coordinates, or that no view takes the point. With --config the file is hit-tested here;
            without it the running daemon answers from the layout it uses (same output).
            """)

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        guard let x = coordinate(arguments.argument(.x)), let y = coordinate(arguments.argument(.y)) else {
            return usage("X and Y must be finite numbers")
        }
        guard let configPath = arguments.value(ToolOption.config) else {
            return askDaemon(arguments, screenPoint: Point(x, y))
        }
        if arguments.flag(ToolOption.socket) {
            return usage("--config and --socket are alternatives: give one")
        }
        let config: Config
        do {
            config = try loadConfig(path: configPath)
        } catch {
            StandardError.print(error.description)
            return .failure
        }
        let screens = config.layout.screens
        let screenName = arguments.value(ToolOption.screen) ?? screens[0].name
        guard let screen = config.layout.screen(named: screenName) else {
            var message = "\(configPath): no screen named \"\(screenName)\""
            if let suggestion = NearMiss.suggestion(for: screenName, among: screens.map(\.name)) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            StandardError.print(message + "; screens: " + screens.map(\.name).joined(separator: ", "))
            return .failure
        }
        let screenPoint = Point(x, y)
        let hit = screen.makeHitTestIndex().hitTest(screenPoint)  // the engine the daemon uses
        printAnswer(
            viewID: hit?.viewID, path: hit?.path ?? [], localPoint: hit?.localPoint, screenPoint: screenPoint,
            screen: screen.name, asJSON: arguments.value(ToolOption.json))
        return .success
    }

    /// The daemon's `hitTest` reply, printed exactly as the offline answer.
    private static func askDaemon(_ arguments: ParsedArguments, screenPoint: Point) -> ExitCode {
        let screenName = arguments.value(ToolOption.screen)
        let asJSON = arguments.value(ToolOption.json)
        return runBlocking {
            guard let client = await connectToDaemon(arguments, command: "hit-test") else { return .failure }
            do {
                let reply = try await client.hitTest(screenPoint, screen: screenName)
                printAnswer(
                    viewID: reply.viewID, path: reply.path, localPoint: reply.localPoint,
                    screenPoint: screenPoint, screen: reply.screen, asJSON: asJSON)
                return .success
            } catch {
                if case ClientError.daemon(let daemonError) = error, daemonError.code == .unknownScreen {
                    var message =
                        "touchrouterctl hit-test: the daemon has no screen named \"\(screenName ?? "")\""
                    let names = client.welcome.screens.map(\.name)
                    if let suggestion = NearMiss.suggestion(for: screenName ?? "", among: names) {
                        message += " (did you mean \"\(suggestion)\"?)"
                    }
                    StandardError.print(message + "; screens: " + names.joined(separator: ", "))
                } else {
                    StandardError.print("touchrouterctl hit-test: \(error)")
                }
                return .failure
            }
        }
    }

    /// `main/keypad/key7 at local (12.5, 40)`, the miss line, or the `--json` object.
    private static func printAnswer(
        viewID: String?, path: [String], localPoint: Point?, screenPoint: Point, screen: String, asJSON: Bool
    ) {
        if asJSON {
            print(json(viewID: viewID, path: path, localPoint: localPoint))
        } else if viewID != nil, let localPoint {
            print(
                "\(path.joined(separator: "/")) at local "
                    + "(\(number(localPoint.x)), \(number(localPoint.y)))")
        } else {
            print(
                "no view at (\(number(screenPoint.x)), \(number(screenPoint.y))) on screen \"\(screen)\"")
        }
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
        json(viewID: hit?.viewID, path: hit?.path ?? [], localPoint: hit?.localPoint)
    }

    /// The same object from its parts (the daemon's reply carries them separately).
    static func json(viewID: String?, path: [String], localPoint: Point?) -> String {
        guard let viewID, let localPoint else { return #"{"view": null, "path": [], "local": null}"# }
        let pathText = path.map(jsonString).joined(separator: ", ")
        let local = "[\(number(localPoint.x)), \(number(localPoint.y))]"
        return #"{"view": \#(jsonString(viewID)), "path": [\#(pathText)], "local": \#(local)}"#
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
            case _ where scalar.value < 0x20:
                escaped += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
