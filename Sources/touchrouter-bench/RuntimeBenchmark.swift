import Foundation
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// `touchrouter-bench runtime [--samples N] [--seconds S] [--views N] [--speed X] [--realtime-priority N]
/// [--steps-only]`.
let runtimeBenchmark = Benchmark(
    spec: CommandSpec(
        name: "runtime",
        abstract:
            "the real touchrouterd: setView round trip against status, mount → live, routing gaps while mounting",
        options: [
            RuntimeBenchmark.Declared.samples, RuntimeBenchmark.Declared.seconds, RuntimeBenchmark.Declared.views,
            SharedOptions.daemonSpeed,
            SharedOptions.realtimePriority.described(
                "Start the daemon with --realtime-priority N (its loop at SCHED_FIFO; use a finite --speed)."),
            RuntimeBenchmark.Declared.stepsOnly,
        ]),
    run: { arguments in RuntimeBenchmark.main(arguments) })

/// Starts the real `touchrouterd` on a small kiosk layout whose `app` view is root's and has a
/// mount point, replays a recording with `--replay-restamp` to a subscriber (the routing probe),
/// and on a control connection times, in the same run: `status` and `setView` round trips
/// (alternating), `mount` of an N-view subtree until its `mounted` reply (the reply is sent once
/// the layout is swapped in, so a touch-down after it hit-tests the subtree: the time until the
/// next touch-down uses it), and the gaps between routed frames with no change (reference) and
/// while a subtree is mounted 10 times a second. At a finite `--speed` the gaps include the
/// recording's own pauses, so it also reports the daemon's `replayLongestLatenessMicros` for both
/// windows: the longest any replayed frame waited past its due time, and beside it the machine's
/// own floor in the same windows (`WakeupReference`: a thread that only sleeps, at the loop's
/// policy).
enum RuntimeBenchmark {
    static let layout = """
        { screens: [{ name: "main", width: 1280, height: 768, root: { id: "panel", children: [
            { id: "app", frame: [0, 0, 1280, 768], owner: { users: [0] }, children: [
                { id: "left", frame: [0, 0, 640, 768], children: [ { id: "left-edge", frame: [0, 0, 400, 768] } ] },
                { id: "right", frame: [640, 0, 640, 768], children: [ { id: "right-edge", frame: [300, 0, 340, 768] } ] },
                { id: "layer", frame: [0, 700, 1280, 68], mount: true },
            ] },
        ] } }] }
        """

    /// `count` small views in a grid, ids prefixed so two subtrees can differ.
    static func mountLine(views count: Int, prefix: String, seq: Int) -> String {
        let views = (0..<count).map {
            #"{"id":"\#(prefix)\#($0)","frame":[\#($0 % 128 * 10),\#($0 / 128 % 6 * 10),9,9]}"#
        }
        return #"{"type":"mount","view":"layer","children":[\#(views.joined(separator: ","))],"seq":\#(seq)}"#
    }

    /// The options of `touchrouter-bench runtime`, each declared once.
    enum Declared {
        /// Its default is 100, or 201 with `--steps-only`.
        static let samples = Option<Int?>.integer(
            "samples", help: "setView/status pairs and mounts timed (default 100).", in: 1...Int.max)
        static let seconds = Option.number(
            "seconds", valueName: "S", help: "Seconds of the no-change reference and of mounting.",
            in: 0...Double.infinity, default: 3)
        static let views = Option.integer("views", help: "Views in a mounted subtree.", in: 1...Int.max, default: 1000)
        static let stepsOnly = Option.flag(
            "steps-only",
            help: "Only time the mount's steps in this process (--samples runs each, default 201), no daemon.")
    }

