import Foundation
import TouchRouterCommandLine

#if canImport(Glibc)
    import Glibc
#endif

/// `touchrouter-bench reload [--views 10000,100000] [--saves 5] [--clients 4] [--seconds S] [--speed X]
/// [--realtime-priority N]`.
let reloadBenchmark = Benchmark(
    spec: CommandSpec(
        name: "reload",
        abstract:
            "the real touchrouterd: start-up, save → layoutChanged, and the longest routing gap while large layouts are saved",
        options: [
            ReloadBenchmark.Declared.views, ReloadBenchmark.Declared.saves, ReloadBenchmark.Declared.clients,
            ReloadBenchmark.Declared.seconds, SharedOptions.daemonSpeed, SharedOptions.realtimePriority,
        ]),
    run: { arguments in ReloadBenchmark.main(arguments) })

/// Starts the real `touchrouterd` on a generated layout of N views (tiny views behind the split
/// layout's halves, so the recording's touches land as usual), replaying a recording as fast as it
/// goes (`--speed 0`, one frame per loop turn) with `--replay-restamp`, and clients subscribed to
/// everything. It then saves the layout again and again (each save a different file of the same
/// size) and reports, from the `time` stamps of the touches the clients receive, the gaps between
/// consecutive routed frames: with no save (the reference, same run) and while saves are built and
/// swapped in. Also: start to socket-ready, save to `layoutChanged` at a client, RssAnon, and the
/// loop's longest turn (wall and CPU, from `status` with `TOUCHROUTERD_MEASURE_LOOP=1`).
enum ReloadBenchmark {
    struct Settings {
        var viewCounts = Declared.views.defaultValue
        var saves = Declared.saves.defaultValue
        var clients = Declared.clients.defaultValue
        var seconds = Declared.seconds.defaultValue
        var speed = SharedOptions.daemonSpeed.defaultValue
        var realtimePriority: String?
        var recording =
            DaemonLatencyBenchmark.packageRoot + "/Tests/Fixtures/recordings/libinput/ep0430m09-4-finger-drag-down.yml"
    }

    /// The options of `touchrouter-bench reload`, each declared once.
    enum Declared {
        static let views = Option.integers(
            "views", help: "Layout sizes in views, one row each.", in: 1...Int.max, default: [10_000, 100_000])
        static let saves = Option.integer("saves", help: "Saves per layout size.", in: 1...Int.max, default: 5)
        static let clients = Option.integer(
            "clients", help: "Clients subscribed to everything.", in: 1...Int.max, default: 4)
        static let seconds = Option.number(
            "seconds", valueName: "S", help: "Seconds of the no-save reference.", in: 0...Double.infinity, default: 2)
    }

    static func main(_ arguments: ParsedArguments) {
        var settings = Settings()
        settings.viewCounts = arguments.value(Declared.views)
        settings.saves = arguments.value(Declared.saves)
        settings.clients = arguments.value(Declared.clients)
        settings.seconds = arguments.value(Declared.seconds)
        settings.speed = arguments.value(SharedOptions.daemonSpeed)
        settings.realtimePriority = arguments.value(SharedOptions.realtimePriority).map { String($0) }
        print(
            "reload: \(DaemonLatencyBenchmark.daemonExecutable()) --replay … --speed \(settings.speed) --replay-restamp"
                + (settings.realtimePriority.map { " --realtime-priority \($0)" } ?? ""))
        print("  gap = time between consecutive routed frames, from the frames' own CLOCK_MONOTONIC stamps")
        print("  reference: \(settings.seconds) s with no save; then \(settings.saves) saves, each waited for")
        print("  late = the longest a replayed frame waited past its due time (finite --speed; the gaps then")
        print("         include the recording's own pauses, e.g. 250 ms / speed between loop passes)")
        print("  load average at start: \(DaemonLatencyBenchmark.loadAverage())")
        print(
            "views    file      start→ready  save→changed p50  max       gap p99 ref  max ref   gap p99 saving  max saving  RssAnon    longest turn ref (wall / CPU)  saving (wall / CPU)  late ref    late saving"
        )
        for count in settings.viewCounts { run(views: count, settings) }
        print("  load average at end: \(DaemonLatencyBenchmark.loadAverage())")
    }

    /// The split layout under `count - 5` tiny views; `marker` names the right half's child.
    static func layout(views count: Int, marker: String) -> String {
        var text = "{ screens: [ { name: \"main\", width: 1280, height: 768, root: { id: \"panel\", children: [\n"
        text.reserveCapacity(count * 48)
        for index in 0..<max(count - 5, 0) {
            text += "{ id: \"f\(index)\", frame: [\(index % 1200), \(index / 1200 % 700), 2, 2] },\n"
        }
        text += """
              { id: "left", frame: [0, 0, 640, 768], children: [ { id: "left-edge", frame: [0, 0, 400, 768] } ] },
              { id: "right", frame: [640, 0, 640, 768], children: [ { id: "\(marker)", frame: [300, 0, 340, 768] } ] },
            ] } } ] }
            """
        return text
    }

