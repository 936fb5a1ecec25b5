/// The daemon's single-threaded epoll loop, plus the two kernel objects it waits on besides
/// sockets: a signalfd for SIGTERM/SIGINT/SIGHUP and a timerfd armed only while replay needs it.
import CLinuxEvents
import Glibc
import TouchRouterSystem

/// What a registered descriptor is ready for, mapped onto EPOLL bits.
public struct IOEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    /// The events of these EPOLL bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// EPOLLIN: data (or a connection, or EOF) to read.
    public static let readable = IOEvents(rawValue: EPOLLIN.rawValue)
    /// EPOLLOUT: the socket takes more bytes.
    public static let writable = IOEvents(rawValue: EPOLLOUT.rawValue)
    /// The peer closed its end (EPOLLRDHUP); always reported, never requested.
    public static let peerClosed = IOEvents(rawValue: EPOLLRDHUP.rawValue)
    /// EPOLLHUP or EPOLLERR; always reported, never requested.
    public static let failed = IOEvents(rawValue: EPOLLHUP.rawValue | EPOLLERR.rawValue)
}

/// One epoll instance and the handler of each registered descriptor. `run()` blocks in
/// `epoll_wait` with no timeout: with nothing ready the process does not wake up at all.
public final class EventLoop {
    /// Called on the loop's thread with what the descriptor is ready for.
    public typealias Handler = (IOEvents) -> Void

    private let epoll: FileDescriptor
    /// Registration id → its descriptor and handler. The id travels in the epoll event (not the
    /// fd), so an fd closed and reused within one `epoll_wait` batch can never receive an event
    /// meant for the old one: the old registration's id is gone from this table.
    private var registrations: [UInt64: (fd: Int32, handler: Handler)] = [:]
    /// fd → its current registration id.
    private var registrationByFD: [Int32: UInt64] = [:]
    private var nextRegistration: UInt64 = 1
    private var isRunning = false
    /// A fault for `run()` to throw instead of waiting: set only by tests of the daemon's
    /// teardown (`TOUCHROUTERD_INJECT_LOOP_FAILURE`), never in normal operation.
    public var injectedFailure: SystemError?
    /// Called after each batch of ready descriptors has been handled; returns true while it left
    /// work for later (then the next `epoll_wait` does not sleep, so ready descriptors and the
    /// deferred work take turns). The daemon uses it to finish clients' buffered requests a
    /// bounded slice at a time.
    public var afterEachBatch: (() -> Bool)?
    /// Measure every turn (a batch of handlers plus `afterEachBatch`): wall time and this thread's
    /// CPU time. Off by default; a benchmark aid (`TOUCHROUTERD_MEASURE_LOOP=1`): the CPU clock is a
    /// system call, two per turn.
    public var measuresTurns = false
    /// The longest turn since `takeLongestTurn()`, wall and CPU µs (while `measuresTurns`).
    private var longestTurn: (micros: UInt64, cpuMicros: UInt64) = (0, 0)

    /// The last turns (while `measuresTurns`): their wall-clock span and the loop thread's CPU time
    /// at both ends, µs; the one running now is `recentTurns[newestTurn]` with `end` 0. A ring of
    /// four: a frame due in an earlier turn is handled in the next one (its timer is ready when that
    /// turn's `epoll_wait` returns).
    private var recentTurns = [RecentTurn](repeating: RecentTurn(), count: 4)
    private struct RecentTurn {
        var start: UInt64 = 0
        var end: UInt64 = 0
        var cpuStart: UInt64 = 0
        var cpuEnd: UInt64 = 0
    }
    private var newestTurn = 0

    /// The longest turn measured since the previous call, then starts over. A turn's CPU time is the
    /// loop's own work; wall time beyond it is the scheduler (or a blocking call).
    public func takeLongestTurn() -> (micros: UInt64, cpuMicros: UInt64) {
        defer { longestTurn = (0, 0) }
        return longestTurn
    }

