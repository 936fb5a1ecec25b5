/// touchrouterd's glue: one epoll loop serving input (replay timer or libinput), the listening
/// socket, clients, signals and config-file changes; one teardown path.
import Glibc
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

/// The daemon's version, reported in `welcome` and `status`.
public let daemonVersion = "0.1.0"

/// The running daemon. Create it with `init(options:logger:)`, then `run()`; it returns after a
/// graceful stop.
public final class Daemon {
    private let options: DaemonOptions
    private let logger: Logger
    /// Undoes start-up, in reverse: every resource `init` and `run` acquire pushes its release
    /// here as it is acquired, and one path (`tearDown`) runs them — after a graceful stop, after
    /// the loop failed, and when `init` fails half-way.
    private let teardown = TeardownStack()
    private let loop: EventLoop
    private var listener: Listener?
    private let signals: SignalChannel
    private let timer: MonotonicTimer
    /// Armed only while something has a deadline: a retry once a second (a config watch to
    /// re-establish after its directory was moved away, a reload that failed for want of
    /// resources) or a misbehaving client's final error line, which it gets 2 s to take.
    private let housekeepingTimer: MonotonicTimer
    /// When the next retry is due, if one waits.
    private var retryAtMicros: UInt64?
    /// Clients being closed after a final error line: when they are closed at the latest.
    private var lingerDeadlines: [ClientID: UInt64] = [:]
    private var configWatch: ConfigWatch?
    /// The last reload failed for a transient reason (EMFILE, ENFILE, EINTR, ENOMEM): try again.
    private var reloadRetryPending = false
    /// Builds new layouts off the loop.
    private let reloadWorker: ReloadWorker
    /// The reload being built, and the one queued behind it.
    private var reloadInFlight: ReloadJob?
    private var reloadQueued: ReloadJob?
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
    /// The replayed device, and the screen the current config gives it (a reload may rename or
    /// reassign it, as it does for live devices).
    private var replayDevice: InputDevice?
    private var replayScreen: String?
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
    /// Clients with buffered request lines left over from a turn (see `serveBacklog`).
    private var backloggedClients: Set<ClientID> = []

    private struct Stats {
        var touchMessagesQueued = 0
        var clientsCutOff = 0
        /// Reloads refused because the new config did not load or validate.
        var reloadsFailed = 0
        /// Requests (subscribe, hitTest) refused by a view's access list, one per request.
        var accessDenials = 0
        /// Clients disconnected for sending lines faster than their request budget.
        var clientsFlooding = 0
        /// `touches` messages merged away by coalescing, summed over clients that have left.
        var coalescedByGoneClients = 0
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
        let daemon: Daemon
        do {
            daemon = try Daemon(options: options, logger: logger)
        } catch let error as ConfigErrors {
            for configError in error.errors.prefix(50) { logger.error(configError.description) }
            logger.error("cannot start: the config has errors")
            return 1
        } catch {
            logger.error("cannot start: \(error)")
            return 1
        }
        do {
            try daemon.run()
            return 0
        } catch {
            logger.error("stopped by an error: \(error)")
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
            replayDevice = frames.first?.device
            replayScreen = frames.first?.screen
            logger.info(
                "replay: \(path), \(frames.count) frames, speed \(options.replaySpeed)"
                    + (options.replayLoops ? ", looping" : ""))
        }

        let teardown = self.teardown
        do {
            loop = try EventLoop()
            let signals = try SignalChannel(signals: [SIGTERM, SIGINT, SIGHUP])
            teardown.push { signals.fd.close() }
            self.signals = signals
            let timer = try MonotonicTimer()
            teardown.push { timer.fd.close() }
            self.timer = timer
            let housekeepingTimer = try MonotonicTimer()
            teardown.push { housekeepingTimer.fd.close() }
            self.housekeepingTimer = housekeepingTimer
            let reloadWorker = try ReloadWorker()
            teardown.push {
                reloadWorker.waitUntilIdle()
                reloadWorker.close()
            }
            self.reloadWorker = reloadWorker
            try registerAndListen()
        } catch {
            teardown.run()
            throw error
        }
    }

