/// The field stage's state, per screen, contact and device (FieldStage.swift drives it).
import TouchRouterModel

/// One screen's state in the stage.
struct ScreenState: Sendable {
    var name: String
    /// The screen's own settings: idle and wake always, filters for devices no matcher with
    /// `filters` took.
    var settings: FieldSettings
    /// Per device matcher of the screen, the settings of the devices it takes; empty when no
    /// matcher has `filters`.
    var matcherSettings: [FieldSettings]
    var activity = ScreenActivity.active
    var lastActivityMicros: UInt64
    /// Confirmed contacts (delivered or swallowed) down on the screen: while any is, it is not idle.
    var presentContacts = 0
    /// Touches beginning up to this time are swallowed (the wake's grace window).
    var graceEndsMicros: UInt64?
    /// A calibration session has the screen: it neither filters nor goes idle (its frames do not
    /// come to the stage).
    var calibrating = false

    init(name: String, settings: FieldSettings, matcherSettings: [FieldSettings], lastActivityMicros: UInt64) {
        self.name = name
        self.settings = settings
        self.matcherSettings = matcherSettings
        self.lastActivityMicros = lastActivityMicros
    }

    /// The filters of a device taken by the screen's `index`-th matcher (nil: by none).
    func settings(forMatcher index: Int?) -> FieldSettings {
        guard let index, matcherSettings.indices.contains(index) else { return settings }
        return matcherSettings[index]
    }

    /// Nothing is on for any device of the screen.
    var isInert: Bool {
        guard settings.isInert else { return false }
        for index in matcherSettings.indices where !matcherSettings[index].isInert { return false }
        return true
    }

    var idleDeadline: UInt64? {
        guard activity == .active, presentContacts == 0, !calibrating, let idle = settings.idleMicros else {
            return nil
        }
        return lastActivityMicros + idle
    }
}

/// What the stage does with a contact.
enum ContactDisposition: Hashable, Sendable {
    /// Delivered: its events go on to the tracker.
    case passing
    /// Its `began` waits (`minContactMs`): not delivered yet, maybe never.
    case held
    /// Never delivered (the waking touch or one in its grace window); it keeps the screen awake.
    case swallowed
    /// Filtered (a stuck point, a bounce, or stuck and cancelled): consumed until it lifts.
    case ignored(FieldFilterKind)
}

/// A contact the stage follows.
struct FieldContact: Sendable {
    let device: InputDevice
    let slot: Int32
    /// Into the stage's screens; -1 once a reload removed the screen.
    var screenIndex: Int
    /// The screen's matcher that took the device (its latest frame's): which filters apply.
    var matcherIndex: Int?
    var disposition = ContactDisposition.passing
    let downMicros: UInt64
    let downPoint: Point
    var lastPoint: Point
    var lastMoveMicros: UInt64

    init(
        device: InputDevice, slot: Int32, screenIndex: Int, matcherIndex: Int?, downMicros: UInt64, downPoint: Point
    ) {
        self.device = device
        self.slot = slot
        self.screenIndex = screenIndex
        self.matcherIndex = matcherIndex
        self.downMicros = downMicros
        self.downPoint = downPoint
        lastPoint = downPoint
        lastMoveMicros = downMicros
    }

    /// Counted as a finger on the screen (for idle).
    var isPresent: Bool { disposition == .passing || disposition == .swallowed }
}

/// A device's previous touch-up, for debouncing.
struct LastUp: Sendable {
    var micros: UInt64
    var screenPoint: Point
    var screenIndex: Int
}

/// One device's counters, bursts and last touch-up.
struct DeviceState: Sendable {
    var counters: DeviceFieldCounters
    var lastUp: LastUp?
    var lastEffectMicros: [UInt64?] = Array(repeating: nil, count: FieldFilterKind.allCases.count)
    var burstCounts: [UInt64] = Array(repeating: 0, count: FieldFilterKind.allCases.count)
}
