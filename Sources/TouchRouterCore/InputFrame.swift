import TouchRouterModel

/// What the input stage hands to the tracker: frames of contacts, as libinput groups them.

/// One contact change within a frame (libinput's TOUCH_DOWN / MOTION / UP / CANCEL).
public struct ContactEvent: Hashable, Sendable {
    public enum Kind: UInt8, Hashable, Sendable {
        case down, motion, up, cancel
    }

    public var kind: Kind
    /// libinput's seat slot: which finger of the device this is, reused after the finger lifts.
    public var slot: Int32
    /// Position in the screen's layout space; meaningful for down and motion only.
    public var screenPoint: Point
    /// The raw device position is exactly at the minimum or maximum of its axis on both axes (a
    /// corner of the sensor): the ghost streams `filters.dropStuckPoints` ignores. Set by input,
    /// which knows the axis ranges; meaningful for down and motion only.
    public var atDeviceLimit: Bool
    /// For a `cancel`: why, when it is not libinput's TOUCH_CANCEL (nil). The field stage cancels
    /// a stuck contact with `.stuck`.
    public var cancelReason: CancelReason?

    public init(
        kind: Kind, slot: Int32, screenPoint: Point = Point(0, 0), atDeviceLimit: Bool = false,
        cancelReason: CancelReason? = nil
    ) {
        self.kind = kind
        self.slot = slot
        self.screenPoint = screenPoint
        self.atDeviceLimit = atDeviceLimit
        self.cancelReason = cancelReason
    }
}

/// Every contact change of one device up to a TOUCH_FRAME event.
public struct InputFrame: Hashable, Sendable {
    public var device: InputDevice
    /// The screen (by name) this device drives.
    public var screen: String
    /// libinput's event time in microseconds (kernel CLOCK_MONOTONIC), kept end to end.
    public var timestampMicros: UInt64
    public var contacts: [ContactEvent]
    /// Millimetres per layout unit of this device on this screen (resolved by the input layer,
    /// `PhysicalScale.resolve`): what thresholds in mm are measured with.
    public var physicalScale: PhysicalScale
    /// Which of the screen's `devices` matchers took this device (`ScreenMatch.matcherIndex`,
    /// resolved by the input layer with the screen); nil when none did. The field stage applies
    /// that matcher's `filters` (docs/field.md).
    public var matcherIndex: Int?

    /// A frame; `physicalScale` defaults to `PhysicalScale.fallback`.
    public init(
        device: InputDevice, screen: String, timestampMicros: UInt64, contacts: [ContactEvent],
        physicalScale: PhysicalScale = .fallback, matcherIndex: Int? = nil
    ) {
        self.device = device
        self.screen = screen
        self.timestampMicros = timestampMicros
        self.contacts = contacts
        self.physicalScale = physicalScale
        self.matcherIndex = matcherIndex
    }
}

/// Everything the input stage can tell the tracker.
public enum InputEvent: Hashable, Sendable {
    case frame(InputFrame)
    /// The device is gone; any touch still down on it must be cancelled.
    case deviceRemoved(InputDevice, timestampMicros: UInt64)
}
