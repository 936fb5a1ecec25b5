import Testing
import TouchRouterModel

@testable import TouchRouterProtocol

@Suite("Calibration messages")
struct CalibrationMessageTests {
    static let press = #"{"target":{"x":80,"y":48},"normalized":[0.11,0.09]}"#

    static let goodLines: [(String, ClientRequest)] = [
        (
            #"{"type":"calibrationStart","screen":"main","timeoutMs":120000,"minimumGapMs":250,"seq":1}"#,
            ClientRequest(.calibrationStart(screen: "main", timeoutMillis: 120_000, minimumGapMillis: 250), seq: 1)
        ),
        (
            #"{"type":"calibrationStart","screen":"side"}"#,
            ClientRequest(.calibrationStart(screen: "side", timeoutMillis: 120_000, minimumGapMillis: 250))
        ),
        (
            #"{"type":"calibrationStart","screen":"s","timeoutMs":1000,"minimumGapMs":0}"#,
            ClientRequest(.calibrationStart(screen: "s", timeoutMillis: 1000, minimumGapMillis: 0))
        ),
        (
            #"{"type":"calibrationStart","screen":"s","timeoutMs":600000,"minimumGapMs":5000}"#,
            ClientRequest(.calibrationStart(screen: "s", timeoutMillis: 600_000, minimumGapMillis: 5000))
        ),
        (
            #"{"type":"calibrationFinish","points":["# + press + #"],"verify":{"target":{"x":400,"y":240},"#
                + #""normalized":[0.5,0.5]},"seq":2}"#,
            ClientRequest(
                .calibrationFinish(
                    points: [CalibrationPress(target: Point(80, 48), normalized: Point(0.11, 0.09))],
                    verify: CalibrationPress(target: Point(400, 240), normalized: Point(0.5, 0.5))),
                seq: 2)
        ),
        (
            #"{"type":"calibrationFinish","points":[],"verify":null}"#,
            ClientRequest(.calibrationFinish(points: [], verify: nil))
        ),
        (
            #"{"type":"calibrationFinish","points":["# + Array(repeating: press, count: 16).joined(separator: ",")
                + "]}",
            ClientRequest(
                .calibrationFinish(
                    points: Array(
                        repeating: CalibrationPress(target: Point(80, 48), normalized: Point(0.11, 0.09)), count: 16),
                    verify: nil))
        ),
        (#"{"type":"calibrationCancel","seq":3}"#, ClientRequest(.calibrationCancel, seq: 3)),
    ]

    @Test("well-formed calibration requests decode", arguments: goodLines)
    func decodes(line: String, expected: ClientRequest) {
        #expect(RequestDecoder.decode(line: Array(line.utf8)) == .request(expected))
    }

    @Test("every calibration request round-trips through its encoder", arguments: goodLines)
    func roundTrip(line: String, expected: ClientRequest) {
        #expect(RequestDecoder.decode(line: expected.encodedLine().dropLast()) == .request(expected))
    }

    static let badLines: [String] = [
        #"{"type":"calibrationStart","seq":4}"#,
        #"{"type":"calibrationStart","screen":7,"seq":4}"#,
        #"{"type":"calibrationStart","screen":"main","timeoutMs":999,"seq":4}"#,
        #"{"type":"calibrationStart","screen":"main","timeoutMs":600001,"seq":4}"#,
        #"{"type":"calibrationStart","screen":"main","timeoutMs":1500.5,"seq":4}"#,
        #"{"type":"calibrationStart","screen":"main","minimumGapMs":-1,"seq":4}"#,
        #"{"type":"calibrationStart","screen":"main","minimumGapMs":5001,"seq":4}"#,
        #"{"type":"calibrationStart","screen":"main","minimumGapMs":"250","seq":4}"#,
        #"{"type":"calibrationFinish","seq":4}"#,
        #"{"type":"calibrationFinish","points":{},"seq":4}"#,
        #"{"type":"calibrationFinish","points":["# + Array(repeating: press, count: 17).joined(separator: ",")
            + #"],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[7],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[{"normalized":[0.1,0.1]}],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[{"target":{"x":1,"y":2}}],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[{"target":[1,2],"normalized":[0.1,0.1]}],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[{"target":{"x":1},"normalized":[0.1,0.1]}],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[{"target":{"x":1,"y":"2"},"normalized":[0.1,0.1]}],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[{"target":{"x":1e999,"y":2},"normalized":[0.1,0.1]}],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[{"target":{"x":1,"y":2},"normalized":[0.1]}],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[{"target":{"x":1,"y":2},"normalized":[0.1,0.2,0.3]}],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[{"target":{"x":1,"y":2},"normalized":[0.1,null]}],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[{"target":{"x":1,"y":2},"normalized":{"x":0,"y":0}}],"seq":4}"#,
        #"{"type":"calibrationFinish","points":[],"verify":{"target":{"x":1,"y":2}},"seq":4}"#,
        #"{"type":"calibrationFinish","points":[],"verify":[1,2],"seq":4}"#,
    ]

    @Test("bad calibration requests are invalid-message errors with their seq", arguments: badLines)
    func refuses(line: String) {
        let decoded = RequestDecoder.decode(line: Array(line.utf8))
        guard case .error(let error) = decoded else {
            Issue.record("expected an error for \(line), got \(decoded)")
            return
        }
        // A non-finite number is refused by the strict reader (malformed-json), the rest by the fields.
        #expect(error.code == (line.contains("1e999") ? .malformedJSON : .invalidMessage), "\(line): \(error)")
        #expect(error.seq == 4, "\(line): \(error)")
        #expect(!error.message.isEmpty)
    }

    static let messages: [DaemonMessage] = [
        .calibrationStarted(
            CalibrationStarted(
                screen: "main", width: 800, height: 480, rotation: 90, millimetresPerUnit: 0.26,
                timeoutMillis: 120_000, minimumGapMillis: 250, seq: 1)),
        .calibrationStarted(
            CalibrationStarted(
                screen: "side", width: 1, height: 2, rotation: 0, millimetresPerUnit: nil, timeoutMillis: 1000,
                minimumGapMillis: 0)),
        .calibrationSample(
            CalibrationSample(
                screen: "main", deviceName: "ILITEK ILITEK-TP", normalized: Point(0.1104, 0.0897),
                screenPoint: Point(79.4, 47.9), positions: 23)),
        .calibrationRefused(
            screen: "main", reason: .multipleFingers, message: CalibrationRefusalReason.multipleFingers.sentence),
        .calibrationRefused(screen: "main", reason: .otherDevice, message: "x"),
        .calibrationRefused(screen: "main", reason: .tooSoon, message: "y"),
        .calibrationEnded(screen: "main", reason: .cancelled, seq: 3),
        .calibrationEnded(screen: "main", reason: .timeout, seq: nil),
        .calibrationEnded(screen: "main", reason: .reload, seq: nil),
        .calibrationResult(
            CalibrationResult(
                screen: "main", matrix: [1.05, 0, -0.02, 0, 0.96, 0.03], residuals: [0.1, 0.4, 0.2, 0.3],
                maximumResidual: 0.4, verification: CalibrationVerification(units: 1.2, millimetres: 0.3), seq: 2)),
        .calibrationResult(
            CalibrationResult(
                screen: "main", matrix: [1, 0, 0, 0, 1, 0], residuals: [0, 0, 0], maximumResidual: 0,
                verification: CalibrationVerification(units: 1.2, millimetres: nil))),
        .calibrationResult(
            CalibrationResult(
                screen: "main", matrix: [1, 0, 0, 0, 1, 0], residuals: [], maximumResidual: 0, verification: nil,
                seq: 9)),
        .error(ProtocolError(code: .calibrationBusy, message: "a calibration session is running", seq: 5)),
    ]

    @Test("every calibration message round-trips through its encoder and decoder", arguments: messages)
    func messageRoundTrip(message: DaemonMessage) throws {
        let line = message.encodedLine()
        let decoded = try DaemonMessageDecoder.decode(line: line.dropLast()).get()
        #expect(decoded == message, "\(String(decoding: line, as: UTF8.self))")
        #expect(decoded.seq == message.seq)
    }

    @Test("the documented lines, exactly")
    func exactLines() {
        func text(_ message: DaemonMessage) -> String {
            String(decoding: message.encodedLine().dropLast(), as: UTF8.self)
        }
        #expect(
            text(Self.messages[0])
                == #"{"type":"calibrationStarted","screen":"main","width":800.0,"height":480.0,"rotation":90,"#
                + #""millimetresPerUnit":0.26,"timeoutMs":120000,"minimumGapMs":250,"seq":1}"#)
        #expect(
            text(Self.messages[2])
                == #"{"type":"calibrationSample","screen":"main","device":"ILITEK ILITEK-TP","#
                + #""normalized":[0.1104,0.0897],"point":{"x":79.4,"y":47.9},"positions":23}"#)
        // docs/protocol.md shows these two outside its checked blocks (no replay presses there).
        #expect(
            text(
                .calibrationRefused(
                    screen: "main", reason: .tooSoon, message: CalibrationRefusalReason.tooSoon.sentence))
                == #"{"type":"calibrationRefused","screen":"main","reason":"tooSoon","message":"this press came "#
                + #"too soon after the previous one (a bounce); press the target again"}"#)
        #expect(
            text(.calibrationEnded(screen: "main", reason: .cancelled, seq: 3))
                == #"{"type":"calibrationEnded","screen":"main","reason":"cancelled","seq":3}"#)
        #expect(
            text(Self.messages[11])
                == #"{"type":"calibrationResult","screen":"main","matrix":[1.0,0.0,0.0,0.0,1.0,0.0],"#
                + #""residuals":[],"maximumResidual":0.0,"verification":null,"seq":9}"#)
        #expect(
            text(.error(ProtocolError(code: .calibrationBusy, message: "busy")))
                == #"{"type":"error","code":"calibration-busy","message":"busy"}"#)
    }

    static let badMessages: [String] = [
        #"{"type":"calibrationRefused","screen":"main","reason":"sneezed","message":"x"}"#,
        #"{"type":"calibrationEnded","screen":"main","reason":"bored"}"#,
        #"{"type":"calibrationStarted","screen":"m","width":1,"height":1,"rotation":45,"timeoutMs":1000,"#
            + #""minimumGapMs":0}"#,
        #"{"type":"calibrationResult","screen":"m","matrix":[1,0,0,0,1],"residuals":[],"maximumResidual":0}"#,
        #"{"type":"calibrationSample","screen":"m","device":"d","normalized":[0,0],"point":[1,2],"positions":1}"#,
    ]

    @Test("calibration messages with impossible fields are refused", arguments: badMessages)
    func refusesMessage(line: String) {
        #expect(DaemonMessageDecoder.decode(line: Array(line.utf8)).failure?.code == .invalidMessage)
    }
}
