/// Small pieces the daemon's files share: the teardown stack, error and message lines, stderr, and
/// the benchmark histogram and slowest frames.
import Glibc
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterProtocol
import TouchRouterSystem

/// Releases, pushed as resources are acquired and run in reverse.
final class TeardownStack {
    var steps: [() -> Void] = []

    /// Adds the release of a resource just acquired.
    func push(_ step: @escaping () -> Void) { steps.append(step) }

    /// Runs every step, last pushed first, once.
    func run() {
        while let step = steps.popLast() { step() }
    }
}

/// An `error` line.
func errorLine(code: ErrorCode, message: String, seq: Int64? = nil, views: [String] = []) -> [UInt8] {
    line(.error(ProtocolError(code: code, message: message, seq: seq, views: views)))
}

/// Ids for a message or log line: at most 10, each quoted through `excerpt`.
func excerptList(_ ids: [String]) -> String {
    let shown = ids.prefix(10).map { Excerpt.of($0) }.joined(separator: ", ")
    return ids.count > 10 ? shown + " and \(ids.count - 10) more" : shown
}

/// One daemon → client message as a wire line.
func line(_ message: DaemonMessage) -> [UInt8] { message.encodedLine() }

func writeStderr(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

/// Counts of µs values, 1 µs wide up to 4 ms, and one bucket above. Fixed size (16 KiB); recording is
/// one increment. For the benchmark counters in `status`.
struct MicrosHistogram {
    private var counts = [UInt32](repeating: 0, count: 4097)
    private var total = 0

    mutating func record(_ micros: UInt64) {
        counts[Int(min(micros, 4096))] += 1
        total += 1
    }

    /// The value below which `fraction` of the recorded values lie (4096 meaning "4096 or more"),
    /// nil when nothing was recorded.
    func percentile(_ fraction: Double) -> Int? {
        guard total > 0 else { return nil }
        let rank = max(1, Int((fraction * Double(total)).rounded(.up)))
        var seen = 0
        for (micros, count) in counts.enumerated() {
            seen += Int(count)
            if seen >= rank { return micros }
        }
        return counts.count - 1
    }

    mutating func reset() { self = MicrosHistogram() }
}

/// The `kept` slowest of the values noted since the last reset, each with the replayed frame's place
/// in its recording: for the benchmark to say which frames set a percentile. Fixed size; noting is
/// one pass over at most `kept` entries.
struct SlowestFrames {
    static let kept = 64
    private var entries: [(frameNumber: Int, micros: UInt64)] = []

    init() { entries.reserveCapacity(Self.kept) }

    mutating func note(frameNumber: Int, micros: UInt64) {
        guard entries.count == Self.kept else { return entries.append((frameNumber, micros)) }
        var fastest = 0
        for index in entries.indices where entries[index].micros < entries[fastest].micros { fastest = index }
        if micros > entries[fastest].micros { entries[fastest] = (frameNumber, micros) }
    }

    /// Slowest first.
    var slowestFirst: [(frameNumber: Int, micros: UInt64)] { entries.sorted { $0.micros > $1.micros } }

    mutating func reset() { entries.removeAll(keepingCapacity: true) }
}

extension Daemon {
    /// The daemon's own counters, for admin `status`.
    struct Stats {
        /// When the daemon started (CLOCK_MONOTONIC, µs): its uptime in `status` and the metrics.
        let startedMonotonicMicros = monotonicMicros()
        var touchMessagesQueued = 0
        var gestureMessagesQueued = 0
        /// `touches` and `gesture` messages not sent because a number in them was not finite (never
        /// expected: the config's bounds keep geometry finite).
        var nonFiniteMessagesDropped = 0
        var clientsCutOff = 0
        /// Reloads refused because the new config did not load or validate.
        var reloadsFailed = 0
        /// Requests (subscribe, hitTest) refused by a view's access list, one per request.
        var accessDenials = 0
        /// Clients disconnected for sending lines faster than their request budget.
        var clientsFlooding = 0
        /// `touches` messages merged away by coalescing, summed over clients that have left.
        var coalescedByGoneClients = 0
        /// The most `touches` messages one enqueue coalesced away, over clients that have left.
        var coalescedMostInOneStepByGoneClients = 0
        /// Run-time requests refused for exceeding a client's change budget.
        var changesRefused = 0
        /// Builds the layout worker was given: reloads and batches of run-time changes.
        var layoutBuilds = 0
    }
}

/// The version `welcome` and `status` report: the package's.
public let daemonVersion = PackageVersion.current
