/// Run-time state against the real daemon under attack: clients that mount and leave at once,
/// subscriptions that outlive their views, views squatted under another owner's subscription,
/// replies as large as the layout, and the on-loop cost of the layout-sized requests.
import Foundation
import Glibc
import Testing
import TouchRouterProtocol

@Suite("Run-time state under attack", .serialized)
struct RuntimeStateTests {
    /// The reply to `json` (a request with a `seq`), and the unsolicited messages before it.
    static func exchange(_ client: LineClient, _ json: String) throws -> (reply: DaemonMessage, before: [DaemonMessage])
    {
        try client.send(json)
        var before: [DaemonMessage] = []
        while let message = try client.readMessage() {
            if message.seq != nil { return (message, before) }
            before.append(message)
        }
        throw HarnessError("closed while waiting for the reply to \(json)")
    }

    /// A status reply's counters (touches and change notices before it are skipped).
    static func counters(_ client: LineClient, seq: Int) throws -> [String: JSONValue] {
        let (reply, _) = try Self.exchange(client, #"{"type":"status","seq":\#(seq)}"#)
        guard case .status(let status) = reply else { throw HarnessError("no status: \(reply)") }
        return status.counters
    }

    /// Status counters once only the observer is connected and no layout build is running or
    /// queued: every request and departure so far is live.
    static func settled(_ observer: LineClient, seq: inout Int) throws -> [String: JSONValue] {
        for _ in 0..<3000 {
            seq += 1
            let counters = try Self.counters(observer, seq: seq)
            if counters["clients"]?.integerValue == 1 && counters["layoutBuildsPending"]?.integerValue == 0 {
                return counters
            }
            usleep(10_000)
        }
        throw HarnessError("never settled")
    }

    @Test("60 clients that mount and close at once leave nothing mounted, round after round")
    func departedMountsGo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try RuntimeChangeTests.startDaemon(directory)
        defer { daemon.stop() }
        let observer = try LineClient(socketPath: daemon.socketPath)
        var seq = 1
        for round in 0..<16 {
            var clients: [LineClient] = []
            for index in 0..<60 {
                let client = try LineClient(socketPath: daemon.socketPath)
                try client.send(
                    #"{"type":"mount","view":"layer","children":[{"id":"m\#(round)-\#(index)","frame":[0,0,9,9]}],"seq":1}"#
                )
                clients.append(client)
            }
            clients.removeAll()  // every one closes at once, its mount in flight
            // Settled: only the observer is connected and no build is running or queued.
            let settled = try Self.settled(observer, seq: &seq)
            #expect(settled["mountedSubtrees"]?.integerValue == 0, "round \(round): \(settled)")
            seq += 1
            let text = String(
                decoding: try RuntimeChangeTests.exchange(observer, #"{"type":"layout","seq":\#(seq)}"#).reply
                    .encodedLine(), as: UTF8.self)
            #expect(!text.contains("\"m\(round)-"), "round \(round): a departed client's view is in the layout")
            // A touch there goes to the config's own view, not to a departed client's.
            let (hit, _) = try RuntimeChangeTests.exchange(observer, #"{"type":"hitTest","point":[500,500],"seq":1}"#)
            guard case .hitTestResult(let result) = hit else { throw HarnessError("no hit-test reply: \(hit)") }
            #expect(result.viewID == "layer", "round \(round)")
        }
    }

    /// A mount line of `count` views `prefix0…` under `point` (ids padded to `idLength` bytes).
    static func mountLine(_ point: String, prefix: String, count: Int, idLength: Int = 0, seq: Int) -> String {
        let views = (0..<count).map { index -> String in
            var id = "\(prefix)\(index)"
            if id.utf8.count < idLength { id += String(repeating: "x", count: idLength - id.utf8.count) }
            return #"{"id":"\#(id)","frame":[0,0,1,1]}"#
        }
        return #"{"type":"mount","view":"\#(point)","children":[\#(views.joined(separator: ","))],"seq":\#(seq)}"#
    }

    /// A config with `points` mount points `p0…`, each root's.
    static func mountPointsConfig(_ points: Int) -> String {
        let list = (0..<points).map { #"{ id: "p\#($0)", frame: [0, 0, 10, 10], mount: true }"# }
        return """
            { screens: [{ name: "main", width: 1280, height: 768, root: { id: "panel", children: [
                { id: "app", frame: [0, 0, 1280, 768], owner: { users: [0] }, children: [
                    { id: "pad", frame: [0, 0, 1280, 768] }, \(list.joined(separator: ", "))
                ] },
            ] } }] }
            """
    }

    static func startDaemon(_ directory: TemporaryDirectory, config: String, extraArguments: [String] = [])
        throws -> DaemonProcess
    {
        chmod(directory.path, 0o755)
        try directory.write("state.json5", config)
        return try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(
                recording: Scenario.oneFingerDrag, config: directory.file("state.json5"), waitFor: 99, speed: "1")
                + extraArguments)
    }

    @Test("layout at the documented maxima: 3 clients with 10,000 mounted views each all get the whole layout")
    func largeLayoutReplies() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory, config: Self.mountPointsConfig(21))
        defer { daemon.stop() }
        var clients: [LineClient] = []
        for owner in 0..<3 {
            let client = try LineClient(socketPath: daemon.socketPath)
            for mount in 0..<7 {
                let count = mount < 6 ? 1_500 : 1_000
                let (reply, _) = try Self.exchange(
                    client,
                    Self.mountLine("p\(owner * 7 + mount)", prefix: "c\(owner)m\(mount)v", count: count, seq: mount))
                guard case .mounted = reply else { throw HarnessError("mount refused: \(reply)") }
            }
            clients.append(client)
        }
        // Every client asks at once; each reply is about 1.2 MB, over the 256 KiB queue.
        for client in clients { try client.send(#"{"type":"layout","seq":77}"#) }
        for (index, client) in clients.enumerated() {
            var reply: DaemonMessage?
            while let message = try client.readMessage() {
                if message.seq == 77 || message.errorCode != nil {
                    reply = message
                    break
                }
            }
            guard case .layout(let layout)? = reply else {
                Issue.record("client \(index): \(String(describing: reply?.errorCode))")
                continue
            }
            #expect(layout.layout.viewCount == 3 + 21 + 30_000, "client \(index)")
            // And it goes on: a later request is answered.
            #expect(try Self.counters(client, seq: 78)["clients"]?.integerValue == 3)
        }
    }

    @Test("a mount owner that mounts fresh ids, subscribes and remounts keeps only its live subscriptions")
    func staleSubscriptionsEnd() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory, config: Self.mountPointsConfig(1))
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        var ended = 0
        for round in 0..<40 {
            let (_, beforeMount) = try Self.exchange(
                client, Self.mountLine("p0", prefix: "r\(round)v", count: 5, seq: round))
            let (reply, before) = try Self.exchange(
                client, #"{"type":"subscribe","views":["r\#(round)v0","r\#(round)v1"],"seq":1}"#)
            guard case .subscribed = reply else { throw HarnessError("subscribe refused: \(reply)") }
            ended += (beforeMount + before).filter { if case .subscriptionEnded = $0 { true } else { false } }.count
        }
        let counters = try Self.counters(client, seq: 2)
        #expect(counters["ownSubscriptionCount"]?.integerValue == 2, "\(counters)")
        guard case .array(let listed) = counters["ownSubscriptions"] else { throw HarnessError("no ownSubscriptions") }
        #expect(listed.count == 2)
        #expect(counters["ownSubscriptionsTruncated"] == nil, "nothing left out")
        #expect(ended == 39)
    }

    @Test("status with 1,050 long-id subscriptions and a 64 KiB queue is answered, not cut off")
    func largeStatusAnswered() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(
            directory, config: Self.mountPointsConfig(3), extraArguments: ["--client-queue-bytes", "65536"])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        for point in 0..<3 {
            let prefix = "p\(point)v"
            _ = try Self.exchange(
                client, Self.mountLine("p\(point)", prefix: prefix, count: 350, idLength: 90, seq: point))
            for half in 0..<2 {
                let ids = (half * 175..<(half + 1) * 175).map { index -> String in
                    let id = "\(prefix)\(index)"
                    return "\"" + id + String(repeating: "x", count: 90 - id.utf8.count) + "\""
                }
                let (reply, _) = try Self.exchange(
                    client, #"{"type":"subscribe","views":[\#(ids.joined(separator: ","))],"seq":9}"#)
                guard case .subscribed = reply else { throw HarnessError("subscribe refused: \(reply)") }
            }
        }
        let counters = try Self.counters(client, seq: 10)
        #expect(counters["ownSubscriptionCount"]?.integerValue == 1_050)
        #expect(counters["ownSubscriptionsTruncated"] == .bool(true))
    }

    @Test("a view id squatted by another owner does not take over a subscription; the subscriber is told")
    func squattedViewID() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory, config: Self.mountPointsConfig(1))
        defer { daemon.stop() }
        let appA = try LineClient(socketPath: daemon.socketPath)
        let subscriber = try LineClient(socketPath: daemon.socketPath)
        _ = try Self.exchange(appA, Self.mountLine("p0", prefix: "popup-ok", count: 1, seq: 1))
        let (subscribed, _) = try Self.exchange(
            subscriber, #"{"type":"subscribe","views":["popup-ok0"],"seq":1}"#)
        guard case .subscribed = subscribed else { throw HarnessError("subscribe refused: \(subscribed)") }
        _ = try Self.exchange(appA, #"{"type":"unmount","view":"p0","seq":2}"#)
        var appB: LineClient? = try LineClient(socketPath: daemon.socketPath)
        _ = try Self.exchange(appB!, Self.mountLine("p0", prefix: "popup-ok", count: 1, seq: 1))
        // The subscriber was told when A's view went, and holds nothing now: B's view is not its.
        let (status, before) = try Self.exchange(subscriber, #"{"type":"status","seq":2}"#)
        let ends = before.compactMap { message -> [String]? in
            if case .subscriptionEnded(let views, let reason) = message { return views + [reason] }
            return nil
        }
        #expect(ends == [["popup-ok0", "unmounted"]])
        guard case .status(let counters) = status else { throw HarnessError("no status") }
        #expect(counters.counters["ownSubscriptionCount"]?.integerValue == 0)
        // Subscribed to B's view, the subscriber is told when B leaves.
        _ = try Self.exchange(subscriber, #"{"type":"subscribe","views":["popup-ok0"],"seq":3}"#)
        appB = nil
        var reason: String?
        while reason == nil, let message = try subscriber.readMessage() {
            if case .subscriptionEnded(_, let why) = message { reason = why }
        }
        #expect(reason == "ownerLeft")
    }

    @Test("subscribe, unsubscribe, layout and explain are answered by the layout worker, not on the loop")
    func queriesOffTheLoop() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory, config: Self.mountPointsConfig(1))
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        let before = try Self.counters(client, seq: 1)["layoutBuilds"]?.integerValue ?? -1
        let requests = [
            #"{"type":"subscribe","views":["pad"],"seq":2}"#, #"{"type":"layout","seq":3}"#,
            #"{"type":"explain","point":[5,5],"seq":4}"#, #"{"type":"unsubscribe","all":true,"seq":5}"#,
        ]
        for request in requests {
            let (reply, _) = try Self.exchange(client, request)
            #expect(reply.errorCode == nil, "\(request): \(reply)")
        }
        let after = try Self.counters(client, seq: 6)["layoutBuilds"]?.integerValue ?? -1
        #expect(after == before + 4)
    }

    @Test("a change made while a reload is on its way, of a view the new file adds with resetOnDisconnect, is undone")
    func resetOfAViewTheReloadBrings() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Enough views that the reload is still being built when the change arrives.
        let filler = (0..<8_000).map { #"{ id: "f\#($0)", frame: [0, 0, 1, 1] }"# }.joined(separator: ", ")
        func config(_ extra: String) -> String {
            """
            { screens: [{ name: "main", width: 1280, height: 768, root: { id: "panel", children: [
                { id: "app", frame: [0, 0, 1280, 768], owner: { users: [0] }, children: [\(filler)\(extra)] },
            ] } }] }
            """
        }
        let daemon = try Self.startDaemon(directory, config: config(""))
        defer { daemon.stop() }
        let observer = try LineClient(socketPath: daemon.socketPath)
        try directory.write(
            "state.json5", config(#", { id: "guest", frame: [0, 0, 10, 10], resetOnDisconnect: true }"#))
        var changer: LineClient? = try LineClient(socketPath: daemon.socketPath)
        daemon.signal(SIGHUP)
        usleep(50_000)
        let (reply, _) = try Self.exchange(changer!, #"{"type":"setView","views":{"guest":{"alpha":0.5}},"seq":1}"#)
        guard case .viewsSet = reply else { throw HarnessError("setView refused: \(reply)\n\(daemon.log)") }
        changer = nil
        var seq = 100
        _ = try Self.settled(observer, seq: &seq)
        let (layout, _) = try Self.exchange(observer, #"{"type":"layout","seq":1}"#)
        let text = String(decoding: layout.encodedLine(), as: UTF8.self)
        #expect(!text.contains(#""alpha":0.5"#), "the departed client's change of guest stayed")
    }
}
