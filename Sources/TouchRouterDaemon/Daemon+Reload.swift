/// Reloading the config (and run-time layout changes, Daemon+Runtime.swift): requested on the
/// loop, built on the `ReloadWorker`, swapped in on the loop.
import Glibc
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

extension Daemon {
    /// The layout in effect beside the Router's: the config file's layout with what clients changed
    /// at run time, its generation, and its access lists with their names resolved (the fan-out's
    /// per-client check). Replaced only by a finished build (`applyReload`).
    struct CurrentLayout {
        /// The config file's layout, what clients changed at run time, and the two together.
        var runtime: RuntimeLayout
        /// 1 at start, one more at each swap.
        private(set) var generation: UInt64 = 1
        private(set) var access: AccessPolicy

        init(runtime: RuntimeLayout, access: AccessPolicy) {
            self.runtime = runtime
            self.access = access
        }

        /// A new layout is swapped in with its access lists: the next generation.
        mutating func swapped(access: AccessPolicy) {
            generation += 1
            self.access = access
        }
    }

    /// Reloads and run-time builds: the config file's watch and a retry after a transient failure
    /// (what asks for a reload besides SIGHUP and clients), the worker that builds layouts off the
    /// loop, the build in progress and the one queued behind it, and what the last build left to
    /// announce and report. Changed on the loop only, in this file and Daemon+Runtime.swift.
    struct Reloading {
        let worker: ReloadWorker
        /// Inotify on the config's directory; nil when it could not be set up (SIGHUP still reloads).
        var configWatch: ConfigWatch?
        /// The last reload failed for a transient reason (EMFILE, ENFILE, EINTR, ENOMEM): try again.
        var retryPending = false
        /// The build in progress (its job, until the queued one starts).
        private(set) var inFlight: ReloadJob?
        /// The work waiting for the build in progress, merged into one job; only while one is.
        private(set) var queued: ReloadJob?
        /// The views a run-time build changed, for its `layoutChanged`, sent after the requests' replies.
        var pendingViewsChanged: [String]?
        /// The last layout build's CPU time on the worker, µs (a benchmark counter in admin `status`).
        var lastBuildCPUMicros: UInt64 = 0

        init(worker: ReloadWorker) { self.worker = worker }

        /// A reload of the file: the job to build now, or nil when it waits behind the build in
        /// progress (merged with what waits there, so the last save always ends up live).
        mutating func reloadFile(trigger: String, replyTo: (client: ClientID, seq: Int64?)?) -> ReloadJob? {
            var job = queued.take() ?? ReloadJob()
            job.triggers.append(trigger)
            job.readsFile = true
            if let replyTo { job.replyTo.append(replyTo) }
            return startOrQueue(job)
        }

        /// Run-time work: the job to build now, or nil when it waits behind the build in progress.
        mutating func layoutWork(_ work: RuntimeWork) -> ReloadJob? {
            var job = queued.take() ?? ReloadJob(readsFile: false)
            job.runtime.append(work)
            return startOrQueue(job)
        }

        /// The build in progress is done: the queued job is built next, or dropped unless `startsNext`.
        mutating func finished(startsNext: Bool) -> ReloadJob? {
            inFlight = nil
            let next = queued.take()
            guard startsNext, let next else { return nil }
            return startOrQueue(next)
        }

        /// Builds running or queued (0, 1 or 2).
        var pendingBuilds: Int { (inFlight == nil ? 0 : 1) + (queued == nil ? 0 : 1) }

        /// A build that reads the file is running or queued.
        var readsFileSoon: Bool { inFlight?.readsFile == true || queued?.readsFile == true }

        /// Whether a retry was pending; it no longer is.
        mutating func takeRetry() -> Bool {
            defer { retryPending = false }
            return retryPending
        }

        private mutating func startOrQueue(_ job: ReloadJob) -> ReloadJob? {
            guard inFlight == nil else {
                queued = job
                return nil
            }
            inFlight = job
            return job
        }
    }

