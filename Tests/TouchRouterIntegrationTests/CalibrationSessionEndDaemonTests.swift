import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

/// How a calibration session ends in the real daemon (disconnect, timeout, reload) and what it
/// does to touches already down when it starts, and one session at a time across screens; the
/// helpers are in CalibrationDaemonTests.swift.
extension CalibrationDaemonTests {
    @Test("one session at a time on the whole daemon: a start on another screen is busy too")
    func oneSessionAcrossScreens() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let side = #", {name: "side", width: 100, height: 100, root: {id: "sideRoot"}}"#
        let twoScreens = Self.config(otherScreens: side)
        let daemon = try self.daemon(directory, frames: [(0.1, [.down(0, 1, 1)]), (0.2, [.up(0)])], config: twoScreens)
        defer { daemon.stop() }
        let first = try LineClient(socketPath: daemon.socketPath)
        guard case .calibrationStarted = try start(first) else { throw HarnessError("not started") }
        let second = try LineClient(socketPath: daemon.socketPath)
        try second.send(
            ClientRequest(.calibrationStart(screen: "side", timeoutMillis: 60_000, minimumGapMillis: 250), seq: 3))
        #expect(
            try second.readReply()
                == .error(
                    ProtocolError(
                        code: .calibrationBusy, message: "a calibration session is running on screen main", seq: 3)))
        // Its client ends it (the test that runs as another user checks this too, but may skip).
        try first.send(ClientRequest(.calibrationCancel, seq: 4))
        #expect(try first.readReply() == .calibrationEnded(screen: "main", reason: .cancelled, seq: 4))
    }

    @Test("the client's disconnect ends the session: the screen routes again and its filters act again")
    func disconnectRestoresRouting() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory,
            frames: [
                // 20 ms: measured by the session (no filter).
                (0.30, [.down(0, 100, 200)]), (0.32, [.up(0)]),
                // After the session: 20 ms is filtered (minContactMs 50), 200 ms is routed.
                (2.50, [.down(0, 700, 100)]), (2.52, [.up(0)]),
                (3.00, [.down(0, 400, 300)]), (3.20, [.up(0)]),
            ], speed: "1")
        defer { daemon.stop() }
        let calibrator = try LineClient(socketPath: daemon.socketPath)
        guard case .calibrationStarted = try start(calibrator) else { throw HarnessError("not started") }
        let app = try LineClient(socketPath: daemon.socketPath)
        try app.hello("app")
        try subscribe(app)
        let (messages, _) = try calibrationMessages(calibrator, count: 1)
        guard case .calibrationSample = messages.first else { throw HarnessError("no sample: \(messages)") }
        try calibrator.send(ClientRequest(.status, seq: 5))
        guard case .status(let status) = try calibrator.readReply() else { throw HarnessError("no status") }
        #expect(status.counters["calibration"]?.objectValue?["samples"] == .integer(1))
        Glibc.shutdown(calibrator.fd, Int32(SHUT_RDWR))
        // The 3.0 s press, its began held the 50 ms of minContactMs: the filter acts again.
        let began = try firstBeganMicros(app)
        #expect(began == 3_050_000, "\(String(describing: began))")
    }

    @Test("the session ends at its timeout with calibrationEnded, and the screen routes again")
    func timeoutEndsTheSession() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory,
            frames: [
                (0.30, [.down(0, 100, 200)]), (0.32, [.up(0)]),
                (3.00, [.down(0, 400, 300)]), (3.20, [.up(0)]),
            ], speed: "1")
        defer { daemon.stop() }
        let calibrator = try LineClient(socketPath: daemon.socketPath)
        guard case .calibrationStarted = try start(calibrator, timeoutMs: 1000) else {
            throw HarnessError("not started")
        }
        let app = try LineClient(socketPath: daemon.socketPath)
        try app.hello("app")
        try subscribe(app)
        let (messages, _) = try calibrationMessages(calibrator, count: 2)
        guard case .calibrationSample = messages.first else { throw HarnessError("no sample: \(messages)") }
        #expect(messages.last == .calibrationEnded(screen: "main", reason: .timeout, seq: nil))
        #expect(try firstBeganMicros(app) == 3_050_000)
    }

    @Test("a reload that leaves the screen as it was keeps the session; one that rotates it ends it")
    func reloadEndsTheSessionOnlyWhenTheScreenChanges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(directory, frames: [(0.1, [.down(0, 1, 1)]), (0.2, [.up(0)])])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .calibrationStarted = try start(client) else { throw HarnessError("not started") }
        // Another view under the root: the screen itself is unchanged.
        try directory.write(
            "calibration.json5",
            Self.config().replacingOccurrences(
                of: "{id: \"button\", frame: [0, 0, 800, 480]}",
                with: "{id: \"button\", frame: [0, 0, 800, 480]}, {id: \"extra\", frame: [0, 0, 10, 10]}"))
        try client.send(ClientRequest(.reload, seq: 2))
        guard case .reloaded = try client.readReply() else { throw HarnessError("no reload") }
        try client.send(ClientRequest(.status, seq: 3))
        guard case .status(let status) = try client.readReply() else { throw HarnessError("no status") }
        #expect(status.counters["calibration"] != nil, "the session still runs")
        try directory.write(
            "calibration.json5", Self.config().replacingOccurrences(of: "rotation: 90", with: "rotation: 180"))
        try client.send(ClientRequest(.reload, seq: 4))
        #expect(try client.readReply() == .calibrationEnded(screen: "main", reason: .reload, seq: nil))
        guard case .reloaded = try client.readReply() else { throw HarnessError("no reload") }
        try client.send(ClientRequest(.calibrationCancel, seq: 5))
        #expect(try client.readReply().errorCode == .invalidMessage)
    }

    @Test("a touch down when the session starts is cancelled (view-removed); the rest of it is nobody's")
    func startCancelsTouchesDown() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory,
            frames: [
                (0.10, [.down(0, 100, 200)]), (0.60, [.move(0, 110, 210)]), (1.20, [.move(0, 120, 220)]),
                (1.50, [.up(0)]),
                (2.00, [.down(0, 300, 300)]), (2.10, [.up(0)]),
            ], speed: "1")
        defer { daemon.stop() }
        let calibrator = try LineClient(socketPath: daemon.socketPath)
        try calibrator.hello("calibrator")
        let app = try LineClient(socketPath: daemon.socketPath)
        try app.hello("app")
        try subscribe(app)
        guard case .touches(let began) = try app.readMessage(), began.touches.first?.phase == .began else {
            throw HarnessError("no began")
        }
        try calibrator.send(
            ClientRequest(.calibrationStart(screen: "main", timeoutMillis: 60_000, minimumGapMillis: 250), seq: 1))
        guard case .calibrationStarted = try calibrator.readReply() else { throw HarnessError("not started") }
        guard case .touches(let cancelled) = try app.readMessage() else { throw HarnessError("no cancel") }
        #expect(cancelled.touches.map(\.phase) == [.cancelled])
        #expect(cancelled.touches.first?.cancelReason == .viewRemoved)
        // The finger's moves and lift go to neither: the session's first word is the next press's sample.
        let (messages, _) = try calibrationMessages(calibrator, count: 1)
        guard case .calibrationSample(let sample) = messages.first else {
            Issue.record("expected a sample first: \(messages)")
            return
        }
        #expect(abs(sample.normalized.x * 1280 - 300) < 1.5 && abs(sample.normalized.y * 768 - 300) < 1.5)
        // Nothing more reached the app (everything recorded has played by now).
        try app.send(ClientRequest(.status, seq: 9))
        var later: [DaemonMessage] = []
        while let message = try app.readMessage(), message.seq != 9 { later.append(message) }
        #expect(later.isEmpty, "\(later)")
    }
}

extension JSONValue {
    var objectValue: [String: JSONValue]? {
        if case .object(let object) = self { return object }
        return nil
    }
}
