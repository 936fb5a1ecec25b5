/// Panel power in the daemon (docs/field.md, "Panel power"): each screen with `idle.power` has a
/// `PanelPower` machine fed by what the Router routes (idle, active, the quiet spell) and by the
/// housekeeping timer; its commands run on `PowerWorkers` threads, never on the loop, and their
/// ends come back through an eventfd. Failures are counted in `status` and logged once per burst.
import TouchRouterCore
import TouchRouterProtocol
import TouchRouterSystem

extension Daemon {
    /// Panel power's state: a machine per screen with `idle.power`, and the threads that run their
    /// backends' commands (made at the first command). Changed on the loop only, in this file.
    struct PanelPowerControl {
        var machines: [String: PanelPower] = [:]
        var workers: PowerWorkers?
    }

    /// At start: a machine per screen with `idle.power`, each switching its panel on.
    func startPanelPower() {
        reconfigurePanelPower()
    }

    /// After a reload: machines for screens that gained `idle.power`, new settings for those whose
    /// backend changed, and for those that lost it (or went), one last `on` through the old backend
    /// if the panel may be dark. Cost: the screens.
    func reconfigurePanelPower() {
        let now = powerNow()
        var wanted: [String: PanelPowerSettings] = [:]
        for screen in layout.screens {
            if let power = config.fieldSettings[screen.name]?.power { wanted[screen.name] = power }
        }
        for (screen, machine) in panelPower.machines where wanted[screen] == nil {
            panelPower.machines[screen] = nil
            if machine.applied != .on || machine.running != nil {
                let on = PanelPowerCommand(id: machine.nextCommandID, level: .on, supersedes: machine.running?.id)
                submitPower(screen, on, machine.settings)
            }
        }
        for (screen, settings) in wanted.sorted(by: { $0.key < $1.key }) {
            if var machine = panelPower.machines[screen] {
                guard machine.settings != settings else { continue }
                let command: PanelPowerCommand? = machine.replaceSettings(settings, nowMicros: now)
                panelPower.machines[screen] = machine
                run(command, on: screen)
            } else {
                var machine = PanelPower(settings: settings, nowMicros: now)
                let command = machine.start(active: router.field.activity(ofScreen: screen) == .active, nowMicros: now)
                panelPower.machines[screen] = machine
                run(command, on: screen)
                logger.info("screen \(Excerpt.of(screen)): panel power through \(describe(settings))")
            }
        }
    }

    /// The Router's `idle`/`active` for a screen: off or on.
    func panelPowerScreenChanged(_ change: ScreenStateChange) {
        guard var machine = panelPower.machines[change.screen] else { return }
        let command = machine.screenChanged(active: change.isActive, nowMicros: powerNow())
        panelPower.machines[change.screen] = machine
        run(command, on: change.screen)
    }

    /// After each routed event: every powered screen's quiet spell (a touch lights a dimmed panel),
    /// and the housekeeping timer moved if a dim is now due before it goes off.
    /// Cost: the powered screens times the screens; nothing when no screen has `idle.power`.
    func notePanelPower() {
        guard !panelPower.machines.isEmpty else { return }
        let now = powerNow()
        for screen in panelPower.machines.keys {
            let quiet = router.field.quietSinceMicros(ofScreen: screen)
            let command = panelPower.machines[screen]!.noteField(quietSinceMicros: quiet, nowMicros: now)
            run(command, on: screen)
        }
        if let due = panelPowerDeadlineMicros, due < (housekeeping.armedAt ?? .max) { armHousekeepingTimer() }
    }

    /// The housekeeping timer: dims and retries that are due.
    func advancePanelPower(to now: UInt64) {
        for screen in panelPower.machines.keys {
            guard let due = panelPower.machines[screen]!.nextDeadlineMicros, due <= now else { continue }
            run(panelPower.machines[screen]!.advance(nowMicros: now), on: screen)
        }
    }

    /// The earliest dim or retry, for the housekeeping timer.
    var panelPowerDeadlineMicros: UInt64? {
        panelPower.machines.values.compactMap(\.nextDeadlineMicros).min()
    }

    /// `setScreenState`: the backend is asked again at once (an admin's word skips a backoff).
    func retryPanelPower(_ screen: String) {
        guard panelPower.machines[screen] != nil else { return }
        run(panelPower.machines[screen]!.retryNow(nowMicros: powerNow()), on: screen)
    }

