import TouchRouterCore
import TouchRouterProtocol

/// `touchrouterctl explain --config FILE [--screen NAME] [--subscribed IDS] [--json] X Y`: why a
/// touch-down at a screen point goes where it goes, computed offline from a config file.
enum ExplainCommand: Command {
    static let spec = CommandSpec(
        name: "explain",
        abstract: "Explain the hit-test walk for a screen point, view by view.",
        options: [
            OptionSpec(
                name: "config", valueName: "FILE", help: "Explain against this config file.", isRequired: true),
            OptionSpec(name: "screen", valueName: "NAME", help: "The screen (default: the first)."),
            OptionSpec(
                name: "subscribed", valueName: "IDS",
                help: "Views with subscribers, comma-separated (default: every view)."),
            OptionSpec(
                name: "json", help: "Print one JSON object: {\"view\", \"path\", \"steps\", …} (docs/render-explain.md)."),
        ],
        arguments: [
            ArgumentSpec(name: "X", help: "The point's x in screen (layout) units."),
            ArgumentSpec(name: "Y", help: "The point's y in screen (layout) units."),
        ],
        discussion: """
            Prints the hit-test walk as an indented tree: every view met, top child first, the point
            in its own coordinates, and why it was skipped (hidden, alpha below 0.01, not interactive,
            outside its touch area, outside its shape but inside its bounds, a sibling on top took
            it); then the hit view, the responder chain up to the view the touch is delivered to (the
            nearest view with subscribers; a view with an access list stops the climb), and the
            multipleTouch / exclusiveTouch rules that would drop the touch. The walk is the plain
            hit-test itself, so the answer is always the one 'hit-test' gives. The running daemon
            answers the same question with live subscriptions (the 'explain' request).
            """)

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        guard let x = coordinate(arguments.argument("X")), let y = coordinate(arguments.argument("Y")) else {
            StandardError.print(
                "touchrouterctl explain: X and Y must be finite numbers\nSee 'touchrouterctl explain --help'.")
            return .usage
        }
        guard let offline = OfflineScreen.load(arguments, command: "explain") else { return .failure }
        let accessListViews = Set(offline.config.viewAccess.keys)
        let explanation: HitTestExplanation
        if let listed = arguments.value("subscribed") {
            let subscribed = Set(listed.split(separator: ",").map(String.init))
            explanation = HitTestExplanation(
                screen: offline.screen, screenPoint: Point(x, y), subscribedViews: subscribed,
                accessListViews: accessListViews)
        } else {
            explanation = HitTestExplanation(screen: offline.screen, screenPoint: Point(x, y))
        }
        if arguments.flag("json") {
            let line = DaemonMessage.explanation(ExplainReply(explanation: explanation)).encodedLine()
            LineOutput.print(String(decoding: line.dropLast(), as: UTF8.self))
        } else {
            for line in explanation.textLines { LineOutput.print(line) }
        }
        return .success
    }

    private static func coordinate(_ text: String?) -> Double? {
        guard let text, let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