    /// The second half of start-up: everything joins the loop, input opens, the socket listens.
    private func registerAndListen() throws {
        if getenv("TOUCHROUTERD_INJECT_LOOP_FAILURE") != nil {
            // Tests only: the running loop fails, to prove the teardown path.
            loop.injectedFailure = SystemError(call: "epoll_wait (injected by TOUCHROUTERD_INJECT_LOOP_FAILURE)", errno: EIO)
        }
        try loop.register(signals.fd, for: .readable) { [unowned self] _ in handleSignals() }
        try loop.register(timer.fd, for: .readable) { [unowned self] _ in handleTimer() }
        try loop.register(housekeepingTimer.fd, for: .readable) { [unowned self] _ in handleHousekeepingTimer() }
        loop.afterEachBatch = { [unowned self] in serveBacklog() }
        try loop.register(reloadWorker.fd, for: .readable) { [unowned self] _ in handleReloadOutcome() }
        do {
            let watch = try ConfigWatch(configPath: options.configPath)
            teardown.push { watch.close() }
            try loop.register(watch.fd, for: .readable) { [unowned self] _ in handleConfigWatch() }
            configWatch = watch
        } catch {
            logger.warning("not watching \(options.configPath) for changes: \(error); SIGHUP still reloads")
        }
        if replay == nil { try openLiveInput() }

        // Last: nothing can fail after it, so a daemon that cannot start never had a socket file.
        let listener = try Listener.open(options.socket)
        teardown.push { [weak self] in
            self?.listener?.close()
            self?.listener = nil
        }
        self.listener = listener
        try loop.register(listener.fd, for: .readable) { [unowned self] _ in acceptClients() }
        logger.notice(
            "listening on \(listener.path)"
                + (listener.isSocketActivated
                    ? " (socket activation)" : ", mode \(String(options.socket.mode, radix: 8))"))
        logger.notice("layout generation 1: \(layout.screens.count) screen(s), \(layout.viewCount) views")
    }

    /// Serves until SIGTERM/SIGINT (or the end of a replay with `--exit-after-replay`), then
    /// tears everything down in reverse order — also when the loop fails.
    public func run() throws {
        defer { tearDown() }
        if replay != nil && !options.replayWaitsForSubscriber { startReplay() }
        systemd?.notify(
            "READY=1\nSTATUS=layout generation \(layoutGeneration), serving \(options.socket.path)")
        if let systemd, let interval = SystemdNotifier.watchdogIntervalMicros() {
            // The only periodic wake-up, and only when the unit sets WatchdogSec=.
            let watchdog = try MonotonicTimer()
            try watchdog.armPeriodic(intervalMicros: max(interval / 2, 1))
            teardown.push { watchdog.fd.close() }
            try loop.register(watchdog.fd, for: .readable) { _ in
                watchdog.acknowledge()
                systemd.notify("WATCHDOG=1")
            }
            watchdogTimer = watchdog
        }
        try loop.run()
    }

    /// The one teardown path: clients closed, then every resource released in the reverse order
    /// of its acquisition (the socket file first, the signal channel last).
    private func tearDown() {
        for client in Array(clients.values) { disconnect(client, .daemonStopping) }
        teardown.run()
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
            log: { level, message in logger.log(level, message) })
        liveInput = reader
        teardown.push { [weak self] in self?.liveInput = nil }
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
            case SIGHUP: requestReload(trigger: "SIGHUP")
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

    /// Closes lingering clients whose deadline passed, re-establishes a lost config watch and
    /// retries a reload that failed for want of resources; re-armed for what still waits.
    /// Cost: one pass over the lingering clients (each misbehaved in the last 2 s).
    private func handleHousekeepingTimer() {
        housekeepingTimer.acknowledge()
        let now = monotonicMicros()
        for (clientID, deadline) in lingerDeadlines where deadline <= now {
            lingerDeadlines[clientID] = nil
            if let client = clients[clientID], let reason = client.closing { disconnect(client, reason) }
        }
        if let due = retryAtMicros, due <= now {
            retryAtMicros = nil
            if let configWatch, !configWatch.isWatching { reestablishConfigWatch() }
            if reloadRetryPending {
                reloadRetryPending = false
                requestReload(trigger: "retry after a transient failure")
            }
        }
        armHousekeepingTimer()
    }

    private func scheduleRetry() {
        retryAtMicros = monotonicMicros() + 1_000_000
        armHousekeepingTimer()
    }

