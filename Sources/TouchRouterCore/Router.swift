/// The routing core: everything between an input event and what each view's subscribers are to
/// get, as one value the daemon drives. Pure: no I/O; time comes from the caller.
import TouchRouterModel

/// One thing the Router hands back for delivery, in the order it happened, with whom it is for.
public enum Routed: Sendable {
    /// A view's touches in one frame, for the view's subscribers (those of them that take touches
    /// and may see the view). The list is the subscription table's own (nothing is allocated), taken
    /// when the touches were routed: a reload's cancels go to the subscribers the view had.
    case touches(ViewTouches, to: [ClientID])
    /// A recognised gesture, for the subscribers of its view (those of them that asked for gestures
    /// and may see the view).
    case gesture(GestureEvent, to: [ClientID])
    /// A screen went idle or active: for the clients subscribed to any view of the screen.
    case screenState(ScreenStateChange)
    /// A field filter began acting on a device: for the log (once per burst).
    case filterBurst(FilterBurst)
    /// What a screen's virtual touchscreen or pointer must play (passthrough, docs/passthrough.md).
    case passthrough(PassthroughFrame)
    /// The calibration session's word (a sample, a refusal, its end by timeout or reload): for the
    /// session's client (docs/calibration.md).
    case calibration(CalibrationSessionEvent)
}

/// The routing state and its few operations. The pipeline, in the order `route` runs it:
///
///     input event ─▶ field stage ─▶ tracker ─▶ gesture stage ─▶ [Routed]
///                    (idle/wake,     (hit-test at    (per-view
///                     ghost, bounce,  touch-down,     recognisers;
///                     stuck filters)  responder       raw touches
///                                     chain, phases)  minus taken)
///
/// The Router owns the field filters, the tracker, the gesture recognisers, the subscriptions,
/// the views that declare access lists or `passthrough` (as routing targets: a touch stops at a
/// subscribed view, at one with a list, or at one with `passthrough`), the passthrough stage (the
/// tracker's touches bound to a passthrough view, as contacts of the screen's virtual devices:
/// `Routed.passthrough`), and the config they were made from. It offers what the daemon needs: take
/// an input event (`route`), advance to a time (`advance`), swap in a prepared layout
/// (`swapLayout`), say when to advance next (`nextDeadlineMicros`); each hands back the deliveries,
/// and the daemon maps view ids to clients (their outboxes, their credentials) in one fan-out.
///
/// **One clock.** Every time given to the Router (`nowMicros`) is the caller's clock (the daemon's
/// CLOCK_MONOTONIC; a replayed frame's due time). Frames carry their own timestamps (the input
/// clock: libinput's, or a recording's); the field stage notes the offset between the two at each
/// frame, where input enters, and that one offset maps the gesture stage's input-clock deadlines
/// onto the caller's clock and stamps what the Router makes itself (cancels, idle changes).
///
/// Cost: `route` is the stages' own cost for one event (bounded by the frame's contacts, the
/// touches down and the touched views' recognisers, never by the layout's size); `advance` and
/// `nextDeadlineMicros` are bounded by the contacts followed and the views holding recognition
/// state; `swapLayout` by the touches down. Passthrough adds, per call, a scan of the contacts
/// passed through (at most 10 per screen) for each touch of the tracker's output, and nothing
/// while no view has `passthrough`. Nothing here allocates in the steady state: the
/// returned deliveries reuse the Router's storage (let go of them before the next call).
public struct Router: Sendable {
    /// The config routing follows (with its run-time changes).
    public private(set) var config: Config
    /// Idle/wake and the field filters, before the tracker.
    public private(set) var field: FieldStage
    /// Touch tracking: hit-testing at touch-down, the responder chain, phases.
    public private(set) var tracker: TouchTracker
    /// Per-view gesture recognition after the tracker; bypassed while no view has gestures.
    public private(set) var gestures: GestureStage
    /// Who subscribed to which view: a touch climbs its responder chain to the first view with a
    /// subscriber (or a list, below).
    public private(set) var subscriptions: SubscriptionTable
    /// Views that declare an access list or `passthrough`: a touch inside one stops there (unless
    /// a subscribed view nearer took it): a list's view reaches only its permitted subscribers or
    /// nobody, never an ancestor's subscriber; a passthrough view passes the touch through.
    private var shields: Set<String>
    /// The touches bound to passthrough views, as contacts of each screen's virtual devices.
    private var passthrough: PassthroughStage
    /// The deliveries of the call in progress (storage reused from call to call).
    private var deliveries: [Routed] = []
    /// The calibration session, when one runs: its screen's frames go to it instead of the field
    /// stage and the tracker (`startCalibration`).
    public private(set) var calibration: CalibrationSession?
    /// The session's events of the call in progress (storage reused).
    private var calibrationEvents: [CalibrationSessionEvent] = []

