/// The housekeeping timer: one timerfd armed for the earliest of what waits (the Router's next
/// deadline, panel power's, a retry once a second, a lingering client's last chance to read), and
/// its handler, which does what is due and arms it again.
import TouchRouterCore
import TouchRouterSystem

extension Daemon {
    /// The housekeeping timer, when it is set to go off, and the deadlines only it keeps: the
    /// retry (a config watch to re-establish after its directory was moved away, a reload that
    /// failed for want of resources) and the lingering clients'. The Router's and panel power's
    /// deadlines are read where they lie when it is armed. Changed on the loop: `scheduleRetry`,
    /// `closeAfterFinalLine` and `disconnect` (Daemon+Clients.swift), and the timer's handler.
    struct Housekeeping {
        /// Armed only while something has a deadline.
        let timer: MonotonicTimer
        /// When the timer is set to go off; nil while disarmed.
        private(set) var armedAt: UInt64?
        /// When the next retry is due, if one waits.
        var retryAtMicros: UInt64?
        /// Clients being closed after a final error line: when they are closed at the latest.
        var lingerDeadlines: [ClientID: UInt64] = [:]

        init(timer: MonotonicTimer) { self.timer = timer }

        /// The timer went off: it is disarmed until armed again.
        mutating func fired() {
            timer.acknowledge()
            armedAt = nil
        }

        /// Sets the timer for the earliest of `deadlines`, the retry and the lingering clients, or
        /// disarms it when nothing waits; no system call when it is set for that time already.
        mutating func arm(alsoFor deadlines: UInt64?...) throws {
            let next = ((deadlines + [retryAtMicros]).compactMap { $0 } + lingerDeadlines.values).min()
            guard next != armedAt else { return }
            if let next { try timer.arm(atMonotonicMicros: next) } else { try timer.disarm() }
            armedAt = next
        }

        /// Whether the retry is due at `now`; it then no longer waits.
        mutating func takeRetry(dueAt now: UInt64) -> Bool {
            guard let due = retryAtMicros, due <= now else { return false }
            retryAtMicros = nil
            return true
        }

        /// The lingering clients whose deadline passed at `now`, forgotten here.
        mutating func takeLingering(dueAt now: UInt64) -> [ClientID] {
            var due: [ClientID] = []
            for (clientID, deadline) in lingerDeadlines where deadline <= now { due.append(clientID) }
            for clientID in due { lingerDeadlines[clientID] = nil }
            return due
        }
    }

    /// Advances the Router (idle countdowns, held and stuck contacts, a long press, a tap waiting
    /// for a double tap), closes lingering clients whose deadline passed, re-establishes a lost
    /// config watch and retries a reload that failed for want of resources; re-armed for what
    /// still waits. Cost: the Router's `advance`, and one pass over the lingering clients (each
    /// misbehaved in the last 2 s).
    func handleHousekeepingTimer() {
        housekeeping.fired()
        let now = monotonicMicros()
        if let due = routerDeadlineMicros, due <= now { deliver(router.advance(to: now)) }
        advancePanelPower(to: now)
        for clientID in housekeeping.takeLingering(dueAt: now) {
            if let client = clients.connected[clientID], let reason = client.closing { disconnect(client, reason) }
        }
        if housekeeping.takeRetry(dueAt: now) {
            if let watch = reloading.configWatch, !watch.isWatching { reestablishConfigWatch() }
            if reloading.takeRetry() { requestReload(trigger: "retry after a transient failure") }
        }
        armHousekeepingTimer()
    }

    func scheduleRetry() {
        housekeeping.retryAtMicros = monotonicMicros() + 1_000_000
        armHousekeepingTimer()
    }

    /// Arms the timer for the earliest deadline (the Router's and panel power's among them), or
    /// disarms it when nothing waits.
    func armHousekeepingTimer() {
        do {
            try housekeeping.arm(alsoFor: routerDeadlineMicros, panelPowerDeadlineMicros)
        } catch {
            logger.error("housekeeping timer: \(error)")
        }
    }
}
