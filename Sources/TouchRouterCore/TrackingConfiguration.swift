import TouchRouterModel

/// The tracker's settings, its counters, and how it asks "who is subscribed".

/// Settings of a `TouchTracker`. Every threshold is a named constant with its default documented.
public struct TrackerConfiguration: Hashable, Sendable {
    /// Default cap on contacts tracked at once (delivered or dropped), over every device.
    public static let defaultMaximumSimultaneousTouches = 32
    /// Default longest gap between a tap's end and the next touch's start for the tap count to go
    /// on: 350 ms, about UIKit's double-tap interval.
    public static let defaultTapIntervalMicros: UInt64 = 350_000
    /// Default distance (screen layout units) within which a tap must stay, and within which the
    /// next touch must start from the previous tap's end point, for the tap count to go on: 45 units,
    /// about one fingertip (UIKit's 44-point touch target).
    public static let defaultTapSlop: Double = 45

    /// Contacts tracked at once over every device (delivered ones and dropped ones whose finger is
    /// still down). A touch-down beyond it is ignored and counted in `droppedOverCap`.
    public var maximumSimultaneousTouches: Int
    /// See `defaultTapIntervalMicros`.
    public var tapIntervalMicros: UInt64
    /// See `defaultTapSlop`.
    public var tapSlop: Double

    /// A configuration with the documented defaults unless given.
    public init(
        maximumSimultaneousTouches: Int = TrackerConfiguration.defaultMaximumSimultaneousTouches,
        tapIntervalMicros: UInt64 = TrackerConfiguration.defaultTapIntervalMicros,
        tapSlop: Double = TrackerConfiguration.defaultTapSlop
    ) {
        self.maximumSimultaneousTouches = max(1, maximumSimultaneousTouches)
        self.tapIntervalMicros = tapIntervalMicros
        self.tapSlop = tapSlop
    }

    /// The documented defaults.
    public static let `default` = TrackerConfiguration()
}

/// What the tracker did and, above all, what it dropped or ignored and why, for the daemon's
/// `status`. Counters only grow (wrapping is out of reach for a UInt64).
public struct TrackerStatistics: Hashable, Sendable {
    /// Input frames processed.
    public var frames: UInt64 = 0
    /// Touches bound to a view and delivered as `began`.
    public var touchesBegan: UInt64 = 0
    /// Touches that ended normally (`ended`).
    public var touchesEnded: UInt64 = 0
    /// Touches cancelled because libinput reported TOUCH_CANCEL.
    public var cancelledInputCancelled: UInt64 = 0
    /// Touches cancelled because their device disappeared.
    public var cancelledDeviceRemoved: UInt64 = 0
    /// Touches cancelled because a layout reload removed their view.
    public var cancelledViewRemoved: UInt64 = 0
    /// Touches cancelled because a new contact started on their slot before they ended.
    public var cancelledSlotReused: UInt64 = 0
    /// Touches cancelled by `cancelAll(reason: .shutdown, …)`.
    public var cancelledShutdown: UInt64 = 0
    /// Touches cancelled because the field stage found them stuck (`CancelReason.stuck`).
    public var cancelledStuck: UInt64 = 0
    /// Touch-downs that hit no view (outside the root, or the root ignores touches).
    public var droppedHitNothing: UInt64 = 0
    /// Touch-downs whose hit view and all its ancestors have no subscriber.
    public var droppedNoSubscriber: UInt64 = 0
    /// Touch-downs on a view with multipleTouch=false that already had a touch.
    public var droppedMultipleTouch: UInt64 = 0
    /// Touch-downs blocked by exclusiveTouch (see docs/tracking.md).
    public var droppedExclusiveTouch: UInt64 = 0
    /// Touch-downs beyond `maximumSimultaneousTouches`.
    public var droppedOverCap: UInt64 = 0
    /// Touch-downs for a screen the layout does not have.
    public var droppedUnknownScreen: UInt64 = 0
    /// Touch-downs and motions with a NaN or infinite coordinate.
    public var droppedNonFinite: UInt64 = 0
    /// Motion, up or cancel for a slot with no contact down (bad input or a contact over the cap).
    public var ignoredUnknownSlot: UInt64 = 0

    /// All zero.
    public init() {}

    /// Touches cancelled, for every reason.
    public var touchesCancelled: UInt64 {
        cancelledInputCancelled + cancelledDeviceRemoved + cancelledViewRemoved + cancelledSlotReused
            + cancelledShutdown + cancelledStuck
    }

    /// Every counter by a stable, kebab-case name, in a fixed order: what `status` prints.
    public var namedCounters: [(name: String, value: UInt64)] {
        [
            ("frames", frames), ("touches-began", touchesBegan), ("touches-ended", touchesEnded),
            ("cancelled-input-cancelled", cancelledInputCancelled),
            ("cancelled-device-removed", cancelledDeviceRemoved),
            ("cancelled-view-removed", cancelledViewRemoved),
            ("cancelled-slot-reused", cancelledSlotReused), ("cancelled-shutdown", cancelledShutdown),
            ("cancelled-stuck", cancelledStuck),
            ("dropped-hit-nothing", droppedHitNothing), ("dropped-no-subscriber", droppedNoSubscriber),
            ("dropped-multiple-touch", droppedMultipleTouch),
            ("dropped-exclusive-touch", droppedExclusiveTouch), ("dropped-over-cap", droppedOverCap),
            ("dropped-unknown-screen", droppedUnknownScreen), ("dropped-non-finite", droppedNonFinite),
            ("ignored-unknown-slot", ignoredUnknownSlot),
        ]
    }

    mutating func countCancel(_ reason: CancelReason) {
        switch reason {
        case .inputCancelled: cancelledInputCancelled += 1
        case .deviceRemoved: cancelledDeviceRemoved += 1
        case .viewRemoved: cancelledViewRemoved += 1
        case .slotReused: cancelledSlotReused += 1
        case .shutdown: cancelledShutdown += 1
        // Recognition cancels touches after the tracker, which never ends one for this reason.
        case .gesture: break
        case .stuck: cancelledStuck += 1
        }
    }
}

/// Answers "does this view have at least one subscriber?" for the responder-chain walk at
/// touch-down. The daemon passes whatever it keeps its subscriptions in; a `Set<String>` of view
/// ids works as is.
public protocol SubscribedViews {
    /// The view with this id has at least one subscriber.
    func hasSubscribers(_ viewID: String) -> Bool
    /// The view with this id passes its touches through (docs/passthrough.md): it takes every
    /// touch the responder chain brings it whatever its hit views' `multipleTouch` says
    /// (`maxTouches` bounds what is passed on). Asked only when `multipleTouch` would drop a touch.
    func passesThrough(_ viewID: String) -> Bool
}

extension SubscribedViews {
    /// No view passes through (the default).
    @inline(__always)
    public func passesThrough(_ viewID: String) -> Bool { false }
}

extension Set: SubscribedViews where Element == String {
    /// The id is in the set.
    @inline(__always)
    public func hasSubscribers(_ viewID: String) -> Bool { contains(viewID) }
}
