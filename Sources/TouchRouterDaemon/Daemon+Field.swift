/// The field stage in the daemon (docs/field.md): input events go through it before the tracker,
/// its deadline joins the housekeeping timer, screen changes go to the screen's subscribers and
/// each filter burst to the log.
import TouchRouterCore
import TouchRouterProtocol
import TouchRouterSystem

extension Daemon {
    /// Routes one input event through the field stage (skipped while it has nothing to do, but for
    /// noting the input clock: O(1)) and the tracker. Cost: the stage's (linear in the frame's
    /// contacts times the contacts it follows, at most 64) plus, only when its deadline moved
    /// earlier, one timerfd_settime.
    func process(_ event: InputEvent) {
        if field.isInert {
            // The stage keeps the input clock even while skipped: what it stamps after a reload
            // gives it something to do is then on the touches' clock.
            if case .frame(let frame) = event {
                field.noteInputClock(frameTimestampMicros: frame.timestampMicros, nowMicros: fieldMicros(for: event))
            }
            route(event)
            return
        }
        applyField(field.process(event, nowMicros: fieldMicros(for: event)))
    }

    /// The stage's clock for an event: CLOCK_MONOTONIC, which libinput's timestamps already are;
    /// a replayed frame stands for the time it was due (ReplayClock).
    func fieldMicros(for event: InputEvent) -> UInt64 {
        guard case .frame(let frame) = event else { return monotonicMicros() }
        if replay != nil && !options.replayRestampsFrames {
            return replay?.monotonicMicros(ofFrameStamped: frame.timestampMicros) ?? monotonicMicros()
        }
        return frame.timestampMicros
    }

    /// Tells clients, logs bursts, routes the stage's events, and moves the timer if it must.
    func applyField(_ output: FieldOutput) {
        for change in output.screenChanges { announce(change) }
        for burst in output.bursts { logBurst(burst) }
        for event in output.events { route(event) }
        if let due = field.nextDeadlineMicros, due < (housekeepingArmedAt ?? .max) { armHousekeepingTimer() }
    }

    /// The tracker's part of routing.
    func route(_ event: InputEvent) {
        let batches: [ViewTouches]
        if access.declaringViews.isEmpty {
            batches = tracker.process(event, subscribedViews: subscriptions)
        } else {
            let targets = RoutingTargets(subscriptions: subscriptions, shields: access.declaringViews)
            batches = tracker.process(event, subscribedViews: targets)
        }
        recognise(batches, of: event)
    }

    /// `idle` / `active` to every client subscribed to a view of the screen. Cost: the clients'
    /// subscriptions, once per change (a change is at most one per touch or idle period).
    func announce(_ change: ScreenStateChange) {
        logger.info(
            "screen \(Excerpt.of(change.screen)) is \(change.isActive ? "active" : "idle") (\(change.reason.rawValue))")
        guard let screenIndex = layout.screens.firstIndex(where: { $0.name == change.screen }) else { return }
        let message = line(.screenState(change))
        for client in clients.values where client.closing == nil {
            guard subscriptions.isSubscribed(client.id, toAnyViewOfScreenAt: screenIndex) else { continue }
            if case .overflow = client.outbox.enqueue(line: message) {
                cutOff(client)
                continue
            }
            flush(client)
        }
    }

    /// One line per burst of a filter on a device (FieldStage.burstQuietMicros apart).
    func logBurst(_ burst: FilterBurst) {
        let previous = burst.previousBurstCount > 0 ? "; the previous burst had \(burst.previousBurstCount)" : ""
        logger.warning(
            "touch device \(Excerpt.of(burst.device.name)): \(burst.kind.rawValue) began"
                + " (counted in status, logged once per burst\(previous))")
    }

    /// `setScreenState` (admin): the reply line.
    func setScreenState(_ screen: String, off: Bool, seq: Int64?, from client: ClientConnection) -> [UInt8] {
        guard isAdmin(client) else {
            return errorLine(
                code: .permissionDenied, message: "setScreenState is for root or the daemon's user", seq: seq)
        }
        guard let output = field.setScreenState(screen, off: off, nowMicros: monotonicMicros()) else {
            return errorLine(code: .unknownScreen, message: "no screen \"\(Excerpt.of(screen))\"", seq: seq)
        }
        logger.notice("\(client.label) set screen \(Excerpt.of(screen)) \(off ? "off" : "on")")
        applyField(output)
        return line(.screenStateSet(screen: screen, off: off, seq: seq))
    }

    /// The filter counters of every device, for `status` (admin, or nobody has an access list).
    func fieldCounters() -> JSONValue {
        .array(
            field.deviceCounters.map { counters in
                var object: [String: JSONValue] = ["device": .string(counters.device.name)]
                for (name, value) in counters.named { object[name] = .integer(Int64(value)) }
                return .object(object)
            })
    }
}
