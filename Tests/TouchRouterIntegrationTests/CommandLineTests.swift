import Foundation
import Glibc
import Testing
import TouchRouterCommandLine
import TouchRouterProtocol
import TouchRouterSystem

@Suite("touchrouterd's command line, socket options, logging; touchrouterctl against the daemon", .serialized)
struct CommandLineTests {
    /// Runs a built product to its end; returns (status, stdout, stderr).
    func run(_ product: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.product(product))
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: out, as: UTF8.self),
            String(decoding: err, as: UTF8.self)
        )
    }

    @Test(
        "a bad command line exits 2 and says what is wrong",
        arguments: [
            (["--replay", "x.events"], "--config FILE is required"),
            (["--config", "c.json5", "--speed", "2"], "--speed needs --replay RECORDING"),
            (["--config", "c.json5", "--loop"], "--loop needs --replay RECORDING"),
            (["--config", "c.json5", "--replay-wait"], "--replay-wait needs --replay RECORDING"),
            (["--config", "c.json5", "--replay-wait-for", "2"], "--replay-wait-for needs --replay RECORDING"),
            (["--config", "c.json5", "--replay-device", "d.desc"], "--replay-device needs --replay RECORDING"),
            (["--config", "c.json5", "--exit-after-replay"], "--exit-after-replay needs --replay RECORDING"),
            (["--config", "c.json5", "--replay-restamp"], "--replay-restamp needs --replay RECORDING"),
            (
                ["--config", "c.json5", "--socket-mode", "999"],
                "--socket-mode 999: expected octal permissions"
            ),
            (
                ["--config", "c.json5", "--socket-mode", "1000"],
                "--socket-mode 1000: expected octal permissions"
            ),
            (
                ["--config", "c.json5", "--seat", "seat1", "--device", "/dev/input/event3"],
                "--seat and --device"
            ),
            (["--config", "c.json5", "--frobnicate"], "unknown option --frobnicate"),
        ])
    func badCommandLine(arguments: [String], message: String) throws {
        let result = try run("touchrouterd", arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test(
        "the parser's other mistakes: each exits 2 with touchrouterd's wording",
        arguments: [
            (["--config", "a.json5", "--config", "b.json5"], "--config given twice"),
            (["--config"], "--config needs a value"),
            (["--config", "c.json5", "stray"], "unknown option stray"),
            (["--config", "c.json5", "--replay", "r.yml", "--loop=yes"], "--loop takes no value"),
            (["--config", ""], "--config needs a non-empty path"),
            (["--config", "c.json5", "--max-clients", "0"], "--max-clients 0: expected a number from 1 to 65536"),
            (["--config", "c.json5", "--replay-restamp"], "--replay-restamp needs --replay RECORDING"),
        ])
    func parserMistakes(arguments: [String], message: String) throws {
        let result = try run("touchrouterd", arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }

    @Test("--help prints the usage generated from the declaration on stdout and exits 0, whatever else is wrong")
    func help() throws {
        let result = try run("touchrouterd", ["--help"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdout == """
                OVERVIEW: Route touch panel input to the programs that own each screen region.

                USAGE: touchrouterd --config FILE [--socket PATH] [--socket-mode OCTAL] [--socket-group GROUP] [--seat NAME] [--device NODE ...] [--replay RECORDING] [--speed X] [--loop] [--replay-wait] [--replay-wait-for N] [--replay-device DESC] [--exit-after-replay] [--max-clients N] [--client-queue-bytes N] [--log-level LEVEL] [--realtime-priority N]

                OPTIONS:
                  --config FILE         Layout config (JSON5); reloaded on SIGHUP and when the file changes.
                  --socket PATH         Unix socket to serve (default /run/touchrouter/touchrouter.sock).
                  --socket-mode OCTAL   Socket file permissions (default 0660).
                  --socket-group GROUP  Group owning the socket file (name or number).
                  --seat NAME           libinput seat for live input (default seat0).
                  --device NODE         Read this /dev/input/eventN instead of a seat (repeatable).
                  --replay RECORDING    Play a libinput-record YAML or evemu .events file instead of live input.
                  --speed X             Replay speed factor, 0.001 to 1000, 0 = as fast as possible (default 1).
                  --loop                Replay the recording again and again.
                  --replay-wait         Hold the recording until the first client subscribes.
                  --replay-wait-for N   Hold the recording until N clients have subscribed, 1 to 65536.
                  --replay-device DESC  evemu .desc for an .events recording (default: beside it).
                  --exit-after-replay   Stop once the recording has played.
                  --max-clients N       Refuse connections beyond N, 1 to 65536 (default 64).
                  --client-queue-bytes N  Per-client outbound queue bound, 4096 to 1073741824 (default 262144).
                  --log-level LEVEL     error, warning, notice, info (default) or debug.
                  --realtime-priority N  Route at SCHED_FIFO priority (needs LimitRTPRIO= or CAP_SYS_NICE), 1 to 99.
                  -h, --help            Show this help.
                  --version             Show the version.

                --seat and --device are alternatives. --speed, --loop, --replay-wait, --replay-wait-for,
                --replay-device and --exit-after-replay need --replay. Exit status: 0 after a graceful stop,
                1 when the daemon could not start, 2 for a bad command line.

                """)
        let short = try run("touchrouterd", ["--frobnicate", "-h"])
        #expect(short.status == 0)
        #expect(short.stdout == result.stdout)
    }

    @Test("--version prints the package's version on stdout and exits 0, for the daemon and the benchmarks")
    func version() throws {
        for tool in ["touchrouterd", "touchrouter-bench"] {
            let result = try run(tool, ["--version"])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(tool)")
            #expect(result.stdout == "\(tool) \(PackageVersion.current)\n")
        }
        // Help wins over it, as over any other mistake on the line.
        #expect(try run("touchrouterd", ["--version", "--help"]).stdout.hasPrefix("OVERVIEW:"))
    }

    @Test("touchrouter-bench --help lists the benchmarks; NAME --help shows its options; both exactly, exit 0")
    func benchHelp() throws {
        let overview = try run("touchrouter-bench", ["--help"])
        #expect(overview.status == 0)
        #expect(
            overview.stdout == """
                OVERVIEW: Print touchrouter's performance figures (build with -c release).

                USAGE: touchrouter-bench [NAME [OPTIONS] [ARGUMENTS]]

                BENCHMARKS:
                  hittest               hit-test cost per query, plain recursion vs index, 10 … 1M views; index build time
                  tracker               tracker cost per frame, 10 concurrent touches (moving, down, up); [FRAMES [PAIRS]]
                  passthrough           one finger moving: input frame to the socket's write vs to the virtual touchscreen's; [FRAMES]
                  gestures              tracker + gesture recognition per frame vs the tracker alone, 10 touches; [FRAMES [PAIRS]]
                  encode                touches line encoding: byte-level TouchesEncoder vs JSONEncoder, 1/2/10 touches
                  latency               the real touchrouterd: event-to-client latency p50/p99/p99.9 and throughput, 1/10/50 clients
                  stalled-readers       the real touchrouterd at --speed 1: a reader's longest routing gap beside clients that never read
                  reload                the real touchrouterd: start-up, save → layoutChanged, and the longest routing gap while large layouts are saved
                  runtime               the real touchrouterd: setView round trip against status, mount → live, routing gaps while mounting
                  config                config load (parse + validate + index) vs Python json.load, 10k/100k views; RssAnon

                OPTIONS:
                  -h, --help            Show this help.
                  --version             Show the version.

                Without a name, runs every benchmark. See 'touchrouter-bench NAME --help' for a benchmark's options.

                """)
        let hitTest = try run("touchrouter-bench", ["hittest", "--help"])
        #expect(hitTest.status == 0)
        #expect(
            hitTest.stdout == """
                OVERVIEW: hit-test cost per query, plain recursion vs index, 10 … 1M views; index build time

                USAGE: touchrouter-bench hittest [--sizes N,...] [--shapes S,...] [--queries N] [--no-plain] [--grid-threshold N]

                OPTIONS:
                  --sizes N,...         Layout sizes in views (default 10,1000,10000,100000,1000000).
                  --shapes S,...        Layout shapes: wide, deep, realistic (default all).
                  --queries N           Index queries per layout (default 50000).
                  --no-plain            Skip the plain recursion.
                  --grid-threshold N    Children above which the index builds a grid.
                  -h, --help            Show this help.

                """)
        let latency = try run("touchrouter-bench", ["latency", "--help"])
        #expect(latency.status == 0)
        #expect(latency.stdout.hasPrefix("OVERVIEW: the real touchrouterd: event-to-client latency"))
    }

    @Test(
        "touchrouter-bench: a bad command line exits 2 with the reason on stderr, running nothing",
        arguments: [
            (
                ["nosuch"],
                "unknown benchmark \"nosuch\" (have: hittest, tracker, passthrough, gestures, encode, latency, stalled-readers, reload, runtime, config)"
            ),
            (["latency", "--clients"], "touchrouter-bench latency: '--clients' needs a value (--clients N,...|none)"),
            (["hittest", "--sizs", "10"], "touchrouter-bench hittest: unknown option '--sizs'"),
            (["encode", "1", "2"], "touchrouter-bench encode: unexpected argument '2'"),
        ])
    func benchUsageErrors(arguments: [String], message: String) throws {
        let result = try run("touchrouter-bench", arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix(message + "\nSee 'touchrouter-bench"), "\(result.stderr)")
    }

    @Test("a broken config at start: every error is logged and the exit status is 1")
    func brokenConfigAtStart() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("bad.json5", "{ screens: [ { name: \"main\", width: -1, height: 0 } ] }")
        let result = try run(
            "touchrouterd", ["--config", directory.file("bad.json5"), "--socket", directory.file("s")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bad.json5:1:"))
        #expect(result.stderr.contains("cannot start: the config has errors"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("s")))
    }

    @Test(
        "--socket-mode and --socket-group set the socket file's permissions and group",
        arguments: [("0600", mode_t(0o600)), ("0777", mode_t(0o777))])
    func socketModeAndGroup(mode: String, expected: mode_t) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments() + ["--socket-mode", mode, "--socket-group", "\(getgid())"],
            socketName: "deep/er/touchrouter.sock")
        defer { daemon.stop() }
        var status = stat()
        #expect(stat(daemon.socketPath, &status) == 0)
        #expect(status.st_mode & 0o777 == expected)
        #expect(status.st_gid == getgid())
        #expect((status.st_mode & S_IFMT) == S_IFSOCK)
    }

    @Test("with JOURNAL_STREAM naming stderr, lines carry <N> priority prefixes")
    func journalPrefixes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logPath = directory.file("journal.log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        var status = stat()
        stat(logPath, &status)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.product("touchrouterd"))
        process.arguments = Scenario.arguments() + ["--socket", directory.file("j.sock")]
        process.environment = ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"]
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        var log = ""
        while !log.contains("listening on"), Date() < deadline {
            usleep(10_000)
            log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        #expect(log.contains("<5>listening on \(directory.file("j.sock"))"))
        #expect(log.contains("<5>stopping: SIGTERM"))
        #expect(!log.contains("touchrouterd: notice:"))
    }

    @Test("with NOTIFY_SOCKET, systemd hears READY, RELOADING and STOPPING")
    func systemdNotify() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let notify = try NotifySocket(path: directory.file("notify.sock"))
        func nextDatagram() throws -> String { try notify.next() }
        let config = directory.file("layout.json5")
        try FileManager.default.copyItem(atPath: Scenario.layoutPath, toPath: config)
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments(config: config),
            environment: ["NOTIFY_SOCKET": notify.path])
        defer { daemon.stop() }
        #expect(try nextDatagram().hasPrefix("READY=1\nSTATUS=layout generation 1"))
        let changed = try String(contentsOfFile: config, encoding: .utf8)
            .replacingOccurrences(of: "left-edge", with: "left-margin")
        try changed.write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try nextDatagram().hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        #expect(try nextDatagram() == "READY=1\nSTATUS=layout generation 2")
        daemon.signal(SIGTERM)
        #expect(try nextDatagram() == "STOPPING=1\nSTATUS=stopping: SIGTERM")
    }

    @Test("with WATCHDOG_USEC, the daemon sends WATCHDOG=1 keep-alives every half interval")
    func systemdWatchdog() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let notify = try NotifySocket(path: directory.file("notify.sock"))
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments(),
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "2000000"])
        defer { daemon.stop() }
        #expect(try notify.next().hasPrefix("READY=1"))
        // Every 1 s: 4 in 4.5 s (3 or more under load; once per interval would be 2).
        usleep(4_500_000)
        let pings = notify.pending()
        #expect(pings.count >= 3 && pings.allSatisfy { $0 == "WATCHDOG=1" }, "\(pings)")
    }

    static let activator = "/usr/bin/systemd-socket-activate"

    @Test(
        "a socket passed by systemd socket activation (LISTEN_FDS) is used and left in place",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: activator),
            "needs systemd-socket-activate (package systemd; scripts/setup installs it)"))
    func socketActivation() throws {
        let activator = Self.activator
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socketPath = directory.file("activated.sock")
        let logPath = directory.file("activated.log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: activator)
        process.arguments =
            ["--listen", socketPath, Paths.product("touchrouterd")]
            + Scenario.arguments() + ["--socket", directory.file("unused.sock")]
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let deadline = Date().addingTimeInterval(30)
        // The path exists once bound, before listen(): wait for the activator's own line, which it
        // prints after listen() (a connect in between is refused).
        func activatorLog() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        while !activatorLog().contains("Listening on \(socketPath)"), Date() < deadline { usleep(10_000) }
        // The first connection starts the daemon on the inherited socket.
        let client = try LineClient(socketPath: socketPath)
        guard case .welcome = try client.hello("activated") else {
            Issue.record("no welcome on the activated socket")
            return
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        #expect(log.contains("listening on \(socketPath) (socket activation)"), "\(log)")
        let daemonLines = log.split(separator: "\n").filter { $0.hasPrefix("touchrouterd:") }
        #expect(!daemonLines.contains { $0.contains("unused.sock") }, "the ignored --socket path is not named")
        #expect(process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: socketPath), "systemd's socket is not ours to remove")
        #expect(!FileManager.default.fileExists(atPath: directory.file("unused.sock")))
    }

    @Test("touchrouterctl status, layout and monitor talk to the running daemon")
    func touchrouterctl() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments() + ["--exit-after-replay"])
        defer { daemon.stop() }
        let layout = try run("touchrouterctl", ["layout", "--socket", daemon.socketPath])
        #expect(layout.status == 0)
        #expect(layout.stdout.contains("layout generation 1"))
        #expect(layout.stdout.contains("      right-edge  [300, 0, 340, 768]"))
        let status = try run("touchrouterctl", ["status", "--json", "--socket", daemon.socketPath])
        #expect(status.status == 0)
        #expect(status.stdout.hasPrefix("{\"type\":\"status\""))
        // The monitor's subscription starts the replay; it ends when the daemon stops.
        let monitor = try run(
            "touchrouterctl", ["monitor", "--view", "left,right", "--socket", daemon.socketPath])
        let lines = monitor.stdout.split(separator: "\n")
        #expect(lines.first == "watching left, right (layout generation 1); Ctrl-C to stop")
        #expect(lines.contains { $0.hasPrefix("left  touch ") && $0.contains(" began ") })
        #expect(lines.contains { $0.hasPrefix("right  touch ") && $0.contains(" ended ") })
        #expect(monitor.stderr.contains("shutting-down"))
    }
}

/// A bound datagram socket standing in for systemd's NOTIFY_SOCKET.
final class NotifySocket {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        let bound = UnixSocketAddress(path: path)?.withSockaddr { bind(fd, $0, $1) } ?? -1
        guard bound == 0 else { throw HarnessError("bind \(path) failed") }
    }

    deinit { close(fd) }

    /// The next datagram (waits; the limit only keeps a broken build from hanging).
    func next() throws -> String {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 30_000) == 1 else { throw HarnessError("no sd_notify datagram") }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self)
    }

    /// The datagrams received so far, without waiting for more.
    func pending() -> [String] {
        var datagrams: [String] = []
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 0) == 1, let datagram = try? next() { datagrams.append(datagram) }
        return datagrams
    }
}