    /// How much of `[from, to]` (monotonic µs, `to` now, inside a handler) the loop spent working
    /// in turns, handlers and deferred work, rather than in `epoll_wait`: the part of a frame's
    /// lateness that the loop's own work made, as opposed to the thread not running (woken late,
    /// or its virtual CPU taken by the hypervisor). Per turn, the smaller of its overlap with
    /// `[from, to]` and the CPU time the thread spent in it (a turn's wall time also holds time the
    /// thread did not run; its CPU clock leaves out the hypervisor's steal where the kernel accounts
    /// it, `CONFIG_PARAVIRT_TIME_ACCOUNTING`): an upper bound of the loop's part. Zero unless
    /// `measuresTurns`. Cost: four overlaps and one CPU clock read.
    public func busyMicros(from: UInt64, to: UInt64) -> UInt64 {
        guard measuresTurns, from < to else { return 0 }
        var busy: UInt64 = 0
        for turn in recentTurns where turn.start != 0 {
            let running = turn.end == 0
            let end = running ? to : min(turn.end, to)
            let start = max(turn.start, from)
            guard end > start else { continue }
            let cpu = (running ? threadCPUMicros() : turn.cpuEnd) - turn.cpuStart
            busy += min(end - start, cpu)
        }
        return busy
    }

    /// `epoll_create1(EPOLL_CLOEXEC)`.
    public init() throws {
        epoll = FileDescriptor(
            rawValue: try checked("epoll_create1") {
                epoll_create1(Int32(EPOLL_CLOEXEC))
            })
    }

    deinit { epoll.close() }

    /// `epoll_ctl(EPOLL_CTL_ADD)`: from now on `handler` is called when `fd` is ready for `events`.
    public func register(_ fd: FileDescriptor, for events: IOEvents, handler: @escaping Handler) throws(SystemError) {
        let registration = nextRegistration
        try control(EPOLL_CTL_ADD, fd, events, registration: registration)
        nextRegistration += 1
        registrations[registration] = (fd.rawValue, handler)
        registrationByFD[fd.rawValue] = registration
    }

    /// `epoll_ctl(EPOLL_CTL_MOD)`: change what `fd` is watched for.
    public func modify(_ fd: FileDescriptor, for events: IOEvents) throws(SystemError) {
        guard let registration = registrationByFD[fd.rawValue] else {
            throw SystemError(call: "epoll_ctl", errno: ENOENT)
        }
        try control(EPOLL_CTL_MOD, fd, events, registration: registration)
    }

    /// `epoll_ctl(EPOLL_CTL_DEL)`; call before closing `fd`. Events already fetched for it are dropped.
    public func deregister(_ fd: FileDescriptor) {
        _ = try? control(EPOLL_CTL_DEL, fd, [], registration: 0)
        if let registration = registrationByFD.removeValue(forKey: fd.rawValue) {
            registrations[registration] = nil
        }
    }

    /// Dispatches ready descriptors until `stop()` is called from a handler.
    public func run() throws {
        isRunning = true
        var ready = [epoll_event](repeating: epoll_event(), count: 64)
        var hasDeferredWork = false
        while isRunning {
            if let injectedFailure { throw injectedFailure }
            let count = try checked("epoll_wait") {
                epoll_wait(epoll.rawValue, &ready, Int32(ready.count), hasDeferredWork ? 0 : -1)
            }
            let start = measuresTurns ? (monotonicMicros(), threadCPUMicros()) : (0, 0)
            if measuresTurns {
                newestTurn = (newestTurn + 1) % recentTurns.count
                recentTurns[newestTurn] = RecentTurn(start: start.0, cpuStart: start.1)
            }
            for index in 0..<Int(count) where isRunning {
                // A handler earlier in this batch may have deregistered this registration (and
                // its fd may already belong to a new one): then the event is dropped.
                guard let registration = registrations[ready[index].data.u64] else { continue }
                registration.handler(IOEvents(rawValue: ready[index].events))
            }
            hasDeferredWork = isRunning && (afterEachBatch?() ?? false)
            if measuresTurns {
                let end = monotonicMicros()
                let cpuEnd = threadCPUMicros()
                recentTurns[newestTurn].end = end
                recentTurns[newestTurn].cpuEnd = cpuEnd
                longestTurn.micros = max(longestTurn.micros, end - start.0)
                longestTurn.cpuMicros = max(longestTurn.cpuMicros, cpuEnd - start.1)
            }
        }
    }

