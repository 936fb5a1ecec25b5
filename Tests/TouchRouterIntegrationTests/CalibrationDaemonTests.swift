import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

/// The calibration session in the real daemon over its socket, on replayed input: samples are the
/// medians of the presses measured without the screen's calibration, the refusals, who may, one
/// session at a time and the fit. How a session ends is in CalibrationSessionEndDaemonTests.swift.
@Suite("Calibration session: the real daemon", .serialized)
struct CalibrationDaemonTests {
    /// An 800 × 480 screen on the EP0430M09 (raw axes 0…1279 × 0…767) mounted at 90° with a
    /// calibration, 160 × 96 mm, short contacts (under 50 ms) filtered; `button` covers it.
    /// The screen `main` (with more `keys`), then `otherScreens` (", {name: ...}" each).
    static func config(_ keys: String = "", otherScreens: String = "") -> String {
        """
        {screens: [{name: "main", width: 800, height: 480, rotation: 90, physicalSize: [160, 96],
          calibration: [1.1, 0.05, -0.04, -0.03, 0.95, 0.02], filters: {minContactMs: 50}, \(keys)
          root: {id: "main", children: [{id: "button", frame: [0, 0, 800, 480]}]}}\(otherScreens)]}
        """
    }

    func daemon(
        _ directory: TemporaryDirectory, frames: [(Double, [TestRecording.Change])], speed: String = "0",
        extraArguments: [String] = [], config: String = Self.config()
    ) throws -> DaemonProcess {
        try directory.write("calibration.json5", config)
        try directory.write("calibration.events", FieldRecording.events(frames))
        return try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("calibration.json5"), "--replay", directory.file("calibration.events"),
                "--replay-device", FieldRecording.description, "--speed", speed, "--replay-wait-for", "1",
            ] + extraArguments)
    }

    /// hello, then `calibrationStart` on main; returns the reply.
    func start(_ client: LineClient, timeoutMs: Int64 = 60_000, seq: Int64 = 1) throws -> DaemonMessage {
        try client.hello("calibrator")
        try client.send(
            ClientRequest(.calibrationStart(screen: "main", timeoutMillis: timeoutMs, minimumGapMillis: 250), seq: seq))
        return try client.readReply()
    }

    /// Subscribes to `button` (the replay starts at the first subscriber) and reads the reply.
    func subscribe(_ client: LineClient) throws {
        try client.send(ClientRequest(.subscribe(views: ["button"], subtree: false), seq: 50))
        guard case .subscribed = try client.readReply() else { throw HarnessError("not subscribed") }
    }

    /// The next `count` calibration messages, and every `touches` met on the way.
    func calibrationMessages(_ client: LineClient, count: Int) throws -> (messages: [DaemonMessage], touches: Int) {
        var messages: [DaemonMessage] = []
        var touches = 0
        while messages.count < count, let message = try client.readMessage() {
            switch message {
            case .calibrationSample, .calibrationRefused, .calibrationEnded: messages.append(message)
            case .touches: touches += 1
            default: continue
            }
        }
        return (messages, touches)
    }

    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-6 }

    @Test("a sample is the median of the press, without the calibration, un-rotated; finish fits the matrix")
    func samplesAreMediansAndFinishFits() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory,
            frames: [
                // x: 100, 104, 98, 300, 101 → 101; y: 200, 190, 205, 10, 202 → 200.
                (0.10, [.down(0, 100, 200)]), (0.11, [.move(0, 104, 190)]), (0.12, [.move(0, 98, 205)]),
                (0.13, [.move(0, 300, 10)]), (0.14, [.move(0, 101, 202)]), (0.20, [.up(0)]),
                // One position, 20 ms: short enough for the minContactMs filter, measured anyway.
                (1.00, [.down(0, 1000, 600)]), (1.02, [.up(0)]),
            ])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        #expect(
            try start(client)
                == .calibrationStarted(
                    CalibrationStarted(
                        screen: "main", width: 800, height: 480, rotation: 90, millimetresPerUnit: 0.2,
                        timeoutMillis: 60_000, minimumGapMillis: 250, seq: 1)))
        try subscribe(client)
        let (messages, touches) = try calibrationMessages(client, count: 2)
        #expect(touches == 0, "nothing of the screen is routed during the session")
        guard case .calibrationSample(let first) = messages.first, case .calibrationSample(let second) = messages.last
        else {
            Issue.record("expected two samples, got \(messages)")
            return
        }
        // Normalized: the raw median over the axis range (1280, 768), whatever the calibration. The
        // replay mapped each position as libinput does (truncated to whole device units under the
        // calibrated matrix) before the session took the calibration back out: within 1.5 units.
        // Applied, the calibration would move the first by 24 units in x; the mean, by 40.
        func near(_ point: Point, _ rawX: Double, _ rawY: Double) -> Bool {
            abs(point.x * 1280 - rawX) < 1.5 && abs(point.y * 768 - rawY) < 1.5
        }
        #expect(near(first.normalized, 101, 200), "\(first.normalized)")
        // The point: rotated 90° (x = (1 − v)·800, y = u·480), not calibrated.
        #expect(abs(first.screenPoint.x - (1 - 200.0 / 768) * 800) < 1.6, "\(first.screenPoint)")
        #expect(abs(first.screenPoint.y - 101.0 / 1280 * 480) < 1.6, "\(first.screenPoint)")
        #expect(first.positions == 5 && first.screen == "main" && first.deviceName == "EP0430M09")
        #expect(near(second.normalized, 1000, 600), "\(second.normalized)")
        #expect(second.positions == 1)

        // Targets pressed exactly where the uncalibrated rotation puts them: the identity matrix.
        func press(_ x: Double, _ y: Double) -> CalibrationPress {
            CalibrationPress(target: Point(x, y), normalized: Point(y / 480, 1 - x / 800))
        }
        try client.send(
            ClientRequest(
                .calibrationFinish(
                    points: [press(80, 48), press(720, 48), press(720, 432), press(80, 432)],
                    verify: CalibrationPress(target: Point(400, 240), normalized: Point(0.5, 0.5 - 5.0 / 800))),
                seq: 2))
        guard case .calibrationResult(let result) = try client.readReply() else {
            Issue.record("no calibrationResult")
            return
        }
        #expect(result.seq == 2 && result.screen == "main")
        for (value, expected) in zip(result.matrix, [1.0, 0, 0, 0, 1, 0]) { #expect(Self.close(value, expected)) }
        #expect(result.residuals.count == 4 && result.maximumResidual < 1e-6)
        // The verification press is 5 units off in x: 1 mm at 0.2 mm per unit.
        #expect(Self.close(result.verification?.units ?? 0, 5) && Self.close(result.verification?.millimetres ?? 0, 1))
        // The session is over.
        try client.send(ClientRequest(.calibrationCancel, seq: 3))
        #expect(try client.readReply().errorCode == .invalidMessage)
    }

    /// Without a physical size (none configured, the panel gives no resolution) the verification's
    /// millimetres are null, never the 96-dpi fallback's guess.
    @Test("without a known size the verification has units and null millimetres")
    func verificationWithoutSize() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory, frames: [(0.10, [.down(0, 100, 200)]), (0.20, [.up(0)])],
            config: Self.config().replacingOccurrences(of: "physicalSize: [160, 96],", with: ""))
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .calibrationStarted(let started) = try start(client) else { throw HarnessError("no session") }
        #expect(started.millimetresPerUnit == nil)
        func press(_ x: Double, _ y: Double) -> CalibrationPress {
            CalibrationPress(target: Point(x, y), normalized: Point(y / 480, 1 - x / 800))
        }
        try client.send(
            ClientRequest(
                .calibrationFinish(
                    points: [press(80, 48), press(720, 48), press(400, 432)],
                    verify: CalibrationPress(target: Point(400, 240), normalized: Point(0.5, 0.5 - 5.0 / 800))),
                seq: 2))
        guard case .calibrationResult(let result) = try client.readReply() else {
            throw HarnessError("no calibrationResult")
        }
        #expect(Self.close(result.verification?.units ?? 0, 5))
        #expect(result.verification != nil && result.verification?.millimetres == nil)
    }

    @Test("two fingers, a bounce and another device's press are refused, each with its reason")
    func refusals() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func device(_ node: String, _ name: String, _ frames: [(Double, [TestRecording.Change])]) -> (
            node: String, description: String, events: [TestRecording.Event]
        ) {
            (
                node: node,
                description: """
                name: "\(name)"
                absinfo:
                  47: [0, 4, 0, 0, 0]
                  53: [0, 1279, 0, 0, 0]
                  54: [0, 767, 0, 0, 0]
                  57: [0, 65535, 0, 0, 0]
                properties: [1]
                """,
                events: TestRecording.events(frames)
            )
        }
        try directory.write(
            "two.yml",
            TestRecording.libinputRecord([
                device(
                    "/dev/input/event4", "EP0430M09",
                    [
                        (0.10, [.down(0, 100, 100)]), (0.15, [.down(1, 500, 500)]), (0.20, [.up(0)]),
                        (0.25, [.up(1)]),
                        // 100 ms after the release: a bounce.
                        (0.35, [.down(0, 200, 200)]), (0.40, [.up(0)]),
                        (1.00, [.down(0, 300, 300)]), (1.10, [.up(0)]),
                    ]),
                device("/dev/input/event5", "Other Panel", [(0.60, [.down(0, 600, 600)]), (0.70, [.up(0)])]),
            ]))
        try directory.write("calibration.json5", Self.config())
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("calibration.json5"), "--replay", directory.file("two.yml"), "--speed",
                "0", "--replay-wait-for", "1",
            ])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .calibrationStarted = try start(client) else { throw HarnessError("not started") }
        try subscribe(client)
        let (messages, _) = try calibrationMessages(client, count: 4)
        let reasons = messages.map { message -> String in
            switch message {
            case .calibrationRefused(let screen, let reason, let text):
                #expect(screen == "main" && text == reason.sentence)
                return reason.rawValue
            case .calibrationSample(let sample): return "sample \(sample.deviceName)"
            default: return "\(message)"
            }
        }
        #expect(reasons == ["multipleFingers", "tooSoon", "otherDevice", "sample EP0430M09"])
        // A fit that fails (collinear targets) is an error, and ends the session too.
        func press(_ x: Double) -> CalibrationPress {
            CalibrationPress(target: Point(x, x), normalized: Point(0.5, 0.5))
        }
        try client.send(
            ClientRequest(.calibrationFinish(points: [press(10), press(20), press(30)], verify: nil), seq: 2))
        let failed = try client.readReply()
        #expect(failed.errorCode == .invalidMessage)
        if case .error(let error) = failed { #expect(error.message.contains("one line"), "\(error)") }
        try client.send(ClientRequest(.calibrationCancel, seq: 3))
        #expect(try client.readReply().errorCode == .invalidMessage)
    }

    static let outsider = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        s.sendall(b'{"type":"calibrationStart","screen":"main","seq":1}\\n')
        print(s.makefile(encoding="utf-8").readline().strip(), flush=True)
        """

    @Test(
        "a non-admin is refused, a second session is busy, and only the session's client may end it",
        .enabled(if: OtherUserClient.isAvailable, "needs root, setpriv and /usr/bin/python3"))
    func whoMayCalibrate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        try directory.write("outsider.py", Self.outsider)
        let daemon = try self.daemon(
            directory, frames: [(0.1, [.down(0, 1, 1)]), (0.2, [.up(0)])], extraArguments: ["--socket-mode", "0666"])
        defer { daemon.stop() }
        let text = try OtherUserClient.run(script: directory.file("outsider.py"), arguments: [daemon.socketPath])
        let refused = DaemonMessageDecoder.decode(
            line: Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
        #expect((try? refused.get())?.errorCode == .permissionDenied, "\(text)")

        let first = try LineClient(socketPath: daemon.socketPath)
        guard case .calibrationStarted = try start(first) else { throw HarnessError("not started") }
        let second = try LineClient(socketPath: daemon.socketPath)
        #expect(
            try start(second, seq: 7)
                == .error(
                    ProtocolError(
                        code: .calibrationBusy, message: "a calibration session is running on screen main", seq: 7)))
        try second.send(ClientRequest(.calibrationCancel, seq: 8))
        #expect(try second.readReply().errorCode == .invalidMessage)
        // The admin's status names the session.
        try second.send(ClientRequest(.status, seq: 9))
        guard case .status(let status) = try second.readReply() else { throw HarnessError("no status") }
        #expect(
            status.counters["calibration"]
                == .object(["screen": .string("main"), "clientPid": .integer(Int64(getpid())), "samples": .integer(0)]))
        try first.send(ClientRequest(.calibrationCancel, seq: 4))
        #expect(try first.readReply() == .calibrationEnded(screen: "main", reason: .cancelled, seq: 4))
        // Over: another may start one now.
        #expect(try start(second, seq: 10).seq == 10)
    }

    /// Reads `touches` until the first `began` and returns its time (recorded µs).
    func firstBeganMicros(_ client: LineClient) throws -> UInt64? {
        while let message = try client.readMessage() {
            if case .touches(let touches) = message, let began = touches.touches.first(where: { $0.phase == .began }) {
                return began.timestampMicros
            }
        }
        return nil
    }
}
