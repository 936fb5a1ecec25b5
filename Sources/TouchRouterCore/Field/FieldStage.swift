/// The field stage: between input and the tracker, it owns each screen's idle/active state,
/// swallows the waking touch and filters ghost, bouncing and stuck contacts (docs/field.md).
///
/// One file over 400 lines on purpose: the stage is one state machine whose steps (frames,
/// deadlines, screens) share its private state; split across files, that state would have to be
/// open to the whole module. The state's own types are in FieldState.swift.
import TouchRouterModel

/// A pure function of (state, event, time): `process` takes an input event and the time it is
/// handled, `advance` only the time (a timer went off), `setScreenState` an external blanker's
/// word; each returns the events to route plus what to tell clients, and `nextDeadlineMicros` says
/// when to call `advance` next (nil: never, so an idle daemon with no `idle` screen never wakes).
///
/// Time is the caller's clock (`nowMicros`; the daemon's CLOCK_MONOTONIC), never decreasing
/// (an earlier time counts as the latest one seen). Frames keep their own timestamps; frames the
/// stage makes itself (a held `began` released, a stuck cancel) are stamped on the input clock,
/// which it follows from each frame's timestamp against `nowMicros`.
///
/// Rule: a contact is dropped whole (from its down, nothing delivered) or delivered whole; the one
/// exception is the stuck cancel, which ends a delivered touch with `cancelled` (`stuck`) and
/// swallows the rest of that contact. An `up` whose `down` was delivered is never dropped.
///
/// Cost per call: linear in the frame's contacts times the contacts followed (at most
/// `maximumContacts`), plus the screens; nothing grows with the layout.
public struct FieldStage: Sendable {
    /// At most this many contacts are followed at once; beyond, new contacts pass unfiltered.
    public static let maximumContacts = 64
    /// Counters of at most this many devices are kept (the oldest forgotten first).
    public static let maximumDevices = 64
    /// A filter's burst ends after this long without it acting on the device (then the next
    /// effect starts a new burst: one log line).
    public static let burstQuietMicros: UInt64 = 10_000_000

    private var screens: [ScreenState]
    private var contacts: [FieldContact] = []
    private var devices: [DeviceState] = []
    /// The latest time seen.
    public private(set) var nowMicros: UInt64
    /// Input clock minus stage clock, from the latest frame.
    private var inputOffsetMicros: Int64 = 0
    /// How far a held contact may move before it is a touch (layout units): the tracker's tap slop.
    public let tapSlop: Double
    private var output = FieldOutput()

    /// A stage for these screens' settings (screens without an entry have everything off),
    /// started at `nowMicros` (the idle countdowns start there). `matcherSettings` gives, per
    /// screen, the settings of a device taken by each of its `devices` matchers (a frame's
    /// `matcherIndex` picks; a frame without one, or past the list, gets the screen's). Distances in
    /// millimetres are measured with each frame's `physicalScale`.
    public init(
        screens names: [String], settings: [String: FieldSettings],
        matcherSettings: [String: [FieldSettings]] = [:], nowMicros: UInt64,
        tapSlop: Double = TrackerConfiguration.defaultTapSlop
    ) {
        self.nowMicros = nowMicros
        self.tapSlop = tapSlop
        screens = names.map {
            ScreenState(
                name: $0, settings: settings[$0] ?? .off, matcherSettings: matcherSettings[$0] ?? [],
                lastActivityMicros: nowMicros)
        }
    }

    /// A stage for a config's screens.
    public init(config: Config, nowMicros: UInt64) {
        self.init(
            screens: config.layout.screens.map(\.name), settings: config.fieldSettings,
            matcherSettings: Self.matcherSettings(config), nowMicros: nowMicros)
    }

    /// Per screen, the field settings of each device matcher (`Config.fieldSettings(forScreen:
    /// matcherIndex:)`); screens whose matchers have no `filters` are left out.
    static func matcherSettings(_ config: Config) -> [String: [FieldSettings]] {
        var settings: [String: [FieldSettings]] = [:]
        for input in config.screenInputs where input.devices.contains(where: { $0.fieldSettings != nil }) {
            settings[input.screenName] = input.devices.indices.map {
                config.fieldSettings(forScreen: input.screenName, matcherIndex: $0)
            }
        }
        return settings
    }

