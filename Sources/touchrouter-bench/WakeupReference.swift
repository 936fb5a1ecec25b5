import Foundation
import TouchRouterSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The machine's own scheduling floor, measured in the same run as the daemon's figures: a thread of
/// the benchmark's process that does nothing but sleep to absolute deadlines 1 ms apart (what
/// `cyclictest` does) and records how late each wake-up is. It runs at the daemon loop's policy
/// (`SCHED_FIFO` at the same priority when the loop has it), so a frame routed late by no more than
/// this sleeper woke late, in the same window, was delayed by the machine (other programs, the
/// hypervisor taking the virtual CPU), not by the daemon.
final class WakeupReference: @unchecked Sendable {
    private let realtimePriority: Int32?
    private let lock = NSLock()
    /// Wake-ups as (when it was due, how late it came), ns.
    private var wakeups: [(due: UInt64, late: UInt64)] = []
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)
    /// The policy could not be set (not root, no RLIMIT_RTPRIO): the figures are then at the
    /// normal policy, and say so.
    private(set) var policyFailed = false

    init(realtimePriority: Int32?) {
        self.realtimePriority = realtimePriority
        wakeups.reserveCapacity(1 << 16)
    }

    func start() {
        let thread = Thread { [self] in
            if let realtimePriority {
                do { try ThreadScheduling.makeRealtime(priority: realtimePriority) } catch { policyFailed = true }
            }
            var due = monotonicNanoseconds() + 1_000_000
            while !lock.withLock({ stopping }) {
                sleepUntil(monotonicNanos: due)
                let now = monotonicNanoseconds()
                lock.withLock { wakeups.append((due, now > due ? now - due : 0)) }
                due += 1_000_000
                // After a long stall, go on from now (as cyclictest does), not in a burst.
                if due < now { due = now + 1_000_000 }
            }
            finished.signal()
        }
        thread.name = "wakeup-reference"
        thread.start()
    }

    func stop() {
        lock.withLock { stopping = true }
        finished.wait()
    }

    /// The wake-ups due in `[from, to)`: their count and the longest lateness, ns.
    func lateness(from: UInt64, to: UInt64) -> (count: Int, longest: UInt64) {
        lock.withLock {
            var count = 0
            var longest: UInt64 = 0
            for wakeup in wakeups where wakeup.due >= from && wakeup.due < to {
                count += 1
                longest = max(longest, wakeup.late)
            }
            return (count, longest)
        }
    }

    /// "policy" for the table: what the sleeper ran at.
    var policy: String {
        guard let realtimePriority, !policyFailed else { return "normal policy" }
        return "SCHED_FIFO \(realtimePriority)"
    }
}