    /// A Router for `config` with nobody subscribed; the field stage's idle countdowns start at
    /// `nowMicros`. `tracking` is the tracker's settings (tests and benchmarks change them).
    public init(config: Config, nowMicros: UInt64, tracking: TrackerConfiguration = .default) {
        self.config = config
        field = FieldStage(config: config, nowMicros: nowMicros)
        tracker = TouchTracker(layout: config.layout, configuration: tracking)
        gestures = GestureStage(viewGestures: config.viewGestures)
        subscriptions = SubscriptionTable(layout: config.layout)
        shields = Self.routingStops(config)
        passthrough = PassthroughStage(settings: config.viewPassthrough)
        deliveries.reserveCapacity(16)
    }

    /// The layout routing follows.
    public var layout: Layout { config.layout }

    /// Each screen's passthrough counters (touches passed, dropped over `maxTouches`, …), for
    /// `status`: the screens that passed something through since the Router was made.
    public var passthroughStatistics: [(screen: String, statistics: PassthroughStatistics)] {
        passthrough.statistics
    }

    /// The views a touch-down's climb stops at besides subscribed ones: those with an access list
    /// or a `passthrough` key (`true` or `false`).
    private static func routingStops(_ config: Config) -> Set<String> {
        PassthroughRule(config: config).routingStops
    }

    // MARK: - Operations

    /// One input event, at `nowMicros`, through the field stage, the tracker and recognition.
    public mutating func route(_ event: InputEvent, nowMicros: UInt64) -> [Routed] {
        startCall()
        if calibration != nil {
            switch event {
            case .frame(let frame) where frame.screen == calibration!.screen:
                // The session's screen: measured, never filtered or routed. O(contacts).
                field.noteInputClock(frameTimestampMicros: frame.timestampMicros, nowMicros: nowMicros)
                calibrationEvents.removeAll(keepingCapacity: true)
                calibration!.take(frame, nowMicros: nowMicros, into: &calibrationEvents)
                for event in calibrationEvents { deliveries.append(.calibration(event)) }
                return deliveries
            case .deviceRemoved(let device, _):
                calibration!.deviceRemoved(device)
            case .frame:
                break
            }
        }
        if field.isInert {
            // Nothing to filter: the stage only notes the input clock (O(1)), so what it stamps
            // later (an `idle` after a reload turned it on) is on the clock the touches use.
            if case .frame(let frame) = event {
                field.noteInputClock(frameTimestampMicros: frame.timestampMicros, nowMicros: nowMicros)
            }
            track(event)
        } else {
            take(field.process(event, nowMicros: nowMicros))
        }
        return deliveries
    }

    /// Everything due by `nowMicros`: idle countdowns, held and stuck contacts, recognition
    /// deadlines (a long press beginning, a single tap decided).
    public mutating func advance(to nowMicros: UInt64) -> [Routed] {
        startCall()
        if !field.isInert { take(field.advance(nowMicros: nowMicros)) }
        if !gestures.isEmpty { append(gestures.advance(to: field.inputTime(nowMicros))) }
        if !passthrough.isIdle {
            let first = passthrough.frameCount
            passthrough.advance(to: field.inputTime(nowMicros))
            appendPassthrough(from: first)
        }
        if let session = calibration, session.deadlineMicros <= nowMicros {
            deliveries.append(.calibration(.ended(screen: session.screen, .timeout)))
            giveBackCalibratedScreen(nowMicros: nowMicros)
        }
        return deliveries
    }

    /// When `advance` must be called next, on the caller's clock; nil when nothing waits (an idle
    /// daemon with no `idle` screen and no pending recognition never wakes).
    public var nextDeadlineMicros: UInt64? {
        var due = fieldOrGestureDeadline
        if let pointerDue = passthrough.nextDeadlineMicros {
            due = min(due ?? .max, field.stageTime(ofInput: pointerDue))
        }
        if let calibrationDue = calibration?.deadlineMicros { due = min(due ?? .max, calibrationDue) }
        return due
    }

    /// The earlier of the field stage's and recognition's deadlines, on the caller's clock.
    private var fieldOrGestureDeadline: UInt64? {
        let fieldDue = field.nextDeadlineMicros
        guard let gestureDue = gestures.nextDeadlineMicros else { return fieldDue }
        return min(fieldDue ?? .max, field.stageTime(ofInput: gestureDue))
    }