    /// A reload being built, or waiting for the one being built: why, and which `reload`
    /// requests wait for its answer.
    struct ReloadJob {
        var triggers: [String] = []
        var replyTo: [(client: ClientID, seq: Int64?)] = []
        /// The file is read again (false: a build of run-time changes only).
        var readsFile = true
        /// Run-time requests, applied in order after the file.
        var runtime: [RuntimeWork] = []

        var trigger: String {
            let reasons = triggers + (runtime.isEmpty ? [] : ["\(runtime.count) run-time change(s)"])
            return reasons.joined(separator: ", ")
        }
    }

    /// Asks for the config to be read again. The build runs on the reload worker; the routing loop
    /// goes on meanwhile and swaps the result in when it is ready (`applyReload`). A request made
    /// while a build runs is queued behind it (several merge into one), so the last save always
    /// ends up live and never an older one. `replyTo` gets `reloaded` or an error when it is done.
    /// Cost on the loop: O(1).
    func requestReload(trigger: String, replyTo: (client: ClientID, seq: Int64?)? = nil) {
        guard !isStopping, let job = reloading.reloadFile(trigger: trigger, replyTo: replyTo) else { return }
        startReload(job)
    }

    /// Starts the build of `job` (`reloading` has it in flight). One of clients' run-time changes
    /// alone (no file to read) is urgent while the loop runs at `SCHED_FIFO`: a client waits for
    /// it, the change budget bounds how often it comes, and no normal thread can delay the loop
    /// then, so it runs at the daemon's normal priority, not at nice 10 (docs/operations.md,
    /// "Run-time changes").
    func startReload(_ job: ReloadJob) {
        stats.layoutBuilds += 1
        reloading.worker.start(
            path: job.readsFile ? options.configPath : nil, current: current.runtime, work: job.runtime,
            limits: .standard, subscriptions: subscriptions, access: current.access, generation: current.generation,
            urgent: service.loopIsRealtime && !job.readsFile && job.runtime.contains { $0.kind.isRequest },
            makesDevices: input.replay == nil)
    }

    /// The worker finished: swap its result in (or keep the layout), answer the waiting requests,
    /// start the queued reload if any.
    func handleReloadOutcome() {
        guard let build = reloading.worker.take(), var job = reloading.inFlight else { return }
        // The job stays in flight until the queued job starts: work queued meanwhile (a client
        // whose reply's write finds it gone leaves, and its undo is queued) goes behind the queued
        // work, never into a build of its own started first from the same state, which let a
        // departed client's queued mount outlive its undo.
        // The requests' JSON (a mount's thousand views) is freed on the worker, not here: the
        // only references left are these two, handed over (consumed) below.
        let trigger = job.trigger
        let work = job.runtime
        job.runtime = []
        let failure = isStopping ? nil : applyReload(build, trigger: trigger)
        if !isStopping {
            // A run-time change's reply comes before its layoutChanged: a client that reads one line
            // per request gets its reply first (a reload's layoutChanged went out in applyReload).
            announceEndedSubscriptions(build.endedSubscriptions)
            answerRuntime(work, build.answers)
            if let changed = reloading.pendingViewsChanged.take() { broadcastViewsChanged(changed) }
        }
        if !work.isEmpty { reloading.worker.retire(consume work, trim: false) }
        // The build's answers hold the replies' lines (a layout's megabytes): freed there too.
        reloading.worker.retire(consume build, trim: false)
        for (clientID, seq) in job.replyTo {
            guard let client = clients.connected[clientID], client.closing == nil else { continue }
            let reply: [UInt8]
            if isStopping {
                reply = errorLine(code: .shuttingDown, message: "the daemon is stopping", seq: seq)
            } else if let failure {
                reply = line(.error(ProtocolError.configRefused(failure, seq: seq)))
            } else {
                reply = line(.reloaded(generation: current.generation, seq: seq))
            }
            // A reply: never counted against the queue's budget, however many failures it lists.
            if client.outbox.enqueue(reply: reply) == .overflow { cutOff(client) } else { flush(client) }
        }
        if let next = reloading.finished(startsNext: !isStopping) { startReload(next) }
    }

