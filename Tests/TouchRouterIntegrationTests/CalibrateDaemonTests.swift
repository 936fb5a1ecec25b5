import Foundation
import Testing
import TouchRouterCore

/// `touchrouterctl calibrate` and examples/calibrate.py against the real daemon: presses replayed
/// from a made-up recording on the EP0430M09's axes (0…1279 × 0…767) at speed 0, each at the raw
/// position a panel distorted by a known matrix reports for the target. The replay is held until a
/// client subscribes, and the test subscribes only once the tool shows its first target, so every
/// press falls inside the session whatever the machine's speed.
@Suite("touchrouterctl calibrate: the real daemon", .serialized)
struct CalibrateDaemonTests {
    /// The distortion the presses carry: scale 0.95 / 1.04, offsets +2 % / −3 %, a little shear.
    static let distortion = [0.95, 0.01, 0.02, -0.015, 1.04, -0.03]
    static let width = 800.0
    static let height = 480.0

    static let config = """
        // A service panel; its calibration is measured in the field.
        {
            screens: [
                {
                    name: "main",
                    width: 800,
                    height: 480, // landscape
                    root: { id: "main", children: [{ id: "button", frame: [0, 0, 400, 480] }] },
                },
            ],
        }

        """

    /// The raw position (device units) the distorted panel reports for a finger on `target`.
    static func raw(_ target: Point) -> (Int32, Int32) {
        let (u, v) = (target.x / width, target.y / height)
        let (a, b, c, d, e, f) = (
            distortion[0], distortion[1], distortion[2], distortion[3], distortion[4], distortion[5]
        )
        let determinant = a * e - b * d
        let x = (e * (u - c) - b * (v - f)) / determinant
        let y = (a * (v - f) - d * (u - c)) / determinant
        return (Int32((x * 1280).rounded()), Int32((y * 768).rounded()))
    }

    /// One press per target, 0.6 s apart (past the 250 ms bounce gap), each down for 0.1 s with a
    /// few positions; `twoFingersFirst` adds a two-finger press before them.
    static func frames(_ targets: [Point], twoFingersFirst: Bool = false) -> [(Double, [TestRecording.Change])] {
        var frames: [(Double, [TestRecording.Change])] = []
        var time = 0.5
        if twoFingersFirst {
            frames += [
                (time, [.down(0, 200, 200)]), (time + 0.03, [.down(1, 900, 500)]),
                (time + 0.08, [.up(1)]), (time + 0.1, [.up(0)]),
            ]
            time += 0.6
        }
        for target in targets {
            let (x, y) = raw(target)
            frames.append((time, [.down(0, x, y)]))
            for step in 1...3 { frames.append((time + 0.02 * Double(step), [.move(0, x, y)])) }
            frames.append((time + 0.1, [.up(0)]))
            time += 0.6
        }
        return frames
    }

    /// The matrix the fit gives for those presses (their raw positions rounded to device units):
    /// what the daemon must answer, to rounding.
    static func expectedMatrix(_ targets: [Point]) throws -> [Double] {
        let points = targets.map { target in
            let (x, y) = raw(target)
            return CalibrationPoint(target: target, normalizedX: Double(x) / 1280, normalizedY: Double(y) / 768)
        }
        return try CalibrationFit(points, screenWidth: width, screenHeight: height, rotation: 0).matrix
    }

