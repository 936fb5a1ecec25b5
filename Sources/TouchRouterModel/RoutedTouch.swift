/// What tracking hands to dispatch: per view, per input frame, the view's touches.

/// One touch as a view's subscribers see it in one frame (UITouch's fields).
public struct RoutedTouch: Hashable, Sendable {
    /// Unique for the daemon's lifetime; never reused (unlike slots and libinput tracking ids).
    public var id: UInt64
    public var phase: TouchPhase
    /// In the target view's own coordinates, through every transform (UIKit's location(in:)).
    public var localPoint: Point
    /// In the screen's layout space.
    public var screenPoint: Point
    /// The local point of the touch's previous delivery (equal to `localPoint` at began).
    public var previousLocalPoint: Point
    /// Time of the frame that last changed this touch, in microseconds (kernel CLOCK_MONOTONIC).
    public var timestampMicros: UInt64
    /// UIKit's consecutive-tap count.
    public var tapCount: Int
    public var device: InputDevice
    /// Set only when `phase` is `.cancelled`.
    public var cancelReason: CancelReason?

    public init(
        id: UInt64, phase: TouchPhase, localPoint: Point, screenPoint: Point, previousLocalPoint: Point,
        timestampMicros: UInt64, tapCount: Int, device: InputDevice, cancelReason: CancelReason? = nil
    ) {
        self.id = id
        self.phase = phase
        self.localPoint = localPoint
        self.screenPoint = screenPoint
        self.previousLocalPoint = previousLocalPoint
        self.timestampMicros = timestampMicros
        self.tapCount = tapCount
        self.device = device
        self.cancelReason = cancelReason
    }
}

/// One view's touches in one input frame: every touch of the view that changed, plus its
/// stationary ones (so a client always sees the view's whole set, as UIEvent.touches(for:)).
public struct ViewTouches: Hashable, Sendable {
    /// The delivery target: the hit view or its nearest subscribed ancestor.
    public var viewID: String
    public var screen: String
    /// The input frame's time in microseconds.
    public var timestampMicros: UInt64
    public var touches: [RoutedTouch]

    public init(viewID: String, screen: String, timestampMicros: UInt64, touches: [RoutedTouch]) {
        self.viewID = viewID
        self.screen = screen
        self.timestampMicros = timestampMicros
        self.touches = touches
    }
}
