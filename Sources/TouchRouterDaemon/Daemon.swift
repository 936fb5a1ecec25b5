/// touchrouterd's glue: one epoll loop serving input (replay timer or libinput), the listening
/// socket, clients, signals and config-file changes; one teardown path.
import Glibc
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol

/// The daemon's version, reported in `welcome` and `status`.
public let daemonVersion = "0.1.0"

/// The running daemon. Create it with `init(options:logger:)`, then `run()`; it returns after a
/// graceful stop.
public final class Daemon {
    private let options: DaemonOptions
    private let logger: Logger
    private let loop: EventLoop
    private var listener: Listener?
    private let signals: SignalChannel
    private let timer: MonotonicTimer
    private var configWatch: ConfigWatch?
    private let systemd = SystemdNotifier()
    private var watchdogTimer: MonotonicTimer?

    private var config: Config
    private var layout: Layout { config.layout }
    private var layoutGeneration: UInt64 = 1
    private var tracker: TouchTracker
    private var subscriptions: SubscriptionTable
    private var access: AccessPolicy

    private var clients: [ClientID: ClientConnection] = [:]
    private var nextClientID: ClientID = 1
    private var replay: ReplayClock?
    private var liveInput: LibinputReader?
    private var isStopping = false
    /// accept(2) ran out of descriptors; the listener is out of the loop until a client leaves.
    private var isAcceptPaused = false
    private let startedMonotonicMicros = monotonicMicros()
    private var stats = Stats()
    /// One view's touches line, encoded once per frame for all its subscribers (buffer reused).
    private var encodedTouches: [UInt8] = []
    /// Clients given their first bytes by the frame being delivered (storage reused).
    private var clientsToFlush: [ClientConnection] = []

    private struct Stats {
        var touchMessagesQueued = 0
        var clientsCutOff = 0
        /// Reloads refused because the new config did not load or validate.
        var reloadsFailed = 0
        /// Subscriptions and hit-tests refused by a view's access list.
        var accessDenials = 0
    }

