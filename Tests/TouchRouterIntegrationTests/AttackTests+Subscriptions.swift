import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

/// Attacks through subscriptions, status and layout requests: the reply stays small and the outsider sees
/// only what it may.
extension AttackTests {
    @Test("subscribing again replaces the subtree flag")
    func resubscribeReplacesSubtree() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments(waitFor: 2))
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.send(ClientRequest(.subscribe(views: ["panel"], subtree: true), seq: 1))
        _ = try client.readReply()
        try client.send(ClientRequest(.subscribe(views: ["panel"], subtree: false), seq: 2))
        guard case .subscribed(let reply) = try client.readReply() else { throw HarnessError("no reply") }
        #expect(reply.subtree == false)
        let own = try Self.status(client).counters["ownSubscriptions"]
        #expect(own == .array([.object(["view": .string("panel"), "subtree": .bool(false)])]))
        // Touches of the descendants now arrive as the subscribed view's (responder chain), never
        // under a descendant's id.
        let second = try LineClient(socketPath: daemon.socketPath)
        try second.send(ClientRequest(.subscribe(views: ["panel"], subtree: false), seq: 1))
        _ = try second.readReply()
        var views = Set<String>()
        while let message = try client.readMessage() {
            guard let touches = message.touches else { continue }
            views.insert(touches.viewID)
            if touches.touches.contains(where: { $0.phase == .ended }) { break }
        }
        #expect(views == ["panel"])
    }

    @Test("status stays small with a subtree subscription of a large layout")
    func statusOfLargeSubscription() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var children: [String] = []
        for index in 0..<20_000 {
            children.append("{ id: \"v\(index)\", frame: [\(index % 1000), \(index / 1000), 1, 1] }")
        }
        let config =
            "{ screens: [ { name: \"main\", width: 1280, height: 768, root: { id: \"panel\", children: [\n"
            + children.joined(separator: ",\n") + "\n] } } ] }"
        try directory.write("big.json5", config)
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(config: directory.file("big.json5")) + ["--client-queue-bytes", "65536"])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.send(ClientRequest(.subscribe(views: ["panel"], subtree: true), seq: 1))
        _ = try client.readReply()
        let status = try Self.status(client)
        #expect(status.counters["subscribedViewCount"] == .integer(20_001))
        #expect(!daemon.log.contains("too slow"))
    }

    /// Asks `layout`, subscribes to a refused view three times in one request, then asks `status`;
    /// prints every reply line.
    static let outsiderClient = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        requests = [
            {"type": "layout", "seq": 1},
            {"type": "subscribe", "views": ["left", "left", "left"], "seq": 2},
            {"type": "status", "seq": 3},
        ]
        s.sendall("".join(json.dumps(r) + "\\n" for r in requests).encode())
        f = s.makefile(encoding="utf-8")
        for _ in requests:
            print(f.readline().strip(), flush=True)
        """

    @Test(
        "an outsider's layout leaves out the views it may not see; a refused request counts once",
        .enabled(if: OtherUserClient.isAvailable, "needs root, setpriv and /usr/bin/python3"))
    func outsiderLayoutAndDenialCount() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        try directory.write("access.json5", AccessListTests.config)
        try directory.write("outsider.py", Self.outsiderClient)
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(config: directory.file("access.json5")) + ["--socket-mode", "0666"])
        defer { daemon.stop() }
        let text = try OtherUserClient.run(script: directory.file("outsider.py"), arguments: [daemon.socketPath])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(text)")
        guard lines.count == 3 else { return }
        // The layout: the open views are there, the restricted ones not even as an id.
        #expect(lines[0].contains("\"right\""))
        #expect(!lines[0].contains("\"left\"") && !lines[0].contains("left-edge"))
        #expect(lines[0].contains("right-edge"), "its group (nogroup) may see right-edge")
        #expect(lines[1].contains("unknown-views"))
        // The admin (this test runs as root) sees one denial for the one request.
        let admin = try LineClient(socketPath: daemon.socketPath)
        let counters = try Self.status(admin).counters
        #expect(counters["accessDenials"] == .integer(1))
        // And the admin's layout has every view.
        try admin.send(ClientRequest(.layout, seq: 5))
        guard case .layout(let full) = try admin.readReply() else { throw HarnessError("no layout") }
        #expect(full.layout.viewCount == 5)
    }
}
