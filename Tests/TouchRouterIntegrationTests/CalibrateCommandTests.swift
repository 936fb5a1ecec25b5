import Foundation
import Testing

/// `touchrouterctl calibrate` against a scripted daemon: a Python stand-in on a Unix socket that
/// answers `hello`, `calibrationStart`, `calibrationFinish`, `reload` and `calibrationCancel` as a
/// scenario says, sends the scenario's samples and refusals, and logs every request it gets. It
/// pins the tool's own behaviour (prompts, retries, the result, `--apply`'s file handling, exit
/// codes) whatever the daemon's measurements; the suite with the real daemon is beside it.
@Suite("touchrouterctl calibrate (scripted daemon)", .serialized)
struct CalibrateCommandTests {
    static let script = """
        import json, os, socket, sys
        path, scenario_path, log_path = sys.argv[1:4]
        scenario = json.load(open(scenario_path))
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path + ".tmp")
        server.listen(1)
        os.rename(path + ".tmp", path)
        connection, _ = server.accept()
        log = open(log_path, "a")
        def send(message, seq=None):
            if seq is not None:
                message = dict(message, seq=seq)
            connection.sendall((json.dumps(message) + "\\n").encode())
        for line in connection.makefile("rb"):
            request = json.loads(line)
            log.write(line.decode())
            log.flush()
            kind, seq = request["type"], request.get("seq")
            if kind == "hello":
                send({"type": "welcome", "version": 1, "daemonVersion": "0.0.0", "generation": 1,
                      "screens": [{"name": "main", "width": 800.0, "height": 480.0}]}, seq)
            elif kind == "calibrationStart":
                send(scenario.get("start", {"type": "calibrationStarted", "screen": "main", "width": 800,
                     "height": 480, "rotation": 0, "millimetresPerUnit": 0.2, "timeoutMs": request.get("timeoutMs", 120000),
                     "minimumGapMs": request.get("minimumGapMs", 250)}), seq)
                for event in scenario.get("events", []):
                    send(event)
            elif kind == "calibrationFinish":
                send(scenario["result"], seq)
            elif kind == "calibrationCancel":
                send({"type": "calibrationEnded", "screen": "main", "reason": "cancelled"}, seq)
            elif kind == "reload":
                send(scenario.get("reload", {"type": "reloaded", "generation": 2}), seq)
        """

    /// The four targets of an 800 × 480 screen and where each press is measured.
    static let presses: [(target: [Double], normalized: [Double])] = [
        ([80, 48], [0.11, 0.09]), ([720, 48], [0.87, 0.1]), ([80, 432], [0.12, 0.88]), ([720, 432], [0.89, 0.91]),
    ]

    static func sample(_ normalized: [Double]) -> [String: Any] {
        [
            "type": "calibrationSample", "screen": "main", "device": "Panel", "normalized": normalized,
            "point": ["x": normalized[0] * 800, "y": normalized[1] * 480], "positions": 12,
        ]
    }

    static let matrix = [1.05, 0.002, -0.03, -0.001, 1.04, -0.025]

    static func result(verification: [String: Any]? = nil) -> [String: Any] {
        [
            "type": "calibrationResult", "screen": "main", "matrix": matrix, "residuals": [0.25, 0.5, 0.125, 0.75],
            "maximumResidual": 0.75, "verification": verification ?? NSNull(),
        ]
    }

    static let config = """
        // The service panel; its calibration is measured in the field.
        {
            screens: [
                {
                    name: "main",
                    width: 800,
                    height: 480, // landscape
                    root: { id: "main" },
                },
            ],
        }

        """

    /// A scripted daemon, the tool run against it, and what the daemon was asked.
    final class Run {
        let directory: TemporaryDirectory
        let socketPath: String
        let logPath: String
        let daemon = Process()

        init(_ scenario: [String: Any]) throws {
            directory = try TemporaryDirectory()
            socketPath = directory.file("daemon.sock")
            logPath = directory.file("requests.log")
            let scenarioPath = directory.file("scenario.json")
            try JSONSerialization.data(withJSONObject: scenario).write(to: URL(fileURLWithPath: scenarioPath))
            try directory.write("fake-daemon.py", CalibrateCommandTests.script)
            daemon.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            daemon.arguments = [directory.file("fake-daemon.py"), socketPath, scenarioPath, logPath]
            try daemon.run()
            let deadline = Date().addingTimeInterval(30)
            while !FileManager.default.fileExists(atPath: socketPath) {
                guard daemon.isRunning, Date() < deadline else {
                    throw HarnessError("the scripted daemon did not start")
                }
                usleep(10_000)
            }
        }

