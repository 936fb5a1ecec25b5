import Foundation
import Glibc
import Testing
import TouchRouterDaemon
import TouchRouterSystem

/// `EventLoop.busyMicros`, the loop's own share of a replayed frame's wait (the benchmarks'
/// `replayLongestBusyLatenessMicros`), on a real epoll loop driven by a real pipe: a wait spent
/// working in a turn counts, one spent in `epoll_wait` or with the thread not running does not.
/// The bounds are the work's own CPU time, not the machine's speed: a turn that spins for 20 ms of
/// CPU counts at least that, whatever the load.
@Suite("The event loop's busy share of a wait")
struct LoopMeasurementTests {
    /// Where the work goes around the wait, which starts at the first turn's mark and ends when
    /// the second turn's handler asks.
    enum Scenario {
        /// The first turn spins for 20 ms of CPU after its mark: the loop's own work.
        case spin
        /// The first turn spins before its mark: work before the wait is not part of it.
        case spinBeforeMark
        /// The second turn spins before it asks: the turn still running counts too.
        case spinInSecondTurn
        /// The first turn sleeps 20 ms after its mark: the turn's wall time without CPU (what a
        /// hypervisor taking the virtual CPU looks like from inside).
        case sleep
        /// The first turn returns at once; another thread writes the next byte 20 ms later: the
        /// loop waits in `epoll_wait`.
        case idle
    }

    static let stretchMicros: UInt64 = 20_000

    static func micros(_ clock: clockid_t) -> UInt64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }

    /// Uses 20 ms of this thread's CPU.
    static func spin() {
        let cpuStart = micros(CLOCK_THREAD_CPUTIME_ID)
        while micros(CLOCK_THREAD_CPUTIME_ID) - cpuStart < stretchMicros {}
    }

    /// Runs two turns on a loop that measures them (or not) and returns the loop's busy share of
    /// the span from the first turn's mark to the second turn's handler, and that span.
    static func measure(_ scenario: Scenario, measuring: Bool = true) throws -> (busy: UInt64, wait: UInt64) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw HarnessError("pipe failed") }
        defer {
            close(fds[0])
            close(fds[1])
        }
        let loop = try EventLoop()
        loop.measuresTurns = measuring
        var turn = 0
        var mark: UInt64 = 0
        var result: (busy: UInt64, wait: UInt64) = (0, 0)
        var writer: Thread?
        try loop.register(FileDescriptor(rawValue: fds[0]), for: .readable) { _ in
            var byte: UInt8 = 0
            _ = read(fds[0], &byte, 1)
            turn += 1
            if turn == 1 {
                mark = micros(CLOCK_MONOTONIC)
                switch scenario {
                case .spin, .spinInSecondTurn:
                    if scenario == .spin { spin() }
                    _ = write(fds[1], &byte, 1)
                case .spinBeforeMark:
                    spin()
                    mark = micros(CLOCK_MONOTONIC)
                    _ = write(fds[1], &byte, 1)
                case .sleep:
                    usleep(UInt32(stretchMicros))
                    _ = write(fds[1], &byte, 1)
                case .idle:
                    let writeFD = fds[1]
                    writer = Thread {
                        usleep(UInt32(stretchMicros))
                        var next: UInt8 = 1
                        _ = write(writeFD, &next, 1)
                    }
                    writer?.start()
                }
                return
            }
            if scenario == .spinInSecondTurn { spin() }
            let now = micros(CLOCK_MONOTONIC)
            result = (loop.busyMicros(from: mark, to: now), now - mark)
            loop.stop()
        }
        var byte: UInt8 = 0
        _ = write(fds[1], &byte, 1)
        try loop.run()
        return result
    }

    @Test("a wait spent working in a turn counts whole")
    func spinning() throws {
        let (busy, wait) = try Self.measure(.spin)
        #expect(busy >= Self.stretchMicros, "busy \(busy) µs of a \(wait) µs wait")
        #expect(busy <= wait)
    }

    @Test("work in the turn still running counts")
    func spinningInTheSecondTurn() throws {
        let (busy, wait) = try Self.measure(.spinInSecondTurn)
        #expect(busy >= Self.stretchMicros, "busy \(busy) µs of a \(wait) µs wait")
        #expect(busy <= wait)
    }

    @Test("work before the wait began does not count")
    func spinningBeforeTheMark() throws {
        let (busy, wait) = try Self.measure(.spinBeforeMark)
        #expect(busy < Self.stretchMicros / 4, "busy \(busy) µs of a \(wait) µs wait")
    }

    @Test("a turn's wall time without CPU does not count (the thread was not running)")
    func sleepingInATurn() throws {
        let (busy, wait) = try Self.measure(.sleep)
        #expect(wait >= Self.stretchMicros)
        #expect(busy < Self.stretchMicros / 4, "busy \(busy) µs of a \(wait) µs wait")
    }

    @Test("a wait in epoll_wait does not count")
    func idle() throws {
        let (busy, wait) = try Self.measure(.idle)
        #expect(wait >= Self.stretchMicros)
        #expect(busy < Self.stretchMicros / 4, "busy \(busy) µs of a \(wait) µs wait")
    }

    @Test("nothing is measured unless the loop measures its turns")
    func offByDefault() throws {
        let (busy, _) = try Self.measure(.spin, measuring: false)
        #expect(busy == 0)
    }
}