    static func run(views count: Int, _ settings: Settings) {
        var template = Array("/tmp/touchrouter-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { DaemonLatencyBenchmark.fail("mkdtemp failed") }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/layout.json5"
        let socketPath = directory + "/bench.sock"
        let logPath = directory + "/daemon.log"
        let files = (0...settings.saves).map { layout(views: count, marker: "marker-\($0)") }
        try? files[0].write(toFile: config, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)

        let started = monotonicNanoseconds()
        let process = startMeasuredDaemon(
            arguments: [
                "--config", config, "--replay", settings.recording, "--speed", settings.speed, "--loop",
                "--replay-wait-for", "\(settings.clients)", "--replay-restamp", "--socket", socketPath,
                "--log-level", "warning",
            ] + (settings.realtimePriority.map { ["--realtime-priority", $0] } ?? []), logPath: logPath)
        defer { stopDaemon(process) }
        let control = connectWhenListening(socketPath, daemon: process, logPath: logPath)
        let ready = monotonicNanoseconds() - started
        defer { close(control) }
        _ = DaemonLatencyBenchmark.status(control, hello: true)

        // The loop's longest turn comes from `status` on a connection of its own (the control
        // connection also carries layoutChanged lines).
        let statusConnection = connectUnix(socketPath)
        defer { close(statusConnection) }
        _ = DaemonLatencyBenchmark.status(statusConnection, hello: true)

        let probes = (0..<settings.clients).map { _ in Probe(socketPath: socketPath, view: "panel") }
        for probe in probes { probe.start() }
        usleep(1_000_000)
        _ = DaemonLatencyBenchmark.status(statusConnection)
        let referenceStart = monotonicNanoseconds()
        usleep(UInt32(settings.seconds * 1_000_000))
        let referenceEnd = monotonicNanoseconds()
        let referenceTurn = DaemonLatencyBenchmark.status(statusConnection)

        var saveLatencies: [Double] = []
        for index in 1...settings.saves {
            let saved = monotonicNanoseconds()
            try? files[index].write(toFile: config, atomically: true, encoding: .utf8)
            guard waitForLayoutChanged(control) else {
                DaemonLatencyBenchmark.fail("no layoutChanged after save \(index)")
            }
            saveLatencies.append(Double(monotonicNanoseconds() - saved))
            usleep(100_000)
        }
        let savingEnd = monotonicNanoseconds()
        let savingTurn = DaemonLatencyBenchmark.status(statusConnection)
        let rssAnon = rssAnonKilobytes(process.processIdentifier)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        for probe in probes { probe.finished.wait() }

        // The routed frames' gaps, as the first probe saw them.
        let reference = probes[0].frameGaps(from: referenceStart, to: referenceEnd)
        let saving = probes[0].frameGaps(from: referenceEnd, to: savingEnd)
        let fileBytes = files[0].utf8.count
        print(
            column("\(count)", 7) + column(String(format: "%.1f MB", Double(fileBytes) / 1e6), 10)
                + column(formatNanoseconds(Double(ready)), 13)
                + column(formatNanoseconds(percentile(saveLatencies, 0.5)), 18)
                + column(formatNanoseconds(saveLatencies.max() ?? .nan), 10)
                + column(formatNanoseconds(percentile(reference, 0.99)), 13)
                + column(formatNanoseconds(reference.max() ?? .nan), 10)
                + column(formatNanoseconds(percentile(saving, 0.99)), 16)
                + column(formatNanoseconds(saving.max() ?? .nan), 12)
                + column("\(rssAnon / 1024) MB", 9)
                + column(turn(referenceTurn), 28) + column(turn(savingTurn), 24)
                + column(lateness(referenceTurn), 12) + column(lateness(savingTurn), 12))
    }

    /// The longest a replayed frame waited past its due time (finite `--speed` only), from `status`.
    static func lateness(_ counters: [String: Int]) -> String {
        guard let micros = counters["replayLongestLatenessMicros"] else { return "-" }
        return formatNanoseconds(Double(micros) * 1000)
    }

    /// The loop's own share of a frame's lateness (the longest time a due frame waited while the
    /// loop was busy in turns) from a `status` reply's counters.
    static func busyLateness(_ counters: [String: Int]) -> String {
        guard let micros = counters["replayLongestBusyLatenessMicros"] else { return "-" }
        return formatNanoseconds(Double(micros) * 1000)
    }

    /// "wall / CPU" of the loop's longest turn from a `status` reply's counters.
    static func turn(_ counters: [String: Int]) -> String {
        guard let wall = counters["loopLongestTurnMicros"], let cpu = counters["loopLongestTurnCPUMicros"] else {
            return "-"
        }
        return formatNanoseconds(Double(wall) * 1000) + " / " + formatNanoseconds(Double(cpu) * 1000)
    }

    /// Reads the control connection until a `layoutChanged` line (generous time limit).
    static func waitForLayoutChanged(_ fd: Int32) -> Bool {
        var text = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 120_000) > 0 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return false }
            text += chunk[..<count]
            if String(decoding: text, as: UTF8.self).contains("\"layoutChanged\"") { return true }
        }
        return false
    }

    static func rssAnonKilobytes(_ pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

/// A connection to the daemon's socket once it listens (polled every ms); fails if it exits first.
func connectWhenListening(_ socketPath: String, daemon process: Process, logPath: String) -> Int32 {
    while true {
        let fd = connectUnix(socketPath)
        if fd >= 0 { return fd }
        if !process.isRunning {
            DaemonLatencyBenchmark.fail("touchrouterd exited:\n\(DaemonLatencyBenchmark.log(logPath))")
        }
        usleep(1_000)
    }
}

/// touchrouterd with `arguments` and `TOUCHROUTERD_MEASURE_LOOP=1`, its stderr in `logPath`.
func startMeasuredDaemon(arguments: [String], logPath: String) -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: DaemonLatencyBenchmark.daemonExecutable())
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(["TOUCHROUTERD_MEASURE_LOOP": "1"]) { $1 }
    process.standardError = FileHandle(forWritingAtPath: logPath)
    process.standardOutput = FileHandle.nullDevice
    do { try process.run() } catch { DaemonLatencyBenchmark.fail("cannot start touchrouterd: \(error)") }
    return process
}

/// Kills a daemon the benchmark has not stopped itself.
func stopDaemon(_ process: Process) {
    if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