    /// Nothing to do: every screen has everything off and is active, and no contact is followed.
    /// The daemon may then hand events straight to the tracker.
    public var isInert: Bool {
        guard contacts.isEmpty else { return false }
        for index in screens.indices where !(screens[index].isInert && screens[index].activity == .active) {
            return false
        }
        return true
    }

    /// The screen's state, nil for a screen the stage does not know.
    public func activity(ofScreen name: String) -> ScreenActivity? {
        screens.first { $0.name == name }?.activity
    }

    /// Since when the screen has been quiet (its latest activity), for panel power's dim; nil while a
    /// contact is on it, when it is not active, or for a screen the stage does not know.
    public func quietSinceMicros(ofScreen name: String) -> UInt64? {
        guard let screen = screens.first(where: { $0.name == name }), screen.activity == .active,
            screen.presentContacts == 0
        else { return nil }
        return screen.lastActivityMicros
    }

    /// Every device's filter counters, oldest device first.
    public var deviceCounters: [DeviceFieldCounters] { devices.map(\.counters) }

    /// When `advance` must be called next: the earliest idle countdown, held `began` or stationary
    /// limit; nil when nothing waits.
    public var nextDeadlineMicros: UInt64? {
        var earliest: UInt64?
        for index in screens.indices {
            if let due = screens[index].idleDeadline { earliest = min(earliest ?? due, due) }
        }
        for index in contacts.indices {
            if let due = deadline(of: contacts[index]) { earliest = min(earliest ?? due, due) }
        }
        return earliest
    }

    /// Handles one input event at `nowMicros`: first every deadline up to then, then the event.
    public mutating func process(_ event: InputEvent, nowMicros given: UInt64) -> FieldOutput {
        output.reset()
        let now = max(nowMicros, given)
        switch event {
        case .frame(let frame):
            inputOffsetMicros = Int64(clamping: frame.timestampMicros) - Int64(clamping: now)
            fireDeadlines(upTo: now)
            filter(frame, now: now)
        case .deviceRemoved(let device, _):
            fireDeadlines(upTo: now)
            for contact in contacts where contact.device.id == device.id { leave(contact, now: now) }
            contacts.removeAll { $0.device.id == device.id }
            output.events.append(event)
        }
        return output
    }

    /// A timer went off: every deadline up to `nowMicros`.
    public mutating func advance(nowMicros given: UInt64) -> FieldOutput {
        output.reset()
        fireDeadlines(upTo: max(nowMicros, given))
        return output
    }

    /// An external blanker's word (`setScreenState`): `off` makes the screen idle until a touch
    /// (which `wake.swallow` swallows) or `on`; nil for an unknown screen.
    public mutating func setScreenState(_ name: String, off: Bool, nowMicros given: UInt64) -> FieldOutput? {
        output.reset()
        let now = max(nowMicros, given)
        fireDeadlines(upTo: now)
        guard let index = screens.firstIndex(where: { $0.name == name }) else { return nil }
        if off {
            if screens[index].activity == .active { change(index, active: false, .admin, at: now) }
            screens[index].activity = .off
        } else if screens[index].activity != .active {
            screens[index].lastActivityMicros = now
            change(index, active: true, .admin, at: now)
        }
        return output
    }

    /// A calibration session takes the screen (`calibrating` true) or gives it back. Taken, the
    /// screen's contacts are forgotten (their touches were cancelled), it becomes active (`active`,
    /// reason `admin`, when it was not: the panel must show the targets) and it never goes idle;
    /// its frames go to the session, not here. Given back, its idle countdown starts again at
    /// `nowMicros`. nil for an unknown screen. Cost: the contacts followed.
    public mutating func setCalibrating(_ name: String, _ calibrating: Bool, nowMicros given: UInt64) -> FieldOutput? {
        output.reset()
        let now = max(nowMicros, given)
        fireDeadlines(upTo: now)
        guard let index = screens.firstIndex(where: { $0.name == name }) else { return nil }
        screens[index].calibrating = calibrating
        screens[index].lastActivityMicros = now
        if calibrating {
            contacts.removeAll { $0.screenIndex == index }
            screens[index].presentContacts = 0
            screens[index].graceEndsMicros = nil
            if screens[index].activity != .active { change(index, active: true, .admin, at: now) }
        }
        return output
    }

