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
    let signals: SignalChannel
    /// The replay timer (Daemon+Replay.swift); once stopping, the deadline for clients' last bytes.
    let timer: MonotonicTimer
    /// A stop began (`beginStop`): no new work is taken, clients get their last bytes and go.
    var isStopping = false

    /// The routing core (TouchRouterCore/Router.swift): the field stage, the tracker, gesture
    /// recognition and the subscriptions, driven from Daemon+Routing.swift.
    var router: Router
    /// The config routing follows, with its run-time changes (`current.runtime.effective`).
    var config: Config { router.config }
    var layout: Layout { router.layout }
    var subscriptions: SubscriptionTable { router.subscriptions }
    /// The layout in effect beside the Router's: run-time layout, generation, access lists
    /// (Daemon+Reload.swift).
    var current: CurrentLayout
    /// Where frames come from: libinput, or a recording and its clock (Daemon+Routing.swift).
    var input = Input()
    /// The listener, the connected clients and the fan-out's reused storage (Daemon+Clients.swift).
    var clients = Clients()
    /// The housekeeping timer and its retry and lingering deadlines (Daemon+Housekeeping.swift).
    var housekeeping: Housekeeping
    /// The config watch, the reload worker and its builds (Daemon+Reload.swift).
    var reloading: Reloading
    /// The calibration session's client and replay undo (Daemon+Calibration.swift).
    var calibrating = Calibrating()
    /// Panel power's machines and worker threads (Daemon+Power.swift).
    var panelPower = PanelPowerControl()
    /// Passthrough (Daemon+Passthrough.swift): each passing screen's virtual devices and encoders.
    var passthrough: [String: PassthroughOutput] = [:]
    /// systemd's notify socket and watchdog, and the loop's scheduling policy (below).
    var service = Service()
    /// The daemon's own counters, for admin `status` (DaemonSupport.swift).
    var stats = Stats()
    /// The counters only the metrics keep (Daemon+Metrics.swift).
    var metrics = MetricsCounters()
    /// Benchmarks only: replayed frames' stamp-to-written and lateness (Daemon+Replay.swift).
    var benchmark = BenchmarkCounters()

    /// How the daemon runs as a system service. Set in `run()`, read when a reload starts (is a
    /// run-time build urgent?) and when systemd is told of one.
    struct Service {
        /// Nil unless a service manager asked to be told (NOTIFY_SOCKET).
        let systemd = SystemdNotifier()
        /// Pings systemd's watchdog; only when the unit sets WatchdogSec=.
        var watchdog: MonotonicTimer?
        /// The loop's thread runs at `SCHED_FIFO` (`--realtime-priority` was granted).
        var loopIsRealtime = false
    }

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
        current = CurrentLayout(runtime: RuntimeLayout(base: config), access: AccessPolicy(config: config))
        // The parse's temporary memory is free now: give it back (RssAnon of a large layout).
        malloc_trim(0)
        // Not after a reload: malloc_trim walks every heap, the loop's too, and held its lock for
        // tens of ms at 100k views (touchrouter-bench reload); docs/performance.md.
        for name in current.access.unknownNames {
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
            input.replay = try ReplayClock(frames: frames, speed: options.replaySpeed, loops: options.replayLoops)
            input.replayTargets = ReplayTargets(frames: frames)
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
            housekeeping = Housekeeping(timer: housekeepingTimer)
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
            reloading = Reloading(worker: reloadWorker)
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
        if loop.measuresTurns && options.replayRestampsFrames {
            benchmark.stampToWritten = MicrosHistogram()
            benchmark.slowestFrames = SlowestFrames()
        }
        try loop.register(signals.fd, for: .readable) { [unowned self] _ in handleSignals() }
        try loop.register(timer.fd, for: .readable) { [unowned self] _ in handleTimer() }
        try loop.register(housekeeping.timer.fd, for: .readable) { [unowned self] _ in handleHousekeepingTimer() }
        loop.afterEachBatch = { [unowned self] in serveBacklog() }
        try loop.register(reloading.worker.fd, for: .readable) { [unowned self] _ in handleReloadOutcome() }
        do {
            let watch = try ConfigWatch(configPath: options.configPath)
            teardown.push { watch.close() }
            try loop.register(watch.fd, for: .readable) { [unowned self] _ in handleConfigWatch() }
            reloading.configWatch = watch
        } catch {
            logger.warning("not watching \(options.configPath) for changes: \(error); SIGHUP still reloads")
        }
        if input.replay == nil { try openLiveInput() }
        applyPassthrough(PassthroughNeed.of(config))
        teardown.push { [weak self] in self?.endAllPassthrough() }

        // Last: nothing can fail after it, so a daemon that cannot start never had a socket file.
        let listener = try Listener.open(options.socket)
        teardown.push { [weak self] in
            self?.clients.listener?.close()
            self?.clients.listener = nil
        }
        clients.listener = listener
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
        if input.replay != nil && !options.replayWaitsForSubscriber { startReplay() }
        startPanelPower()
        armHousekeepingTimer()  // a screen with `idle` counts down from the start
        let socketPath = clients.listener?.path ?? options.socket.path
        service.systemd?.notify("READY=1\nSTATUS=layout generation \(current.generation), serving \(socketPath)")
        if let systemd = service.systemd, let interval = SystemdNotifier.watchdogIntervalMicros() {
            // The only periodic wake-up, and only when the unit sets WatchdogSec=.
            let watchdog = try MonotonicTimer()
            try watchdog.armPeriodic(intervalMicros: max(interval / 2, 1))
            teardown.push { watchdog.fd.close() }
            try loop.register(watchdog.fd, for: .readable) { _ in
                watchdog.acknowledge()
                systemd.notify("WATCHDOG=1")
            }
            service.watchdog = watchdog
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
            service.loopIsRealtime = true
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
        for client in Array(clients.connected.values) { disconnect(client, .daemonStopping) }
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
            logger.warning("stop: flush deadline passed, closing \(clients.connected.count) client(s) with unsent data")
            loop.stop()
            return
        }
        playDueFrames()
    }

    // MARK: Stopping

    /// Cancels every active touch (reason `shutdown`), tells clients, flushes within a deadline.
    func beginStop(reason: String) {
        guard !isStopping else { return }
        logger.notice("stopping: \(reason)")
        service.systemd?.notify("STOPPING=1\nSTATUS=stopping: \(reason)")
        deliver(router.cancelAll(reason: .shutdown, nowMicros: monotonicMicros()))
        endAllPassthrough()  // what is still down on a virtual device ends before the device goes
        isStopping = true
        if let listener = clients.listener {
            loop.deregister(listener.fd)
            listener.close()
            clients.listener = nil
        }
        let goodbye = errorLine(code: .shuttingDown, message: "the daemon is stopping")
        for client in Array(clients.connected.values) where client.closing == nil {
            _ = client.outbox.enqueue(line: goodbye)
            flush(client)
        }
        if clients.connected.isEmpty {
            loop.stop()
        } else {
            try? timer.arm(atMonotonicMicros: monotonicMicros() + 2_000_000)
        }
    }
}
