import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

/// Panel power in the real daemon: a real directory laid out like a sysfs backlight, and programs
/// that succeed, fail and hang. In every case routing goes on (a subscriber gets the replayed tap),
/// failures are counted in `status` and logged once per burst, and a touch while off lights the
/// panel. Each state is checked once it is stable (files, markers, log lines), never by time.
@Suite("Panel power: the real daemon", .serialized)
struct PanelPowerDaemonTests {
    /// A tap that wakes the screen (swallowed), then one past the grace window on `button`.
    static let taps: [(Double, [TestRecording.Change])] = [
        (0.0, [.down(0, 100, 100)]), (0.05, [.up(0)]), (0.3, [.down(0, 200, 200)]), (0.35, [.up(0)]),
    ]

    /// A directory laid out like `/sys/class/backlight/NAME`, with the same files and values.
    struct Backlight {
        let path: String

        init(in directory: TemporaryDirectory, blPower: Int, brightness: Int) throws {
            path = directory.file("backlight/panel")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for (name, value) in [
                ("bl_power", blPower), ("brightness", brightness), ("max_brightness", 255),
                ("actual_brightness", brightness),
            ] {
                try "\(value)\n".write(toFile: path + "/" + name, atomically: false, encoding: .utf8)
            }
        }

        func value(_ name: String) -> Int? {
            (try? String(contentsOfFile: path + "/" + name, encoding: .utf8)).flatMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
    }