        deinit {
            if daemon.isRunning { daemon.terminate() }
            directory.remove()
        }

        /// The requests the daemon got, decoded.
        var requests: [[String: Any]] {
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        func request(_ type: String) -> [String: Any]? { requests.first { $0["type"] as? String == type } }

        func tool(_ arguments: [String]) throws -> TouchrouterctlProcess.Result {
            try TouchrouterctlProcess.run(["calibrate", "--socket", socketPath] + arguments)
        }
    }

    @Test func aWholeRunPromptsEachTargetRetriesARefusedPressAndPrintsTheMatrix() throws {
        let refused: [String: Any] = [
            "type": "calibrationRefused", "screen": "main", "reason": "tooSoon",
            "message": "this press came too soon after the previous one (a bounce); press the target again",
        ]
        let run = try Run([
            "events": [Self.sample(Self.presses[0].normalized), refused]
                + Self.presses.dropFirst().map { Self.sample($0.normalized) },
            "result": Self.result(),
        ])
        let result = try run.tool(["--screen", "main", "--timeout", "30"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(
            result.stdoutLines == [
                "touch the target at 80, 48 (1 of 4)", "  pressed at 88, 43.2",
                "touch the target at 720, 48 (2 of 4)", "  pressed at 696, 48",
                "touch the target at 80, 432 (3 of 4)", "  pressed at 96, 422.4",
                "touch the target at 720, 432 (4 of 4)", "  pressed at 712, 436.8",
                "calibration: [1.05, 0.002, -0.03, -0.001, 1.04, -0.025]",
                "residuals: 0.25, 0.5, 0.125, 0.75 layout units (largest 0.75)",
            ])
        #expect(
            result.stderrLines == [
                "  refused: this press came too soon after the previous one (a bounce); press the target again;"
                    + " touch the target again"
            ])
        let start = try #require(run.request("calibrationStart"))
        #expect(start["screen"] as? String == "main" && start["timeoutMs"] as? Int == 30_000)
        let finish = try #require(run.request("calibrationFinish"))
        let points = try #require(finish["points"] as? [[String: Any]])
        #expect(points.count == 4 && finish["verify"] == nil)
        for (point, press) in zip(points, Self.presses) {
            let target = point["target"] as? [String: Double]
            #expect(target == ["x": press.target[0], "y": press.target[1]])
            #expect(point["normalized"] as? [Double] == press.normalized)
        }
    }

    @Test func jsonPrintsOneObjectAndVerifyAsksForTheHeldOutPoint() throws {
        let run = try Run([
            "events": (Self.presses.map(\.normalized) + [[0.31, 0.6]]).map(Self.sample),
            "result": Self.result(verification: ["units": 1.25, "millimetres": 0.25]),
        ])
        let result = try run.tool(["--verify", "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 1)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["screen"] as? String == "main")
        #expect(object["matrix"] as? [Double] == Self.matrix)
        #expect(object["residuals"] as? [Double] == [0.25, 0.5, 0.125, 0.75])
        #expect(object["maximumResidual"] as? Double == 0.75)
        #expect(object["verification"] as? [String: Double] == ["units": 1.25, "millimetres": 0.25])
        #expect(object["applied"] is NSNull)
        #expect(result.stderr.contains("touch the target at 240, 288 (5 of 5, the verification point)"))
        let finish = try #require(run.request("calibrationFinish"))
        #expect((finish["points"] as? [Any])?.count == 4)
        let verify = try #require(finish["verify"] as? [String: Any])
        #expect(verify["target"] as? [String: Double] == ["x": 240, "y": 288])
        #expect(verify["normalized"] as? [Double] == [0.31, 0.6])
    }

    @Test func applyEditsTheFileKeepsABackupAndReloads() throws {
        let run = try Run(["events": Self.presses.map { Self.sample($0.normalized) }, "result": Self.result()])
        let configPath = run.directory.file("touchrouter.json5")
        try run.directory.write("touchrouter.json5", Self.config)
        chmod(configPath, 0o640)
        let result = try run.tool(["--screen", "main", "--apply", "--config", configPath])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let edited = try String(contentsOfFile: configPath, encoding: .utf8)
        #expect(
            edited
                == Self.config.replacingOccurrences(
                    of: "height: 480, // landscape\n",
                    with:
                        "height: 480, // landscape\n            calibration: [1.05, 0.002, -0.03, -0.001, 1.04, -0.025],\n"
                ))
        #expect(try String(contentsOfFile: configPath + ".bak", encoding: .utf8) == Self.config)
        let mode = try FileManager.default.attributesOfItem(atPath: configPath)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(run.request("reload") != nil)
        #expect(
            result.stdoutLines.last
                == "applied to \(configPath) (the old file is \(configPath).bak); the daemon reloaded it"
                + " (layout generation 2)")
        // The directory holds no temporary file.
        let names = try FileManager.default.contentsOfDirectory(atPath: run.directory.path)
        #expect(!names.contains { $0.contains(".calibrate-") })
    }

    @Test func aFailedReloadPutsTheOldFileBack() throws {
        let run = try Run([
            "events": Self.presses.map { Self.sample($0.normalized) }, "result": Self.result(),
            "reload": ["type": "error", "code": "invalid-config", "message": "touchrouter.json5:9:13: broken"],
        ])
        let configPath = run.directory.file("touchrouter.json5")
        try run.directory.write("touchrouter.json5", Self.config)
        let result = try run.tool(["--apply", "--config", configPath])
        #expect(result.exitCode == 1)
        #expect(try String(contentsOfFile: configPath, encoding: .utf8) == Self.config)
        #expect(result.stderr.contains("the daemon did not reload \(configPath)"))
        #expect(result.stderr.contains("touchrouter.json5:9:13: broken"))
        #expect(result.stderr.contains("the old file is put back"))
    }

    /// A verification point 15 mm off: exit 3, the matrix printed, the file byte-identical.
    @Test func aVerificationOffByMoreThanTheLimitAppliesNothing() throws {
        let run = try Run([
            "events": (Self.presses.map(\.normalized) + [[0.31, 0.6]]).map(Self.sample),
            "result": Self.result(verification: ["units": 75, "millimetres": 15]),
        ])
        let configPath = run.directory.file("touchrouter.json5")
        try run.directory.write("touchrouter.json5", Self.config)
        let result = try run.tool(["--verify", "--apply", "--config", configPath])
        #expect(result.exitCode == 3)
        #expect(try String(contentsOfFile: configPath, encoding: .utf8) == Self.config)
        #expect(!FileManager.default.fileExists(atPath: configPath + ".bak"))
        #expect(run.request("reload") == nil)
        #expect(
            result.stderr.contains(
                "the verification point lands 15 mm from its target, more than --max-error 5 mm"))
        #expect(result.stdoutLines.contains("calibration: [1.05, 0.002, -0.03, -0.001, 1.04, -0.025]"))
    }

