import Testing
import TouchRouterCore

@testable import TouchRouterProtocol

@Suite("Daemon messages")
struct DaemonMessageTests {
    static let layout = Layout(screens: [
        Screen(
            name: "main", width: 1920, height: 1080,
            root: View(
                id: "root", frame: Rect(x: 0, y: 0, width: 1920, height: 1080),
                children: [
                    View(
                        id: "keypad", frame: Rect(x: 100, y: 200, width: 300, height: 400),
                        children: [
                            View(
                                id: "keypad/7", frame: Rect(x: 0, y: 0, width: 100, height: 100),
                                touchMargin: EdgeMargin(top: 1, left: 2, bottom: 3, right: 4.5),
                                shape: .roundedRect(radius: 12)),
                            View(
                                id: "dial", frame: Rect(x: 0, y: 100, width: 90, height: 90),
                                shape: .ellipse),
                        ], multipleTouch: true),
                    View(
                        id: "tri \"quoted\"", frame: Rect(x: 10, y: 10, width: 50, height: 50), hidden: true,
                        alpha: 0.5, interactive: false,
                        shape: .polygon([Point(0, 0), Point(50, 0), Point(25, 43.3)]),
                        transform: ViewTransform(rotationDegrees: 90, scaleX: 2, scaleY: 0.5),
                        exclusiveTouch: true),
                ])),
        Screen(
            name: "side", width: 800, height: 480,
            root: View(id: "side-root", frame: Rect(x: 0, y: 0, width: 800, height: 480))),
    ])

    static let messages: [DaemonMessage] = [
        .welcome(
            Welcome(
                daemonVersion: "0.1.0", generation: 3,
                screens: [ScreenInfo(name: "main", width: 1920, height: 1080)], seq: 0)),
        .welcome(Welcome(daemonVersion: "x", generation: 1, screens: [])),
        .layoutChanged(generation: 4),
        .subscribed(Subscribed(views: ["keypad", "dial"], subtree: true, seq: 2)),
        .unsubscribed(Unsubscribed(views: [], seq: nil)),
        .hitTestResult(
            HitTestReply(
                screen: "main", screenPoint: Point(150, 250.5), viewID: "keypad/7",
                path: ["root", "keypad", "keypad/7"],
                localPoint: Point(50, 50.5), seq: 9)),
        .hitTestResult(HitTestReply(screen: "main", screenPoint: Point(-1, -1), result: nil, seq: 10)),
        .layout(LayoutReply(generation: 2, layout: layout, seq: 11)),
        .status(
            StatusReply(
                counters: [
                    "clients": .integer(3), "uptimeSeconds": .double(12.5), "version": .string("0.1.0"),
                    "devices": .array([.string("Atmel"), .null]), "replay": .bool(true),
                    "perClient": .object(["ui": .integer(-1)]),
                ], seq: 12)),
        .reloaded(generation: 5, seq: nil),
        .explanation(
            ExplainReply(
                explanation: HitTestExplanation(screen: layout.screens[0], screenPoint: Point(150, 250.5)),
                seq: 14)),
        .explanation(
            ExplainReply(
                explanation: HitTestExplanation(
                    screen: layout.screens[0], screenPoint: Point(120, 330), subscribedViews: Set(["root"]),
                    accessListViews: ["keypad"]),
                clients: ["ui (pid 7)"])),
        .explanation(
            ExplainReply(explanation: HitTestExplanation(screen: layout.screens[0], screenPoint: Point(-1, 5)))),
        .error(ProtocolError(code: .unknownViews, message: "no view \"nope\"", seq: 13, views: ["nope"])),
        .error(ProtocolError(code: .queueOverflow, message: "too slow")),
        .touches(
            TouchesMessage(
                viewID: "keypad/7", screen: "main", timestampMicros: 99,
                touches: [
                    WireTouch(
                        id: 1, phase: .cancelled, localPoint: Point(1, 2), screenPoint: Point(3, 4),
                        previousLocalPoint: Point(5, 6), timestampMicros: 98, tapCount: 2, deviceName: "dev",
                        reason: "shutdown")
                ])),
    ]

    @Test("every message round-trips through its encoder and decoder", arguments: messages)
    func roundTrip(message: DaemonMessage) throws {
        let line = message.encodedLine()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil)
        let decoded = try DaemonMessageDecoder.decode(line: line.dropLast()).get()
        #expect(decoded == message, "\(String(decoding: line, as: UTF8.self))")
        #expect(decoded.seq == message.seq)
    }

    @Test("exact lines for the documented examples")
    func exactLines() {
        func text(_ message: DaemonMessage) -> String {
            String(decoding: message.encodedLine(), as: UTF8.self)
        }
        #expect(text(.layoutChanged(generation: 4)) == #"{"type":"layoutChanged","generation":4}"# + "\n")
        #expect(
            text(
                .error(
                    ProtocolError(
                        code: .unknownViews, message: "unknown view ids: nope", seq: 2, views: ["nope"])))
                == #"{"type":"error","code":"unknown-views","message":"unknown view ids: nope","#
                + #""views":["nope"],"seq":2}"# + "\n")
        #expect(
            text(.hitTestResult(HitTestReply(screen: "main", screenPoint: Point(5, 5), result: nil)))
                == #"{"type":"hitTestResult","screen":"main","point":[5.0,5.0],"#
                + #""view":null,"path":[],"local":null}"#
                + "\n")
        let view = View(id: "b", frame: Rect(x: 1, y: 2, width: 3, height: 4), hidden: true, shape: .ellipse)
        var buffer: [UInt8] = []
        LayoutJSON.appendView(view, to: &buffer)
        #expect(
            String(decoding: buffer, as: UTF8.self)
                == #"{"id":"b","frame":[1.0,2.0,3.0,4.0],"flags":["hidden"],"shape":"ellipse"}"#)
    }

    @Test("a newer daemon's unknown message type and error code")
    func forwardCompatible() throws {
        let unknown = DaemonMessageDecoder.decode(line: Array(#"{"type":"sparkles","seq":1}"#.utf8))
        #expect(unknown.failure?.code == .unknownType)
        let error = try DaemonMessageDecoder.decode(
            line: Array(#"{"type":"error","code":"brand-new","message":"hm"}"#.utf8)
        ).get()
        guard case .error(let decoded) = error else {
            Issue.record("not an error: \(error)")
            return
        }
        #expect(decoded.code == .internalError)
        #expect(decoded.message == "brand-new: hm")
    }

    @Test("every error code has a distinct wire spelling")
    func errorCodes() {
        #expect(Set(ErrorCode.allCases.map(\.rawValue)).count == ErrorCode.allCases.count)
        #expect(ErrorCode.lineTooLong.closesConnection)
        #expect(!ErrorCode.malformedJSON.closesConnection)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
