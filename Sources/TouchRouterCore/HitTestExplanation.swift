/// "Why did this touch go there": the plain hit-test walk for one point, step by step, then what
/// tracking does with the hit view (responder chain, multipleTouch, exclusiveTouch).
///
/// The walk is `PlainHitTest` itself, run with an observer: every verdict in the steps is the one
/// the spec's recursion took, so an explanation cannot disagree with `hit-test`.

/// The whole story of one point on one screen.
public struct HitTestExplanation: Hashable, Sendable {
    /// One view the walk met, in the walk's order (depth first, children front to back).
    public struct Step: Hashable, Sendable {
        /// What happened to the view.
        public enum Outcome: String, Hashable, Sendable {
            /// The hit view: the point is inside it and none of its children took it.
            case hit
            /// The point is inside it and one of its children took it.
            case passedToChild = "passed-to-child"
            /// Left out, for `reason`.
            case skipped
            /// Never asked: a sibling on top (a later child) took the point first.
            case notVisited = "not-visited"
        }

        /// Why a view was skipped or not visited.
        public enum Reason: String, Hashable, Sendable, CaseIterable {
            case hidden
            case transparent
            case notInteractive = "not-interactive"
            /// The point is outside the bounds grown by the touch margin (following the shape).
            case outsideTouchArea = "outside-touch-area"
            /// The point is inside the bounds rectangle but outside the view's shape (and margin).
            case outsideShape = "outside-shape"
            /// A sibling drawn on top of it took the point first (`wonBy`).
            case siblingOnTop = "sibling-on-top"
        }

        public var viewID: String
        /// Child indices from the root (empty for the root).
        public var indexPath: [Int]
        /// The point in the view's own coordinates; nil when the walk never converted it (rule 1
        /// skipped the view, or it was not visited).
        public var localPoint: Point?
        public var outcome: Outcome
        /// Set for `skipped` and `notVisited`.
        public var reason: Reason?
        /// For `siblingOnTop`: the sibling that took the point.
        public var wonBy: String?
        /// Inside the touch area only thanks to the touch margin (outside the bare shape).
        public var inTouchMargin: Bool

        /// Depth in the tree (the root is 0).
        public var depth: Int { indexPath.count }

        /// Makes a step (the walk makes them; decoders rebuild them).
        public init(
            viewID: String, indexPath: [Int], localPoint: Point?, outcome: Outcome, reason: Reason?,
            wonBy: String?, inTouchMargin: Bool
        ) {
            self.viewID = viewID
            self.indexPath = indexPath
            self.localPoint = localPoint
            self.outcome = outcome
            self.reason = reason
            self.wonBy = wonBy
            self.inTouchMargin = inTouchMargin
        }
    }

    /// One view of the responder chain, from the hit view up to the root.
    public struct ChainLink: Hashable, Sendable {
        public var viewID: String
        /// Someone receives this view's touches (or it declares an access list, which stops the
        /// climb as if it had: a touch inside a restricted view never reaches an ancestor's subscriber).
        public var takesDelivery: Bool
        /// The view declares an access list itself.
        public var declaresAccessList: Bool

        /// Makes a link.
        public init(viewID: String, takesDelivery: Bool, declaresAccessList: Bool) {
            self.viewID = viewID
            self.takesDelivery = takesDelivery
            self.declaresAccessList = declaresAccessList
        }
    }

    /// A tracking rule that can drop a touch-down on the hit view.
    public struct Note: Hashable, Sendable {
        /// `multipleTouch` or `exclusiveTouch`.
        public var rule: String
        /// The view whose flag it is.
        public var viewID: String
        /// What the flag means for this touch.
        public var text: String
        /// The rule drops a touch-down here right now, given the touches down (`touchedViews`).
        public var appliesNow: Bool

        /// Makes a note.
        public init(rule: String, viewID: String, text: String, appliesNow: Bool = false) {
            self.rule = rule
            self.viewID = viewID
            self.text = text
            self.appliesNow = appliesNow
        }
    }

    /// A view with a finger down on it: what multipleTouch and exclusiveTouch look at.
    public struct TouchedView: Hashable, Sendable {
        /// The view the touch was hit-tested to (UITouch.view; not the delivery target).
        public var viewID: String
        public var exclusiveTouch: Bool

        public init(viewID: String, exclusiveTouch: Bool) {
            self.viewID = viewID
            self.exclusiveTouch = exclusiveTouch
        }
    }

    public var screen: String
    public var screenPoint: Point
    /// What `PlainHitTest` (and so every engine) returns for the point.
    public var result: HitResult?
    /// Every view the walk met, in order.
    public var steps: [Step]
    /// The responder chain from the hit view up (empty on a miss); the climb stops at `target`.
    public var chain: [ChainLink]
    /// The view the touch is delivered to: the first link that takes delivery; nil when nobody does.
    public var target: String?
    /// multipleTouch / exclusiveTouch rules that would drop the touch-down.
    public var notes: [Note]

    /// Makes an explanation from its parts (decoders rebuild one this way).
    public init(
        screen: String, screenPoint: Point, result: HitResult?, steps: [Step], chain: [ChainLink],
        target: String?, notes: [Note]
    ) {
        self.screen = screen
        self.screenPoint = screenPoint
        self.result = result
        self.steps = steps
        self.chain = chain
        self.target = target
        self.notes = notes
    }

    /// The hit view's id, or nil on a miss.
    public var viewID: String? { result?.viewID }
    /// Ids from the root to the hit view (empty on a miss).
    public var path: [String] { result?.path ?? [] }
}

extension HitTestExplanation {
    /// Explains a screen point: the plain walk recorded, then the responder chain against
    /// `subscribedViews` (views with an access list in `accessListViews` stop the climb too, as
    /// in the daemon), then the multipleTouch / exclusiveTouch rules of the screen, marked
    /// `appliesNow` where the views with fingers down now (`touchedViews`, the tracker's live
    /// touches on this screen) would make the tracker drop this touch-down.
    public init(
        screen: Screen, screenPoint: Point, subscribedViews: some SubscribedViews,
        accessListViews: Set<String> = [], touchedViews: [TouchedView] = []
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
            for view in ancestors.reversed() {
                let declares = accessListViews.contains(view.id)
                let takes = subscribedViews.hasSubscribers(view.id) || declares
                chain.append(ChainLink(viewID: view.id, takesDelivery: takes, declaresAccessList: declares))
                if takes {
                    target = view.id
                    break
                }
            }
            notes = Self.notes(
                hitView: ancestors[ancestors.count - 1], screen: screen, touchedViews: touchedViews)
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
            return text + (link.takesDelivery ? " (takes it)" : " (no subscriber)")
        }
        lines.append("responder chain: " + chainText.joined(separator: " -> "))
        if let target {
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
