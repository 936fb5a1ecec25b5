import Foundation
import TouchRouterCommandLine
import TouchRouterSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `touchrouter-bench latency [--clients 1,10,50] [--seconds S] [--speed X] [--throughput-seconds S]
/// [--gesture-seconds S] [--config FILE] [--recording FILE] [--view ID]`.
let daemonLatencyBenchmark = Benchmark(
    spec: CommandSpec(
        name: "latency",
        abstract: "the real touchrouterd: event-to-client latency p50/p99/p99.9 and throughput, 1/10/50 clients",
        options: [
            DaemonLatencyBenchmark.Declared.clients, DaemonLatencyBenchmark.Declared.seconds,
            DaemonLatencyBenchmark.Declared.throughputSeconds, DaemonLatencyBenchmark.Declared.warmupSeconds,
            DaemonLatencyBenchmark.Declared.gestureSeconds, DaemonLatencyBenchmark.Declared.speed,
            DaemonLatencyBenchmark.Declared.config, DaemonLatencyBenchmark.Declared.recording,
            DaemonLatencyBenchmark.Declared.view,
        ]),
    run: { arguments in DaemonLatencyBenchmark.main(arguments) })

/// Starts the real `touchrouterd` (built next to this tool) replaying a recording with
/// `--replay-restamp`: each frame's timestamp becomes CLOCK_MONOTONIC read just before the frame
/// goes to the tracker, so the `time` of every touches message is comparable with the
/// CLOCK_MONOTONIC a client reads right after `recv` returns the line. The difference is the time
/// the daemon adds from taking a frame to a client holding its message: tracking, hit-testing,
/// encoding, queueing, one `write` per client, the kernel's socket hand-over, the client thread's
/// wake-up and `recv`. Not included: the kernel and libinput before the daemon has the frame.
///
/// Every client subscribes to the same root with `subtree`, so every client receives every
/// message (the worst fan-out). Clients are threads of this process, each blocking in `recv`.
enum DaemonLatencyBenchmark {
    struct Settings {
        var clientCounts = Declared.clients.defaultValue
        var seconds = Declared.seconds.defaultValue
        var throughputSeconds = Declared.throughputSeconds.defaultValue
        var warmupSeconds = Declared.warmupSeconds.defaultValue
        var speed = Declared.speed.defaultValue
        var config = packageRoot + "/config/kiosk.json5"
        var recording = packageRoot + "/Tests/Fixtures/recordings/libinput/ep0430m09-4-finger-drag-down.yml"
        var view = "main"
        var gestureSeconds = Declared.gestureSeconds.defaultValue
        /// The evemu `.desc` of `recording` when it is not beside it (the gesture rows' own).
        var replayDevice: String?
        /// The clients also ask for `gesture` messages.
        var receivesGestures = false
    }

    /// The repository the tool was built from (for the default config and recording).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// One run's figures.
    struct Result {
        var clients: Int
        var latenciesNanos: [Double]
        var messagesReceived: Int
        var framesPerSecond: Double
        var messagesPerSecond: Double
        var coalesced: Int
        var cutOff: Int
        var disconnectedClients: Int
        /// The daemon's CPU time (user + system, from /proc) per replayed frame in the window.
        var daemonCPUMicrosPerFrame: Double
        /// In the daemon: µs from a frame's stamp until its writes were done, p50 and p99 (from
        /// `status` with `TOUCHROUTERD_MEASURE_LOOP=1`).
        var stampToWrittenMicros: (Int?, Int?)
        /// The window's slowest frames in that measure (at most 64, slowest first), each by its
        /// place in the recording.
        var slowestFrames: [(frameNumber: Int, micros: Int)] = []
    }