    /// One press far off its target shows as a large residual: 40 units of 0.2 mm, 8 mm, exit 3.
    @Test func aLargeResidualIsOutOfTolerance() throws {
        var result = Self.result()
        result["residuals"] = [0.5, 40, 0.5, 0.5]
        result["maximumResidual"] = 40
        let run = try Run(["events": Self.presses.map { Self.sample($0.normalized) }, "result": result])
        let outcome = try run.tool(["--max-error", "7.5"])
        #expect(outcome.exitCode == 3)
        #expect(
            outcome.stderrLines == [
                "touchrouterctl calibrate: a press lands 8 mm from its target through the fit, more than"
                    + " --max-error 7.5 mm (pressed off target?)"
            ])
        let within = try Run(["events": Self.presses.map { Self.sample($0.normalized) }, "result": result])
        #expect(try within.tool(["--max-error", "8.5"]).exitCode == 0)
    }

    /// Without the screen's size (`millimetresPerUnit` null) millimetres are counted at 96 units per
    /// inch: a 10-unit residual is 2.6 mm, within 5 mm (at 96 mm per inch it would be 38 mm).
    @Test func withoutTheScreensSizeMillimetresAreAt96UnitsPerInch() throws {
        var result = Self.result()
        result["residuals"] = [0.5, 10, 0.5, 0.5]
        result["maximumResidual"] = 10
        let start: [String: Any] = [
            "type": "calibrationStarted", "screen": "main", "width": 800, "height": 480, "rotation": 0,
            "millimetresPerUnit": NSNull(), "timeoutMs": 120_000, "minimumGapMs": 250,
        ]
        let run = try Run(["events": Self.presses.map { Self.sample($0.normalized) }, "result": result, "start": start])
        #expect(try run.tool(["--max-error", "5"]).exitCode == 0)
        let strict = try Run([
            "events": Self.presses.map { Self.sample($0.normalized) }, "result": result, "start": start,
        ])
        let outcome = try strict.tool(["--max-error", "2.5"])
        #expect(outcome.exitCode == 3)
        #expect(outcome.stderr.contains("a press lands 2.6 mm from its target"), "\(outcome.stderr)")
    }

