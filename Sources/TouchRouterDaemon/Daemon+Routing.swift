/// Routing in the daemon: input events and the housekeeping timer drive the `Router`
/// (TouchRouterCore/Router.swift), and what it routes goes to clients through one fan-out.
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

extension Daemon {
    /// Where frames come from: libinput on the seat (or the `--device` nodes), or a recording
    /// played on the replay timer, with the screen each replayed device drives. Set at start-up
    /// (`init`, `openLiveInput`); the clock moves as frames are played (Daemon+Replay.swift), the
    /// targets are replaced at each reload. No access to it may span a call (a histogram update, a
    /// reassign in place): one such access makes the compiler check every access to `input` at run
    /// time, about 170 instructions per frame (callgrind); hence `BenchmarkCounters` apart.
    struct Input {
        /// Live input; nil in replay mode, and after teardown.
        var live: LibinputReader?
        /// The recording's clock (`--replay`); nil for live input.
        var replay: ReplayClock?
        /// The replayed devices, and the screen and matcher the current config gives each.
        var replayTargets = ReplayTargets(frames: [])
    }

    /// libinput on the seat (or the `--device` nodes); its fd joins the loop.
    func openLiveInput() throws {
        let backend: LibinputBackend =
            options.devices.isEmpty ? .udev(seat: options.seat) : .paths(options.devices)
        let logger = self.logger
        let reader = try LibinputReader(
            backend: backend, logLevel: options.logLevel == .debug ? .debug : .info,
            assigner: { [unowned self] device, defaultCalibration in
                calibrationAware(config.screenAssignment(for: device, defaultCalibration: defaultCalibration))
            },
            log: { level, message in logger.log(level, message) })
        input.live = reader
        teardown.push { [weak self] in self?.input.live = nil }
        try loop.register(FileDescriptor(rawValue: reader.fileDescriptor), for: .readable) {
            [unowned self] _ in
            guard let reader = input.live else { return }
            for event in reader.dispatch() { process(event) }
            // After the batch is routed: what was read so far reached the compositor too.
            if reader.grabsPending { reader.updateGrabs() }
            if !passthrough.isEmpty { updatePassthroughGates() }
        }
        logger.notice(
            "live input: "
                + (options.devices.isEmpty
                    ? "libinput seat \(options.seat)" : "devices \(options.devices.joined(separator: ", "))"))
    }

    /// Routes one input event. Cost: the Router's (bounded by the frame's contacts, the touches down
    /// and the touched views' recognisers), then the fan-out of what it delivers, then the metrics'
    /// counts (O(1) per contact). A frame that delivered something has its stamp-to-written time
    /// recorded: from `stampMicros` (when a replay took it) or its own stamp (libinput's).
    func process(_ event: InputEvent, stampMicros: UInt64? = nil) {
        countInput(event)
        let routed = router.route(event, nowMicros: routerMicros(for: event))
        let delivers = routed.contains {
            switch $0 {
            case .touches, .gesture: true
            case .screenState, .filterBurst, .passthrough, .calibration: false
            }
        }
        deliver(routed)
        if delivers, case .frame(let frame) = event { recordLatency(sinceMicros: stampMicros ?? frame.timestampMicros) }
    }

    /// The Router's clock for an event: CLOCK_MONOTONIC, which libinput's timestamps already are;
    /// a replayed frame stands for the time it was due (ReplayClock).
    func routerMicros(for event: InputEvent) -> UInt64 {
        guard case .frame(let frame) = event else { return monotonicMicros() }
        if input.replay != nil && !options.replayRestampsFrames {
            return input.replay?.monotonicMicros(ofFrameStamped: frame.timestampMicros) ?? monotonicMicros()
        }
        return frame.timestampMicros
    }

    /// The one fan-out: each item the Router routed to exactly the clients it is for, in order
    /// (touches and gestures to the subscribers of their view, screen changes to the screen's
    /// subscribers and to panel power, bursts to the log), then one write per client given its first
    /// bytes; a client with bytes already waiting is written to when its socket becomes writable.
    /// Last, panel power hears of the screens' quiet spells (a touch lights a dimmed panel), and the
    /// housekeeping timer is moved if the Router's next deadline is now earlier.
    /// Cost: per item, one enqueue per subscriber that takes it; a message is encoded once, and a
    /// gesture's only when some subscriber takes it.
    func deliver(_ routed: [Routed]) {
        if !routed.isEmpty {
            clients.toFlush.removeAll(keepingCapacity: true)
            for item in routed {
                switch item {
                case .touches(let viewTouches, let subscribers): fanOut(viewTouches, to: subscribers)
                case .gesture(let event, let subscribers): fanOut(event, to: subscribers)
                case .screenState(let change):
                    announce(change)
                    panelPowerScreenChanged(change)
                case .filterBurst(let burst): logBurst(burst)
                case .passthrough(let frame): writePassthrough(frame)
                case .calibration(let event): calibrationEvent(event)
                }
            }
            for client in clients.toFlush where client.closing == nil { flush(client) }
            clients.toFlush.removeAll(keepingCapacity: true)
        }
        notePanelPower()
        if let due = routerDeadlineMicros, due < (housekeeping.armedAt ?? .max) { armHousekeepingTimer() }
    }