    /// The options of `touchrouter-bench latency`, each declared once.
    enum Declared {
        /// `none` runs no client rows (the gesture rows only).
        static let clients = Option<[Int]>(
            "clients", valueName: "N,...|none", help: "Client counts, one row each; none for the gesture rows only.",
            default: [1, 10, 50], defaultText: "1,10,50", expected: "comma-separated whole numbers >= 1, or none",
            convert: { text in
                if text == "none" { return [] }
                let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
                guard numbers.allSatisfy({ ($0 ?? 0) >= 1 }) else { return nil }
                return numbers.compactMap { $0 }
            })
        static let seconds = Option.number(
            "seconds", valueName: "S", help: "Seconds measured per row.", in: 0...Double.infinity, default: 10)
        static let throughputSeconds = Option.number(
            "throughput-seconds", valueName: "S", help: "Seconds per throughput row; 0 skips them.",
            in: 0...Double.infinity, default: 5)
        static let warmupSeconds = Option.number(
            "warmup-seconds", valueName: "S", help: "Seconds of warm-up before each row.", in: 0...Double.infinity,
            default: 1)
        static let gestureSeconds = Option.number(
            "gesture-seconds", valueName: "S",
            help: "Seconds per gestures on/off row (10 fingers, every kind); 0 skips them.",
            in: 0...Double.infinity, default: 10)
        static let speed = Option.number("speed", help: "Replay speed factor.", in: 0...Double.infinity, default: 1)
        static let config = Option.text("config", valueName: "FILE", help: "The layout (default config/kiosk.json5).")
        static let recording = Option.text(
            "recording", valueName: "FILE", help: "The recording replayed (default a 4-finger drag).")
        static let view = Option.text(
            "view", valueName: "ID", help: "The view every client subscribes to with subtree (default main).")
    }

    static func main(_ arguments: ParsedArguments) {
        var settings = Settings()
        settings.clientCounts = arguments.value(Declared.clients)
        settings.seconds = arguments.value(Declared.seconds)
        settings.throughputSeconds = arguments.value(Declared.throughputSeconds)
        settings.warmupSeconds = arguments.value(Declared.warmupSeconds)
        settings.speed = arguments.value(Declared.speed)
        settings.gestureSeconds = arguments.value(Declared.gestureSeconds)
        settings.config = arguments.value(Declared.config) ?? settings.config
        settings.recording = arguments.value(Declared.recording) ?? settings.recording
        settings.view = arguments.value(Declared.view) ?? settings.view
        let daemon = daemonExecutable()
        let recordingName = URL(fileURLWithPath: settings.recording).lastPathComponent
        print("latency: \(daemon) --replay-restamp, recording \(recordingName)")
        print("  event to client = client CLOCK_MONOTONIC after recv - frame stamp taken before tracking")
        print("  written = in the daemon, frame stamp to its last write done (TOUCHROUTERD_MEASURE_LOOP)")
        print(
            "  replay speed \(settings.speed), \(settings.seconds) s per row after \(settings.warmupSeconds) s"
                + " warm-up; every client subscribed to \(settings.view) with subtree (receives everything)")
        print("  load average at start: \(loadAverage())")
        print(
            "  floor = the same rate of 400-byte lines written by one thread to N reader threads over Unix"
                + " sockets (one write per reader), stamped before the first write; same run, same machine")
        if !settings.clientCounts.isEmpty {  // `--clients none`: the gesture rows only
            print(
                "clients  messages   p50        p99        p99.9      max        frames/s  daemon CPU/frame"
                    + "  written p50/p99  coalesced  cut-off   floor p50  floor p99  ratio p50  ratio p99")
        }
        for count in settings.clientCounts {
            let result = measure(clients: count, speed: settings.speed, seconds: settings.seconds, settings)
            let perClientRate = Double(result.messagesReceived) / Double(max(count, 1)) / settings.seconds
            let floor = KernelFloor.measure(readers: count, linesPerSecond: perClientRate, seconds: settings.seconds)
            printRow(result, floor: floor)
        }
        if settings.gestureSeconds > 0 { GestureLatencyRows.run(settings) }
        guard settings.throughputSeconds > 0 else { return }
        print("throughput: replay --speed 0 (as fast as it goes), \(settings.throughputSeconds) s per row")
        print(
            "clients  messages   p50        p99        p99.9      max        frames/s  daemon CPU/frame"
                + "  written p50/p99  msgs/s delivered  coalesced  cut-off")
        for count in settings.clientCounts {
            let result = measure(clients: count, speed: 0, seconds: settings.throughputSeconds, settings)
            printRow(result, withThroughput: true)
        }
        print("  load average at end: \(loadAverage())")
    }

