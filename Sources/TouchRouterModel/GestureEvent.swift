/// What recognition hands to dispatch, and the names the config and the protocol share: gesture
/// kinds, swipe directions, recogniser states and one gesture message.

/// A kind of gesture, as the config and the protocol name it.
public enum GestureKind: String, Hashable, Sendable, CaseIterable, BitwiseCopyable {
    case tap, longPress, pan, swipe, pinch, rotate

    /// Discrete gestures are recognised once (possible → recognized or failed); continuous ones go
    /// possible → began → changed… → ended or cancelled (or failed before they begin).
    public var isDiscrete: Bool { self == .tap || self == .swipe }
}

/// A swipe's direction on the screen (y grows downward: `up` is toward y = 0).
public enum SwipeDirection: String, Hashable, Sendable, CaseIterable, BitwiseCopyable {
    case left, right, up, down
}

/// A recogniser's state, as UIKit's `UIGestureRecognizer.State`.
public enum GestureState: String, Hashable, Sendable, CaseIterable, BitwiseCopyable {
    /// Watching the touches; nothing recognised yet.
    case possible
    /// A continuous gesture started.
    case began
    /// A continuous gesture moved on.
    case changed
    /// A continuous gesture finished normally.
    case ended
    /// A continuous gesture was cut short (its touches were cancelled, a reload removed it).
    case cancelled
    /// The touches were not this gesture. Never sent to clients.
    case failed
    /// A discrete gesture (tap, swipe) happened.
    case recognized

    /// Nothing follows it in this sequence of touches.
    @inlinable public var isTerminal: Bool {
        self == .ended || self == .cancelled || self == .failed || self == .recognized
    }
}

/// One gesture message: a view's recogniser moved to `state` (never `possible` or `failed`).
public struct GestureEvent: Hashable, Sendable {
    /// The view the recogniser belongs to (the touches' delivery target).
    public var viewID: String
    public var screen: String
    public var kind: GestureKind
    /// The recogniser's position in the view's `gestures` list.
    public var recogniserIndex: Int
    public var state: GestureState
    /// The input time of the change, µs (a deadline's time for one that a deadline decided).
    public var timestampMicros: UInt64
    /// The touches taking part, in began order.
    public var touchIDs: [UInt64]
    /// The centroid of those touches in the view's own coordinates (UIKit's `location(in:)`).
    public var localPoint: Point
    /// The same centroid in the screen's layout space.
    public var screenPoint: Point
    /// tap: the taps counted.
    public var taps: Int?
    /// swipe: where it went.
    public var direction: SwipeDirection?
    /// pan, swipe: the centroid's movement since the first touch, view units.
    public var translation: Point?
    /// pan, swipe: the centroid's velocity, view units per second.
    public var velocity: Point?
    /// pinch: the distance between the two fingers relative to when they were both down.
    public var scale: Double?
    /// pinch: scale change per second.
    public var scaleVelocity: Double?
    /// rotate: radians turned since both fingers were down (positive: clockwise on screen).
    public var rotation: Double?
    /// rotate: radians per second.
    public var rotationVelocity: Double?
    /// longPress, swipe: µs since the first finger of the gesture went down.
    public var durationMicros: UInt64?

    /// An event with only the common fields; the per-kind ones are set by the recogniser.
    public init(
        viewID: String, screen: String, kind: GestureKind, recogniserIndex: Int, state: GestureState,
        timestampMicros: UInt64, touchIDs: [UInt64], localPoint: Point, screenPoint: Point
    ) {
        self.viewID = viewID
        self.screen = screen
        self.kind = kind
        self.recogniserIndex = recogniserIndex
        self.state = state
        self.timestampMicros = timestampMicros
        self.touchIDs = touchIDs
        self.localPoint = localPoint
        self.screenPoint = screenPoint
    }
}
