import Foundation
import TouchRouterCommandLine

#if canImport(Glibc)
    import Glibc
#endif

/// `touchrouter-bench stalled-readers [--clients N] [--seconds S] [--queues BYTES,...] [--config FILE]
/// [--recording FILE] [--view ID] [--realtime-priority N]`.
let stalledReadersBenchmark = Benchmark(
    spec: CommandSpec(
        name: "stalled-readers",
        abstract: "the real touchrouterd at --speed 1: a reader's longest routing gap beside clients that never read",
        options: [
            StalledReadersBenchmark.Declared.clients, StalledReadersBenchmark.Declared.seconds,
            StalledReadersBenchmark.Declared.queues, DaemonLatencyBenchmark.Declared.config,
            DaemonLatencyBenchmark.Declared.recording,
            DaemonLatencyBenchmark.Declared.view.described(
                "The view everyone subscribes to with subtree (default main)."),
            SharedOptions.realtimePriority.described(
                "The daemon with --realtime-priority N, the monitor's thread at SCHED_FIFO N too."),
        ]),
    run: { arguments in StalledReadersBenchmark.main(arguments) })

/// Issue 26's attack, measured: the real `touchrouterd` replays a recording at `--speed 1`, looped;
/// `clients` subscribers (of every message) never read a byte, so their sockets fill, then their
/// queues, which are then coalesced as long as the replay runs; one monitor (a `Probe` thread)
/// reads everything. For each frame the monitor receives, the gap since the previous frame's
/// arrival is compared with the recording's own interval between the two frames (their `time`
/// fields: at speed 1 without `--replay-restamp`, the recorded spacing, loop gaps included). The
/// goal (issue 26): no gap longer than its frame interval plus 4 ms.
enum StalledReadersBenchmark {
    /// The allowed excess of a gap over the recording's own interval (issue 26).
    static let goalNanos = 4_000_000.0

    /// The options of `touchrouter-bench stalled-readers` of its own, each declared once.
    enum Declared {
        static let clients = Option.integer(
            "clients", help: "Subscribers that never read.", in: 0...Int.max, default: 60)
        static let seconds = Option.number(
            "seconds", valueName: "S", help: "Seconds measured per row.", in: 0...Double.infinity, default: 60)
        static let queues = Option.integers(
            "queues", valueName: "BYTES,...", help: "--client-queue-bytes of each row; 0 = the daemon's default.",
            default: [0, 1_048_576])
    }

    static func main(_ arguments: ParsedArguments) {
        let clients = arguments.value(Declared.clients)
        let seconds = arguments.value(Declared.seconds)
        let queues = arguments.value(Declared.queues)
        let config =
            arguments.value(DaemonLatencyBenchmark.Declared.config)
            ?? DaemonLatencyBenchmark.packageRoot + "/config/kiosk.json5"
        let recording =
            arguments.value(DaemonLatencyBenchmark.Declared.recording) ?? DaemonLatencyBenchmark.Settings().recording
        let view = arguments.value(DaemonLatencyBenchmark.Declared.view) ?? "main"
        let realtimePriority = arguments.value(SharedOptions.realtimePriority)
        print(
            "stalled-readers: \(DaemonLatencyBenchmark.daemonExecutable()) --speed 1 --loop, recording "
                + URL(fileURLWithPath: recording).lastPathComponent)
        print(
            "  \(clients) subscribers of \(view) (subtree) that never read, 1 monitor that reads; "
                + "\(seconds) s per row from the first frame; "
                + (realtimePriority.map { "daemon loop and monitor at SCHED_FIFO \($0)" } ?? "normal scheduling"))
        print("  gap = between the monitor's arrivals of consecutive frames; own = the recording's interval")
        print("  between the same two frames; excess = gap - own (goal: at most 4 ms)")
        print("  longest turn, loop's lateness: in the daemon (TOUCHROUTERD_MEASURE_LOOP), after the first")
        print("  second (the clients connecting): its longest loop turn, and the longest a due frame waited")
        print("  while the loop was busy in turns (its own share of a frame's lateness)")
        print("  machine floor: the longest wake-up lateness of a thread of this process that only sleeps")
        print("  1 ms at a time at the monitor's policy, in the same window (other programs, the hypervisor)")
        print("  load average at start: \(DaemonLatencyBenchmark.loadAverage())")
        print(
            "queue bytes   frames   own p50    gap p50    gap p99    gap max    excess p99  excess max  goal"
                + "    longest turn (wall / CPU)  loop's lateness  machine floor  coalesced  most/step  cut-off")
        for queue in queues {
            print(
                measure(
                    stalled: clients, queueBytes: queue, seconds: seconds, config: config,
                    recording: recording, view: view, realtimePriority: realtimePriority))
        }
        print("  load average at end: \(DaemonLatencyBenchmark.loadAverage())")
    }