    /// Fires every pending recognition deadline now, each at its own time, without waiting: what a
    /// replay that ends (`--exit-after-replay`) owes its last touches (a single tap waiting to see
    /// whether a second comes). The field stage's deadlines (idle) are left alone.
    public mutating func settleGestures() -> [Routed] {
        startCall()
        // Each deadline fired moves the stage on; a handful at most are pending (one per
        // recogniser of the views holding state), the bound only guards against a loop.
        for _ in 0..<1024 {
            guard let due = gestures.nextDeadlineMicros else { break }
            append(gestures.advance(to: due))
        }
        return deliveries
    }

    /// A reload's or run-time change's result, swapped in at `nowMicros`: touches whose view is gone
    /// are cancelled (for the subscribers they had: the table is replaced after), recognisers of views whose gestures changed are
    /// cancelled, screens keep their idle state by name (new filter settings apply from now on,
    /// fingers already down keep their screens active), and `subscriptions`, when given, replace
    /// the table (the worker re-expanded it against the new layout).
    /// Cost: the touches down and the views holding recognition state; everything that grows with
    /// the layout was built by the caller off the routing thread.
    public mutating func swapLayout(
        _ prepared: PreparedLayout, config newConfig: Config, subscriptions table: SubscriptionTable?,
        nowMicros: UInt64
    ) -> [Routed] {
        startCall()
        let oldConfig = config
        let inputNow = field.inputTime(nowMicros)
        // Cancels go to the subscribers the removed views had: the table is swapped after.
        recognise(tracker.replaceLayout(prepared, timestampMicros: inputNow), scale: .fallback, at: inputNow)
        config = newConfig
        if !gestures.isEmpty || !config.viewGestures.isEmpty {
            append(gestures.replaceGestures(config.viewGestures, timestampMicros: inputNow))
        }
        field.replaceSettings(
            config: config, nowMicros: nowMicros,
            contactsDown: tracker.touchesDown.map {
                FieldStage.DownContact(device: $0.device, slot: $0.slot, screen: $0.screen, screenPoint: $0.screenPoint)
            })
        shields = Self.routingStops(newConfig)
        if !passthrough.isIdle || !newConfig.viewPassthrough.isEmpty {
            // After the tracker's cancels: the contacts whose view is gone are ended already.
            let first = passthrough.frameCount
            passthrough.replaceSettings(newConfig.viewPassthrough, layout: prepared, at: inputNow)
            appendPassthrough(from: first)
        }
        if let table { subscriptions = table }
        if let session = calibration, !Self.sameScreen(session.screen, before: oldConfig, after: newConfig) {
            deliveries.append(.calibration(.ended(screen: session.screen, .reload)))
            giveBackCalibratedScreen(nowMicros: nowMicros)
        }
        return deliveries
    }

    // MARK: - Calibration

    /// Starts a calibration session at `nowMicros` (the caller checked there is none): the touches
    /// down on its screen are cancelled (reason `view-removed`, as a reload removing their views),
    /// the field stage lets the screen go (no filter, no idle; made active if it was not) and its
    /// frames go to the session from now on. Cost: the touches down.
    public mutating func startCalibration(_ session: CalibrationSession, nowMicros: UInt64) -> [Routed] {
        startCall()
        let inputNow = field.inputTime(nowMicros)
        recognise(
            tracker.cancel(screen: session.screen, reason: .viewRemoved, timestampMicros: inputNow), scale: .fallback,
            at: inputNow)
        if let output = field.setCalibrating(session.screen, true, nowMicros: nowMicros) { take(output) }
        calibration = session
        return deliveries
    }

    /// Ends the calibration session (finished, cancelled, its client gone): the screen is filtered
    /// and routed again, its idle countdown restarted. Returns the session as it ended.
    public mutating func endCalibration(nowMicros: UInt64) -> CalibrationSession? {
        let session = calibration
        giveBackCalibratedScreen(nowMicros: nowMicros)
        return session
    }

    private mutating func giveBackCalibratedScreen(nowMicros: UInt64) {
        guard let session = calibration else { return }
        calibration = nil
        // Giving a screen back only restarts its countdown: nothing to deliver.
        _ = field.setCalibrating(session.screen, false, nowMicros: nowMicros)
    }

    /// The screen has the same size, rotation, calibration and devices in both configs.
    static func sameScreen(_ name: String, before: Config, after: Config) -> Bool {
        guard let old = before.layout.screen(named: name), let new = after.layout.screen(named: name) else {
            return false
        }
        return old.width == new.width && old.height == new.height
            && before.input(forScreen: name) == after.input(forScreen: name)
    }

