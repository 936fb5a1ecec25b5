/// A screen going idle or active, as the field stage reports it and the `idle`/`active` messages
/// carry it (docs/field.md).

/// Why a screen changed state; the `reason` of `idle` and `active` messages.
public enum ScreenChangeReason: String, Hashable, Sendable {
    /// `idle.seconds` passed without a contact.
    case timeout
    /// A touch began on the idle screen.
    case touch
    /// A `setScreenState` request.
    case admin
}

/// A screen went idle (or off) or became active.
public struct ScreenStateChange: Hashable, Sendable {
    public var screen: String
    /// `false`: the screen went idle or off; `true`: it became active.
    public var isActive: Bool
    public var reason: ScreenChangeReason
    /// When, on the input clock (the clock of the frames' timestamps).
    public var timestampMicros: UInt64

    /// Makes a change.
    public init(screen: String, isActive: Bool, reason: ScreenChangeReason, timestampMicros: UInt64) {
        self.screen = screen
        self.isActive = isActive
        self.reason = reason
        self.timestampMicros = timestampMicros
    }
}
