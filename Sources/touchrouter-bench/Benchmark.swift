import Foundation
import TouchRouterCommandLine

#if canImport(Glibc)
    import Glibc
#endif

/// A named benchmark: prints its figures to standard output. Its command line is declared in
/// `spec` (name, one-line summary, options), so `touchrouter-bench NAME --help` is generated.
struct Benchmark: Sendable {
    var spec: CommandSpec
    /// Runs the benchmark with the arguments after its name, parsed against `spec`.
    var run: @Sendable (ParsedArguments) -> Void

    /// The name given on the command line (`touchrouter-bench NAME`).
    var name: String { spec.name }
}

/// A benchmark's options are declared once each (name, type, default, help) in its own file, in an
/// enum `Declared` beside it; the positional argument keys of touchrouter-bench are these.
extension ArgumentKey {
    static let seed = ArgumentKey("SEED")
    static let frames = ArgumentKey("FRAMES")
    static let pairs = ArgumentKey("PAIRS")
}

/// Options more than one benchmark takes, declared once.
enum SharedOptions {
    /// `--realtime-priority N`, passed on to the daemon (the help says what else it does).
    static let realtimePriority = Option<Int32?>.integer(
        "realtime-priority", help: "Start the daemon with --realtime-priority N (its loop at SCHED_FIFO).", in: 1...99)
    /// `--speed X` passed on to the daemon, where 0 is one frame per loop turn.
    static let daemonSpeed = Option<String>(
        "speed", valueName: "X", help: "Replay speed; 0 = one frame per loop turn (default), 15.9 = 1 kHz frames.",
        default: "0", expected: "a number", convert: { Double($0) != nil ? $0 : nil })
}

/// Monotonic time in nanoseconds (CLOCK_MONOTONIC through the vDSO, 1 ns resolution on Linux).
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// CPU time of the calling thread in nanoseconds (CLOCK_THREAD_CPUTIME_ID): what a build costs
/// without the time other processes on a shared machine took the core away.
func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The cost of one `monotonicNanoseconds()` pair with nothing between: subtracted from single timings.
func timerOverheadNanoseconds() -> Double {
    var samples: [Double] = []
    samples.reserveCapacity(100_000)
    for _ in 0..<100_000 {
        let start = monotonicNanoseconds()
        let end = monotonicNanoseconds()
        samples.append(Double(end - start))
    }
    return percentile(samples, 0.5)
}

/// The `fraction` percentile (0…1) of the samples, nearest rank.
func percentile(_ samples: [Double], _ fraction: Double) -> Double {
    guard !samples.isEmpty else { return .nan }
    let sorted = samples.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// A duration in nanoseconds, printed with a unit that keeps it short.
func formatNanoseconds(_ nanoseconds: Double) -> String {
    if nanoseconds.isNaN { return "-" }
    if nanoseconds < 1_000 { return String(format: "%.0f ns", nanoseconds) }
    if nanoseconds < 1_000_000 { return String(format: "%.2f µs", nanoseconds / 1_000) }
    if nanoseconds < 1_000_000_000 { return String(format: "%.2f ms", nanoseconds / 1_000_000) }
    return String(format: "%.2f s", nanoseconds / 1_000_000_000)
}

/// Pads to a column width (right-aligned).
func column(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}
