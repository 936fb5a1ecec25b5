/// What the field stage hands on besides frames: screens going idle or active, and the start of a
/// filter's burst (for one log line per burst), plus its per-device counters.
import TouchRouterModel

/// A screen's state as the field stage owns it.
public enum ScreenActivity: String, Hashable, Sendable {
    /// Touched recently, or never idle.
    case active
    /// No contact for the screen's `idle.seconds`.
    case idle
    /// An external blanker said so (`setScreenState` `off`); only a touch or `on` ends it.
    case off
}

/// The filters' effects, named as `status` lists them.
public enum FieldFilterKind: String, Hashable, Sendable, CaseIterable {
    /// `minContactMs`: a contact too short to be a touch.
    case blip = "blips-dropped"
    /// `dropStuckPoints`: a contact at a corner of the sensor.
    case stuckPoint = "stuck-points"
    /// `debounceMs`/`debounceMM`: a touch-down right after and beside the previous touch-up.
    case bounce = "bounces"
    /// `maxStationarySeconds`: a contact cancelled as stuck.
    case stuckCancel = "stuck-cancels"
    /// `wake.swallow`: the waking touch, or one in its grace window.
    case wakeSwallowed = "wake-swallowed"
}

/// The first effect of a filter on a device after a quiet spell: the daemon logs one line per
/// burst, saying how many the previous burst had.
public struct FilterBurst: Hashable, Sendable {
    public var device: InputDevice
    public var kind: FieldFilterKind
    /// How many the previous burst of this kind on this device counted (0 for the first burst).
    public var previousBurstCount: UInt64
}

/// One device's filter counters, totals since the device appeared.
public struct DeviceFieldCounters: Hashable, Sendable {
    public var device: InputDevice
    /// Per kind, in `FieldFilterKind.allCases` order.
    public private(set) var counts: [UInt64] = Array(repeating: 0, count: FieldFilterKind.allCases.count)

    init(device: InputDevice) { self.device = device }

    /// The count of one kind.
    public subscript(kind: FieldFilterKind) -> UInt64 {
        counts[FieldFilterKind.allCases.firstIndex(of: kind)!]
    }

    mutating func add(_ kind: FieldFilterKind) {
        counts[FieldFilterKind.allCases.firstIndex(of: kind)!] += 1
    }

    /// Every counter by name, in `FieldFilterKind.allCases` order.
    public var named: [(name: String, value: UInt64)] {
        FieldFilterKind.allCases.map { ($0.rawValue, self[$0]) }
    }
}

/// One call's result: the events to route, in order, then what to tell clients and the log.
public struct FieldOutput: Sendable {
    /// Frames and device removals for the tracker, in order.
    public var events: [InputEvent] = []
    /// Screens that went idle or active, in order.
    public var screenChanges: [ScreenStateChange] = []
    /// Filter bursts that began.
    public var bursts: [FilterBurst] = []

    /// Nothing at all.
    public var isEmpty: Bool { events.isEmpty && screenChanges.isEmpty && bursts.isEmpty }

    mutating func reset() {
        events.removeAll(keepingCapacity: true)
        screenChanges.removeAll(keepingCapacity: true)
        bursts.removeAll(keepingCapacity: true)
    }
}