    /// The Router's next deadline, read in place. (Reading a computed property of a struct stored
    /// in a class copies the whole struct first, every field retained and released: about 1,800
    /// instructions per frame in the fan-out, measured with callgrind; an inout access reads it
    /// where it lies.)
    var routerDeadlineMicros: UInt64? { Self.nextDeadline(of: &router) }

    private static func nextDeadline(of router: inout Router) -> UInt64? { router.nextDeadlineMicros }

    /// A view's touches to its subscribers that take touches (and may see the view), encoded once.
    func fanOut(_ viewTouches: ViewTouches, to subscribers: [ClientID]) {
        countRouted(viewTouches)
        clients.encodedTouches.removeAll(keepingCapacity: true)
        guard TouchesEncoder.appendLine(viewTouches, to: &clients.encodedTouches) else {
            stats.nonFiniteMessagesDropped += 1
            return
        }
        forEachRecipient(of: viewTouches.viewID, among: subscribers, wanting: .touches) { client in
            stats.touchMessagesQueued += 1
            return client.outbox.enqueue(encodedTouches: clients.encodedTouches, for: viewTouches)
        }
    }

    /// A gesture to the subscribers of its view that asked for gestures (and may see the view); its
    /// line is made once, when the first of them takes it.
    func fanOut(_ event: GestureEvent, to subscribers: [ClientID]) {
        let message = GestureMessage(event)
        guard message.isFinite else {
            stats.nonFiniteMessagesDropped += 1
            return
        }
        var encoded: [UInt8]?
        forEachRecipient(of: event.viewID, among: subscribers, wanting: .gestures) { client in
            if encoded == nil { encoded = line(.gesture(message)) }
            stats.gestureMessagesQueued += 1
            return client.outbox.enqueue(line: encoded!)
        }
    }

    /// The path touches and gestures share: each subscriber still connected, wanting this kind of
    /// message and admitted by the view's access lists (a subtree subscription may cover a view the
    /// client may not see) gets `enqueue`'s line; a client given its first bytes is flushed at the
    /// end of the fan-out, one whose queue overflows is cut off, one that falls behind is logged once.
    func forEachRecipient(
        of viewID: String, among subscribers: [ClientID], wanting kind: DeliveredKind,
        enqueue: (ClientConnection) -> ClientOutbox.EnqueueResult
    ) {
        let checksAccess = !current.access.isEmpty && !current.access.permits(nil, viewID: viewID)
        for clientID in subscribers {
            guard let client = clients.connected[clientID], client.closing == nil, client.takes(kind) else { continue }
            if checksAccess && !current.access.permits(client.credentials, viewID: viewID) { continue }
            let wasEmpty = client.outbox.isEmpty
            switch enqueue(client) {
            case .queued:
                if wasEmpty { clients.toFlush.append(client) }
            case .coalesced:
                // Once per client: a stalled client is coalesced at every message from then on.
                if !client.wasBehind {
                    client.wasBehind = true
                    logger.debug("\(client.label) is behind: coalesced moves in its queue")
                }
            case .overflow:
                cutOff(client)
            }
        }
    }

    /// `idle` / `active` to every client subscribed to a view of the screen. Cost: the clients'
    /// subscriptions, once per change (a change is at most one per touch or idle period).
    func announce(_ change: ScreenStateChange) {
        logger.info(
            "screen \(Excerpt.of(change.screen)) is \(change.isActive ? "active" : "idle") (\(change.reason.rawValue))")
        guard let screenIndex = layout.screens.firstIndex(where: { $0.name == change.screen }) else { return }
        let message = line(.screenState(change))
        for client in clients.connected.values where client.closing == nil {
            guard subscriptions.isSubscribed(client.id, toAnyViewOfScreenAt: screenIndex) else { continue }
            let wasEmpty = client.outbox.isEmpty
            if case .overflow = client.outbox.enqueue(line: message) {
                cutOff(client)
            } else if wasEmpty {
                clients.toFlush.append(client)
            }
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
        guard let routed = router.setScreenState(screen, off: off, nowMicros: monotonicMicros()) else {
            return errorLine(code: .unknownScreen, message: "no screen \"\(Excerpt.of(screen))\"", seq: seq)
        }
        logger.notice("\(client.label) set screen \(Excerpt.of(screen)) \(off ? "off" : "on")")
        deliver(routed)
        retryPanelPower(screen)
        return line(.screenStateSet(screen: screen, off: off, seq: seq))
    }

    /// The filter counters of every device, for `status` (admin, or nobody has an access list).
    func fieldCounters() -> JSONValue {
        .array(
            router.field.deviceCounters.map { counters in
                var object: [String: JSONValue] = ["device": .string(counters.device.name)]
                for (name, value) in counters.named { object[name] = .integer(Int64(value)) }
                return .object(object)
            })
    }
}
