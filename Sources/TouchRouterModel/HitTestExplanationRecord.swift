/// An explanation as a record: what `HitTestExplanation.init(screen:screenPoint:…)` (the walk, in
/// TouchRouterCore) finds, and what the `explanation` reply carries and a client decodes.

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
        /// The view passes its touches through to the screen's virtual device (`passthrough`,
        /// docs/passthrough.md): the climb stops here, and the compositor gets the touch.
        public var passesThrough: Bool

        /// Makes a link.
        public init(viewID: String, takesDelivery: Bool, declaresAccessList: Bool, passesThrough: Bool = false) {
            self.viewID = viewID
            self.takesDelivery = takesDelivery
            self.declaresAccessList = declaresAccessList
            self.passesThrough = passesThrough
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
