import TouchRouterModel

/// "Why did this touch go there": the plain hit-test walk for one point, step by step, then what
/// tracking does with the hit view (responder chain, multipleTouch, exclusiveTouch).
///
/// The walk is `PlainHitTest` itself, run with an observer: every verdict in the steps is the one
/// the spec's recursion took, so an explanation cannot disagree with `hit-test`.

extension HitTestExplanation {
    /// Explains a screen point: the plain walk recorded, then the responder chain against
    /// `subscribedViews` (views with an access list in `accessListViews`, and views with a
    /// `passthrough` key in `passthrough`, stop the climb too, as in the daemon), then the multipleTouch / exclusiveTouch rules of the screen, marked
    /// `appliesNow` where the views with fingers down now (`touchedViews`, the tracker's live
    /// touches on this screen) would make the tracker drop this touch-down.
    public init(
        screen: Screen, screenPoint: Point, subscribedViews: some SubscribedViews,
        accessListViews: Set<String> = [], passthrough: [String: PassthroughSettings] = [:],
        touchedViews: [TouchedView] = []
    ) {
        var recorder = Recorder()
        let result = PlainHitTest.hitTest(screen.root, screenPoint: screenPoint, observer: &recorder)
        var steps = recorder.steps
        var chain: [ChainLink] = []
        var target: String?
        var notes: [Note] = []
        if let result {
            for index in steps.indices where steps[index].outcome == .passedToChild {
                if steps[index].indexPath == result.indexPath { steps[index].outcome = .hit }
            }
            // The walk stopped at the hit: every sibling below a winner was never asked (deepest
            // first, front to back, which is where the walk would have gone on).
            var ancestors: [View] = [screen.root]
            for index in result.indexPath { ancestors.append(ancestors[ancestors.count - 1].children[index]) }
            for depth in stride(from: result.indexPath.count - 1, through: 0, by: -1) {
                let parent = ancestors[depth]
                let winner = result.indexPath[depth]
                let prefix = Array(result.indexPath[..<depth])
                for index in stride(from: winner - 1, through: 0, by: -1) {
                    steps.append(
                        Step(
                            viewID: parent.children[index].id, indexPath: prefix + [index], localPoint: nil,
                            outcome: .notVisited, reason: .siblingOnTop, wonBy: parent.children[winner].id,
                            inTouchMargin: false))
                }
            }
            // Where the climb ends is the daemon's rule (PassthroughRule: a subscriber, an access
            // list or a `passthrough` key, true or false); the links say why.
            let rule = PassthroughRule(accessListViews: accessListViews, passthrough: passthrough)
            target = rule.climbEnd(ancestors.reversed().lazy.map(\.id), subscribedViews: subscribedViews)
            for view in ancestors.reversed() {
                let takes = view.id == target
                chain.append(
                    ChainLink(
                        viewID: view.id, takesDelivery: takes, declaresAccessList: accessListViews.contains(view.id),
                        passesThrough: passthrough[view.id]?.passesThrough == true))
                if takes { break }
            }
            notes = Self.notes(
                hitView: ancestors[ancestors.count - 1], screen: screen, touchedViews: touchedViews)
            // A passthrough region takes every finger whatever multipleTouch says (TouchTracker).
            if chain.last?.passesThrough == true { notes.removeAll { $0.rule == "multipleTouch" } }
        }
        self.init(
            screen: screen.name, screenPoint: screenPoint, result: result, steps: steps, chain: chain,
            target: target, notes: notes)
    }

    /// Explains a point with every view subscribed (the touch goes to the hit view itself, unless
    /// multipleTouch or exclusiveTouch drops it).
    public init(screen: Screen, screenPoint: Point) {
        self.init(screen: screen, screenPoint: screenPoint, subscribedViews: AllViews())
    }

    /// The tracker's rules at touch-down (TouchTracker.touchDown), in words: multipleTouch looks at
    /// the hit view's own live touches, exclusiveTouch at live touches on any other view.
    private static func notes(hitView: View, screen: Screen, touchedViews: [TouchedView]) -> [Note] {
        var notes: [Note] = []
        let id = hitView.id
        let others = touchedViews.filter { $0.viewID != id }
        if hitView.multipleTouch {
            notes.append(
                Note(
                    rule: "multipleTouch", viewID: id,
                    text: "\(id) has multipleTouch: every finger on it is delivered"))
        } else if touchedViews.contains(where: { $0.viewID == id }) {
            notes.append(
                Note(
                    rule: "multipleTouch", viewID: id,
                    text: "dropped now: a finger is already down on \(id) (multipleTouch: false)",
                    appliesNow: true))
        } else {
            notes.append(
                Note(
                    rule: "multipleTouch", viewID: id,
                    text: "dropped if another finger is already down on \(id) (multipleTouch: false)"))
        }
        if hitView.exclusiveTouch {
            if let other = others.first {
                notes.append(
                    Note(
                        rule: "exclusiveTouch", viewID: id,
                        text: "dropped now: \(other.viewID) is being touched and \(id) has exclusiveTouch",
                        appliesNow: true))
            } else {
                notes.append(
                    Note(
                        rule: "exclusiveTouch", viewID: id,
                        text:
                            "dropped if any other view of screen \(screen.name) is being touched, and while "
                            + "\(id) is touched no other view takes a new touch (exclusiveTouch)"))
            }
        }
        var stack: [View] = [screen.root]
        while let view = stack.popLast() {
            stack.append(contentsOf: view.children.reversed())
            guard view.exclusiveTouch, view.id != id else { continue }
            let now = others.contains { $0.viewID == view.id }
            notes.append(
                Note(
                    rule: "exclusiveTouch", viewID: view.id,
                    text: now
                        ? "dropped now: \(view.id) is being touched (\(view.id) has exclusiveTouch)"
                        : "dropped while \(view.id) is being touched (\(view.id) has exclusiveTouch)",
                    appliesNow: now))
        }
        return notes
    }