    static func printRow(_ result: Result, withThroughput: Bool = false, floor: [Double]? = nil) {
        let samples = result.latenciesNanos
        var row =
            column("\(result.clients)", 7) + column("\(result.messagesReceived)", 10)
            + [0.5, 0.99, 0.999].map { column(formatNanoseconds(percentile(samples, $0)), 11) }.joined()
            + column(formatNanoseconds(samples.max() ?? .nan), 11)
            + column(String(format: "%.0f", result.framesPerSecond), 10)
            + column(String(format: "%.1f µs", result.daemonCPUMicrosPerFrame), 13)
            + column(result.stampToWrittenMicros.0.map { "\($0) µs" } ?? "-", 10)
            + column(result.stampToWrittenMicros.1.map { "\($0) µs" } ?? "-", 10)
        if withThroughput { row += column(String(format: "%.0f", result.messagesPerSecond), 18) }
        row += column("\(result.coalesced)", 11) + column("\(result.cutOff)", 9)
        if let floor {
            let (p50, p99) = (percentile(floor, 0.5), percentile(floor, 0.99))
            row += column(formatNanoseconds(p50), 11) + column(formatNanoseconds(p99), 11)
            row += column(String(format: "%.2f×", percentile(samples, 0.5) / p50), 11)
            row += column(String(format: "%.2f×", percentile(samples, 0.99) / p99), 11)
        }
        if result.disconnectedClients > 0 { row += "  (\(result.disconnectedClients) clients lost early)" }
        print(row)
    }