    /// Swaps a finished build in. Returns the file's errors, if it was refused (the build's
    /// run-time changes are swapped in all the same).
    /// Cost: `TouchTracker.replaceLayout`'s (the live touches), the cancels it sends, and one
    /// `layoutChanged` line per client; everything that grows with the layout was built by the
    /// worker, and the old layout is released there too.
    func applyReload(_ build: LayoutBuild, trigger: String) -> ConfigErrors? {
        var failure: ConfigErrors?
        switch build.file {
        case .failed(let error):
            for configError in error.errors.prefix(20) { logger.error(configError.description) }
            if error.errors.count > 20 {
                // The list's own count of what it left out (`tooManyErrors`) adds to the rest.
                let uncounted = error.errors.last.flatMap { $0.code == .tooManyErrors ? $0 : nil }
                let listedBeyond = error.errors.count - 20 - (uncounted == nil ? 0 : 1)
                logger.error(
                    "… and \(listedBeyond) more errors" + (uncounted.map { "; \($0.message)" } ?? ""))
            }
            stats.reloadsFailed += 1
            let transient = error.errors.contains { [EMFILE, ENFILE, EINTR, ENOMEM].contains($0.systemErrno ?? 0) }
            logger.error(
                "reload (\(trigger)) failed; keeping layout generation \(current.generation)"
                    + (transient ? "; retrying in a second (the failure was for want of resources)" : ""))
            if transient {
                reloading.retryPending = true
                scheduleRetry()
            }
            failure = error
        case .unchanged:
            metrics.reloadsSucceeded += 1
            logger.info("reload (\(trigger)): config unchanged")
        case .changed:
            metrics.reloadsSucceeded += 1
            for name in build.unknownOwnerNames { logger.warning("owner list: no such \(name); it admits nobody") }
        case .notRead:
            break
        }
        // The old state's tables (its view index, a replaced mount's views) are freed on the worker.
        let fileRead = if case .notRead = build.file { false } else { true }
        var oldRuntime = Optional(current.runtime)
        current.runtime = build.runtime
        reloading.worker.retire(oldRuntime.take()!, trim: fileRead)
        reloading.lastBuildCPUMicros = build.cpuMicros
        guard let prepared = build.ready else {
            if let table = build.subscriptions {
                // Only subscriptions changed: the old table is freed on the worker.
                var oldTable = Optional(subscriptions)
                router.replaceSubscriptions(table)
                reloading.worker.retire(oldTable.take()!, trim: false)
            }
            return failure
        }
        service.systemd?.notify("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicros())")
        defer { service.systemd?.notify("READY=1\nSTATUS=layout generation \(current.generation)") }
        // What the old layout holds is released on the worker, not here: taken now, handed over
        // (consumed) only once the loop's own references are gone, else the worker could drop its
        // copy first and the loop's last release would free 100k views here.
        var old = Optional((config, router.tracker.preparedLayout, current.access, subscriptions))
        // The one swap: cancels of touches whose view went, recognisers of changed views, the field
        // settings, and the build's subscription table (the live one, re-expanded) all at once.
        deliver(
            router.swapLayout(
                prepared.layout, config: prepared.config, subscriptions: build.subscriptions,
                nowMicros: monotonicMicros()))
        reconfigurePanelPower()
        armHousekeepingTimer()  // a changed `idle` may count from now, later than the armed time
        current.swapped(access: prepared.access)
        reloading.worker.retire(old.take()!, trim: fileRead)
        for name in current.access.unknownNames {
            logger.warning("access list: no such \(name); it admits nobody")
        }
        // Devices may now drive another screen, or none.
        for event in input.live?.reassignDevices() ?? [] { process(event) }
        applyPassthrough(prepared.passthroughNeeds, made: prepared.passthroughDevices)
        let replayTargets = input.replayTargets.reassigned(config)
        input.replayTargets = replayTargets.targets
        for name in replayTargets.unplaced {
            logger.warning("replay: no screen in the new config takes \(Excerpt.of(name))")
        }
        let summary = "layout generation \(current.generation), \(prepared.viewCount) views"
        if case .notRead = build.file {
            logger.info("run-time change (\(trigger)): \(summary)")
        } else {
            logger.notice("reload (\(trigger)): \(summary)")
        }
        if case .changed = build.file {
            broadcastLine(line(.layoutChanged(generation: current.generation)))
        } else {
            reloading.pendingViewsChanged = Self.changedViews(build.answers)
        }
        return failure
    }

