import Foundation
import Testing
import TouchRouterClient
import TouchRouterCore
import TouchRouterProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The Swift client library against a real Unix socket served by `SocketServer`.
@Suite("Client library over a real socket")
struct ClientTests {
    static let layout = Layout(screens: [
        Screen(
            name: "main", width: 800, height: 600,
            root: View(
                id: "root", frame: Rect(x: 0, y: 0, width: 800, height: 600),
                children: [
                    View(
                        id: "keypad", frame: Rect(x: 100, y: 100, width: 300, height: 300),
                        children: [View(id: "key-7", frame: Rect(x: 0, y: 0, width: 100, height: 100))])
                ]))
    ])

    static func touches(_ view: String, time: UInt64) -> ViewTouches {
        ViewTouches(
            viewID: view, screen: "main", timestampMicros: time,
            touches: [
                RoutedTouch(
                    id: time, phase: .began, localPoint: Point(1.25, 2), screenPoint: Point(101.25, 102),
                    previousLocalPoint: Point(1.25, 2), timestampMicros: time, tapCount: 1,
                    device: InputDevice(id: 1, name: "panel \"A\""))
            ])
    }

    /// Answers like a small daemon: welcome, subscriptions checked against `layout`, two touches
    /// messages (one split into single bytes) and a layoutChanged after each subscribe, hit-tests
    /// with the plain reference.
    static func miniDaemon(_ connection: ServerConnection) {
        var subscribed: [String] = []
        while let decoded = connection.nextRequest() {
            guard case .request(let request) = decoded else {
                if case .error(let error) = decoded { connection.send(.error(error)) }
                continue
            }
            let seq = request.seq
            switch request.message {
            case .hello:
                connection.send(
                    .welcome(
                        Welcome(
                            daemonVersion: "test", generation: 1,
                            screens: [ScreenInfo(name: "main", width: 800, height: 600)], seq: seq)))
            case .subscribe(let views, let subtree, _) where views.contains("secret"):
                subscribed += views.filter { $0 != "secret" }
                connection.send(
                    .error(
                        ProtocolError(
                            code: .permissionDenied, message: "access list excludes you: secret", seq: seq,
                            views: ["secret"])))
                _ = subtree
            case .subscribe(let views, let subtree, _):
                let known = Set(["root", "keypad", "key-7"])
                let unknown = views.filter { !known.contains($0) }
                subscribed += views.filter(known.contains)
                if unknown.isEmpty {
                    connection.send(.subscribed(Subscribed(views: views, subtree: subtree, seq: seq)))
                } else {
                    connection.send(
                        .error(
                            ProtocolError(
                                code: .unknownViews, message: "unknown view ids: \(unknown)", seq: seq,
                                views: unknown)))
                }
                for view in subscribed {
                    connection.sendBytes(TouchesEncoder.encodedLine(touches(view, time: 10)))
                    for byte in TouchesEncoder.encodedLine(touches(view, time: 11)) {
                        connection.sendBytes([byte])
                    }
                }
                connection.send(.layoutChanged(generation: 2))
            case .unsubscribe(let target):
                let removed: [String]
                switch target {
                case .all: removed = subscribed
                case .views(let views): removed = views.filter(subscribed.contains)
                }
                subscribed.removeAll(where: removed.contains)
                connection.send(.unsubscribed(Unsubscribed(views: removed, seq: seq)))
            case .hitTest(let screen, let point):
                let result = PlainHitTest.hitTest(layout.screens[0].root, screenPoint: point)
                connection.send(
                    .hitTestResult(
                        HitTestReply(screen: screen ?? "main", screenPoint: point, result: result, seq: seq)))
            case .explain(_, let point):
                let explanation = HitTestExplanation(screen: layout.screens[0], screenPoint: point)
                connection.send(.explanation(ExplainReply(explanation: explanation, seq: seq)))
            case .layout:
                connection.send(.layout(LayoutReply(generation: 1, layout: layout, seq: seq)))
            case .status:
                connection.send(.status(StatusReply(counters: ["clients": .integer(1)], seq: seq)))
            case .reload, .setScreenState, .metrics, .calibrationStart, .calibrationFinish, .calibrationCancel:
                connection.send(
                    .error(ProtocolError(code: .permissionDenied, message: "not admin", seq: seq)))
            case .setView(let views):
                connection.send(.viewsSet(LayoutChangeReply(generation: 2, views: views.keys.sorted(), seq: seq)))
                connection.send(.viewsChanged(generation: 2, views: views.keys.sorted()))
            case .mount(let view, _):
                connection.send(.mounted(LayoutChangeReply(generation: 3, views: [view], seq: seq)))
            case .unmount(let view):
                connection.send(.unmounted(LayoutChangeReply(generation: 4, views: [view], seq: seq)))
            }
        }
    }