    /// A contact that is down, as the tracker knows it: the stage is skipped while it has nothing
    /// to do, so after a reload that gives it something it may not know the fingers already down.
    public struct DownContact: Sendable {
        public var device: InputDevice
        public var slot: Int32
        public var screen: String
        public var screenPoint: Point

        /// A contact down on `screen`.
        public init(device: InputDevice, slot: Int32, screen: String, screenPoint: Point) {
            self.device = device
            self.slot = slot
            self.screen = screen
            self.screenPoint = screenPoint
        }
    }

    /// A reload at `nowMicros`: screens keep their state by name, new settings apply to contacts
    /// from now on (a contact's matcher is the one its device's latest frame names, which input
    /// re-resolves). A screen whose `idle` changed starts its countdown again from the reload (never
    /// from an activity the old settings did not count), and `contactsDown` (the tracker's
    /// delivered touches) are followed from now on if the stage did not know them, so no screen
    /// goes idle under a finger that was down through the reload. Cost: the screens times the old
    /// screens, plus the contacts down times the contacts followed (at most `maximumContacts`).
    public mutating func replaceSettings(config: Config, nowMicros given: UInt64, contactsDown: [DownContact] = []) {
        let now = max(nowMicros, given)
        nowMicros = now
        let old = screens
        let matcherSettings = Self.matcherSettings(config)
        screens = config.layout.screens.map { screen in
            let name = screen.name
            var state =
                old.first { $0.name == name }
                ?? ScreenState(name: name, settings: .off, matcherSettings: [], lastActivityMicros: now)
            let settings = config.fieldSettings[name] ?? .off
            if settings.idleMicros != state.settings.idleMicros {
                state.lastActivityMicros = max(state.lastActivityMicros, now)
            }
            state.settings = settings
            state.matcherSettings = matcherSettings[name] ?? []
            return state
        }
        for index in contacts.indices {
            let name = contacts[index].screenIndex >= 0 ? old[contacts[index].screenIndex].name : ""
            contacts[index].screenIndex = screens.firstIndex { $0.name == name } ?? -1
        }
        for down in contactsDown where contacts.count < Self.maximumContacts {
            guard !contacts.contains(where: { $0.device.id == down.device.id && $0.slot == down.slot }),
                let screenIndex = screens.firstIndex(where: { $0.name == down.screen })
            else { continue }
            contacts.append(
                FieldContact(
                    device: down.device, slot: down.slot, screenIndex: screenIndex, matcherIndex: nil,
                    downMicros: now, downPoint: down.screenPoint))
            screens[screenIndex].presentContacts += 1
        }
    }

    /// A frame the daemon handed straight to the tracker (the stage had nothing to do): the stage
    /// only learns the input clock from it (frame time minus `nowMicros`), so that what it stamps
    /// later (an `idle` after a reload turned it on) is on the clock the touches use. O(1).
    public mutating func noteInputClock(frameTimestampMicros: UInt64, nowMicros given: UInt64) {
        inputOffsetMicros = Int64(clamping: frameTimestampMicros) - Int64(clamping: given)
    }

    // MARK: - Frames