    /// Commands that ended: each told to its machine, its burst logged.
    func handlePowerResults() {
        guard let workers = panelPower.workers else { return }
        for result in workers.take() {
            let screen = Excerpt.of(result.screen)
            let what = "panel \(result.command.level.rawValue)"
            guard var machine = panelPower.machines[result.screen] else {
                logger.info("screen \(screen): \(what) (\(result.outcome.rawValue)): \(result.detail)")
                continue
            }
            let failuresBefore = machine.consecutiveFailures
            let next = machine.finished(result.command.id, result.outcome, nowMicros: powerNow())
            panelPower.machines[result.screen] = machine
            switch result.outcome {
            case .succeeded where failuresBefore > 0:
                logger.notice("screen \(screen): \(what) (\(result.detail)) after \(failuresBefore) failed attempts")
            case .succeeded:
                logger.info("screen \(screen): \(what) (\(result.detail))")
            case .superseded:
                logger.info("screen \(screen): \(what) superseded by a later command (\(result.detail))")
            case .failed, .timedOut:
                // One line per burst: the first failure after a success (or the start).
                if machine.consecutiveFailures == 1 {
                    logger.warning(
                        "screen \(screen): \(what) \(result.outcome == .timedOut ? "timed out" : "failed"): "
                            + "\(result.detail); retrying with backoff (counted in status, logged once per burst)")
                }
            }
            run(next, on: result.screen)
        }
        armHousekeepingTimer()
    }

    /// At stop: a panel that may be dark is switched on, waited for up to its time limit (a
    /// stopped daemon cannot wake it).
    func panelsOnAtStop() {
        guard let workers = panelPower.workers else { return }
        var longest: UInt64 = 0
        for (screen, machine) in panelPower.machines where machine.applied != .on || machine.running != nil {
            let on = PanelPowerCommand(id: machine.nextCommandID, level: .on, supersedes: machine.running?.id)
            submitPower(screen, on, machine.settings)
            longest = max(longest, machine.settings.timeoutMicros)
        }
        guard longest > 0 else { return }
        logger.notice("stop: switching panels on")
        workers.waitUntilIdle(deadlineMicros: monotonicMicros() + longest + 1_000_000)
    }

    /// The `panelPower` entries of `status`: per screen, its state, backend and counters.
    func panelPowerStatus() -> JSONValue {
        .array(
            panelPower.machines.keys.sorted().map { screen in
                let machine = panelPower.machines[screen]!
                let counters = machine.counters
                return .object([
                    "screen": .string(screen),
                    "state": .string(machine.wanted.rawValue),
                    "applied": .string(machine.applied?.rawValue ?? "unknown"),
                    "backend": .string(machine.settings.backendName),
                    "commands": .integer(Int64(counters.commands)),
                    "succeeded": .integer(Int64(counters.succeeded)),
                    "failed": .integer(Int64(counters.failed)),
                    "timedOut": .integer(Int64(counters.timedOut)),
                    "superseded": .integer(Int64(counters.superseded)),
                    "consecutiveFailures": .integer(Int64(machine.consecutiveFailures)),
                ])
            })
    }

    // MARK: - Helpers

    /// The machines' clock: the Router's (a replayed frame's due time may run ahead of the real
    /// clock), never behind CLOCK_MONOTONIC.
    private func powerNow() -> UInt64 { max(router.field.nowMicros, monotonicMicros()) }

    private func run(_ command: PanelPowerCommand?, on screen: String) {
        guard let command, let settings = panelPower.machines[screen]?.settings else { return }
        submitPower(screen, command, settings)
    }

    private func submitPower(_ screen: String, _ command: PanelPowerCommand, _ settings: PanelPowerSettings) {
        guard let workers = panelPower.workers ?? openPowerWorkers() else { return }
        workers.submit(PowerJob(screen: screen, command: command, settings: settings))
    }

    /// The workers' eventfd joins the loop at the first command.
    private func openPowerWorkers() -> PowerWorkers? {
        do {
            let workers = try PowerWorkers()
            try loop.register(workers.fd, for: .readable) { [unowned self] _ in handlePowerResults() }
            panelPower.workers = workers
            teardown.push { [weak self] in self?.panelsOnAtStop() }
            return workers
        } catch {
            logger.error("panel power: cannot start its workers: \(error)")
            return nil
        }
    }

    private func describe(_ settings: PanelPowerSettings) -> String {
        switch settings.backend {
        case .backlight(let directory, let method): "backlight \(Excerpt.of(directory)) (\(method.rawValue))"
        case .command(let on, let off, _): "commands \(Excerpt.of(off[0])) / \(Excerpt.of(on[0]))"
        }
    }
}