    static func main(_ arguments: ParsedArguments) {
        let samples = arguments.value(Declared.samples) ?? 100
        let seconds = arguments.value(Declared.seconds)
        let mountViews = arguments.value(Declared.views)
        let speed = arguments.value(SharedOptions.daemonSpeed)
        let realtimePriority = arguments.value(SharedOptions.realtimePriority).map { String($0) }
        if arguments.value(Declared.stepsOnly) {
            // For a profiler (callgrind counts the same instructions whatever the machine's load).
            decodingCosts(views: mountViews, runs: arguments.value(Declared.samples) ?? 201)
            return
        }
        var template = Array("/tmp/touchrouter-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { DaemonLatencyBenchmark.fail("mkdtemp failed") }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/layout.json5", socketPath = directory + "/bench.sock"
        let logPath = directory + "/daemon.log"
        try? layout.write(toFile: config, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let recording =
            DaemonLatencyBenchmark.packageRoot + "/Tests/Fixtures/recordings/libinput/ep0430m09-4-finger-drag-down.yml"
        let process = startMeasuredDaemon(
            arguments: [
                "--config", config, "--replay", recording, "--speed", speed, "--loop", "--replay-wait-for", "1",
                "--replay-restamp", "--socket", socketPath, "--log-level", "warning",
            ] + (realtimePriority.map { ["--realtime-priority", $0] } ?? []), logPath: logPath)
        defer { stopDaemon(process) }
        let control = connectWhenListening(socketPath, daemon: process, logPath: logPath)
        defer { close(control) }
        let reader = ReplyReader(fd: control)
        let statusConnection = connectUnix(socketPath)
        defer { close(statusConnection) }
        _ = DaemonLatencyBenchmark.status(statusConnection, hello: true)
        let probe = Probe(socketPath: socketPath, view: "panel")
        probe.start()
        usleep(1_000_000)

        print(
            "runtime: \(DaemonLatencyBenchmark.daemonExecutable()) --replay … --speed \(speed) --replay-restamp"
                + (realtimePriority.map { " --realtime-priority \($0)" } ?? ""))
        print("  load average at start: \(DaemonLatencyBenchmark.loadAverage())")
        decodingCosts(views: mountViews)
        // Round trips, alternating on one connection, paced within the change budget (100/s).
        var statusTimes: [Double] = [], setViewTimes: [Double] = []
        var seq = 1
        for index in 0..<samples {
            statusTimes.append(reader.roundTrip(#"{"type":"status","seq":\#(seq)}"#, seq: seq))
            seq += 1
            let alpha = index % 2 == 0 ? "0.5" : "0.75"
            setViewTimes.append(
                reader.roundTrip(
                    #"{"type":"setView","views":{"left-edge":{"alpha":\#(alpha)}},"seq":\#(seq)}"#, seq: seq))
            seq += 1
            usleep(12_000)
        }
        print("  round trip (\(samples) each, same connection)   p50        p99        max")
        print("    status " + row(statusTimes))
        print("    setView" + row(setViewTimes))
        print(
            String(
                format: "    setView p50 / status p50 = %.2f",
                percentile(setViewTimes, 0.5) / percentile(statusTimes, 0.5)))

        // Mount → live: the `mounted` reply comes after the swap.
        var mountTimes: [Double] = [], buildTimes: [Double] = []
        for index in 0..<min(samples, 30) {
            let line = mountLine(views: mountViews, prefix: index % 2 == 0 ? "a" : "b", seq: seq)
            mountTimes.append(reader.roundTrip(line, seq: seq))
            seq += 1
            let buildCPU = DaemonLatencyBenchmark.status(statusConnection)["lastLayoutBuildCPUMicros"] ?? -1
            buildTimes.append(Double(buildCPU) * 1000)
            usleep(100_000)
        }
        print("  mount of \(mountViews) views → mounted (live)  " + row(mountTimes))
        print("    the worker's CPU per mount build            " + row(buildTimes))

        // Routing gaps: reference, then mounting 10 times a second; the machine's own wake-up
        // lateness at the loop's policy alongside, in both windows.
        let wakeups = WakeupReference(realtimePriority: realtimePriority.flatMap { Int32($0) })
        wakeups.start()
        usleep(100_000)
        _ = DaemonLatencyBenchmark.status(statusConnection)
        let referenceStart = monotonicNanoseconds()
        usleep(UInt32(seconds * 1_000_000))
        let referenceEnd = monotonicNanoseconds()
        let referenceTurn = DaemonLatencyBenchmark.status(statusConnection)
        var mounts = 0
        while monotonicNanoseconds() - referenceEnd < UInt64(seconds * 1e9) {
            let due = referenceEnd + UInt64(mounts) * 100_000_000
            let now = monotonicNanoseconds()
            if due > now { usleep(UInt32((due - now) / 1000)) }
            _ = reader.roundTrip(mountLine(views: mountViews, prefix: mounts % 2 == 0 ? "a" : "b", seq: seq), seq: seq)
            seq += 1
            mounts += 1
        }
        let mountingEnd = monotonicNanoseconds()
        let mountingTurn = DaemonLatencyBenchmark.status(statusConnection)
        wakeups.stop()
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        probe.finished.wait()
        let reference = probe.frameGaps(from: referenceStart, to: referenceEnd)
        let mounting = probe.frameGaps(from: referenceEnd, to: mountingEnd)
        print(
            "  routing gap between frames                     p50        p99        max    longest turn (wall / CPU)"
                + "   longest lateness   loop busy")
        /// A window's loop columns from its `status` counters: longest turn, lateness, the loop's busy share.
        func loopColumns(_ counters: [String: Int]) -> String {
            column(ReloadBenchmark.turn(counters), 26) + column(ReloadBenchmark.lateness(counters), 12)
                + column(ReloadBenchmark.busyLateness(counters), 12)
        }
        print("    no change (\(reference.count) gaps)  " + row(reference) + loopColumns(referenceTurn))
        print(
            "    \(mounts) mounts of \(mountViews) views at 10/s (\(mounting.count) gaps)" + row(mounting)
                + loopColumns(mountingTurn))
        let quietWakeups = wakeups.lateness(from: referenceStart, to: referenceEnd)
        let mountingWakeups = wakeups.lateness(from: referenceEnd, to: mountingEnd)
        print(
            "  the machine's floor: a thread that only sleeps 1 ms at a time (\(wakeups.policy)), longest lateness")
        print(
            "    no change (\(quietWakeups.count) wake-ups)   " + formatNanoseconds(Double(quietWakeups.longest))
                + "    mounting (\(mountingWakeups.count) wake-ups)   "
                + formatNanoseconds(Double(mountingWakeups.longest)))
        print("  load average at end: \(DaemonLatencyBenchmark.loadAverage())")
    }

    /// Where a mount line's decoding costs, in this process (medians of `runs`): the loop's part and
    /// the worker's, as it was (the whole line decoded on the loop into values, turned into the
    /// reader's nodes on the worker) and as it is (the loop skims the header and copies the line,
    /// the worker decodes it into nodes).
    static func decodingCosts(views count: Int, runs: Int = 201) {
        let line = Array(mountLine(views: count, prefix: "a", seq: 1).utf8)
        var sink = 0
        func median(_ body: () -> Int) -> Double {
            var times: [Double] = []
            for _ in 0..<runs {
                let start = monotonicNanoseconds()
                sink &+= body()
                times.append(Double(monotonicNanoseconds() - start))
            }
            return percentile(times, 0.5)
        }
        var decoded: JSONValue = .null
        if case .request(let request) = RequestDecoder.decode(line: line),
            case .mount(_, let children) = request.message
        {
            decoded = children
        }
        let wholeDecode = median {
            if case .request = RequestDecoder.decode(line: line) { return 1 }
            return 0
        }
        let toNodes = median {
            if case .array(let nodes) = decoded.node.value { return nodes.count }
            return 0
        }
        let skim = median { (MountLineHeader.find(in: line[...]) != nil ? 1 : 0) + Array(line[...]).count }
        let workerDecode = median {
            if case .success(let mount) = MountRequest.decode(line: line) { return mount.view.count }
            return 0
        }
        print("  a mount line of \(count) views (\(line.count) bytes), decoding, medians of \(runs) in this process:")
        print(
            "    before: loop decodes the line \(formatNanoseconds(wholeDecode)), worker turns it into nodes "
                + formatNanoseconds(toNodes))
        print(
            "    now:    loop skims the header and copies the line \(formatNanoseconds(skim)), worker decodes it "
                + formatNanoseconds(workerDecode)
                + String(
                    format: "  (loop %.0f× less; both halves %.2f× the time)", wholeDecode / skim,
                    (skim + workerDecode) / (wholeDecode + toNodes)) + (sink == 42 ? " " : ""))

        // The rest of the worker's build, in this process: the request applied (the config checks,
        // the runtime index, the effective layout), then the hit-test index of the result.
        guard let config = try? Config.parse(Data(layout.utf8), fileName: "runtime.json5"),
            case .success(let mount) = MountRequest.decode(line: line)
        else { return }
        let base = RuntimeLayout(base: config)
        let root = RuntimeClient(id: 1) { _ in true }
        var applied = base
        let apply = median {
            applied = base
            let request = RuntimeRequest.mount(viewID: mount.view, children: mount.children)
            if case .success(let views) = applied.apply(request, by: root) { return views.count }
            return 0
        }
        let index = median { PreparedLayout(applied.effective.layout).layout.screens.count }
        print(
            "    the rest of the build: the mount applied \(formatNanoseconds(apply)), the hit-test index "
                + formatNanoseconds(index))
    }

    static func row(_ samples: [Double]) -> String {
        column(formatNanoseconds(percentile(samples, 0.5)), 11)
            + column(formatNanoseconds(percentile(samples, 0.99)), 11)
            + column(formatNanoseconds(samples.max() ?? .nan), 11)
    }
}

/// Sends request lines and waits for the reply with their `seq`, skipping everything else
/// (`layoutChanged`, touches).
final class ReplyReader {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// Nanoseconds from sending `line` to reading the line that carries `"seq":seq`.
    func roundTrip(_ line: String, seq: Int) -> Double {
        let marker = Array(#""seq":\#(seq)}"#.utf8)
        let start = monotonicNanoseconds()
        _ = (line + "\n").withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            while let newline = buffer.firstIndex(of: 0x0A) {
                let found = buffer[..<newline]
                let matched = found.count >= marker.count && Array(found.suffix(marker.count)) == marker
                buffer.removeFirst(newline + 1)
                if matched { return Double(monotonicNanoseconds() - start) }
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { DaemonLatencyBenchmark.fail("the daemon closed the control connection") }
            buffer += chunk[..<count]
        }
    }
}

extension Probe {
    /// The gaps (ns) between consecutive routed frames arriving in `start ..< end`, from the frames'
    /// own stamps (µs), as this probe saw them.
    func frameGaps(from start: UInt64, to end: UInt64) -> [Double] {
        var frames: [(arrival: UInt64, time: UInt64)] = []
        for (index, arrival) in arrivalNanos.enumerated() {
            let time = UInt64(Int64(arrival) - latencyNanos[index]) / 1000
            if frames.last?.time != time { frames.append((arrival, time)) }
        }
        var result: [Double] = []
        for index in frames.indices.dropFirst() where frames[index].arrival >= start && frames[index].arrival < end {
            result.append(Double(frames[index].time - frames[index - 1].time) * 1000)
        }
        return result
    }
}