    private mutating func filter(_ frame: InputFrame, now: UInt64) {
        guard let screenIndex = screens.firstIndex(where: { $0.name == frame.screen }),
            !(screens[screenIndex].settings(forMatcher: frame.matcherIndex).isInert
                && screens[screenIndex].activity == .active && !contacts.contains { $0.device.id == frame.device.id })
        else {
            output.events.append(.frame(frame))
            return
        }
        var kept: [ContactEvent] = []
        kept.reserveCapacity(frame.contacts.count + 1)
        for contact in frame.contacts {
            let index = contacts.firstIndex { $0.device.id == frame.device.id && $0.slot == contact.slot }
            // The device's matcher as input resolves it now (a reload may have changed it).
            if let index { contacts[index].matcherIndex = frame.matcherIndex }
            switch contact.kind {
            case .down:
                if let index { lift(index, contact, now: now, into: &kept) }
                touchDown(contact, of: frame, screenIndex: screenIndex, now: now, into: &kept)
            case .motion:
                guard let index else {
                    // A contact the stage does not follow still shows someone is there.
                    touchScreen(screenIndex, at: now)
                    kept.append(contact)
                    continue
                }
                motion(index, contact, now: now, into: &kept)
            case .up, .cancel:
                guard let index else {
                    kept.append(contact)
                    continue
                }
                lift(index, contact, now: now, into: &kept)
            }
        }
        if kept == frame.contacts {
            output.events.append(.frame(frame))
        } else if !kept.isEmpty {
            var filtered = frame
            filtered.contacts = kept
            output.events.append(.frame(filtered))
        }
    }

    private mutating func touchDown(
        _ contact: ContactEvent, of frame: InputFrame, screenIndex: Int, now: UInt64,
        into kept: inout [ContactEvent]
    ) {
        guard contacts.count < Self.maximumContacts else {
            kept.append(contact)
            return
        }
        let settings = screens[screenIndex].settings(forMatcher: frame.matcherIndex)
        var record = FieldContact(
            device: frame.device, slot: contact.slot, screenIndex: screenIndex, matcherIndex: frame.matcherIndex,
            downMicros: now, downPoint: contact.screenPoint)
        if settings.dropsStuckPoints && contact.atDeviceLimit {
            record.disposition = .ignored(.stuckPoint)
            count(.stuckPoint, on: frame.device, at: now)
        } else if isBounce(contact, of: frame, screenIndex: screenIndex, now: now) {
            record.disposition = .ignored(.bounce)
            count(.bounce, on: frame.device, at: now)
        } else if settings.minContactMicros != nil {
            record.disposition = .held
        } else if confirm(&record, now: now, inputTime: frame.timestampMicros) {
            kept.append(contact)
        }
        contacts.append(record)
    }

    private mutating func motion(_ index: Int, _ contact: ContactEvent, now: UInt64, into kept: inout [ContactEvent]) {
        switch contacts[index].disposition {
        case .passing, .swallowed:
            if contact.screenPoint != contacts[index].lastPoint {
                contacts[index].lastPoint = contact.screenPoint
                contacts[index].lastMoveMicros = now
            }
            touchScreen(contacts[index].screenIndex, at: now)
            if contacts[index].disposition == .passing { kept.append(contact) }
        case .held:
            contacts[index].lastPoint = contact.screenPoint
            guard Self.distance(contacts[index].downPoint, contact.screenPoint) > tapSlop else { return }
            var record = contacts[index]
            let delivered = confirm(&record, now: now, inputTime: inputTime(now))
            contacts[index] = record
            if delivered {
                kept.append(ContactEvent(kind: .down, slot: contact.slot, screenPoint: record.downPoint))
                kept.append(contact)
            }
        case .ignored:
            break
        }
    }

    /// The contact's up or cancel (or a down reusing its slot): passed on only if it was delivered.
    private mutating func lift(_ index: Int, _ contact: ContactEvent, now: UInt64, into kept: inout [ContactEvent]) {
        let record = contacts.remove(at: index)
        switch record.disposition {
        case .passing:
            // A down reusing the slot ends the delivered touch here, whatever becomes of the new one.
            kept.append(
                contact.kind == .down
                    ? ContactEvent(kind: .cancel, slot: contact.slot, cancelReason: .slotReused) : contact)
        case .held:
            if contact.kind == .up { count(.blip, on: record.device, at: now) }
        case .swallowed, .ignored:
            break
        }
        leave(record, now: now)
        if contact.kind == .up, record.disposition != .held, record.disposition != .ignored(.stuckPoint),
            record.disposition != .ignored(.stuckCancel)
        {
            let deviceIndex = deviceState(record.device)
            devices[deviceIndex].lastUp = LastUp(
                micros: now, screenPoint: record.lastPoint, screenIndex: record.screenIndex)
        }
    }

