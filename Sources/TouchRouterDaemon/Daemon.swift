/// touchrouterd's glue: one epoll loop serving input (replay timer or libinput), the listening
/// socket, clients, signals and config-file changes; one teardown path.
import CLinuxEvents
import Glibc
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

/// The running daemon. Create it with `init(options:logger:)`, then `run()`; it returns after a
/// graceful stop.
public final class Daemon {
    let options: DaemonOptions
    let logger: Logger
    /// Undoes start-up, in reverse: every resource `init` and `run` acquire pushes its release
    /// here as it is acquired, and one path (`tearDown`) runs them — after a graceful stop, after
    /// the loop failed, and when `init` fails half-way.
    let teardown = TeardownStack()
    let loop: EventLoop
    var listener: Listener?
    let signals: SignalChannel
    let timer: MonotonicTimer
    /// Armed only while something has a deadline: a retry once a second (a config watch to
    /// re-establish after its directory was moved away, a reload that failed for want of
    /// resources) or a misbehaving client's final error line, which it gets 2 s to take.
    let housekeepingTimer: MonotonicTimer
    /// When the next retry is due, if one waits.
    var retryAtMicros: UInt64?
    /// When the housekeeping timer is set to go off; nil while disarmed.
    var housekeepingArmedAt: UInt64?
    /// Clients being closed after a final error line: when they are closed at the latest.
    var lingerDeadlines: [ClientID: UInt64] = [:]
    var configWatch: ConfigWatch?
    /// The last reload failed for a transient reason (EMFILE, ENFILE, EINTR, ENOMEM): try again.
    var reloadRetryPending = false
    /// Builds new layouts off the loop.
    let reloadWorker: ReloadWorker
    /// The reload being built, and the one queued behind it.
    var reloadInFlight: ReloadJob?
    var reloadQueued: ReloadJob?
    /// The views a run-time build changed, for its `layoutChanged`, sent after the requests' replies.
    var pendingViewsChanged: [String]?
    /// The last layout build's CPU time on the worker, µs (a benchmark counter in admin `status`).
    var lastBuildCPUMicros: UInt64 = 0
    /// The loop's thread runs at `SCHED_FIFO` (`--realtime-priority` was granted).
    var loopIsRealtime = false
    let systemd = SystemdNotifier()
    var watchdogTimer: MonotonicTimer?

    /// The routing core (TouchRouterCore/Router.swift): the field stage, the tracker, gesture
    /// recognition and the subscriptions, driven from Daemon+Routing.swift.
    var router: Router
    /// The config routing follows, with its run-time changes (`runtime.effective`).
    var config: Config { router.config }
    var layout: Layout { router.layout }
    var subscriptions: SubscriptionTable { router.subscriptions }
    /// The config file's layout, what clients changed at run time, and the two together.
    var runtime: RuntimeLayout
    var layoutGeneration: UInt64 = 1
    /// The access lists with their names resolved (the fan-out's per-client check).
    var access: AccessPolicy

    var clients: [ClientID: ClientConnection] = [:]
    var nextClientID: ClientID = 1
    var replay: ReplayClock?
    /// The replayed devices, and the screen and matcher the current config gives each.
    var replayTargets = ReplayTargets(frames: [])
    var liveInput: LibinputReader?
    /// The client running the calibration session (`router.calibration`), and for replayed input the
    /// matrix that takes the screen's calibration back out of its frames (Daemon+Calibration.swift).
    var calibrationClient: ClientID?
    var calibrationReplayUndo: [Double]?
    var isStopping = false
    /// accept(2) ran out of descriptors; the listener is out of the loop until a client leaves.
    var isAcceptPaused = false
    let startedMonotonicMicros = monotonicMicros()
    var stats = Stats()
    /// The counters only the metrics keep (Daemon+Metrics.swift).
    var metrics = MetricsCounters()
    /// One view's touches line, encoded once per frame for all its subscribers (buffer reused).
    var encodedTouches: [UInt8] = []
    /// Benchmarks only (`TOUCHROUTERD_MEASURE_LOOP`): per replayed frame, µs from its stamp until its
    /// writes are done. Nil, and never touched, otherwise.
    var stampToWritten: MicrosHistogram?
    /// Benchmarks only (`TOUCHROUTERD_MEASURE_LOOP`, finite `--speed`): the longest a replayed frame
    /// waited past its due time since the last admin `status` (µs): how late the loop got to it.
    var replayLongestLatenessMicros: UInt64 = 0
    /// Benchmarks only, with `replayLongestLatenessMicros`: the longest part of a replayed frame's
    /// lateness that the loop spent busy in turns (`EventLoop.busyMicros`), the daemon's own share;
    /// the rest of a lateness is the thread not running.
    var replayLongestBusyLatenessMicros: UInt64 = 0
    /// Clients given their first bytes by the frame being delivered (storage reused).
    var clientsToFlush: [ClientConnection] = []
    /// Clients with buffered request lines left over from a turn (see `serveBacklog`).
    var backloggedClients: Set<ClientID> = []
    /// Panel power (Daemon+Power.swift): a machine per screen with `idle.power`, and the threads
    /// that run their backends (made at the first command).
    var panelPower: [String: PanelPower] = [:]
    var powerWorkers: PowerWorkers?
    /// Passthrough (Daemon+Passthrough.swift): each passing screen's virtual devices and encoders.
    var passthrough: [String: PassthroughOutput] = [:]