    /// Exit status of `main`: 0 after a graceful stop, 1 when the daemon could not start, 2 for a
    /// bad command line.
    public static func main(arguments: [String]) -> Int32 {
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(arguments)
        } catch {
            let isHelp = arguments.contains("--help") || arguments.contains("-h")
            writeStderr("\(error)\n")
            return isHelp ? 0 : 2
        }
        let logger = Logger(minimumLevel: options.logLevel)
        // A closed stderr (journald restarting) must not kill the daemon; sockets use MSG_NOSIGNAL.
        signal(SIGPIPE, SIG_IGN)
        do {
            let daemon = try Daemon(options: options, logger: logger)
            try daemon.run()
            return 0
        } catch let error as ConfigErrors {
            for configError in error.errors { logger.error(configError.description) }
            logger.error("cannot start: the config has errors")
            return 1
        } catch {
            logger.error("cannot start: \(error)")
            return 1
        }
    }

    /// Loads the config and the recording, opens the socket and registers everything with the loop.
    public init(options: DaemonOptions, logger: Logger) throws {
        self.options = options
        self.logger = logger
        let config = try loadConfig(path: options.configPath)
        self.config = config
        tracker = TouchTracker(layout: config.layout)
        subscriptions = SubscriptionTable(layout: config.layout)
        access = AccessPolicy(config: config)
        for name in access.unknownNames {
            logger.warning("access list: no such \(name); it admits nobody")
        }
        if let path = options.replayPath {
            let frames = try ReplaySource.frames(
                path: path, devicePath: options.replayDevicePath, config: config)
            replay = try ReplayClock(frames: frames, speed: options.replaySpeed, loops: options.replayLoops)
            logger.info(
                "replay: \(path), \(frames.count) frames, speed \(options.replaySpeed)"
                    + (options.replayLoops ? ", looping" : ""))
        }

        loop = try EventLoop()
        signals = try SignalChannel(signals: [SIGTERM, SIGINT, SIGHUP])
        timer = try MonotonicTimer()
        try loop.register(signals.fd, for: .readable) { [unowned self] _ in handleSignals() }
        try loop.register(timer.fd, for: .readable) { [unowned self] _ in handleTimer() }
        do {
            let watch = try ConfigWatch(configPath: options.configPath)
            try loop.register(watch.fd, for: .readable) { [unowned self] _ in
                if watch.configChanged() { reload(trigger: "config file changed") }
            }
            configWatch = watch
        } catch {
            logger.warning("not watching \(options.configPath) for changes: \(error); SIGHUP still reloads")
        }
        if replay == nil { try openLiveInput() }

        // Last, so a daemon that cannot start leaves no socket file behind.
        let listener = try Listener.open(options.socket)
        self.listener = listener
        try loop.register(listener.fd, for: .readable) { [unowned self] _ in acceptClients() }
        logger.notice(
            "listening on \(listener.path)"
                + (listener.isSocketActivated
                    ? " (socket activation)" : ", mode \(String(options.socket.mode, radix: 8))"))
        logger.notice("layout generation 1: \(layout.screens.count) screen(s), \(layout.viewCount) views")
    }

    /// Serves until SIGTERM/SIGINT (or the end of a replay with `--exit-after-replay`), then
    /// tears everything down in reverse order.
    public func run() throws {
        if replay != nil && !options.replayWaitsForSubscriber { startReplay() }
        systemd?.notify(
            "READY=1\nSTATUS=layout generation \(layoutGeneration), serving \(options.socket.path)")
        if let systemd, let interval = SystemdNotifier.watchdogIntervalMicros() {
            // The only periodic wake-up, and only when the unit sets WatchdogSec=.
            let watchdog = try MonotonicTimer()
            try watchdog.armPeriodic(intervalMicros: max(interval / 2, 1))
            try loop.register(watchdog.fd, for: .readable) { _ in
                watchdog.acknowledge()
                systemd.notify("WATCHDOG=1")
            }
            watchdogTimer = watchdog
        }
        try loop.run()
        for client in clients.values { disconnect(client, .daemonStopping) }
        configWatch?.close()
        if let liveInput { loop.deregister(FileDescriptor(rawValue: liveInput.fileDescriptor)) }
        liveInput = nil
        listener?.close()
        if let watchdogTimer {
            loop.deregister(watchdogTimer.fd)
            watchdogTimer.fd.close()
        }
        timer.fd.close()
        signals.fd.close()
        logger.notice("stopped")
    }

    /// libinput on the seat (or the `--device` nodes); its fd joins the loop.
    private func openLiveInput() throws {
        let backend: LibinputBackend =
            options.devices.isEmpty ? .udev(seat: options.seat) : .paths(options.devices)
        let logger = self.logger
        let reader = try LibinputReader(
            backend: backend, logLevel: options.logLevel == .debug ? .debug : .info,
            assigner: { [unowned self] device, defaultCalibration in
                config.screenAssignment(for: device, defaultCalibration: defaultCalibration)
            },
            log: { level, message in logger.log(LogLevel(rawValue: level.syslogPriority) ?? .info, message) })
        liveInput = reader
        try loop.register(FileDescriptor(rawValue: reader.fileDescriptor), for: .readable) {
            [unowned self] _ in
            guard let events = liveInput?.dispatch() else { return }
            for event in events { process(event) }
        }
        logger.notice(
            "live input: "
                + (options.devices.isEmpty
                    ? "libinput seat \(options.seat)" : "devices \(options.devices.joined(separator: ", "))"))
    }

    // MARK: Signals and timer

    private func handleSignals() {
        guard let received = try? signals.drain() else { return }
        for signal in received {
            switch signal {
            case SIGHUP: reload(trigger: "SIGHUP")
            case SIGINT: beginStop(reason: "SIGINT")
            default: beginStop(reason: "SIGTERM")
            }
        }
    }

    private func handleTimer() {
        timer.acknowledge()
        if isStopping {
            logger.warning("stop: flush deadline passed, closing \(clients.count) client(s) with unsent data")
            loop.stop()
            return
        }
        playDueFrames()
    }

    // MARK: Replay

    private func startReplay() {
        guard var clock = replay, !clock.hasStarted else { return }
        clock.start(atMonotonicMicros: monotonicMicros())
        replay = clock
        logger.info("replay started")
        if clock.isFinished { playDueFrames() } else { armReplayTimer() }
    }

    private func armReplayTimer() {
        guard let due = replay?.nextDueMicros else {
            try? timer.disarm()
            return
        }
        do { try timer.arm(atMonotonicMicros: due) } catch { logger.error("replay timer: \(error)") }
    }

    /// Feeds every frame that is due (one per wake-up at speed 0, so clients are served between).
    private func playDueFrames() {
        guard var clock = replay else { return }
        let now = monotonicMicros()
        while var frame = clock.nextDueFrame(atMonotonicMicros: now) {
            replay = clock
            if options.replayRestampsFrames { frame.timestampMicros = monotonicMicros() }
            process(.frame(frame))
            if clock.speed == 0 { break }
        }
        replay = clock
        if clock.isFinished {
            logger.info("replay finished")
            try? timer.disarm()
            if options.exitsAfterReplay { beginStop(reason: "replay finished (--exit-after-replay)") }
            return
        }
        armReplayTimer()
    }

    // MARK: Routing

    private func process(_ event: InputEvent) {
        if access.declaringViews.isEmpty {
            deliver(tracker.process(event, subscribedViews: subscriptions))
        } else {
            let targets = RoutingTargets(subscriptions: subscriptions, shields: access.declaringViews)
            deliver(tracker.process(event, subscribedViews: targets))
        }
    }

    /// Queues each view's touches to exactly that view's subscribers, then writes once per client.
    private func deliver(_ batches: [ViewTouches]) {
        guard !batches.isEmpty else { return }
        clientsToFlush.removeAll(keepingCapacity: true)
        for viewTouches in batches {
            guard let subscribers = subscriptions.subscribersByView[viewTouches.viewID] else { continue }
            encodedTouches.removeAll(keepingCapacity: true)
            TouchesEncoder.appendLine(viewTouches, to: &encodedTouches)
            let checksAccess = !access.isEmpty && !access.permits(nil, viewID: viewTouches.viewID)
            for clientID in subscribers {
                guard let client = clients[clientID], client.closing == nil else { continue }
                // A subtree subscription may cover a view the client may not see.
                if checksAccess && !access.permits(client.credentials, viewID: viewTouches.viewID) {
                    continue
                }
                let wasEmpty = client.outbox.isEmpty
                switch client.outbox.enqueue(encodedTouches: encodedTouches, for: viewTouches) {
                case .queued:
                    if wasEmpty { clientsToFlush.append(client) }
                case .coalesced:
                    logger.debug("\(client.label) is behind: coalesced moves in its queue")
                case .overflow:
                    cutOff(client)
                }
                stats.touchMessagesQueued += 1
            }
        }
        // One write per client per frame; a client with bytes already waiting is written to
        // when the socket becomes writable (EPOLLOUT is on for it).
        for client in clientsToFlush where client.closing == nil { flush(client) }
        clientsToFlush.removeAll(keepingCapacity: true)
    }

    // MARK: Clients

    private func acceptClients() {
        guard let listener else { return }
        while true {
            let fd: FileDescriptor
            do {
                guard let accepted = try listener.accept() else { return }
                fd = accepted
            } catch let error as SystemError where error.errno == EMFILE || error.errno == ENFILE {
                // Out of descriptors: the pending connection would wake the loop forever. Stop
                // accepting until a client leaves.
                logger.error("accept: \(error); not accepting until a client disconnects")
                loop.deregister(listener.fd)
                isAcceptPaused = true
                return
            } catch {
                logger.error("accept: \(error)")
                return
            }
            let credentials = try? PeerCredentials(socket: fd)
            let client = ClientConnection(
                id: nextClientID, fd: fd, credentials: credentials,
                queueCapacityBytes: options.clientQueueBytes)
            nextClientID += 1
            if clients.count >= options.maxClients || isStopping {
                client.sendFinalLine(
                    errorLine(
                        code: .tooManyClients,
                        message: "the daemon serves at most \(options.maxClients) clients"))
                fd.close()
                logger.warning("\(client.label) refused: already \(clients.count) clients (--max-clients)")
                continue
            }
            do {
                try loop.register(fd, for: .readable) { [unowned self, unowned client] events in
                    handleClientEvents(client, events)
                }
            } catch {
                logger.error("\(client.label): \(error)")
                fd.close()
                continue
            }
            clients[client.id] = client
            logger.info("\(client.label) connected")
        }
    }

    private func handleClientEvents(_ client: ClientConnection, _ events: IOEvents) {
        if events.contains(.writable) { flush(client) }
        guard client.closing == nil, clients[client.id] != nil else { return }
        guard !events.isDisjoint(with: [.readable, .peerClosed, .failed]) else { return }
        if client.inputClosed {
            // Only a full close (EPOLLHUP/ERR) can wake a half-closed client.
            disconnect(client, .closedByPeer)
            return
        }
        let endOfInput = client.readAvailable()
        handleLines(of: client)
        guard client.closing == nil else { return }
        switch endOfInput {
        case .closedByPeer? where !events.contains(.failed):
            client.inputClosed = true
            flush(client)
        case let reason?:
            disconnect(client, reason)
        case nil:
            flush(client)
        }
    }

    private func handleLines(of client: ClientConnection) {
        while client.closing == nil {
            switch client.framer.nextLine() {
            case .lineTooLong(let limit):
                client.sendFinalLine(
                    errorLine(code: .lineTooLong, message: "a request line may be at most \(limit) bytes"))
                disconnect(client, .lineTooLong)
            case .line(let bytes):
                if isStopping { continue }
                let reply: [UInt8]
                switch RequestDecoder.decode(line: bytes) {
                case .emptyLine: continue
                case .request(let request): reply = handle(request.message, seq: request.seq, from: client)
                case .error(let error):
                    logger.debug("\(client.label): \(error)")
                    reply = line(.error(error))
                }
                if client.outbox.enqueue(line: reply) == .overflow { cutOff(client) }
            case .needMoreData:
                return
            }
        }
    }

    /// Carries out one request and returns its reply line.
    private func handle(_ request: RequestMessage, seq: Int64?, from client: ClientConnection) -> [UInt8] {
        switch request {
        case .hello(let version, let name):
            client.name = name
            guard version == Int64(ProtocolVersion.current) else {
                return errorLine(
                    code: .unsupportedVersion,
                    message: "this daemon speaks protocol version \(ProtocolVersion.current)", seq: seq)
            }
            logger.info("\(client.label) said hello")
            return line(
                .welcome(
                    Welcome(
                        daemonVersion: daemonVersion, generation: layoutGeneration,
                        screens: layout.screens.map {
                            ScreenInfo(name: $0.name, width: $0.width, height: $0.height)
                        },
                        seq: seq)))
        case .subscribe(let requestedIDs, let subtree):
            let denied = requestedIDs.filter { !access.permits(client.credentials, viewID: $0) }
            let viewIDs = requestedIDs.filter { !denied.contains($0) }
            let unknown = subscriptions.subscribe(client.id, to: viewIDs, subtree: subtree)
            if !denied.isEmpty {
                stats.accessDenials += denied.count
                logger.notice("\(client.label) denied (access list): \(denied.joined(separator: ", "))")
            }
            logger.info(
                "\(client.label) subscribed to \(viewIDs.joined(separator: ", "))"
                    + (subtree ? " (subtree)" : "")
                    + (unknown.isEmpty ? "" : "; unknown: \(unknown.joined(separator: ", "))"))
            if options.replayWaitsForSubscriber
                && subscriptions.subscribedClientCount >= options.replayWaitSubscriberCount
            {
                startReplay()
            }
            if !denied.isEmpty {
                return errorLine(
                    code: .permissionDenied,
                    message: "access list excludes you: \(denied.joined(separator: ", "))"
                        + (unknown.isEmpty ? "" : "; no such view: \(unknown.joined(separator: ", "))"),
                    seq: seq, views: denied)
            }
            guard unknown.isEmpty else {
                return errorLine(
                    code: .unknownViews, message: "no such view: \(unknown.joined(separator: ", "))",
                    seq: seq, views: unknown)
            }
            return line(.subscribed(Subscribed(views: viewIDs, subtree: subtree, seq: seq)))
        case .unsubscribe(let target):
            let viewIDs: [String]? = if case .views(let ids) = target { ids } else { nil }
            let removed = subscriptions.unsubscribe(client.id, from: viewIDs)
            return line(.unsubscribed(Unsubscribed(views: removed, seq: seq)))
        case .hitTest(let screenName, let screenPoint):
            guard let screen = screenName.map(layout.screen(named:)) ?? layout.screens.first else {
                return errorLine(
                    code: .unknownScreen, message: "no such screen: \(screenName ?? "")", seq: seq)
            }
            let hit = tracker.hitTest(screen: screen.name, screenPoint)
            if let hit, !access.permits(client.credentials, viewID: hit.viewID) {
                stats.accessDenials += 1
                return errorLine(
                    code: .permissionDenied, message: "the view there is not open to you (access list)",
                    seq: seq)
            }
            return line(
                .hitTestResult(
                    HitTestReply(
                        screen: screen.name, screenPoint: screenPoint, viewID: hit?.viewID,
                        path: hit?.path ?? [],
                        localPoint: hit?.localPoint, seq: seq)))
        case .explain(let screenName, let screenPoint):
            let explain = ExplainRequest(
                layout: layout, subscriptions: subscriptions, access: access, clients: clients,
                tracker: tracker)
            let reply = explain.reply(screenName: screenName, screenPoint: screenPoint, from: client, seq: seq)
            if case .error(let error) = reply, error.code == .permissionDenied { stats.accessDenials += 1 }
            return line(reply)
        case .layout:
            return line(.layout(LayoutReply(generation: layoutGeneration, layout: layout, seq: seq)))
        case .status:
            return line(.status(StatusReply(counters: statusCounters(), seq: seq)))
        case .reload:
            guard let credentials = client.credentials, credentials.uid == 0 || credentials.uid == geteuid()
            else {
                return errorLine(
                    code: .permissionDenied, message: "reload is for root or the daemon's user", seq: seq)
            }
            if let failure = reload(trigger: "reload request from \(client.label)") {
                return errorLine(code: .internalError, message: failure, seq: seq)
            }
            return line(.reloaded(generation: layoutGeneration, seq: seq))
        }
    }

    private func statusCounters() -> [String: JSONValue] {
        var counters: [String: JSONValue] = [
            "daemonVersion": .string(daemonVersion),
            "generation": .integer(Int64(layoutGeneration)),
            "clients": .integer(Int64(clients.count)),
            "uptimeMicros": .integer(Int64(monotonicMicros() - startedMonotonicMicros)),
            "touchMessages": .integer(Int64(stats.touchMessagesQueued)),
            "clientsCutOff": .integer(Int64(stats.clientsCutOff)),
            "reloadsFailed": .integer(Int64(stats.reloadsFailed)),
            "accessDenials": .integer(Int64(stats.accessDenials)),
            "coalescedMessages": .integer(
                Int64(clients.values.map(\.outbox.coalescedMessageCount).reduce(0, +))),
            "config": .string(options.configPath),
            "input": .string(options.replayPath.map { "replay \($0)" } ?? "live"),
            "subscribedViews": .array(subscriptions.subscribedViews.sorted().map(JSONValue.string)),
            "activeTouches": .integer(Int64(tracker.activeTouchCount)),
        ]
        for (name, value) in tracker.statistics.namedCounters { counters[name] = .integer(Int64(value)) }
        return counters
    }

    /// Writes what the client has queued and watches for writability only while bytes remain.
    private func flush(_ client: ClientConnection) {
        if let failure = client.writePending() {
            disconnect(client, failure)
            return
        }
        let wantsWritable = !client.outbox.isEmpty
        if isStopping && !wantsWritable {
            disconnect(client, .daemonStopping)
            return
        }
        var interest: IOEvents = client.inputClosed ? [] : .readable
        if wantsWritable { interest.insert(.writable) }
        guard interest != client.watchedEvents else { return }
        do {
            try loop.modify(client.fd, for: interest)
            client.watchedEvents = interest
        } catch {
            disconnect(
                client, .writeFailed(error as? SystemError ?? SystemError(call: "epoll_ctl", errno: EIO)))
        }
    }

    /// The client's queue overflowed even after coalescing: the outbox has queued the final
    /// `queue-overflow` error; write it if the socket takes it, and drop the client.
    private func cutOff(_ client: ClientConnection) {
        guard client.closing == nil else { return }
        stats.clientsCutOff += 1
        _ = client.writePending()
        disconnect(client, .queueOverflow(queueBytes: options.clientQueueBytes))
    }

    private func disconnect(_ client: ClientConnection, _ reason: DisconnectReason) {
        guard clients[client.id] != nil else { return }
        client.closing = reason
        loop.deregister(client.fd)
        client.fd.close()
        clients[client.id] = nil
        subscriptions.remove(client.id)
        switch reason {
        case .closedByPeer, .daemonStopping: logger.info("\(client.label) disconnected: \(reason)")
        default: logger.warning("\(client.label) disconnected: \(reason)")
        }
        if isStopping && clients.isEmpty { loop.stop() }
        if isAcceptPaused, let listener {
            isAcceptPaused = false
            try? loop.register(listener.fd, for: .readable) { [unowned self] _ in acceptClients() }
        }
    }

    // MARK: Reload and stop

    /// Parses and validates the config; only a valid one replaces the running layout.
    @discardableResult
    private func reload(trigger: String) -> String? {
        guard !isStopping else { return "the daemon is stopping" }
        let newConfig: Config
        do {
            newConfig = try loadConfig(path: options.configPath)
        } catch {
            for configError in error.errors { logger.error(configError.description) }
            stats.reloadsFailed += 1
            logger.error("reload (\(trigger)) failed; keeping layout generation \(layoutGeneration)")
            return error.description
        }
        let newLayout = newConfig.layout
        guard newConfig != config else {
            logger.info("reload (\(trigger)): config unchanged")
            return nil
        }
        systemd?.notify("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicros())")
        defer { systemd?.notify("READY=1\nSTATUS=layout generation \(layoutGeneration)") }
        // Cancels go to the subscribers the removed views had, so relayout subscriptions after.
        deliver(tracker.replaceLayout(newLayout, timestampMicros: monotonicMicros()))
        config = newConfig
        layoutGeneration += 1
        subscriptions.relayout(newLayout)
        access = AccessPolicy(config: newConfig)
        for name in access.unknownNames {
            logger.warning("access list: no such \(name); it admits nobody")
        }
        // Devices may now drive another screen, or none.
        for event in liveInput?.reassignDevices() ?? [] { process(event) }
        logger.notice("reload (\(trigger)): layout generation \(layoutGeneration), \(layout.viewCount) views")
        let changed = line(.layoutChanged(generation: layoutGeneration))
        for client in Array(clients.values) where client.closing == nil {
            if client.outbox.enqueue(line: changed) == .overflow { cutOff(client) } else { flush(client) }
        }
        return nil
    }

    /// Cancels every active touch (reason `shutdown`), tells clients, flushes within a deadline.
    private func beginStop(reason: String) {
        guard !isStopping else { return }
        logger.notice("stopping: \(reason)")
        systemd?.notify("STOPPING=1\nSTATUS=stopping: \(reason)")
        deliver(tracker.cancelAll(reason: .shutdown, timestampMicros: monotonicMicros()))
        isStopping = true
        if let listener {
            loop.deregister(listener.fd)
            listener.close()
            self.listener = nil
        }
        let goodbye = errorLine(code: .shuttingDown, message: "the daemon is stopping")
        for client in Array(clients.values) where client.closing == nil {
            _ = client.outbox.enqueue(line: goodbye)
            flush(client)
        }
        if clients.isEmpty {
            loop.stop()
        } else {
            try? timer.arm(atMonotonicMicros: monotonicMicros() + 2_000_000)
        }
    }
}

/// An `error` line.
private func errorLine(code: ErrorCode, message: String, seq: Int64? = nil, views: [String] = []) -> [UInt8] {
    line(.error(ProtocolError(code: code, message: message, seq: seq, views: views)))
}

/// One daemon → client message as a wire line.
private func line(_ message: DaemonMessage) -> [UInt8] { message.encodedLine() }

func writeStderr(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}
