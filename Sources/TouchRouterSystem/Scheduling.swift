/// Which thread gets the CPU first: the routing loop can ask for a real-time policy, the reload
/// worker gives up any it inherited. On Linux both calls act on the calling thread only.
import Glibc

/// The calling thread's scheduling policy.
public enum ThreadScheduling {
    /// `sched_setscheduler(0, SCHED_FIFO, priority)`: the calling thread preempts every normal
    /// thread on its core until it blocks. Needs CAP_SYS_NICE or `RLIMIT_RTPRIO` ≥ `priority`
    /// (systemd's `LimitRTPRIO=`); fails with EPERM otherwise.
    public static func makeRealtime(priority: Int32) throws(SystemError) {
        var parameters = sched_param(sched_priority: priority)
        _ = try checked("sched_setscheduler(SCHED_FIFO)") { sched_setscheduler(0, SCHED_FIFO, &parameters) }
    }

    /// `sched_setscheduler(0, SCHED_OTHER, 0)` then `setpriority(PRIO_PROCESS, 0, nice)`: the calling
    /// thread runs as a normal thread at `nice`, whatever policy it was created with (a thread
    /// inherits its creator's; lowering one's own needs no privilege). Both are best effort: a
    /// syscall filter may refuse them, and the thread then keeps what it had.
    public static func makeBackground(nice: Int32) {
        var parameters = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, SCHED_OTHER, &parameters)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
    }

    /// `sched_setscheduler(0, SCHED_OTHER, 0)`: the calling thread runs as a normal thread at the
    /// nice value it has (its creator's), whatever policy it was created with. Best effort, as
    /// `makeBackground`.
    public static func makeNormal() {
        var parameters = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, SCHED_OTHER, &parameters)
    }
}