    /// One daemon, one row.
    static func measure(
        stalled: Int, queueBytes: Int, seconds: Double, config: String, recording: String, view: String,
        realtimePriority: Int32?
    ) -> String {
        var template = Array("/tmp/touchrouter-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { DaemonLatencyBenchmark.fail("mkdtemp failed") }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socketPath = directory + "/bench.sock"
        let logPath = directory + "/daemon.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let (process, control) = DaemonLatencyBenchmark.startDaemon(
            [
                "--config", config, "--replay", recording, "--speed", "1", "--loop",
                "--replay-wait-for", "\(stalled + 1)", "--socket", socketPath,
                "--max-clients", "\(stalled + 4)", "--log-level", "warning",
            ] + (queueBytes > 0 ? ["--client-queue-bytes", "\(queueBytes)"] : [])
                + (realtimePriority.map { ["--realtime-priority", "\($0)"] } ?? []), socketPath: socketPath,
            logPath: logPath)
        defer { DaemonLatencyBenchmark.stopDaemon(process) }
        defer { close(control) }

        // Never read: connect, subscribe, keep the descriptor.
        var stalledFDs: [Int32] = []
        for _ in 0..<stalled {
            let fd = connectUnix(socketPath)
            let request = #"{"type":"subscribe","views":["\#(view)"],"subtree":true}"# + "\n"
            _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            stalledFDs.append(fd)
        }
        defer { for fd in stalledFDs { close(fd) } }
        let monitor = Probe(socketPath: socketPath, view: view)
        monitor.realtimePriority = realtimePriority
        monitor.start()
        // The replay starts with the last subscription; the loop's longest turn and the loop's own
        // share of the latest frame's lateness are read every second (each `status` starts a new
        // window), the first window (the clients connecting and subscribing) left out.
        let wakeups = WakeupReference(realtimePriority: realtimePriority)
        wakeups.start()
        let start = monotonicNanoseconds()
        var longestWall = 0
        var longestCPU = 0
        var longestBusyLateness = 0
        var counters: [String: Int] = [:]
        var windows = 0
        while monotonicNanoseconds() - start < UInt64(seconds * 1e9) {
            usleep(1_000_000)
            counters = DaemonLatencyBenchmark.status(control)
            windows += 1
            guard windows > 1 else { continue }
            if let wall = counters["loopLongestTurnMicros"], wall > longestWall {
                longestWall = wall
                longestCPU = counters["loopLongestTurnCPUMicros"] ?? 0
            }
            longestBusyLateness = max(longestBusyLateness, counters["replayLongestBusyLatenessMicros"] ?? 0)
        }
        let end = monotonicNanoseconds()
        wakeups.stop()
        let floor = wakeups.lateness(from: start + 1_000_000_000, to: end)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        monitor.finished.wait()

        let pairs = monitor.frameIntervals()
        let gaps = pairs.map(\.gap)
        let own = pairs.map(\.own)
        let excess = pairs.map { $0.gap - $0.own }
        let worst = excess.max() ?? .nan
        return column(queueBytes > 0 ? "\(queueBytes)" : "default", 11) + column("\(pairs.count + 1)", 9)
            + [percentile(own, 0.5), percentile(gaps, 0.5), percentile(gaps, 0.99), gaps.max() ?? .nan]
            .map { column(formatNanoseconds($0), 11) }.joined()
            + column(formatNanoseconds(percentile(excess, 0.99)), 12) + column(formatNanoseconds(worst), 12)
            + column(worst <= goalNanos ? "met" : "missed", 8)
            + column(
                formatNanoseconds(Double(longestWall) * 1000) + " / " + formatNanoseconds(Double(longestCPU) * 1000),
                27) + column(formatNanoseconds(Double(longestBusyLateness) * 1000), 17)
            + column(formatNanoseconds(Double(floor.longest)), 15)
            + column("\(counters["coalescedMessages"] ?? 0)", 11)
            + column(counters["coalescedMostInOneStep"].map { "\($0)" } ?? "-", 11)
            + column("\(counters["clientsCutOff"] ?? 0)", 9)
            + (monitor.lostEarly ? "  (the monitor was disconnected)" : "")
    }
}

extension Probe {
    /// For each frame after the first this probe received: the gap (ns) since the previous frame's
    /// arrival, and the recording's own interval (ns) between the two frames' `time`s. A frame is
    /// the run of lines with one `time`; its arrival is its first line's.
    func frameIntervals() -> [(gap: Double, own: Double)] {
        var frames: [(arrival: UInt64, time: Int64)] = []
        for (index, arrival) in arrivalNanos.enumerated() {
            let time = Int64(arrival) - latencyNanos[index]
            if frames.last?.time != time { frames.append((arrival, time)) }
        }
        return frames.indices.dropFirst().map { index in
            (
                Double(frames[index].arrival - frames[index - 1].arrival),
                Double(frames[index].time - frames[index - 1].time)
            )
        }
    }
}