    /// Makes `run()` return after the current handler.
    public func stop() { isRunning = false }

    private func control(_ operation: Int32, _ fd: FileDescriptor, _ events: IOEvents, registration: UInt64)
        throws(SystemError)
    {
        var event = epoll_event()
        // Peer half-close is worth hearing about only while reading (else it would stay ready).
        event.events = events.rawValue | (events.contains(.readable) ? EPOLLRDHUP.rawValue : 0)
        event.data.u64 = registration
        try checked("epoll_ctl") { epoll_ctl(epoll.rawValue, operation, fd.rawValue, &event) }
    }
}

/// A signalfd for a fixed set of signals, which are blocked for normal delivery so they arrive
/// only here, as readable data, inside the event loop.
public final class SignalChannel {
    /// Readable when a signal is pending.
    public let fd: FileDescriptor

    /// Blocks `signals` (`pthread_sigmask`) and opens `signalfd(SFD_NONBLOCK | SFD_CLOEXEC)` for them.
    public init(signals: [Int32]) throws {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        let status = pthread_sigmask(SIG_BLOCK, &mask, nil)
        if status != 0 { throw SystemError(call: "pthread_sigmask", errno: status) }
        fd = FileDescriptor(
            rawValue: try checked("signalfd") {
                signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
            })
    }

    /// Reads every pending signal number (`read` of `signalfd_siginfo` records).
    public func drain() throws -> [Int32] {
        var received: [Int32] = []
        var info = signalfd_siginfo()
        while true {
            let count = try withUnsafeMutableBytes(of: &info) { try fd.read(into: $0) }
            guard let count, count == MemoryLayout<signalfd_siginfo>.size else { return received }
            received.append(Int32(info.ssi_signo))
        }
    }
}

/// A CLOCK_MONOTONIC timerfd. Disarmed, it costs nothing; the loop only wakes when it fires.
public final class MonotonicTimer {
    /// Readable when the timer has fired.
    public let fd: FileDescriptor

    /// `timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)`.
    public init() throws {
        fd = FileDescriptor(
            rawValue: try checked("timerfd_create") {
                timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
            })
    }

    /// `timerfd_settime(TFD_TIMER_ABSTIME)`: fire once at `deadlineMicros` on CLOCK_MONOTONIC
    /// (at once if it has passed).
    public func arm(atMonotonicMicros deadlineMicros: UInt64) throws {
        // An all-zero it_value would disarm; the earliest real deadline is 1 ns.
        let deadline = max(deadlineMicros, 1)
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(deadline / 1_000_000)
        spec.it_value.tv_nsec = Int(deadline % 1_000_000) * 1_000
        if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }
        try checked("timerfd_settime") { timerfd_settime(fd.rawValue, Int32(TFD_TIMER_ABSTIME), &spec, nil) }
    }

    /// `timerfd_settime`: fire every `intervalMicros`, the first time one interval from now.
    public func armPeriodic(intervalMicros: UInt64) throws {
        var spec = itimerspec()
        spec.it_interval.tv_sec = Int(intervalMicros / 1_000_000)
        spec.it_interval.tv_nsec = Int(intervalMicros % 1_000_000) * 1_000
        spec.it_value = spec.it_interval
        try checked("timerfd_settime") { timerfd_settime(fd.rawValue, 0, &spec, nil) }
    }

    /// `timerfd_settime` with a zero value: no more wake-ups.
    public func disarm() throws {
        var spec = itimerspec()
        try checked("timerfd_settime") { timerfd_settime(fd.rawValue, 0, &spec, nil) }
    }

    /// Reads the expiration count so the fd stops being readable.
    public func acknowledge() {
        var expirations: UInt64 = 0
        _ = try? withUnsafeMutableBytes(of: &expirations) { try fd.read(into: $0) }
    }
}

/// This thread's CPU time in µs (`CLOCK_THREAD_CPUTIME_ID`).
func threadCPUMicros() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
}