    /// Arms the timer for the earliest deadline, or disarms it when nothing waits.
    private func armHousekeepingTimer() {
        let next = ([retryAtMicros].compactMap { $0 } + lingerDeadlines.values).min()
        do {
            if let next { try housekeepingTimer.arm(atMonotonicMicros: next) } else { try housekeepingTimer.disarm() }
        } catch {
            logger.error("housekeeping timer: \(error)")
        }
    }

    // MARK: Config file watch

    /// Cost: one drain of the inotify queue (bounded by the kernel's queue), then at most one
    /// reload.
    private func handleConfigWatch() {
        guard let watch = configWatch else { return }
        let changes = watch.drain()
        if changes.overflowed {
            logger.warning("config watch: the inotify queue overflowed and events were lost; reading the config again")
        }
        if changes.watchLost {
            logger.warning("config watch: \(excerpt(watch.directory)) was moved or deleted; watching its path again")
            reestablishConfigWatch()
        } else if changes.needsReload {
            requestReload(trigger: changes.overflowed ? "inotify queue overflow" : "config file changed")
        }
    }

    /// Watches the config directory's path again; the file may have changed meanwhile, so it is
    /// read again. While the path does not exist, retries once a second.
    private func reestablishConfigWatch() {
        guard let watch = configWatch else { return }
        do {
            try watch.reestablish()
            logger.notice("config watch: watching \(excerpt(watch.directory)) again")
            requestReload(trigger: "config watch re-established")
        } catch {
            logger.warning("config watch: \(excerpt(watch.directory)): \(error); retrying every second")
            scheduleRetry()
        }
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
            if let replayScreen { frame.screen = replayScreen }
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
                logger.error("\(error); not accepting until a client disconnects")
                loop.deregister(listener.fd)
                isAcceptPaused = true
                return
            } catch {
                logger.error("\(error)")
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
        if let reason = client.closing {
            // Lingering for its final line; a client that hangs up is closed at once.
            if events.contains(.failed) { disconnect(client, reason) }
            return
        }
        guard clients[client.id] != nil else { return }
        guard !events.isDisjoint(with: [.readable, .peerClosed, .failed]) else { return }
        if client.inputClosed {
            // Only a full close (EPOLLHUP/ERR) can wake a half-closed client.
            disconnect(client, .closedByPeer)
            return
        }
        if client.hasBacklog {
            // Not reading while earlier lines wait; only a full close (EPOLLHUP/ERR) gets here.
            if events.contains(.failed) { disconnect(client, .closedByPeer) }
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

    /// Handles the client's buffered lines, at most `ClientConnection.linesPerTurn` of them, and
    /// none while its queue is over half full (backpressure: the rest wait in the framer, and the
    /// socket is not read, until the queue drains). Lines left over put the client in the backlog
    /// that `serveBacklog` works through between loop turns. Every line, blank or not, takes a token
    /// from the client's request budget; a client out of tokens is cut off as flooding.
    /// Cost per call: at most `linesPerTurn` requests.
    private func handleLines(of client: ClientConnection) {
        var handled = 0
        let now = monotonicMicros()
        client.hasBacklog = false
        defer { if client.hasBacklog && client.closing == nil { backloggedClients.insert(client.id) } }
        while client.closing == nil {
            guard handled < ClientConnection.linesPerTurn, client.canTakeRequests else {
                client.hasBacklog = client.framer.bufferedByteCount > 0
                return
            }
            switch client.framer.nextLine() {
            case .lineTooLong(let limit):
                closeAfterFinalLine(
                    client, ProtocolError(code: .lineTooLong, message: "a request line may be at most \(limit) bytes"),
                    reason: .lineTooLong)
            case .line(let bytes):
                handled += 1
                guard client.requestBudget.take(atMicros: now) else {
                    stats.clientsFlooding += 1
                    let budget = client.requestBudget
                    closeAfterFinalLine(
                        client,
                        ProtocolError(
                            code: .tooManyRequests,
                            message: "more than \(budget.capacity) lines at once "
                                + "(at most \(budget.refillPerSecond) per second); disconnecting"),
                        reason: .flooding(budget))
                    return
                }
                if isStopping { continue }
                let reply: [UInt8]
                switch RequestDecoder.decode(line: bytes) {
                case .emptyLine: continue
                case .request(let request):
                    guard let answer = handle(request.message, seq: request.seq, from: client) else { continue }
                    reply = answer
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

    /// Works through the clients whose buffered lines a turn left over, one bounded slice each
    /// (`handleLines`), skipping those waiting for their queue to drain. Returns whether any is
    /// left that can go on at once (the loop then polls without sleeping).
    /// Cost per call: at most `linesPerTurn` requests per backlogged client.
    private func serveBacklog() -> Bool {
        guard !backloggedClients.isEmpty else { return false }
        var canContinue = false
        for clientID in backloggedClients.sorted() {
            guard let client = clients[clientID], client.closing == nil else {
                backloggedClients.remove(clientID)
                continue
            }
            guard client.canTakeRequests else { continue }  // its EPOLLOUT brings it back
            backloggedClients.remove(clientID)
            handleLines(of: client)
            guard client.closing == nil else { continue }
            flush(client)
            if client.hasBacklog && client.canTakeRequests { canContinue = true }
        }
        return canContinue
    }

    /// Carries out one request and returns its reply line.
    private func handle(_ request: RequestMessage, seq: Int64?, from client: ClientConnection) -> [UInt8]? {
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
            var seen = Set<String>()
            let uniqueIDs = requestedIDs.filter { seen.insert($0).inserted }
            let denied = uniqueIDs.filter { !access.permits(client.credentials, viewID: $0) }
            let viewIDs = uniqueIDs.filter { !denied.contains($0) }
            let unknown = subscriptions.subscribe(client.id, to: viewIDs, subtree: subtree)
            if !denied.isEmpty {
                stats.accessDenials += 1
                logger.notice("\(client.label) denied (access list): \(excerptList(denied))")
            }
            logger.info(
                "\(client.label) subscribed to \(excerptList(viewIDs))"
                    + (subtree ? " (subtree)" : "")
                    + (unknown.isEmpty ? "" : "; unknown: \(excerptList(unknown))"))
            if options.replayWaitsForSubscriber
                && subscriptions.subscribedClientCount >= options.replayWaitSubscriberCount
            {
                startReplay()
            }
            if !denied.isEmpty {
                return errorLine(
                    code: .permissionDenied,
                    message: "access list excludes you: \(excerptList(denied))"
                        + (unknown.isEmpty ? "" : "; no such view: \(excerptList(unknown))"),
                    seq: seq, views: denied)
            }
            guard unknown.isEmpty else {
                return errorLine(
                    code: .unknownViews, message: "no such view: \(excerptList(unknown))",
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
                    code: .unknownScreen, message: "no such screen: \(excerpt(screenName ?? ""))", seq: seq)
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
            let visible = isAdmin(client) ? layout : access.visibleLayout(layout, to: client.credentials)
            return line(.layout(LayoutReply(generation: layoutGeneration, layout: visible, seq: seq)))
        case .status:
            return line(.status(StatusReply(counters: statusCounters(for: client), seq: seq)))
        case .reload:
            guard isAdmin(client) else {
                return errorLine(
                    code: .permissionDenied, message: "reload is for root or the daemon's user", seq: seq)
            }
            // Answered when the reload is done (`handleReloadOutcome`).
            requestReload(trigger: "reload request from \(client.label)", replyTo: (client.id, seq))
            return nil
        }
    }

    /// Root and the daemon's own user: they may reload and see everything (every view, every
    /// counter).
    private func isAdmin(_ client: ClientConnection) -> Bool {
        guard let credentials = client.credentials else { return false }
        return credentials.uid == 0 || credentials.uid == geteuid()
    }

    /// The `status` counters for `client` (docs/operations.md lists each). Every count is a total
    /// since start. A client learns nothing of other clients' interests, and, while any view has an
    /// access list, nothing of touches unless it is an admin: touch counts and their timing would
    /// tell it when a protected view is touched. Its own subscriptions are listed (at most 1,000).
    private func statusCounters(for client: ClientConnection) -> [String: JSONValue] {
        var counters: [String: JSONValue] = [
            "daemonVersion": .string(daemonVersion),
            "generation": .integer(Int64(layoutGeneration)),
            "clients": .integer(Int64(clients.count)),
            "uptimeMicros": .integer(Int64(monotonicMicros() - startedMonotonicMicros)),
            "clientsCutOff": .integer(Int64(stats.clientsCutOff)),
            "clientsFlooding": .integer(Int64(stats.clientsFlooding)),
            "reloadsFailed": .integer(Int64(stats.reloadsFailed)),
            "config": .string(options.configPath),
            "input": .string(options.replayPath.map { "replay \($0)" } ?? "live"),
        ]
        let own = subscriptions.requestedViews(of: client.id)
        counters["ownSubscriptionCount"] = .integer(Int64(own.count))
        counters["ownSubscriptions"] = .array(
            own.prefix(1000).map { JSONValue.object(["view": .string($0.viewID), "subtree": .bool($0.subtree)]) })
        let admin = isAdmin(client)
        if admin {
            counters["accessDenials"] = .integer(Int64(stats.accessDenials))
            counters["subscribedViewCount"] = .integer(Int64(subscriptions.subscribersByView.count))
            counters["coalescedMessages"] = .integer(
                Int64(stats.coalescedByGoneClients + clients.values.map(\.outbox.coalescedMessageCount).reduce(0, +)))
        }
        if admin || access.isEmpty {
            counters["touchMessages"] = .integer(Int64(stats.touchMessagesQueued))
            counters["activeTouches"] = .integer(Int64(tracker.activeTouchCount))
            for (name, value) in tracker.statistics.namedCounters { counters[name] = .integer(Int64(value)) }
        }
        return counters
    }

    /// Ends a misbehaving client's connection with `error` as its last line: its queue is cut to
    /// that line (nothing else queued is sent), nothing more is read or queued, and the connection
    /// closes once the line is written, or after 2 s if the client does not take it.
    private func closeAfterFinalLine(_ client: ClientConnection, _ error: ProtocolError, reason: DisconnectReason) {
        client.outbox.finish(with: error)
        client.closing = reason
        client.hasBacklog = false
        backloggedClients.remove(client.id)
        lingerDeadlines[client.id] = monotonicMicros() + 2_000_000
        armHousekeepingTimer()
        flush(client)
    }

    /// Writes what the client has queued and watches for writability only while bytes remain.
    private func flush(_ client: ClientConnection) {
        if let failure = client.writePending() {
            disconnect(client, failure)
            return
        }
        let wantsWritable = !client.outbox.isEmpty
        if let reason = client.closing {
            // Lingering for its final line: close once it is written.
            if wantsWritable {
                if client.watchedEvents != .writable, (try? loop.modify(client.fd, for: .writable)) != nil {
                    client.watchedEvents = .writable
                }
            } else {
                disconnect(client, reason)
            }
            return
        }
        if isStopping && !wantsWritable {
            disconnect(client, .daemonStopping)
            return
        }
        var interest: IOEvents = client.inputClosed || client.hasBacklog ? [] : .readable
        if wantsWritable { interest.insert(.writable) }
        guard interest != client.watchedEvents else { return }
        do {
            try loop.modify(client.fd, for: interest)
            client.watchedEvents = interest
        } catch {
            disconnect(
                client, .writeFailed(error))
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
        lingerDeadlines[client.id] = nil
        client.closing = reason
        stats.coalescedByGoneClients += client.outbox.coalescedMessageCount
        backloggedClients.remove(client.id)
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

    /// A reload being built, or waiting for the one being built: why, and which `reload`
    /// requests wait for its answer.
    private struct ReloadJob {
        var triggers: [String] = []
        var replyTo: [(client: ClientID, seq: Int64?)] = []

        var trigger: String { triggers.count == 1 ? triggers[0] : triggers.joined(separator: ", ") }
    }

    /// Asks for the config to be read again. The build runs on the reload worker; the routing loop
    /// goes on meanwhile and swaps the result in when it is ready (`applyReload`). A request made
    /// while a build runs is queued behind it (several merge into one), so the last save always
    /// ends up live and never an older one. `replyTo` gets `reloaded` or an error when it is done.
    /// Cost on the loop: O(1).
    private func requestReload(trigger: String, replyTo: (client: ClientID, seq: Int64?)? = nil) {
        guard !isStopping else { return }
        if reloadInFlight != nil {
            var queued = reloadQueued ?? ReloadJob()
            queued.triggers.append(trigger)
            if let replyTo { queued.replyTo.append(replyTo) }
            reloadQueued = queued
            return
        }
        var job = ReloadJob(triggers: [trigger])
        if let replyTo { job.replyTo.append(replyTo) }
        startReload(job)
    }

    private func startReload(_ job: ReloadJob) {
        reloadInFlight = job
        reloadWorker.start(path: options.configPath, current: config, subscriptions: subscriptions)
    }

    /// The worker finished: swap its result in (or keep the layout), answer the waiting requests,
    /// start the queued reload if any.
    private func handleReloadOutcome() {
        guard let outcome = reloadWorker.take(), let job = reloadInFlight else { return }
        reloadInFlight = nil
        let failure = isStopping ? "the daemon is stopping" : applyReload(outcome, trigger: job.trigger)
        for (clientID, seq) in job.replyTo {
            guard let client = clients[clientID], client.closing == nil else { continue }
            let reply =
                failure.map { errorLine(code: .internalError, message: $0, seq: seq) }
                ?? line(.reloaded(generation: layoutGeneration, seq: seq))
            if client.outbox.enqueue(line: reply) == .overflow { cutOff(client) } else { flush(client) }
        }
        if let queued = reloadQueued, !isStopping {
            reloadQueued = nil
            startReload(queued)
        }
    }

    /// Swaps a finished build in. Returns the failure to report, if the file was refused.
    /// Cost: `TouchTracker.replaceLayout`'s (the live touches), the cancels it sends, and one
    /// `layoutChanged` line per client; everything that grows with the layout was built by the
    /// worker, and the old layout is released there too.
    private func applyReload(_ outcome: ReloadOutcome, trigger: String) -> String? {
        let prepared: PreparedReload
        switch outcome {
        case .failed(let error):
            for configError in error.errors.prefix(20) { logger.error(configError.description) }
            if error.errors.count > 20 { logger.error("… and \(error.errors.count - 20) more errors") }
            stats.reloadsFailed += 1
            let transient = error.errors.contains { [EMFILE, ENFILE, EINTR, ENOMEM].contains($0.systemErrno ?? 0) }
            logger.error(
                "reload (\(trigger)) failed; keeping layout generation \(layoutGeneration)"
                    + (transient ? "; retrying in a second (the failure was for want of resources)" : ""))
            if transient {
                reloadRetryPending = true
                scheduleRetry()
            }
            return error.errors.first.map(\.description) ?? "the config did not load"
        case .unchanged:
            logger.info("reload (\(trigger)): config unchanged")
            return nil
        case .ready(let ready):
            prepared = ready
        }
        systemd?.notify("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicros())")
        defer { systemd?.notify("READY=1\nSTATUS=layout generation \(layoutGeneration)") }
        // What the old layout holds is released on the worker, not here.
        reloadWorker.retire((config, tracker.preparedLayout, access, subscriptions))
        // Cancels go to the subscribers the removed views had, so relayout subscriptions after.
        deliver(tracker.replaceLayout(prepared.layout, timestampMicros: monotonicMicros()))
        config = prepared.config
        layoutGeneration += 1
        if prepared.subscriptions.version == subscriptions.version {
            subscriptions = prepared.subscriptions
        } else {
            // A client (un)subscribed while the worker built: re-expand the live table here.
            subscriptions.relayout(prepared.config.layout)
        }
        access = prepared.access
        for name in access.unknownNames {
            logger.warning("access list: no such \(name); it admits nobody")
        }
        // Devices may now drive another screen, or none.
        for event in liveInput?.reassignDevices() ?? [] { process(event) }
        if let replayDevice {
            replayScreen = config.screenName(forDeviceNamed: replayDevice.name, udevProperties: [:], node: nil)
            if replayScreen == nil { logger.warning("replay: no screen in the new config takes \(excerpt(replayDevice.name))") }
        }
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

/// Releases, pushed as resources are acquired and run in reverse.
final class TeardownStack {
    private var steps: [() -> Void] = []

    /// Adds the release of a resource just acquired.
    func push(_ step: @escaping () -> Void) { steps.append(step) }

    /// Runs every step, last pushed first, once.
    func run() {
        while let step = steps.popLast() { step() }
    }
}

/// An `error` line.
private func errorLine(code: ErrorCode, message: String, seq: Int64? = nil, views: [String] = []) -> [UInt8] {
    line(.error(ProtocolError(code: code, message: message, seq: seq, views: views)))
}

/// Ids for a message or log line: at most 10, each quoted through `excerpt`.
private func excerptList(_ ids: [String]) -> String {
    let shown = ids.prefix(10).map { excerpt($0) }.joined(separator: ", ")
    return ids.count > 10 ? shown + " and \(ids.count - 10) more" : shown
}

/// One daemon → client message as a wire line.
private func line(_ message: DaemonMessage) -> [UInt8] { message.encodedLine() }

func writeStderr(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}