    /// Tells every client which views run-time changes changed, each only of the views it may
    /// see (an admin, all of them): a client outside a view's access list learns nothing of it,
    /// and gets no line at all when every changed view is hidden from it. Cost: one line per
    /// client; with access lists, also O(changed views × their depth) per client, the changed
    /// views being bounded by the change budget.
    func broadcastViewsChanged(_ views: [String]) {
        let message = DaemonMessage.viewsChanged(generation: current.generation, views: views)
        guard !current.access.isEmpty else { return broadcastLine(line(message)) }
        let everything = line(message)
        for client in Array(clients.connected.values) where client.closing == nil {
            let bytes: [UInt8]
            if isAdmin(client) {
                bytes = everything
            } else {
                let visible = views.filter { current.access.permits(client.credentials, viewID: $0) }
                guard !visible.isEmpty else { continue }
                bytes =
                    visible.count == views.count
                    ? everything : line(.viewsChanged(generation: current.generation, views: visible))
            }
            if client.outbox.enqueue(line: bytes) == .overflow { cutOff(client) } else { flush(client) }
        }
    }

    /// Queues `bytes` to every client. Cost: one line per client.
    func broadcastLine(_ bytes: [UInt8]) {
        for client in Array(clients.connected.values) where client.closing == nil {
            if client.outbox.enqueue(line: bytes) == .overflow { cutOff(client) } else { flush(client) }
        }
    }

    // MARK: Config file watch

    /// Cost: one drain of the inotify queue (bounded by the kernel's queue), then at most one
    /// reload.
    func handleConfigWatch() {
        guard let watch = reloading.configWatch else { return }
        let changes = watch.drain()
        if changes.overflowed {
            logger.warning("config watch: the inotify queue overflowed and events were lost; reading the config again")
        }
        if changes.watchLost {
            logger.warning("config watch: \(Excerpt.of(watch.directory)) was moved or deleted; watching its path again")
            reestablishConfigWatch()
        } else if changes.needsReload {
            requestReload(trigger: changes.overflowed ? "inotify queue overflow" : "config file changed")
        }
    }

    /// Watches the config directory's path again; the file may have changed meanwhile, so it is
    /// read again. While the path does not exist, retries once a second.
    func reestablishConfigWatch() {
        guard let watch = reloading.configWatch else { return }
        do {
            try watch.reestablish()
            logger.notice("config watch: watching \(Excerpt.of(watch.directory)) again")
            requestReload(trigger: "config watch re-established")
        } catch {
            logger.warning("config watch: \(Excerpt.of(watch.directory)): \(error); retrying every second")
            scheduleRetry()
        }
    }
}

extension ProtocolError {
    /// A `reload` whose file was refused: `invalid-config`, the first error as the message (with how
    /// many more), and at most 100 of them in `failures`, each with the config's code, its view's
    /// path when it has one, and its located text.
    static func configRefused(_ errors: ConfigErrors, seq: Int64?) -> ProtocolError {
        let first = errors.errors.first.map { Excerpt.of($0.description, limit: 400) } ?? "the config did not load"
        let more = errors.errors.count > 1 ? " (and \(errors.errors.count - 1) more)" : ""
        var error = ProtocolError(code: .invalidConfig, message: first + more, seq: seq)
        error.failures = errors.errors.prefix(100).map {
            ProtocolFailure(
                code: $0.code.rawValue, view: $0.viewPath, field: nil, message: Excerpt.of($0.description, limit: 400))
        }
        return error
    }
}