    @Test func aSessionTheDaemonEndsFailsWithItsReason() throws {
        let run = try Run([
            "events": [
                Self.sample(Self.presses[0].normalized),
                ["type": "calibrationEnded", "screen": "main", "reason": "timeout"],
            ],
            "result": Self.result(),
        ])
        let result = try run.tool(["--screen", "main"])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("the daemon ended the session (timeout)"))
        #expect(run.request("calibrationFinish") == nil)
    }

    @Test func interruptCancelsTheSession() throws {
        let run = try Run(["events": [], "result": Self.result()])
        let output = run.directory.file("stdout")
        FileManager.default.createFile(atPath: output, contents: nil)
        let tool = Process()
        tool.executableURL = try TouchrouterctlProcess.executable()
        tool.arguments = ["calibrate", "--socket", run.socketPath, "--screen", "main"]
        tool.standardOutput = FileHandle(forWritingAtPath: output)
        tool.standardError = FileHandle.nullDevice
        try tool.run()
        let deadline = Date().addingTimeInterval(30)
        while !((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("(1 of 4)") {
            guard tool.isRunning, Date() < deadline else { throw HarnessError("no first prompt") }
            usleep(10_000)
        }
        kill(tool.processIdentifier, SIGINT)
        tool.waitUntilExit()
        #expect(tool.terminationStatus == 130)
        #expect(run.request("calibrationCancel") != nil)
    }

    /// The worked example for programs that draw their own targets, on the same script.
    @Test func theCalibratePythonExampleRunsASession() throws {
        let refused: [String: Any] = [
            "type": "calibrationRefused", "screen": "main", "reason": "multipleFingers",
            "message": "more than one finger touched the panel; press the target with one finger",
        ]
        let run = try Run([
            "events": [refused] + (Self.presses.map(\.normalized) + [[0.31, 0.6]]).map(Self.sample),
            "result": Self.result(verification: ["units": 1.25, "millimetres": NSNull()]),
        ])
        let script = Paths.packageRoot.appendingPathComponent("examples/calibrate.py").path
        let example = try ProgramRun("python3", [script, "--socket", run.socketPath, "--verify", "main"])
        #expect(example.status == 0)
        #expect(
            example.lines == [
                "target 80 48 (1 of 5)",
                "refused multipleFingers: more than one finger touched the panel; press the target with one finger",
                "pressed 88 43.2", "target 720 48 (2 of 5)", "pressed 696 48", "target 80 432 (3 of 5)",
                "pressed 96 422.4", "target 720 432 (4 of 5)", "pressed 712 436.8", "target 240 288 (5 of 5)",
                "pressed 248 288", "calibration: [1.05, 0.002, -0.03, -0.001, 1.04, -0.025]",
                "residuals: 0.25, 0.5, 0.125, 0.75", "verification: 1.25 units",
            ])
        let finish = try #require(run.request("calibrationFinish"))
        #expect((finish["points"] as? [Any])?.count == 4)
        #expect((finish["verify"] as? [String: Any])?["target"] as? [String: Double] == ["x": 240, "y": 288])
    }

    /// Refusals before any press: the screen is not in the file, the device is not a framebuffer.
    @Test func applyWithoutTheScreenInTheFileAndANonFramebufferAreRefusedUpFront() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("touchrouter.json5", Self.config)
        let noScreen = try TouchrouterctlProcess.run([
            "calibrate", "--socket", directory.file("none.sock"), "--screen", "side", "--apply", "--config",
            directory.file("touchrouter.json5"),
        ])
        #expect(noScreen.exitCode == 1)
        #expect(
            noScreen.stderrLines == [
                "touchrouterctl calibrate: --apply: \(directory.file("touchrouter.json5")): no screen named \"side\""
                    + " in the file (its screens: main)"
            ])
        try directory.write("fb0", String(repeating: "\0", count: 4096))
        let notFramebuffer = try TouchrouterctlProcess.run([
            "calibrate", "--socket", directory.file("none.sock"), "--fbdev", directory.file("fb0"),
        ])
        #expect(notFramebuffer.exitCode == 1)
        #expect(notFramebuffer.stderr.contains("is not a framebuffer (ioctl FBIOGET_VSCREENINFO/FSCREENINFO"))
        let badCount = try TouchrouterctlProcess.run(["calibrate", "--points", "6"])
        #expect(badCount.exitCode == 2)
    }
}
