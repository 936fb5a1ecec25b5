/// A screen's field-kit settings (docs/field.md): when it goes idle, whether the waking touch is
/// swallowed, and which ghost and bounce filters its devices' contacts go through.
import TouchRouterModel

/// What the config's `idle`, `wake` and `filters` keys of one screen say. All off by default: a
/// screen without them is passed through untouched (`isInert`).
public struct FieldSettings: Hashable, Sendable {
    /// `idle.seconds` in µs: after this long without a contact the screen is idle. Nil: never.
    public var idleMicros: UInt64?
    /// `wake.swallow`: while the screen is idle (or set `off`), the first touch is never delivered,
    /// from down to up, nor any touch beginning within `wakeGraceMicros` after it.
    public var swallowsWakingTouch: Bool
    /// `wake.graceMs` in µs (default 250 ms).
    public var wakeGraceMicros: UInt64
    /// `filters.dropStuckPoints`: contacts that go down at a corner of the sensor (both raw axes at
    /// their minimum or maximum) are ignored, whole.
    public var dropsStuckPoints: Bool
    /// `filters.maxStationarySeconds` in µs: a contact that has not moved for this long is
    /// cancelled (`stuck`) and its slot ignored until it really lifts. Nil: never.
    public var maxStationaryMicros: UInt64?
    /// `filters.minContactMs` in µs: a contact that ends within this without leaving the tap slop
    /// is a blip, dropped whole; its `began` is held until then (or until it leaves the slop). Nil: off.
    public var minContactMicros: UInt64?
    /// `filters.debounceMs` in µs: a touch-down this soon after the device's previous touch-up…
    public var debounceMicros: UInt64?
    /// …and within `filters.debounceMM` millimetres of it is a bounce, dropped whole.
    public var debounceMillimetres: Double?
    /// `idle.power`: the panel's backend, switched off at idle and on by the waking touch (the
    /// daemon drives it through `PanelPower`). Nil: the panel is left alone.
    public var power: PanelPowerSettings?

    /// The default `wake.graceMs`: 250 ms.
    public static let defaultWakeGraceMicros: UInt64 = 250_000

    /// Settings with everything off unless given.
    public init(
        idleMicros: UInt64? = nil, swallowsWakingTouch: Bool = false,
        wakeGraceMicros: UInt64 = FieldSettings.defaultWakeGraceMicros, dropsStuckPoints: Bool = false,
        maxStationaryMicros: UInt64? = nil, minContactMicros: UInt64? = nil, debounceMicros: UInt64? = nil,
        debounceMillimetres: Double? = nil, power: PanelPowerSettings? = nil
    ) {
        self.idleMicros = idleMicros
        self.swallowsWakingTouch = swallowsWakingTouch
        self.wakeGraceMicros = wakeGraceMicros
        self.dropsStuckPoints = dropsStuckPoints
        self.maxStationaryMicros = maxStationaryMicros
        self.minContactMicros = minContactMicros
        self.debounceMicros = debounceMicros
        self.debounceMillimetres = debounceMillimetres
        self.power = power
    }

    /// Nothing is on: the screen's frames pass the field stage unchanged (unless a `setScreenState`
    /// turned the screen off).
    public var isInert: Bool {
        idleMicros == nil && !swallowsWakingTouch && !hasFilters
    }

    /// A ghost or bounce filter is on: the stage follows every contact of the screen.
    public var hasFilters: Bool {
        dropsStuckPoints || maxStationaryMicros != nil || minContactMicros != nil || debounceMicros != nil
    }

    /// Everything off.
    public static let off = FieldSettings()
}
