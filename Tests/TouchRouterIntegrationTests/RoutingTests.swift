import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol

/// What each subscriber should receive, computed by running the tracker directly on the frames
/// the daemon replays.
enum Expected {
    /// The first pass of the recording as the daemon replays it at `speed` (device → screen
    /// "main", mapped 1:1; timestamps as the replay schedule rewrites them).
    static func events(recording: String, config: Config, speed: Double = 0) throws -> [InputEvent] {
        let loaded = try Recording.load(path: recording)
        let screen = try #require(config.layout.screens.first)
        let mapping = try ScreenMapping(screenWidth: screen.width, screenHeight: screen.height)
        let frames = MultitouchDecoder.decode(
            loaded, inputDevice: InputDevice(id: 1, name: loaded.device.name), screen: screen.name,
            mapping: mapping)
        let schedule = try ReplaySchedule(frames: frames, speed: speed)
        return schedule.map { InputEvent.frame($0.frame) }
    }

    /// The views one subscription covers.
    static func covered(_ viewIDs: [String], subtree: Bool, layout: Layout) -> Set<String> {
        var covered = Set<String>()
        func walk(_ view: View, inside: Bool) {
            let selected = viewIDs.contains(view.id)
            if selected || (inside && subtree) { covered.insert(view.id) }
            view.children.forEach { walk($0, inside: inside || selected) }
        }
        layout.screens.forEach { walk($0.root, inside: false) }
        return covered
    }

    /// Per subscriber (by index), the touches messages it must receive, in order.
    static func messages(
        events: [InputEvent], layout: Layout, subscribers: [Set<String>]
    ) -> [[TouchesMessage]] {
        var tracker = TouchTracker(layout: layout)
        let subscribed = subscribers.reduce(into: Set<String>()) { $0.formUnion($1) }
        var expected = [[TouchesMessage]](repeating: [], count: subscribers.count)
        for event in events {
            for viewTouches in tracker.process(event, subscribedViews: subscribed) {
                for (index, views) in subscribers.enumerated() where views.contains(viewTouches.viewID) {
                    expected[index].append(TouchesMessage(viewTouches))
                }
            }
        }
        return expected
    }
}

@Suite("Routing: the real daemon, a replayed recording, several clients", .serialized)
struct RoutingTests {
    struct Subscription {
        var views: [String]
        var subtree: Bool
    }

    @Test("each client receives exactly its views' touches, as the tracker computes them")
    func concurrentClientsGetExactlyTheirViews() throws {
        let config = try loadConfig(path: Scenario.layoutPath)
        let subscriptions = [
            Subscription(views: ["left"], subtree: false),
            Subscription(views: ["left-edge"], subtree: false),
            Subscription(views: ["right"], subtree: true),
            Subscription(views: ["panel"], subtree: false),
            Subscription(views: ["left", "no-such-view"], subtree: true),
        ]
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(waitFor: subscriptions.count) + ["--exit-after-replay"])
        defer { daemon.stop() }

        var clients: [LineClient] = []
        for (index, subscription) in subscriptions.enumerated() {
            let client = try LineClient(socketPath: daemon.socketPath)
            guard case .welcome(let welcome) = try client.hello("client-\(index)") else {
                Issue.record("client \(index): no welcome")
                return
            }
            #expect(welcome.generation == 1)
            try client.send(
                ClientRequest(.subscribe(views: subscription.views, subtree: subscription.subtree), seq: 1))
            clients.append(client)
        }
        let actual = try clients.map { try $0.readUntilEOF() }

        // The unknown id is named, the rest of that subscription applies.
        let lastReply = actual[4].first { if case .touches = $0 { false } else { true } }
        guard case .error(let error)? = lastReply else {
            Issue.record("no error for the unknown view: \(String(describing: lastReply))")
            return
        }
        #expect(error.code == .unknownViews)
        #expect(error.views == ["no-such-view"])
        #expect(error.seq == 1)

