import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterProtocol

/// `touchrouterctl explain --config FILE [--screen NAME] [--subscribed IDS] [--json] X Y`: why a
/// touch-down at a screen point goes where it goes, computed offline from a config file.
enum ExplainCommand: Command {
    static let spec = CommandSpec(
        name: "explain",
        abstract: "Explain the hit-test walk for a screen point, view by view.",
        options: [
            ToolOption.config.described("Explain against this config file (offline)."), ToolOption.screen,
            ToolOption.subscribed,
            ToolOption.json.described("Print one JSON object: {\"view\", \"path\", \"steps\", …}."),
            ToolOption.socket,
        ],
        arguments: [
            ArgumentSpec(.x, help: "The point's x in screen (layout) units."),
            ArgumentSpec(.y, help: "The point's y in screen (layout) units."),
        ],
        discussion: """
            Prints the hit-test walk as an indented tree: every view met, top child first, the point
            in its own coordinates, and why it was skipped (hidden, alpha below 0.01, not interactive,
            outside its touch area, outside its shape but inside its bounds, a sibling on top took
            it); then the hit view, the responder chain up to the view the touch is delivered to (the
            nearest view with subscribers; a view with an access list stops the climb), and the
            multipleTouch / exclusiveTouch rules that would drop the touch. The walk is the plain
            hit-test itself, so the answer is always the one 'hit-test' gives. Without --config the
            running daemon answers with its live subscriptions and names the clients that would get
            the touch (admin only; others see only the views open to them). --json prints the
            'explanation' reply of docs/protocol.md; docs/render-explain.md describes every field.
            """)

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        guard let x = coordinate(arguments.argument(.x)), let y = coordinate(arguments.argument(.y)) else {
            return usage("X and Y must be finite numbers")
        }
        guard arguments.flag(ToolOption.config) else {
            if arguments.flag(ToolOption.subscribed) {
                return usage("--subscribed goes with --config: the daemon knows its own subscriptions")
            }
            return askDaemon(arguments, screenPoint: Point(x, y))
        }
        if arguments.flag(ToolOption.socket) {
            return usage("--config and --socket are alternatives: give one")
        }
        guard let offline = OfflineScreen.load(arguments, command: "explain") else { return .failure }
        let accessListViews = Set(offline.config.viewAccess.keys)
        let explanation: HitTestExplanation
        if let listed = arguments.value(ToolOption.subscribed) {
            let subscribed = Set(listed.split(separator: ",").map(String.init))
            explanation = HitTestExplanation(
                screen: offline.screen, screenPoint: Point(x, y), subscribedViews: subscribed,
                accessListViews: accessListViews, passthrough: offline.config.viewPassthrough)
        } else {
            explanation = HitTestExplanation(screen: offline.screen, screenPoint: Point(x, y))
        }
        printReply(ExplainReply(explanation: explanation), asJSON: arguments.value(ToolOption.json))
        return .success
    }

    /// The daemon's `explanation` reply, printed as the offline one.
    private static func askDaemon(_ arguments: ParsedArguments, screenPoint: Point) -> ExitCode {
        let screenName = arguments.value(ToolOption.screen)
        return runOneRequest(
            arguments, command: "explain",
            request: { try await $0.explain(screenPoint, screen: screenName) },
            message: { DaemonMessage.explanation($0) },
            printText: { printReply($0, asJSON: false) })
    }

    private static func printReply(_ reply: ExplainReply, asJSON: Bool) {
        if asJSON {
            let line = DaemonMessage.explanation(reply).encodedLine()
            LineOutput.print(String(decoding: line.dropLast(), as: UTF8.self))
            return
        }
        for line in reply.explanation.textLines { LineOutput.print(line) }
        if let clients = reply.clients, reply.explanation.result != nil {
            LineOutput.print(
                "clients that would receive it: "
                    + (clients.isEmpty ? "none" : clients.joined(separator: ", ")))
        }
    }

    private static func usage(_ message: String) -> ExitCode {
        StandardError.print("touchrouterctl explain: \(message)\nSee 'touchrouterctl explain --help'.")
        return .usage
    }

    private static func coordinate(_ text: String?) -> Double? {
        guard let text, let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