    /// Bookkeeping when a followed contact goes away: the screen's count of present contacts.
    private mutating func leave(_ record: FieldContact, now: UInt64) {
        guard record.isPresent, record.screenIndex >= 0 else { return }
        screens[record.screenIndex].presentContacts -= 1
        touchScreen(record.screenIndex, at: now)
    }

    /// A contact becomes a touch: the screen wakes (the waking touch may be swallowed) and counts it.
    /// Returns whether it is delivered.
    private mutating func confirm(_ record: inout FieldContact, now: UInt64, inputTime: UInt64) -> Bool {
        let index = record.screenIndex
        record.lastMoveMicros = now
        record.disposition = .passing
        guard index >= 0 else { return true }
        screens[index].presentContacts += 1
        touchScreen(index, at: now)
        let settings = screens[index].settings
        if screens[index].activity != .active {
            change(index, active: true, .touch, atInputTime: inputTime)
            if settings.swallowsWakingTouch {
                screens[index].graceEndsMicros = record.downMicros + settings.wakeGraceMicros
                record.disposition = .swallowed
            }
        } else if let end = screens[index].graceEndsMicros, record.downMicros <= end {
            record.disposition = .swallowed
        }
        if record.disposition == .swallowed { count(.wakeSwallowed, on: record.device, at: now) }
        return record.disposition == .passing
    }

    /// Within `debounceMs` and `debounceMM` (measured with the frame's physical scale) of the
    /// device's previous touch-up on this screen.
    private func isBounce(_ contact: ContactEvent, of frame: InputFrame, screenIndex: Int, now: UInt64) -> Bool {
        let settings = screens[screenIndex].settings(forMatcher: frame.matcherIndex)
        guard let window = settings.debounceMicros, let millimetres = settings.debounceMillimetres,
            let up = devices.first(where: { $0.counters.device.id == frame.device.id })?.lastUp,
            up.screenIndex == screenIndex, now >= up.micros, now - up.micros <= window
        else { return false }
        return frame.physicalScale.distanceMillimetres(up.screenPoint, contact.screenPoint) <= millimetres
    }

    // MARK: - Deadlines

    private func deadline(of contact: FieldContact) -> UInt64? {
        guard contact.screenIndex >= 0 else { return nil }
        let settings = screens[contact.screenIndex].settings(forMatcher: contact.matcherIndex)
        switch contact.disposition {
        case .held:
            return contact.downMicros + (settings.minContactMicros ?? 0)
        case .passing, .swallowed:
            return settings.maxStationaryMicros.map { contact.lastMoveMicros + $0 }
        case .ignored:
            return nil
        }
    }

    /// Fires every deadline up to `now`, earliest first. Each changes what it was about, so a
    /// screen's fires once and a contact's at most twice (a held began released, then stuck): the
    /// loop is bounded by that count even if a rule were wrong.
    private mutating func fireDeadlines(upTo now: UInt64) {
        for _ in 0...(screens.count + 2 * contacts.count) {
            var earliest: (due: UInt64, screen: Int?, contact: Int?)?
            for (index, screen) in screens.enumerated() {
                if let due = screen.idleDeadline, due <= now, due < (earliest?.due ?? .max) {
                    earliest = (due, index, nil)
                }
            }
            for (index, contact) in contacts.enumerated() {
                if let due = deadline(of: contact), due <= now, due < (earliest?.due ?? .max) {
                    earliest = (due, nil, index)
                }
            }
            guard let earliest else { break }
            nowMicros = earliest.due
            if let screen = earliest.screen {
                change(screen, active: false, .timeout, at: earliest.due)
            } else if let index = earliest.contact {
                expire(index, at: earliest.due)
            }
        }
        nowMicros = now
    }