    /// The daemon on `config` replaying `frames`, a program run against it, released once it printed
    /// `ready` (on stdout or stderr): its exit status and output.
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(
        _ directory: TemporaryDirectory, frames: [(Double, [TestRecording.Change])], program: [String],
        ready: String, configPath: String? = nil
    ) throws -> Outcome {
        let config = configPath ?? directory.file("calibrate.json5")
        if configPath == nil { try directory.write("calibrate.json5", Self.config) }
        try directory.write("presses.events", FieldRecording.events(frames))
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", config, "--replay", directory.file("presses.events"), "--replay-device",
                FieldRecording.description, "--speed", "0", "--replay-wait-for", "1",
            ])
        defer { daemon.stop() }
        let stdoutPath = directory.file("tool.stdout")
        let stderrPath = directory.file("tool.stderr")
        FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: program[0])
        tool.arguments = program.dropFirst().map { $0 == "SOCKET" ? daemon.socketPath : $0 }
        tool.currentDirectoryURL = TouchrouterctlProcess.packageRoot
        tool.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        tool.standardError = FileHandle(forWritingAtPath: stderrPath)
        try tool.run()
        func output() -> (String, String) {
            (
                (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            )
        }
        let deadline = Date().addingTimeInterval(30)
        while !(output().0 + output().1).contains(ready) {
            guard tool.isRunning, Date() < deadline else {
                if tool.isRunning { tool.terminate() }
                throw HarnessError("no \"\(ready)\" from the program: \(output())\n\(daemon.log)")
            }
            usleep(10_000)
        }
        // The session runs: release the replay.
        let releaser = try LineClient(socketPath: daemon.socketPath)
        try releaser.hello("releaser")
        try releaser.send(#"{"type":"subscribe","views":["main"],"subtree":true,"seq":1}"#)
        while tool.isRunning {
            guard Date() < deadline.addingTimeInterval(30) else {
                tool.terminate()
                throw HarnessError("the program did not finish: \(output())\n\(daemon.log)")
            }
            usleep(10_000)
        }
        tool.waitUntilExit()
        let (stdout, stderr) = output()
        return Outcome(status: tool.terminationStatus, stdout: stdout, stderr: stderr)
    }

    static func matrix(_ line: Substring) -> [Double] {
        line.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }.split(separator: ",").compactMap {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
    }

    static let ctl = { (try? TouchrouterctlProcess.executable().path) ?? "touchrouterctl" }()

    @Test func fourReplayedPressesGiveTheDistortionBackAndARefusedPressIsAskedAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let targets = try #require(CalibrationTargets.targets(count: 4, width: Self.width, height: Self.height))
        let outcome = try Self.run(
            directory, frames: Self.frames(targets, twoFingersFirst: true),
            program: [Self.ctl, "calibrate", "--socket", "SOCKET", "--screen", "main"], ready: "(1 of 4)")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("  refused: more than one finger touched the panel"))
        let line = try #require(outcome.stdout.split(separator: "\n").first { $0.hasPrefix("calibration: [") })
        let printed = Self.matrix(line)
        let expected = try Self.expectedMatrix(targets)
        #expect(printed.count == 6)
        for (got, want) in zip(printed, expected) { #expect(abs(got - want) < 1e-6) }
        for (got, want) in zip(printed, Self.distortion) { #expect(abs(got - want) < 2e-3) }
        #expect(outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("touch the target at") }.count == 4)
    }

    @Test func applyWithVerifyEditsTheFileAndTheDaemonReloadsIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configPath = directory.file("calibrate.json5")
        try directory.write("calibrate.json5", Self.config)
        let targets = try #require(CalibrationTargets.targets(count: 5, width: Self.width, height: Self.height))
        let verification = CalibrationTargets.verification(width: Self.width, height: Self.height)
        let outcome = try Self.run(
            directory, frames: Self.frames(targets + [verification]),
            program: [
                Self.ctl, "calibrate", "--socket", "SOCKET", "--points", "5", "--verify", "--apply", "--json",
                "--config", configPath,
            ],
            ready: "(1 of 6)", configPath: configPath)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let matrix = try #require(object["matrix"] as? [Double])
        for (got, want) in zip(matrix, try Self.expectedMatrix(targets)) { #expect(abs(got - want) < 1e-6) }
        #expect((object["residuals"] as? [Double])?.count == 5)
        #expect((object["maximumResidual"] as? Double).map { $0 < 1 } == true)
        let verified = try #require(object["verification"] as? [String: Any])
        #expect((verified["units"] as? Double).map { $0 < 1 } == true)
        let applied = try #require(object["applied"] as? [String: Any])
        // The daemon reloaded (its config watch may have reloaded the renamed file first).
        #expect((applied["generation"] as? Int).map { $0 >= 2 } == true)
        // Only the calibration was added; the comments stay; the backup is the old file.
        let written = CalibrationEdit.matrixText(matrix)
        #expect(
            try String(contentsOfFile: configPath, encoding: .utf8)
                == Self.config.replacingOccurrences(
                    of: "height: 480, // landscape\n",
                    with: "height: 480, // landscape\n            calibration: \(written),\n"))
        #expect(try String(contentsOfFile: configPath + ".bak", encoding: .utf8) == Self.config)
        // Through the edited file's mapping, a fresh distorted press lands on its target.
        let parsed = try Config.parse(
            Array(try String(contentsOfFile: configPath, encoding: .utf8).utf8), fileName: "c")
        let mapping = try ScreenMapping(
            screenWidth: Self.width, screenHeight: Self.height,
            calibration: parsed.input(forScreen: "main")?.calibration)
        let (x, y) = Self.raw(Point(540, 400))
        let landed = mapping.map(normalizedX: Double(x) / 1280, normalizedY: Double(y) / 768)
        #expect(abs(landed.x - 540) < 2 && abs(landed.y - 400) < 2)
    }
}

extension ExamplesTests {
    /// examples/calibrate.py, the worked client for programs that draw their own targets, runs a
    /// whole session on the real daemon (the presses as in `CalibrateDaemonTests`).
    @Test("calibrate.py runs a calibration session and prints the fitted matrix")
    func calibratePython() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let targets = try #require(
            CalibrationTargets.targets(count: 4, width: CalibrateDaemonTests.width, height: CalibrateDaemonTests.height)
        )
        let script = TouchrouterctlProcess.packageRoot.appendingPathComponent("examples/calibrate.py").path
        let outcome = try CalibrateDaemonTests.run(
            directory, frames: CalibrateDaemonTests.frames(targets),
            program: ["/usr/bin/python3", script, "--socket", "SOCKET", "main"], ready: "(1 of 4)")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n")
        #expect(
            lines.filter { $0.hasPrefix("target ") } == [
                "target 80 48 (1 of 4)", "target 720 48 (2 of 4)",
                "target 80 432 (3 of 4)", "target 720 432 (4 of 4)",
            ])
        let line = try #require(lines.first { $0.hasPrefix("calibration: [") })
        for (got, want) in zip(CalibrateDaemonTests.matrix(line), try CalibrateDaemonTests.expectedMatrix(targets)) {
            #expect(abs(got - want) < 1e-6)
        }
    }
}