    /// A new subscription table for the same layout (clients subscribed or left). Touches already
    /// down keep their targets; the next touch-downs climb to the new subscribers.
    public mutating func replaceSubscriptions(_ table: SubscriptionTable) {
        subscriptions = table
    }

    /// An external blanker's word on a screen (`off`: idle until a touch or `on`); nil for a
    /// screen the Router does not know.
    public mutating func setScreenState(_ screen: String, off: Bool, nowMicros: UInt64) -> [Routed]? {
        guard let output = field.setScreenState(screen, off: off, nowMicros: nowMicros) else { return nil }
        startCall()
        take(output)
        return deliveries
    }

    /// Cancels every touch (`reason`: `shutdown` when the daemon stops), through recognition.
    public mutating func cancelAll(reason: CancelReason, nowMicros: UInt64) -> [Routed] {
        startCall()
        let inputNow = field.inputTime(nowMicros)
        // Every contact passed through is a tracker touch: its cancel ends the contact too.
        recognise(tracker.cancelAll(reason: reason, timestampMicros: inputNow), scale: .fallback, at: inputNow)
        return deliveries
    }

    // MARK: - The stages, in order

    /// A new call's deliveries: the previous call's are let go (their storage is reused).
    private mutating func startCall() {
        deliveries.removeAll(keepingCapacity: true)
        passthrough.startCall()
    }

    /// The field stage's output: what to tell clients and the log, then its events, each tracked.
    private mutating func take(_ output: FieldOutput) {
        for change in output.screenChanges { deliveries.append(.screenState(change)) }
        for burst in output.bursts { deliveries.append(.filterBurst(burst)) }
        for event in output.events { track(event) }
    }

    /// The tracker's part: per-view messages, the touch-downs climbing to a routing target.
    private mutating func track(_ event: InputEvent) {
        let batches =
            shields.isEmpty
            ? tracker.process(event, subscribedViews: subscriptions)
            : tracker.process(
                event,
                subscribedViews: RoutingTargets(
                    subscriptions: subscriptions, shields: shields, passthrough: passthrough.settings))
        switch event {
        case .frame(let frame): recognise(batches, scale: frame.physicalScale, at: frame.timestampMicros)
        case .deviceRemoved(_, let timestampMicros): recognise(batches, scale: .fallback, at: timestampMicros)
        }
    }

    /// Recognition's part: a tracker output through the gesture stage (deadlines up to `inputMicros`
    /// fire first), or straight through when no view has gestures.
    private mutating func recognise(_ batches: [ViewTouches], scale: PhysicalScale, at inputMicros: UInt64) {
        if !passthrough.isIdle {
            // The tracker's touches as they are: recognition takes touches from subscribers, never
            // from the compositor.
            let first = passthrough.frameCount
            passthrough.process(batches, scale: scale, at: inputMicros)
            appendPassthrough(from: first)
        }
        guard !gestures.isEmpty else {
            for batch in batches { appendTouches(batch) }
            return
        }
        append(gestures.process(batches, scale: scale, timestampMicros: inputMicros))
    }

    /// A recognition output: its raw touches, then its gesture events.
    private mutating func append(_ output: GestureOutput) {
        for batch in output.touches { appendTouches(batch) }
        for event in output.gestures {
            let subscribers = subscriptions.subscribers(of: event.viewID)
            if !subscribers.isEmpty { deliveries.append(.gesture(event, to: subscribers)) }
        }
    }

    /// The passthrough frames built since `first` in this call.
    private mutating func appendPassthrough(from first: Int) {
        for index in first..<passthrough.frameCount { deliveries.append(.passthrough(passthrough.frame(index))) }
    }

    /// A view's touches, with its subscribers; nothing when it has none. Cost: one lookup.
    private mutating func appendTouches(_ batch: ViewTouches) {
        let subscribers = subscriptions.subscribers(of: batch.viewID)
        if !subscribers.isEmpty { deliveries.append(.touches(batch, to: subscribers)) }
    }
}

/// What the tracker asks at touch-down: the subscribed views plus every view that declares an
/// access list or `passthrough`, so a touch inside a restricted view stops there instead of
/// climbing the responder chain to an ancestor's subscriber, and one inside a passthrough region
/// stops at the region (or at its `passthrough: false` view).
struct RoutingTargets: SubscribedViews {
    let subscriptions: SubscriptionTable
    let shields: Set<String>
    let passthrough: [String: PassthroughSettings]

    func hasSubscribers(_ viewID: String) -> Bool {
        subscriptions.hasSubscribers(viewID) || shields.contains(viewID)
    }

    func passesThrough(_ viewID: String) -> Bool {
        passthrough[viewID]?.passesThrough == true
    }
}