    /// A contact's deadline passed: a held one becomes a touch, a stationary one is stuck.
    private mutating func expire(_ index: Int, at due: UInt64) {
        var record = contacts[index]
        let stamp = inputTime(due)
        var emitted: [ContactEvent] = []
        switch record.disposition {
        case .held:
            if confirm(&record, now: due, inputTime: stamp) {
                emitted.append(ContactEvent(kind: .down, slot: record.slot, screenPoint: record.downPoint))
                if record.lastPoint != record.downPoint {
                    emitted.append(ContactEvent(kind: .motion, slot: record.slot, screenPoint: record.lastPoint))
                }
            }
        case .passing, .swallowed:
            if record.disposition == .passing {
                emitted.append(ContactEvent(kind: .cancel, slot: record.slot, cancelReason: .stuck))
            }
            leave(record, now: due)
            record.disposition = .ignored(.stuckCancel)
            count(.stuckCancel, on: record.device, at: due)
        case .ignored:
            return
        }
        contacts[index] = record
        if !emitted.isEmpty, record.screenIndex >= 0 {
            output.events.append(
                .frame(
                    InputFrame(
                        device: record.device, screen: screens[record.screenIndex].name, timestampMicros: stamp,
                        contacts: emitted)))
        }
    }

    // MARK: - Screens, devices, counters

    private mutating func touchScreen(_ index: Int, at now: UInt64) {
        guard index >= 0 else { return }
        screens[index].lastActivityMicros = max(screens[index].lastActivityMicros, now)
    }

    private mutating func change(_ index: Int, active: Bool, _ reason: ScreenChangeReason, at now: UInt64) {
        change(index, active: active, reason, atInputTime: inputTime(now))
    }

    private mutating func change(
        _ index: Int, active: Bool, _ reason: ScreenChangeReason, atInputTime stamp: UInt64
    ) {
        screens[index].activity = active ? .active : (reason == .admin ? .off : .idle)
        output.screenChanges.append(
            ScreenStateChange(screen: screens[index].name, isActive: active, reason: reason, timestampMicros: stamp))
    }

    private mutating func count(_ kind: FieldFilterKind, on device: InputDevice, at now: UInt64) {
        let index = deviceState(device)
        let slot = FieldFilterKind.allCases.firstIndex(of: kind)!
        if let last = devices[index].lastEffectMicros[slot], now >= last, now - last <= Self.burstQuietMicros {
            devices[index].burstCounts[slot] += 1
        } else {
            output.bursts.append(
                FilterBurst(device: device, kind: kind, previousBurstCount: devices[index].burstCounts[slot]))
            devices[index].burstCounts[slot] = 1
        }
        devices[index].lastEffectMicros[slot] = now
        devices[index].counters.add(kind)
    }

    private mutating func deviceState(_ device: InputDevice) -> Int {
        if let index = devices.firstIndex(where: { $0.counters.device.id == device.id }) { return index }
        if devices.count >= Self.maximumDevices { devices.removeFirst() }
        devices.append(DeviceState(counters: DeviceFieldCounters(device: device)))
        return devices.count - 1
    }

    /// A stage time on the input clock (the frames' timestamps: a recording's, in a replay), by the
    /// offset of the latest frame: the one place the two clocks meet (the Router maps its gesture
    /// deadlines with it too).
    public func inputTime(_ micros: UInt64) -> UInt64 {
        UInt64(clamping: Int64(clamping: micros) &+ inputOffsetMicros)
    }

    /// An input-clock time on the stage's clock: the inverse of `inputTime(_:)` (0 for a time
    /// before the stage clock's origin).
    public func stageTime(ofInput micros: UInt64) -> UInt64 {
        UInt64(clamping: max(0, Int64(clamping: micros) &- inputOffsetMicros))
    }

    static func distance(_ a: Point, _ b: Point) -> Double {
        let dx = a.x - b.x
        let dy = a.y - b.y
        return (dx * dx + dy * dy).squareRoot()
    }
}