    /// Exit status of `main`: 0 after a graceful stop, 1 when the daemon could not start, 2 for a
    /// bad command line.
    public static func main(arguments: [String]) -> Int32 {
        if DaemonOptions.wantsHelp(arguments) {
            print(DaemonOptions.usage)
            return 0
        }
        if CommandLineParser.wantsVersion(arguments) {
            print(PackageVersion.line(tool: "touchrouterd"))
            return 0
        }
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(arguments)
        } catch {
            writeStderr("\(error)\n")
            return 2
        }
        // A fixed threshold: every block of 128 KiB or more (a layout's tables, the reader's tree)
        // is its own mapping, handed back to the kernel when freed. glibc's default threshold grows
        // to the size of the largest block freed, after which a reload's big tables land in the
        // reload thread's heap and stay there as RSS (docs/performance.md, "Memory").
        mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        // Fixing that threshold also fixes the trim threshold at 128 KiB: every heap would hand its
        // free top back after each free, and a run-time change's build (a few MB of small blocks on
        // the worker) would fault its pages in again every time. Up to 8 MiB of free top stays;
        // a reload still ends with an explicit `malloc_trim` (ReloadWorker.retire).
        mallopt(M_TRIM_THRESHOLD, 8 * 1024 * 1024)
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
        router = Router(config: config, nowMicros: monotonicMicros())
        runtime = RuntimeLayout(base: config)
        access = AccessPolicy(config: config)
        // The parse's temporary memory is free now: give it back (RssAnon of a large layout).
        malloc_trim(0)
        // Not after a reload: malloc_trim walks every heap, the loop's too, and held its lock for
        // tens of ms at 100k views (touchrouter-bench reload); docs/performance.md.
        for name in access.unknownNames {
            logger.warning("access list: no such \(name); it admits nobody")
        }
        for name in OwnerCheck.unknownNames(in: config.runtime) {
            logger.warning("owner list: no such \(name); it admits nobody")
        }
        if let path = options.replayPath {
            let frames = try ReplaySource.frames(
                path: path, devicePath: options.replayDevicePath, config: config,
                logKernelBug: { logger.warning("replay: \($0)") },
                logScale: { logger.info("replay: \(Excerpt.of(path)): \($0)") })
            replay = try ReplayClock(frames: frames, speed: options.replaySpeed, loops: options.replayLoops)
            replayTargets = ReplayTargets(frames: frames)
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
            let logger = self.logger
            teardown.push {
                if reloadWorker.abandonBuild() {
                    logger.notice("stop: the layout build in progress is abandoned")
                } else {
                    reloadWorker.waitUntilIdle()
                    reloadWorker.close()
                }
            }
            self.reloadWorker = reloadWorker
            try registerAndListen()
        } catch {
            teardown.run()
            throw error
        }
    }

    /// The second half of start-up: everything joins the loop, input opens, the socket listens.
    func registerAndListen() throws {
        if getenv("TOUCHROUTERD_INJECT_LOOP_FAILURE") != nil {
            // Tests only: the running loop fails, to prove the teardown path.
            loop.injectedFailure = SystemError(
                call: "epoll_wait (injected by TOUCHROUTERD_INJECT_LOOP_FAILURE)", errno: EIO)
        }
        // Benchmarks only: the longest loop turn, wall and CPU, in admin `status` (docs/performance.md).
        loop.measuresTurns = getenv("TOUCHROUTERD_MEASURE_LOOP") != nil
        if loop.measuresTurns && options.replayRestampsFrames { stampToWritten = MicrosHistogram() }
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
        applyPassthrough(PassthroughNeed.of(config))
        teardown.push { [weak self] in self?.endAllPassthrough() }

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
        startPanelPower()
        armHousekeepingTimer()  // a screen with `idle` counts down from the start
        systemd?.notify(
            "READY=1\nSTATUS=layout generation \(layoutGeneration), serving \(listener?.path ?? options.socket.path)")
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
        if let priority = options.realtimePriority { makeLoopRealtime(priority: priority) }
        try loop.run()
    }

    /// The loop's thread at SCHED_FIFO `priority`, last before it runs (threads made from now on,
    /// like the reload worker's, inherit the policy and drop it themselves). A daemon that may not
    /// have it keeps routing at the normal policy and says why once.
    func makeLoopRealtime(priority: Int32) {
        do throws(SystemError) {
            try ThreadScheduling.makeRealtime(priority: priority)
            loopIsRealtime = true
            logger.notice("routing at SCHED_FIFO priority \(priority)")
        } catch {
            logger.warning(
                "--realtime-priority \(priority): \(error); routing at the normal policy "
                    + "(grant it with LimitRTPRIO=\(priority) and RestrictRealtime=no in the unit)")
        }
    }

    /// The one teardown path: clients closed, then every resource released in the reverse order
    /// of its acquisition (the socket file first, the signal channel last).
    func tearDown() {
        for client in Array(clients.values) { disconnect(client, .daemonStopping) }
        teardown.run()
        logger.notice("stopped")
    }

    // MARK: Signals and timer

    func handleSignals() {
        guard let received = try? signals.drain() else { return }
        for signal in received {
            switch signal {
            case SIGHUP: requestReload(trigger: "SIGHUP")
            case SIGINT: beginStop(reason: "SIGINT")
            default: beginStop(reason: "SIGTERM")
            }
        }
    }

    func handleTimer() {
        timer.acknowledge()
        if isStopping {
            logger.warning("stop: flush deadline passed, closing \(clients.count) client(s) with unsent data")
            loop.stop()
            return
        }
        playDueFrames()
    }

    /// Advances the Router (idle countdowns, held and stuck contacts, a long press, a tap waiting
    /// for a double tap), closes lingering clients whose deadline passed, re-establishes a lost
    /// config watch and retries a reload that failed for want of resources; re-armed for what
    /// still waits. Cost: the Router's `advance`, and one pass over the lingering clients (each
    /// misbehaved in the last 2 s).
    func handleHousekeepingTimer() {
        housekeepingTimer.acknowledge()
        housekeepingArmedAt = nil
        let now = monotonicMicros()
        if let due = routerDeadlineMicros, due <= now { deliver(router.advance(to: now)) }
        advancePanelPower(to: now)
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

    func scheduleRetry() {
        retryAtMicros = monotonicMicros() + 1_000_000
        armHousekeepingTimer()
    }

    /// Arms the timer for the earliest deadline (the Router's among them), or disarms it when
    /// nothing waits.
    func armHousekeepingTimer() {
        let next =
            ([retryAtMicros, routerDeadlineMicros, panelPowerDeadlineMicros].compactMap { $0 }
            + lingerDeadlines.values).min()
        guard next != housekeepingArmedAt else { return }
        do {
            if let next { try housekeepingTimer.arm(atMonotonicMicros: next) } else { try housekeepingTimer.disarm() }
            housekeepingArmedAt = next
        } catch {
            logger.error("housekeeping timer: \(error)")
        }
    }

    // MARK: Stopping

    /// Cancels every active touch (reason `shutdown`), tells clients, flushes within a deadline.
    func beginStop(reason: String) {
        guard !isStopping else { return }
        logger.notice("stopping: \(reason)")
        systemd?.notify("STOPPING=1\nSTATUS=stopping: \(reason)")
        deliver(router.cancelAll(reason: .shutdown, nowMicros: monotonicMicros()))
        endAllPassthrough()  // what is still down on a virtual device ends before the device goes
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