    @Test("a subscribe partly refused by an access list: the rest subscribed, the refused listed")
    func permissionDenied() async throws {
        let server = try SocketServer()
        server.serveOne(Self.miniDaemon)
        let client = try await TouchRouterClient.connect(socketPath: server.path, clientName: "tests")
        let result = try await client.subscribe(["keypad", "secret"])
        #expect(result == SubscribeResult(subscribed: ["keypad"], unknown: [], denied: ["secret"]))
    }

    @Test("hello, subscribe, touches, layoutChanged, requests and replies")
    func fullSession() async throws {
        let server = try SocketServer()
        server.serveOne(Self.miniDaemon)
        let client = try await TouchRouterClient.connect(socketPath: server.path, clientName: "tests")
        #expect(client.welcome.daemonVersion == "test")
        #expect(client.welcome.screens == [ScreenInfo(name: "main", width: 800, height: 600)])

        let result = try await client.subscribe(["keypad", "nope"], subtree: true)
        #expect(result == SubscribeResult(subscribed: ["keypad"], unknown: ["nope"]))
        var received: [ClientEvent] = []
        for await event in client.events {
            received.append(event)
            if case .layoutChanged = event { break }
        }
        #expect(
            received == [
                .touches(TouchesMessage(Self.touches("keypad", time: 10))),
                .touches(TouchesMessage(Self.touches("keypad", time: 11))),
                .layoutChanged(generation: 2),
            ])

        let hit = try await client.hitTest(Point(150, 120))
        #expect(hit.viewID == "key-7")
        #expect(hit.path == ["root", "keypad", "key-7"])
        #expect(hit.localPoint == Point(50, 20))
        let miss = try await client.hitTest(Point(-5, -5), screen: "main")
        #expect(miss.viewID == nil && miss.localPoint == nil)

        #expect(try await client.layout().layout == Self.layout)
        #expect(try await client.status().counters == ["clients": .integer(1)])
        #expect(try await client.unsubscribe(["keypad", "key-7"]) == ["keypad"])
        await #expect(
            throws: ClientError.daemon(ProtocolError(code: .permissionDenied, message: "not admin", seq: 7))
        ) {
            try await client.reload()
        }
        client.close()
        for await event in client.events { Issue.record("event after close: \(event)") }
        await #expect(throws: ClientError.self) { try await client.status() }
    }

    @Test("replies are matched by seq, whatever their order")
    func outOfOrderReplies() async throws {
        let server = try SocketServer()
        server.serveOne { connection in
            guard let hello = connection.nextClientRequest() else { return }
            connection.send(
                .welcome(Welcome(daemonVersion: "test", generation: 1, screens: [], seq: hello.seq)))
            guard let first = connection.nextClientRequest(), let second = connection.nextClientRequest()
            else { return }
            for request in [second, first] {
                switch request.message {
                case .status:
                    connection.send(
                        .status(StatusReply(counters: ["n": .integer(request.seq!)], seq: request.seq)))
                default: connection.send(.reloaded(generation: UInt64(request.seq!), seq: request.seq))
                }
            }
            _ = connection.nextClientRequest()
        }
        let client = try await TouchRouterClient.connect(socketPath: server.path)
        async let status = client.status()
        async let generation = client.reload()
        let (statusReply, reloadedGeneration) = try await (status, generation)
        #expect(statusReply.counters["n"]?.integerValue == statusReply.seq)
        #expect(Int64(reloadedGeneration) != statusReply.seq)
        client.close()
    }

    @Test("a daemon that refuses with an error line and closes")
    func refused() async throws {
        let server = try SocketServer()
        server.serveOne { connection in
            connection.send(.error(ProtocolError(code: .tooManyClients, message: "64 clients already")))
        }
        await #expect(
            throws: ClientError.daemon(ProtocolError(code: .tooManyClients, message: "64 clients already"))
        ) {
            _ = try await TouchRouterClient.connect(socketPath: server.path)
        }
    }

    @Test("the daemon going away fails pending requests and ends the events")
    func daemonGone() async throws {
        let server = try SocketServer()
        server.serveOne { connection in
            guard let hello = connection.nextClientRequest() else { return }
            connection.send(
                .welcome(Welcome(daemonVersion: "test", generation: 1, screens: [], seq: hello.seq)))
            _ = connection.nextClientRequest()  // a status request, never answered
            connection.sendBytes(Array(#"{"type":"touches","view":"#.utf8))  // half a line, then gone
        }
        let client = try await TouchRouterClient.connect(socketPath: server.path)
        await #expect(throws: ClientError.disconnected(reason: "the daemon closed the connection")) {
            try await client.status()
        }
        for await event in client.events { Issue.record("unexpected \(event)") }
    }

    @Test("nothing listening: connectFailed with the errno")
    func nothingThere() async {
        let path = "/tmp/trc-\(getpid())-absent.sock"
        await #expect(throws: ClientError.connectFailed(path: path, call: "connect", errno: ENOENT)) {
            _ = try await TouchRouterClient.connect(socketPath: path)
        }
        await #expect(throws: ClientError.pathTooLong(String(repeating: "x", count: 200))) {
            _ = try await TouchRouterClient.connect(socketPath: String(repeating: "x", count: 200))
        }
    }
}