    func daemon(_ directory: TemporaryDirectory, keys: String) throws -> DaemonProcess {
        try directory.write("power.json5", FieldRecording.config(keys))
        try directory.write("taps.events", FieldRecording.events(Self.taps))
        return try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("power.json5"), "--replay", directory.file("taps.events"),
                "--replay-device", FieldRecording.description, "--speed", "0", "--replay-wait-for", "2",
            ])
    }

    /// Polls `condition` (a generous limit against hangs; nothing asserts time).
    func waitUntil(_ what: String, _ daemon: DaemonProcess, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(30)
        while !condition() {
            if Date() > deadline { throw HarnessError("never: \(what)\n\(daemon.log)") }
            usleep(10_000)
        }
    }

    /// A subscriber of `view`; the second one starts the replay.
    func subscriber(_ daemon: DaemonProcess, _ view: String) throws -> LineClient {
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.send(ClientRequest(.subscribe(views: [view], subtree: view == "main"), seq: 1))
        _ = try client.readReply()
        return client
    }

    /// The replayed taps reached `client` (`taps` of them: the second only, when the first woke the
    /// screen and was swallowed): routing went on.
    func expectTheTap(_ client: LineClient, taps: Int = 1) throws {
        var phases: [TouchPhase] = []
        while phases.count < 2 * taps, let message = try client.readMessage(timeoutSeconds: 30) {
            if let touches = message.touches { phases += touches.touches.map(\.phase) }
        }
        #expect(phases == Array(repeating: [TouchPhase.began, .ended], count: taps).flatMap { $0 })
    }

    /// The screen's `panelPower` entry of an admin `status`.
    /// Screen keys whose panel command appends `on` to the file `marks` and runs `off` (a JSON
    /// array); idle after `idleSeconds`, `timeout` (e.g. `, timeoutSeconds: 0.5`) inside `power`.
    static func markingKeys(_ marks: String, idleSeconds: String = "600", off: String, timeout: String = "") -> String {
        "idle: {seconds: \(idleSeconds), power: {command: {on: [\"/bin/sh\", \"-c\", \"echo on >> \(marks)\"], "
            + "off: \(off)}\(timeout)}}, wake: {swallow: true}"
    }

    /// Waits until the file `marks` holds exactly `expected`.
    func waitForMarks(_ marks: String, _ expected: String, _ daemon: DaemonProcess) throws {
        try waitUntil("marks \(expected.debugDescription)", daemon) {
            (try? String(contentsOfFile: marks, encoding: .utf8)) == expected
        }
    }

    func power(_ daemon: DaemonProcess) throws -> [String: JSONValue] {
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.send(ClientRequest(.status, seq: 9))
        guard case .status(let status) = try client.readReply(),
            case .array(let screens) = status.counters["panelPower"],
            case .object(let entry) = screens.first
        else { throw HarnessError("no panelPower in status") }
        return entry
    }

    /// The daemon's child processes (from /proc/*/stat).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let child = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
        }
    }

    @Test("bl_power: on at start, off by `screen off`, on by the swallowed waking touch and at stop")
    func backlightBlPower() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let backlight = try Backlight(in: directory, blPower: 4, brightness: 120)
        let daemon = try self.daemon(
            directory, keys: "idle: {seconds: 600, power: {backlight: \"\(backlight.path)\"}}, wake: {swallow: true}")
        defer { daemon.stop() }
        let watcher = try subscriber(daemon, "main")
        // Dark from before the start (a daemon that stopped while it was off): lit at start.
        try waitUntil("bl_power 0 at start", daemon) { backlight.value("bl_power") == 0 }
        let off = try TouchrouterctlProcess.run(["screen", "main", "off", "--socket", daemon.socketPath])
        #expect(off.exitCode == 0)
        try waitUntil("bl_power 4 after screen off", daemon) { backlight.value("bl_power") == 4 }
        let app = try subscriber(daemon, "button")
        try expectTheTap(app)
        try waitUntil("bl_power 0 after the touch", daemon) { backlight.value("bl_power") == 0 }
        #expect(backlight.value("brightness") == 120)
        _ = watcher
        let entry = try power(daemon)
        #expect(entry["state"] == .string("on") && entry["applied"] == .string("on"))
        #expect(entry["backend"] == .string("backlight"))
        #expect(entry["commands"] == .integer(3) && entry["succeeded"] == .integer(3) && entry["failed"] == .integer(0))
        #expect(daemon.log.contains("screen main: panel off (bl_power 4)"))
        // Stopped while off: the daemon lights the panel on its way out.
        _ = try TouchrouterctlProcess.run(["screen", "main", "off", "--socket", daemon.socketPath])
        try waitUntil("bl_power 4 again", daemon) { backlight.value("bl_power") == 4 }
        daemon.stop()
        #expect(backlight.value("bl_power") == 0)
    }

    @Test("brightness with dim: dims after its seconds, a touch lights it (delivered), dims again, 0 when off")
    func backlightBrightnessAndDim() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let backlight = try Backlight(in: directory, blPower: 0, brightness: 200)
        let daemon = try self.daemon(
            directory,
            keys: "idle: {seconds: 600, power: {backlight: \"\(backlight.path)\", method: \"brightness\", "
                + "dim: {seconds: 0.3, brightness: 10}}}, wake: {swallow: true}")
        defer { daemon.stop() }
        let watcher = try subscriber(daemon, "main")
        // 10 % of max_brightness 255.
        try waitUntil("dimmed", daemon) { backlight.value("brightness") == 26 }
        // Dim is not idle: both taps are delivered, and the first lights the panel.
        let app = try subscriber(daemon, "button")
        try expectTheTap(app, taps: 2)
        // The brightness from before the dim, written back; then a quiet spell dims it again (the
        // timer, armed for the far idle, moved for it).
        try daemon.waitForLog("screen main: panel on (brightness 200)")
        try waitUntil("dimmed again", daemon) {
            daemon.log.components(separatedBy: "panel dim (brightness 26)").count == 3
        }
        _ = try TouchrouterctlProcess.run(["screen", "main", "off", "--socket", daemon.socketPath])
        try waitUntil("brightness 0 after screen off", daemon) { backlight.value("brightness") == 0 }
        #expect(backlight.value("bl_power") == 0)
        _ = try TouchrouterctlProcess.run(["screen", "main", "on", "--socket", daemon.socketPath])
        try waitUntil("the saved brightness back", daemon) {
            daemon.log.components(separatedBy: "panel on (brightness 200)").count == 3
        }
        _ = watcher
    }

    @Test("a failing off is counted and logged once per burst; routing goes on; a touch runs on")
    func failingCommand() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let marks = directory.file("marks")
        let daemon = try self.daemon(
            directory,
            keys: "idle: {seconds: 0.3, power: {command: {on: [\"/bin/sh\", \"-c\", \"echo on >> \(marks)\"], "
                + "off: [\"/bin/sh\", \"-c\", \"echo off >> \(marks); echo no display >&2; exit 3\"]}}}, "
                + "wake: {swallow: true}")
        defer { daemon.stop() }
        let watcher = try subscriber(daemon, "main")
        try daemon.waitForLog("screen main is idle (timeout)")
        // Retried with backoff: two failures, one log line.
        try waitUntil("a second failed off", daemon) {
            (try? power(daemon)["failed"]).map { $0 == .integer(2) || $0 == .integer(3) } ?? false
        }
        let failure = "screen main: panel off failed: exit status 3: no display; retrying with backoff"
        #expect(daemon.log.components(separatedBy: failure).count == 2)
        let app = try subscriber(daemon, "button")
        try expectTheTap(app)
        try daemon.waitForLog("screen main: panel on (exit status 0) after")
        let lines = try String(contentsOfFile: marks, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "on" && lines.dropFirst().prefix(2) == ["off", "off"] && lines.contains("on"))
        _ = watcher
    }

    @Test("a hanging off is killed at its limit and counted; the touch still lights the panel")
    func hangingCommand() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let marks = directory.file("marks")
        let daemon = try self.daemon(
            directory,
            keys: Self.markingKeys(marks, off: #"["/bin/sleep", "100"]"#, timeout: ", timeoutSeconds: 0.5"))
        defer { daemon.stop() }
        let watcher = try subscriber(daemon, "main")
        try waitForMarks(marks, "on\n", daemon)
        _ = try TouchrouterctlProcess.run(["screen", "main", "off", "--socket", daemon.socketPath])
        try daemon.waitForLog("screen main: panel off timed out: still running after 0.5 s, killed")
        // Retried with backoff while the screen stays off: at least this one counted.
        guard case .integer(let timedOut)? = try power(daemon)["timedOut"] else { throw HarnessError("no timedOut") }
        #expect(timedOut >= 1)
        if ReferenceParser.isAvailable {  // power_failures counts the timed-out commands too
            let parsed = try metrics(daemon)
            func commands(_ result: String) -> Double {
                parsed.value("touchrouter_power_commands_total", ["screen": "main", "result": result]) ?? 0
            }
            #expect(commands("timed-out") >= 1)
            let failures = parsed.value("touchrouter_power_failures_total", ["screen": "main"])
            #expect(failures == commands("failed") + commands("timed-out"))
        }
        let app = try subscriber(daemon, "button")
        try expectTheTap(app)
        try waitForMarks(marks, "on\non\n", daemon)
        _ = watcher
    }

    @Test("a touch while an off still runs supersedes it: the off is killed, the panel lit")
    func onSupersedesAHangingOff() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let marks = directory.file("marks")
        let daemon = try self.daemon(
            directory,
            keys: Self.markingKeys(marks, off: #"["/bin/sleep", "100"]"#, timeout: ", timeoutSeconds: 120"))
        defer { daemon.stop() }
        let watcher = try subscriber(daemon, "main")
        try waitForMarks(marks, "on\n", daemon)
        _ = try TouchrouterctlProcess.run(["screen", "main", "off", "--socket", daemon.socketPath])
        let pid = daemon.process.processIdentifier
        try waitUntil("the off running", daemon) { !Self.children(of: pid).isEmpty }
        let app = try subscriber(daemon, "button")
        try expectTheTap(app)
        try waitForMarks(marks, "on\non\n", daemon)
        try waitUntil("the off killed", daemon) { Self.children(of: pid).isEmpty }
        let entry = try power(daemon)
        #expect(entry["superseded"] == .integer(1) && entry["timedOut"] == .integer(0))
        #expect(entry["applied"] == .string("on"))
        _ = watcher
    }

    @Test("a reload that removes power lights the panel through the old backend; a broken new one is counted")
    func reloadChangesTheBackend() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let marks = directory.file("marks")
        let daemon = try self.daemon(
            directory,
            keys: Self.markingKeys(marks, off: #"["/bin/sh", "-c", "echo off >> \#(marks)"]"#))
        defer { daemon.stop() }
        let watcher = try subscriber(daemon, "main")
        try waitForMarks(marks, "on\n", daemon)
        _ = try TouchrouterctlProcess.run(["screen", "main", "off", "--socket", daemon.socketPath])
        try waitForMarks(marks, "on\noff\n", daemon)
        // Power removed while the panel is dark: one last on through the old backend.
        try directory.write("power.json5", FieldRecording.config("idle: {seconds: 600}, wake: {swallow: true}"))
        try daemon.waitForLog("layout generation 2")
        try waitForMarks(marks, "on\noff\non\n", daemon)  // on through the old backend
        // A backlight that is not there: the screen is still off, its off fails and is counted.
        try directory.write(
            "power.json5",
            FieldRecording.config(
                "idle: {seconds: 600, power: {backlight: \"\(directory.file("missing"))\"}}, wake: {swallow: true}"))
        try daemon.waitForLog("layout generation 3")
        try daemon.waitForLog("screen main: panel off failed: cannot write \(directory.file("missing"))/bl_power")
        #expect(try power(daemon)["failed"] != .integer(0))
        let app = try subscriber(daemon, "button")
        try expectTheTap(app)
        _ = watcher
    }

    /// The daemon's metrics through `touchrouterctl metrics`, read by the reference parser.
    func metrics(_ daemon: DaemonProcess) throws -> ReferenceParser.Parsed {
        let run = try ProgramRun(Paths.product("touchrouterctl"), ["metrics", "--socket", daemon.socketPath])
        return try ReferenceParser.parse(run.lines.joined(separator: "\n") + "\n")
    }

    @Test(
        "metrics: the panel's level, its commands by result and its failures, read by the reference parser",
        .enabled(if: ReferenceParser.isAvailable, "needs python3 with prometheus_client"))
    func metricsMove() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let backlight = try Backlight(in: directory, blPower: 0, brightness: 120)
        let daemon = try self.daemon(
            directory,
            keys: "idle: {seconds: 600, power: {backlight: \"\(backlight.path)\", method: \"brightness\"}}")
        defer { daemon.stop() }
        try daemon.waitForLog("screen main: panel on (unchanged)")
        _ = try TouchrouterctlProcess.run(["screen", "main", "off", "--socket", daemon.socketPath])
        try daemon.waitForLog("screen main: panel off (brightness 0)")
        var parsed = try metrics(daemon)
        #expect(parsed.types["touchrouter_panel_power_state"] == "gauge")
        #expect(parsed.value("touchrouter_panel_power_state", ["screen": "main", "state": "off"]) == 1)
        #expect(parsed.value("touchrouter_panel_power_state", ["screen": "main", "state": "on"]) == 0)
        #expect(parsed.value("touchrouter_power_commands_total", ["screen": "main", "result": "succeeded"]) == 2)
        #expect(parsed.value("touchrouter_power_failures_total", ["screen": "main"]) == 0)
        // The backlight goes away: the admin's on fails, and the failure counters move.
        try FileManager.default.removeItem(atPath: backlight.path)
        _ = try TouchrouterctlProcess.run(["screen", "main", "on", "--socket", daemon.socketPath])
        try daemon.waitForLog("screen main: panel on failed: cannot write")
        parsed = try metrics(daemon)
        #expect(parsed.value("touchrouter_panel_power_state", ["screen": "main", "state": "on"]) == 1)
        #expect((parsed.value("touchrouter_power_failures_total", ["screen": "main"]) ?? 0) >= 1)
        #expect((parsed.value("touchrouter_power_commands_total", ["screen": "main", "result": "failed"]) ?? 0) >= 1)
    }
}
