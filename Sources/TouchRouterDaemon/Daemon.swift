/// touchrouterd's glue: one epoll loop serving input (replay timer or libinput), the listening
/// socket, clients, signals and config-file changes; one teardown path.
import Glibc
import TouchRouterCore
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

    private var layout: Layout
    private var layoutGeneration = 1
    private var router: TouchRouter
    private var subscriptions: SubscriptionTable

    private var clients: [ClientID: ClientConnection] = [:]
    private var nextClientID: ClientID = 1
    private var replay: ReplayClock?
    private var isStopping = false
    private let startedMonotonicMicros = monotonicMicros()
    private var stats = Stats()

    private struct Stats {
        var framesProcessed = 0
        var touchMessagesQueued = 0
        var clientsCutOff = 0
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
        do {
            let daemon = try Daemon(options: options, logger: logger)
            try daemon.run()
            return 0
        } catch let error as LayoutLoadError {
            for message in error.messages { logger.error(message) }
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
        layout = try LayoutLoader.load(path: options.configPath)
        router = TouchRouter(layout: layout)
        subscriptions = SubscriptionTable(layout: layout)
        if let path = options.replayPath {
            let events = try RecordingLoader.load(
                path: path, devicePath: options.replayDevicePath, layout: layout)
            replay = ReplayClock(events: events, speed: options.replaySpeed, loops: options.replayLoops)
            logger.info("replay: \(path), \(events.count) frames, speed \(options.replaySpeed)"
                + (options.replayLoops ? ", looping" : ""))
        }

        loop = try EventLoop()
        signals = try SignalChannel(signals: [SIGTERM, SIGINT, SIGHUP])
        timer = try MonotonicTimer()
        let listener = try Listener.open(options.socket)
        self.listener = listener
        logger.notice("listening on \(listener.path)"
            + (listener.isSocketActivated ? " (socket activation)" : ", mode \(String(options.socket.mode, radix: 8))"))

        try loop.register(signals.fd, for: .readable) { [unowned self] _ in handleSignals() }
        try loop.register(timer.fd, for: .readable) { [unowned self] _ in handleTimer() }
        try loop.register(listener.fd, for: .readable) { [unowned self] _ in acceptClients() }
        do {
            let watch = try ConfigWatch(configPath: options.configPath)
            try loop.register(watch.fd, for: .readable) { [unowned self] _ in
                if watch.configChanged() { reload(trigger: "config file changed") }
            }
            configWatch = watch
        } catch {
            logger.warning("not watching \(options.configPath) for changes: \(error); SIGHUP still reloads")
        }
        if replay == nil {
            logger.warning("no live input in this build yet; use --replay RECORDING")
        }
        logger.notice("layout generation 1: \(layout.screens.count) screen(s), \(layout.viewCount) views")
    }

    /// Serves until SIGTERM/SIGINT (or the end of a replay with `--exit-after-replay`), then
    /// tears everything down in reverse order.
    public func run() throws {
        if replay != nil && !options.replayWaitsForSubscriber { startReplay() }
        try loop.run()
        for client in clients.values { disconnect(client, .daemonStopping) }
        configWatch?.close()
        listener?.close()
        timer.fd.close()
        signals.fd.close()
        logger.notice("stopped")
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
        armReplayTimer()
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
        var played = 0
        while let event = clock.nextDueEvent(atMonotonicMicros: now) {
            replay = clock
            process(event)
            played += 1
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
        stats.framesProcessed += 1
        deliver(router.process(event, subscribedViews: subscriptions.subscribedViews))
    }

    /// Queues each view's touches to exactly that view's subscribers, then writes once per client.
    private func deliver(_ batches: [ViewTouches]) {
        guard !batches.isEmpty else { return }
        var written: [ClientID: ClientConnection] = [:]
        for viewTouches in batches {
            guard let subscribers = subscriptions.subscribersByView[viewTouches.viewID] else { continue }
            let line = Wire.touches(viewTouches)
            for clientID in subscribers {
                guard let client = clients[clientID], client.closing == nil else { continue }
                if client.outbox.enqueue(touches: viewTouches, encoded: line) {
                    stats.touchMessagesQueued += 1
                    written[clientID] = client
                } else {
                    cutOff(client)
                }
            }
        }
        for client in written.values where client.closing == nil { flush(client) }
    }

    // MARK: Clients

    private func acceptClients() {
        guard let listener else { return }
        while true {
            let fd: FileDescriptor
            do {
                guard let accepted = try listener.accept() else { return }
                fd = accepted
            } catch {
                logger.error("accept: \(error)")
                return
            }
            let credentials = try? PeerCredentials(socket: fd)
            let client = ClientConnection(
                id: nextClientID, fd: fd, credentials: credentials, queueCapacityBytes: options.clientQueueBytes)
            nextClientID += 1
            if clients.count >= options.maxClients || isStopping {
                client.sendFinalLine(Wire.error(ProtocolError(
                    code: .tooManyClients, message: "the daemon serves at most \(options.maxClients) clients")))
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
        let endOfInput = client.readAvailable()
        handleLines(of: client)
        if let endOfInput, client.closing == nil {
            disconnect(client, endOfInput)
        } else if client.closing == nil {
            flush(client)
        }
    }

    private func handleLines(of client: ClientConnection) {
        while client.closing == nil, let framed = client.framer.nextLine() {
            switch framed {
            case .tooLong:
                client.sendFinalLine(Wire.error(ProtocolError(
                    code: .lineTooLong, message: "a request line may be at most 65536 bytes")))
                disconnect(client, .lineTooLong)
            case .line(let bytes):
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
                if isStopping { continue }
                let reply: [UInt8]
                switch Wire.decode(bytes) {
                case .success(let (request, seq)): reply = handle(request, seq: seq, from: client)
                case .failure(let error):
                    logger.debug("\(client.label): \(error)")
                    reply = Wire.error(error)
                }
                if !client.outbox.enqueue(reply) { cutOff(client) }
            }
        }
    }

    /// Carries out one request and returns its reply line.
    private func handle(_ request: Request, seq: Int64?, from client: ClientConnection) -> [UInt8] {
        switch request {
        case .hello(let version, let name):
            client.name = name
            guard version == ProtocolVersion.current else {
                return Wire.error(ProtocolError(
                    code: .unsupportedVersion,
                    message: "this daemon speaks protocol version \(ProtocolVersion.current)", seq: seq))
            }
            logger.info("\(client.label) said hello")
            return Wire.withSeq([
                "type": "welcome", "version": ProtocolVersion.current, "daemon": daemonVersion,
                "generation": layoutGeneration, "screens": layout.screens.map(\.name),
            ], seq)
        case .subscribe(let viewIDs, let subtree):
            let unknown = subscriptions.subscribe(client.id, to: viewIDs, subtree: subtree)
            logger.info("\(client.label) subscribed to \(viewIDs.joined(separator: ", "))"
                + (subtree ? " (subtree)" : "") + (unknown.isEmpty ? "" : "; unknown: \(unknown.joined(separator: ", "))"))
            if options.replayWaitsForSubscriber
                && subscriptions.subscribedClientCount >= options.replayWaitSubscriberCount
            {
                startReplay()
            }
            guard unknown.isEmpty else {
                return Wire.error(ProtocolError(
                    code: .unknownViews, message: "no such view: \(unknown.joined(separator: ", "))",
                    seq: seq, views: unknown))
            }
            return Wire.withSeq(["type": "subscribed", "views": subscriptions.views(of: client.id)], seq)
        case .unsubscribe(let viewIDs):
            subscriptions.unsubscribe(client.id, from: viewIDs)
            return Wire.withSeq(["type": "unsubscribed", "views": subscriptions.views(of: client.id)], seq)
        case .hitTest(let screenName, let point):
            guard let screen = layout.screen(named: screenName) else {
                return Wire.error(ProtocolError(
                    code: .unknownScreen, message: "no such screen: \(screenName)", seq: seq))
            }
            var reply: [String: Any] = ["type": "hitTest", "screen": screenName, "point": [point.x, point.y]]
            if let hit = PlainHitTest.hitTest(screen.root, screenPoint: point) {
                reply["view"] = hit.viewID
                reply["path"] = hit.path
                reply["location"] = [hit.localPoint.x, hit.localPoint.y]
            }
            return Wire.withSeq(reply, seq)
        case .layout:
            var reply = Wire.layout(layout)
            reply["type"] = "layout"
            reply["generation"] = layoutGeneration
            return Wire.withSeq(reply, seq)
        case .status:
            var status: [String: Any] = [
                "type": "status", "daemon": daemonVersion, "version": ProtocolVersion.current,
                "generation": layoutGeneration, "clients": clients.count,
                "uptimeMicros": monotonicMicros() - startedMonotonicMicros,
                "framesProcessed": stats.framesProcessed, "touchMessages": stats.touchMessagesQueued,
                "clientsCutOff": stats.clientsCutOff, "config": options.configPath,
                "subscribedViews": subscriptions.subscribedViews.sorted(),
            ]
            status["input"] = options.replayPath.map { "replay \($0)" } ?? "live"
            return Wire.withSeq(status, seq)
        }
    }

    /// Writes what the client has queued and watches for writability only while bytes remain.
    private func flush(_ client: ClientConnection) {
        if let failure = client.writePending() {
            disconnect(client, failure)
            return
        }
        let wantsWritable = client.outbox.pendingBytes > 0
        if isStopping && !wantsWritable {
            disconnect(client, .daemonStopping)
            return
        }
        guard wantsWritable != client.isWatchingWritable else { return }
        do {
            try loop.modify(client.fd, for: wantsWritable ? [.readable, .writable] : .readable)
            client.isWatchingWritable = wantsWritable
        } catch {
            disconnect(client, .writeFailed(error as? SystemError ?? SystemError(call: "epoll_ctl", errno: EIO)))
        }
    }

    /// The client's queue overflowed even after coalescing: tell it, if possible, and drop it.
    private func cutOff(_ client: ClientConnection) {
        guard client.closing == nil else { return }
        let queued = client.outbox.pendingBytes
        stats.clientsCutOff += 1
        client.sendFinalLine(Wire.error(ProtocolError(
            code: .queueOverflow,
            message: "you read too slowly: \(queued) bytes were queued (limit \(options.clientQueueBytes))")))
        disconnect(client, .queueOverflow(queuedBytes: queued))
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
    }

    // MARK: Reload and stop

    /// Parses and validates the config; only a valid one replaces the running layout.
    private func reload(trigger: String) {
        guard !isStopping else { return }
        let newLayout: Layout
        do {
            newLayout = try LayoutLoader.load(path: options.configPath)
        } catch let error as LayoutLoadError {
            for message in error.messages { logger.error(message) }
            logger.error("reload (\(trigger)) failed; keeping layout generation \(layoutGeneration)")
            return
        } catch {
            logger.error("reload (\(trigger)) failed: \(error); keeping layout generation \(layoutGeneration)")
            return
        }
        guard newLayout != layout else {
            logger.info("reload (\(trigger)): layout unchanged")
            return
        }
        // Cancels go to the subscribers the removed views had, so relayout subscriptions after.
        deliver(router.replaceLayout(newLayout, time: monotonicMicros()))
        layout = newLayout
        layoutGeneration += 1
        subscriptions.relayout(newLayout)
        logger.notice("reload (\(trigger)): layout generation \(layoutGeneration), \(layout.viewCount) views")
        let changed = Wire.line(["type": "layoutChanged", "generation": layoutGeneration])
        for client in clients.values where client.closing == nil {
            if client.outbox.enqueue(changed) { flush(client) } else { cutOff(client) }
        }
    }

    /// Cancels every active touch (reason `shutdown`), tells clients, flushes within a deadline.
    private func beginStop(reason: String) {
        guard !isStopping else { return }
        logger.notice("stopping: \(reason)")
        deliver(router.cancelAll(reason: .shutdown, time: monotonicMicros()))
        isStopping = true
        if let listener {
            loop.deregister(listener.fd)
            listener.close()
            self.listener = nil
        }
        let goodbye = Wire.error(ProtocolError(code: .shuttingDown, message: "the daemon is stopping"))
        for client in Array(clients.values) where client.closing == nil {
            _ = client.outbox.enqueue(goodbye)
            flush(client)
        }
        if clients.isEmpty {
            loop.stop()
        } else {
            try? timer.arm(atMonotonicMicros: monotonicMicros() + 2_000_000)
        }
    }
}

func writeStderr(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}