    /// Records the plain walk's verdicts as steps.
    private struct Recorder: HitTestWalkObserver {
        var steps: [Step] = []

        mutating func visited(_ view: View, indexPath: [Int], verdict: HitTestVerdict) {
            var step = Step(
                viewID: view.id, indexPath: indexPath, localPoint: nil, outcome: .skipped, reason: nil,
                wonBy: nil, inTouchMargin: false)
            var bare = view
            bare.touchMargin = .zero
            switch verdict {
            case .ignored(let reason):
                step.reason =
                    switch reason {
                    case .hidden: .hidden
                    case .transparent: .transparent
                    case .notInteractive: .notInteractive
                    }
            case .outside(let local):
                step.localPoint = local
                let insideBounds = view.bounds.contains(local)
                step.reason = view.shape != .rect && insideBounds ? .outsideShape : .outsideTouchArea
            case .inside(let local):
                step.localPoint = local
                // Fixed up to `hit` for the last view of the hit path once the walk is over.
                step.outcome = .passedToChild
                step.inTouchMargin = !bare.containsLocal(local)
            }
            steps.append(step)
        }
    }

    /// Every view has subscribers.
    private struct AllViews: SubscribedViews {
        func hasSubscribers(_ viewID: String) -> Bool { true }
    }
}

extension HitTestExplanation {
    /// The explanation for people: the walk as an indented tree naming every view on the way, then
    /// the result, the responder chain and the notes. Numbers as `hit-test` prints them.
    public var textLines: [String] {
        var lines = [
            "point (\(Self.number(screenPoint.x)), \(Self.number(screenPoint.y))) on screen \"\(screen)\":"
        ]
        for step in steps {
            let indent = String(repeating: "  ", count: step.depth + 1)
            let local = step.localPoint.map { " at (\(Self.number($0.x)), \(Self.number($0.y)))" } ?? ""
            let margin = step.inTouchMargin ? " (in its touch margin)" : ""
            let what: String
            switch step.outcome {
            case .hit: what = "HIT\(local)\(margin): no child takes it"
            case .passedToChild: what = "inside\(local)\(margin): asking its children, top first"
            case .skipped: what = "skipped\(local): \(Self.phrase(step.reason))"
            case .notVisited: what = "not asked: \(step.wonBy ?? "a sibling") on top took it"
            }
            lines.append("\(indent)\(step.viewID): \(what)")
        }
        guard let result else {
            lines.append("no view takes the point: the touch is dropped (dropped-hit-nothing)")
            return lines
        }
        let local = "(\(Self.number(result.localPoint.x)), \(Self.number(result.localPoint.y)))"
        lines.append("hit view: \(result.path.joined(separator: "/")) at local \(local)")
        let chainText = chain.map { link in
            var text = link.viewID
            if link.declaresAccessList { text += " [access list]" }
            if link.passesThrough { return text + " (passes it through)" }
            return text + (link.takesDelivery ? " (takes it)" : " (no subscriber)")
        }
        lines.append("responder chain: " + chainText.joined(separator: " -> "))
        if let target, chain.last?.passesThrough == true {
            lines.append(
                "delivered to: the screen's virtual device (passthrough at \(target)), and \(target)'s subscribers")
        } else if let target {
            lines.append("delivered to: \(target)")
        } else {
            lines.append(
                "delivered to: nobody (no view on the chain has a subscriber: dropped-no-subscriber)")
        }
        for note in notes { lines.append("note: \(note.text)") }
        return lines
    }

    /// A skip reason in words.
    public static func phrase(_ reason: Step.Reason?) -> String {
        switch reason {
        case .hidden?: "hidden (with its subtree)"
        case .transparent?: "alpha below 0.01 (with its subtree)"
        case .notInteractive?: "not interactive (with its subtree)"
        case .outsideTouchArea?: "outside its touch area"
        case .outsideShape?: "inside its bounds but outside its shape"
        case .siblingOnTop?: "a sibling on top took it"
        case nil: "?"
        }
    }

    /// `40`, `12.5`: as `hit-test` prints numbers.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