        let covered = subscriptions.map {
            Expected.covered(
                $0.views.filter { $0 != "no-such-view" }, subtree: $0.subtree, layout: config.layout)
        }
        let events = try Expected.events(recording: Scenario.fourFingerDrag, config: config)
        let expected = Expected.messages(events: events, layout: config.layout, subscribers: covered)
        #expect(expected.map(\.count).reduce(0, +) > 100, "the scenario routes plenty of touches")
        #expect(!expected[0].isEmpty && !expected[1].isEmpty && !expected[2].isEmpty)
        for index in subscriptions.indices {
            let received = actual[index].compactMap(\.touches)
            #expect(received == expected[index], "client \(index) (\(subscriptions[index].views))")
            #expect(actual[index].last?.errorCode == .shuttingDown)
        }
        #expect(try daemon.waitForExit() == 0)
    }

    @Test("a client that never reads is cut off and changes nothing for a client that reads")
    func neverReadingClientIsCutOff() throws {
        let config = try loadConfig(path: Scenario.layoutPath)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(
            directory: directory,
            // Real time (not 0): a reading client keeps up with that even on a busy machine (the
            // socket buffer holds seconds of touches); a stalled one fills it, then its queue, in
            // which coalescing only delays the overflow (began/ended are never dropped).
            arguments: Scenario.arguments(waitFor: 2, speed: "1") + [
                "--loop", "--client-queue-bytes", "4096",
            ])
        defer { daemon.stop() }
        let stalled = try LineClient(socketPath: daemon.socketPath)
        try stalled.send(ClientRequest(.subscribe(views: ["panel"], subtree: true)))
        let reader = try LineClient(socketPath: daemon.socketPath)
        try reader.hello("reader")
        try reader.send(ClientRequest(.subscribe(views: ["panel"], subtree: true)))

        let covered = Expected.covered(["panel"], subtree: true, layout: config.layout)
        let events = try Expected.events(recording: Scenario.fourFingerDrag, config: config, speed: 1)
        let firstPass = Expected.messages(events: events, layout: config.layout, subscribers: [covered])[0]
        var received: [TouchesMessage] = []
        // Read on until the stalled client is gone and a whole pass has arrived.
        let credentials = "pid=\(getpid()) uid=\(getuid()) gid=\(getgid())"
        let stalledCutOff = "client 1 (\(credentials)) disconnected: too slow"
        while received.count < firstPass.count
            || (received.count % 16 != 0 || !daemon.log.contains(stalledCutOff))
        {
            guard let message = try reader.readMessage() else {
                Issue.record("the reader was disconnected:\n\(daemon.log)")
                return
            }
            if let touches = message.touches { received.append(touches) }
        }
        let log = daemon.log
        daemon.stop()
        #expect(Array(received.prefix(firstPass.count)) == firstPass)
        #expect(log.contains(stalledCutOff))
        #expect(log.contains("client 1 (\(credentials)) is behind: coalesced"))
        #expect(!log.contains("client 2 (\"reader\" \(credentials)) disconnected"))
        // The stalled client gets what its socket took before it filled: the subscribe reply, then the
        // stream from its start, then EOF; the final overflow error comes only when the full socket
        // still had room for it, so it may be there or not, but nothing else may. (Coalescing works on
        // messages not yet written, which never reach a client that stopped reading.)
        let leftovers = try stalled.readUntilEOF()
        #expect(stalled.isAtEOF)
        guard case .subscribed? = leftovers.first else {
            Issue.record("the stalled client's stream does not start with its reply: \(leftovers.prefix(2))")
            return
        }
        var stream = Array(leftovers.dropFirst())
        if stream.last?.errorCode == .queueOverflow { stream.removeLast() }
        let stalledTouches = stream.compactMap(\.touches)
        #expect(stalledTouches.count == stream.count, "only touches between the reply and the end")
        #expect(!stalledTouches.isEmpty)
        let compared = min(stalledTouches.count, firstPass.count)
        #expect(Array(stalledTouches.prefix(compared)) == Array(firstPass.prefix(compared)))
    }

    @Test("a client killed mid-stream is cleaned up; the others get everything")
    func killedClient() throws {
        let config = try loadConfig(path: Scenario.layoutPath)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // At the recording's own speed (1.6 s): the victim dies while frames are still to come, so
        // the daemon sees the close before the replay ends (at full speed it could end first).
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(waitFor: 2, speed: "1") + ["--exit-after-replay"])
        defer { daemon.stop() }
        // A real separate process, killed with SIGKILL while subscribed.
        let victim = Process()
        victim.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        victim.arguments = ["-t", "1000", "-", "UNIX-CONNECT:\(daemon.socketPath)"]
        let victimInput = Pipe()
        victim.standardInput = victimInput
        victim.standardOutput = FileHandle.nullDevice
        try victim.run()
        defer { if victim.isRunning { kill(victim.processIdentifier, SIGKILL) } }
        let requests =
            ClientRequest(.hello(version: 1, client: "victim")).encodedLine()
            + ClientRequest(.subscribe(views: ["panel"], subtree: true)).encodedLine()
        victimInput.fileHandleForWriting.write(Data(requests))
        try daemon.waitForLog("\"victim\"")
        let reader = try LineClient(socketPath: daemon.socketPath)
        try reader.hello("survivor")
        try reader.send(ClientRequest(.subscribe(views: ["panel"], subtree: true)))
        var received: [TouchesMessage] = []
        var killed = false
        while let message = try reader.readMessage() {
            guard let touches = message.touches else { continue }
            received.append(touches)
            if !killed {
                killed = true
                kill(victim.processIdentifier, SIGKILL)
            }
        }
        let covered = Expected.covered(["panel"], subtree: true, layout: config.layout)
        let events = try Expected.events(recording: Scenario.fourFingerDrag, config: config)
        let expected = Expected.messages(events: events, layout: config.layout, subscribers: [covered])[0]
        #expect(received == expected)
        #expect(try daemon.waitForExit() == 0)
        let log = daemon.log
        #expect(log.contains("\"victim\" pid=\(victim.processIdentifier)"))
        #expect(log.contains("disconnected: closed by the client"))
    }
}