    /// Starts the real touchrouterd (built next to this tool) with `arguments` and
    /// `TOUCHROUTERD_MEASURE_LOOP`, its stderr to `logPath`, and waits until its socket takes a
    /// control connection, which says hello: the process and that connection. The caller stops the
    /// one (`stopDaemon`) and closes the other.
    static func startDaemon(_ arguments: [String], socketPath: String, logPath: String) -> (Process, Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: daemonExecutable())
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["TOUCHROUTERD_MEASURE_LOOP": "1"]) { $1 }
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { fail("cannot start touchrouterd: \(error)") }
        var control: Int32 = -1
        for _ in 0..<2000 where control < 0 {
            control = connectUnix(socketPath)
            if control < 0 {
                if !process.isRunning { fail("touchrouterd exited:\n\(log(logPath))") }
                usleep(10_000)
            }
        }
        guard control >= 0 else {
            stopDaemon(process)
            fail("touchrouterd never listened:\n\(log(logPath))")
        }
        _ = status(control, hello: true)
        return (process, control)
    }

    /// Kills a daemon `startDaemon` started, if it still runs, and reaps it.
    static func stopDaemon(_ process: Process) {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// One daemon, `clients` subscribers, `seconds` measured after the warm-up.
    static func measure(clients: Int, speed: Double, seconds: Double, _ settings: Settings) -> Result {
        var template = Array("/tmp/touchrouter-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fail("mkdtemp failed") }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socketPath = directory + "/bench.sock"
        let logPath = directory + "/daemon.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let (process, control) = startDaemon(
            [
                "--config", settings.config, "--replay", settings.recording, "--speed", "\(speed)", "--loop",
                "--replay-wait-for", "\(clients)", "--replay-restamp", "--socket", socketPath,
                "--max-clients", "\(clients + 4)", "--log-level", "warning",
            ] + (settings.replayDevice.map { ["--replay-device", $0] } ?? []), socketPath: socketPath, logPath: logPath)
        defer { stopDaemon(process) }
        defer { close(control) }

        let probes = (0..<clients).map { _ in
            Probe(socketPath: socketPath, view: settings.view, gestures: settings.receivesGestures)
        }
        for probe in probes { probe.start() }
        usleep(UInt32(settings.warmupSeconds * 1_000_000))
        let before = status(control)
        let cpuBefore = cpuMicros(process.processIdentifier)
        let windowStart = monotonicNanoseconds()
        usleep(UInt32(seconds * 1_000_000))
        let afterValues = statusValues(control)
        let after = afterValues.compactMapValues { ($0 as? NSNumber)?.intValue }
        let cpuAfter = cpuMicros(process.processIdentifier)
        let windowEnd = monotonicNanoseconds()
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        for probe in probes { probe.finished.wait() }

        var latencies: [Double] = []
        var received = 0
        for probe in probes {
            for (index, arrival) in probe.arrivalNanos.enumerated()
            where arrival >= windowStart && arrival < windowEnd {
                latencies.append(Double(probe.latencyNanos[index]))
                received += 1
            }
        }
        let elapsedSeconds = Double(windowEnd - windowStart) / 1e9
        let frames = Double((after["frames"] ?? 0) - (before["frames"] ?? 0))
        return Result(
            clients: clients, latenciesNanos: latencies, messagesReceived: received,
            framesPerSecond: frames / elapsedSeconds,
            messagesPerSecond: Double(received) / elapsedSeconds,
            coalesced: after["coalescedMessages"] ?? 0, cutOff: after["clientsCutOff"] ?? 0,
            disconnectedClients: probes.filter { $0.lostEarly }.count,
            daemonCPUMicrosPerFrame: frames > 0 ? Double(cpuAfter - cpuBefore) / frames : .nan,
            stampToWrittenMicros: (after["frameStampToWrittenP50Micros"], after["frameStampToWrittenP99Micros"]),
            slowestFrames: ((afterValues["frameStampToWrittenSlowest"] as? [[NSNumber]]) ?? []).compactMap {
                $0.count == 2 ? ($0[0].intValue, $0[1].intValue) : nil
            })
    }

    /// utime + stime of a process in µs (/proc/PID/stat, clock-tick resolution).
    static func cpuMicros(_ pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return 0 }
        // After "pid (comm)": field 3 is the state; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return (user + system) * 1_000_000 / sysconf(Int32(_SC_CLK_TCK))
    }

    /// The daemon's integer counters, by a `status` request on the control connection.
    static func status(_ fd: Int32, hello: Bool = false) -> [String: Int] {
        statusValues(fd, hello: hello).compactMapValues { ($0 as? NSNumber)?.intValue }
    }

    /// The daemon's counters as JSON values, by a `status` request on the control connection.
    static func statusValues(_ fd: Int32, hello: Bool = false) -> [String: Any] {
        var request = ""
        if hello { request += #"{"type":"hello","version":1,"client":"bench control"}"# + "\n" }
        request += #"{"type":"status"}"# + "\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var text = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let lines = text.split(separator: 0x0A)
            if let last = lines.last, text.last == 0x0A, last.starts(with: Array(#"{"type":"status""#.utf8)) {
                guard
                    let object = try? JSONSerialization.jsonObject(with: Data(last)) as? [String: Any],
                    let counters = object["counters"] as? [String: Any]
                else { return [:] }
                return counters
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return [:] }
            text += chunk[..<count]
        }
    }

    static func daemonExecutable() -> String {
        let own = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let path = own.deletingLastPathComponent().appendingPathComponent("touchrouterd").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            fail("no touchrouterd next to this tool (\(path)); swift build -c release --product touchrouterd")
        }
        return path
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?")
            .split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func log(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("touchrouter-bench latency: \(message)\n".utf8))
        exit(1)
    }
}
