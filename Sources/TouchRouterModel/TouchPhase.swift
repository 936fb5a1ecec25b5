/// The phases and cancel reasons a routed touch can carry, shared by tracking and the protocol.

/// A touch's phase in one frame, as UITouch.Phase.
public enum TouchPhase: String, Hashable, Sendable, CaseIterable, BitwiseCopyable {
    case began, moved, stationary, ended, cancelled

    /// The phase ends the touch: nothing follows it.
    @inlinable public var isTerminal: Bool { self == .ended || self == .cancelled }
}

/// Why a touch was cancelled instead of ending normally.
public enum CancelReason: String, Hashable, Sendable, CaseIterable, BitwiseCopyable {
    /// libinput reported TOUCH_CANCEL (e.g. palm detection, the kernel gave up the contact).
    case inputCancelled = "input-cancelled"
    /// The device the touch was on disappeared.
    case deviceRemoved = "device-removed"
    /// A layout reload removed the view the touch was bound to.
    case viewRemoved = "view-removed"
    /// A new contact started on the touch's slot before the old one ended.
    case slotReused = "slot-reused"
    /// The daemon is stopping.
    case shutdown
    /// A gesture recogniser of the view recognised, and took the touch (`cancelsTouches`,
    /// docs/gestures.md); the finger may still be down, but its raw touches stop here.
    case gesture
    /// The contact had not moved for the screen's `filters.maxStationarySeconds`: a release that
    /// never came (docs/field.md). The slot is ignored until the kernel really lifts it.
    case stuck
}
