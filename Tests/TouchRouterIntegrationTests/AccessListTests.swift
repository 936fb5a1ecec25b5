import Foundation
import Glibc
import Testing
import TouchRouterProtocol

/// Per-view access lists against the real daemon: a client running as `nobody` (through
/// `setpriv`; the tests run as root) next to root clients.
@Suite("Access lists: who may subscribe, hit-test and receive", .serialized)
struct AccessListTests {
    /// The split layout with `left` (and so `left-edge`) for root only and `right-edge` for the
    /// group nogroup.
    static let config = TestLayout.split(access: ["left": "{ users: [0] }", "right-edge": #"{ groups: ["nogroup"] }"#])

    /// Sends its requests at once, then prints every line from the daemon until it closes.
    static let nobodyClient = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        subtree = sys.argv[2] == "subtree"
        requests = [
            {"type": "hello", "version": 1, "client": "nobody"},
            {"type": "subscribe", "views": ["left", "right"], "seq": 1},
            {"type": "subscribe", "views": ["left-edge"], "seq": 2},
            {"type": "hitTest", "point": [100, 100], "seq": 3},
            {"type": "hitTest", "point": [1000, 100], "seq": 4},
            {"type": "subscribe", "views": ["panel", "right-edge"], "subtree": subtree, "seq": 5},
            {"type": "status", "seq": 6},
        ]
        s.sendall("".join(json.dumps(r) + "\\n" for r in requests).encode())
        for line in s.makefile(encoding="utf-8"):
            print(line.strip(), flush=True)
        """

    @Test(
        "an outsider is refused the restricted views and never receives their touches",
        .enabled(
            if: OtherUserClient.isAvailable, "needs root, setpriv and /usr/bin/python3 to run a client as nobody"),
        arguments: [
            ("subtree", ["--regid=65534", "--clear-groups"]),
            ("plain", ["--regid=65534", "--clear-groups"]),
            // nogroup only as a supplementary group (SO_PEERGROUPS), the primary group is users.
            ("plain", ["--regid=100", "--groups=65534"]),
        ])
    func outsider(subscription: String, groups: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        try directory.write("access.json5", Self.config)
        try directory.write("nobody.py", Self.nobodyClient)
        let daemon = try DaemonProcess(
            directory: directory,
            // At speed 1 (1.2 s): the outsider's requests, each answered by the layout worker, are
            // all answered before the replay ends and the daemon exits.
            arguments: Scenario.arguments(config: directory.file("access.json5"), waitFor: 3, speed: "1") + [
                "--exit-after-replay", "--socket-mode", "0666",
            ])
        defer { daemon.stop() }

        // Root clients: one on `right`, one on `left-edge` (root passes every list).
        let right = try LineClient(socketPath: daemon.socketPath)
        try right.hello("root right")
        try right.send(ClientRequest(.subscribe(views: ["right"], subtree: false), seq: 1))
        guard case .subscribed = try right.readReply() else { throw HarnessError("right: not subscribed") }
        let leftEdge = try LineClient(socketPath: daemon.socketPath)
        try leftEdge.hello("root left-edge")
        try leftEdge.send(ClientRequest(.subscribe(views: ["left-edge"], subtree: false), seq: 1))
        guard case .subscribed = try leftEdge.readReply() else { throw HarnessError("left-edge: refused") }

        let text = try OtherUserClient.run(
            script: directory.file("nobody.py"), arguments: [daemon.socketPath, subscription],
            credentials: ["--reuid=65534"] + groups)
        let messages = try text.split(separator: "\n").map { line in
            switch DaemonMessageDecoder.decode(line: Array(line.utf8)) {
            case .success(let message): return message
            case .failure(let error): throw HarnessError("undecodable \(line): \(error)")
            }
        }

        func reply(_ seq: Int64) -> DaemonMessage? {
            messages.first { message in
                switch message {
                case .error(let error): error.seq == seq
                case .subscribed(let subscribed): subscribed.seq == seq
                case .hitTestResult(let result): result.seq == seq
                case .status(let status): status.seq == seq
                default: false
                }
            }
        }
        guard case .error(let first)? = reply(1), case .error(let second)? = reply(2),
            case .hitTestResult(let hitLeft)? = reply(3), case .hitTestResult(let hitRight)? = reply(4),
            case .subscribed? = reply(5), case .status(let status)? = reply(6)
        else {
            Issue.record("unexpected replies:\n\(text)\n\(daemon.log)")
            return
        }
        // A restricted view is answered as one that does not exist (OutsiderOracleTests).
        #expect(first.code == .unknownViews && first.views == ["left"])
        #expect(second.code == .unknownViews && second.views == ["left-edge"])
        #expect(hitLeft.viewID == nil)
        #expect(hitRight.viewID == "right-edge")
        // An outsider learns nothing about touches while views have access lists: no touch
        // counters, no denial count, no other client's subscriptions; only its own.
        for hidden in [
            "accessDenials", "activeTouches", "touches-began", "frames", "touchMessages", "subscribedViewCount",
        ] {
            #expect(status.counters[hidden] == nil, "\(hidden) is shown to an outsider")
        }
        #expect(status.counters["ownSubscriptionCount"] != nil)

        let outsiderTouches = messages.compactMap(\.touches)
        let outsiderPoints = outsiderTouches.flatMap { $0.touches.map(\.screenPoint.x) }
        #expect(!outsiderTouches.isEmpty, "the outsider receives the views open to it")
        #expect(outsiderPoints.allSatisfy { $0 >= 640 }, "no touch from the restricted left half")
        #expect(Set(outsiderTouches.map(\.viewID)).isSubset(of: ["right", "right-edge"]))
        #expect(outsiderTouches.contains { $0.viewID == "right-edge" })

        // Root's clients get their views, restricted or not.
        let leftEdgeTouches = try leftEdge.readUntilEOF().compactMap(\.touches)
        #expect(!leftEdgeTouches.isEmpty)
        #expect(leftEdgeTouches.allSatisfy { $0.viewID == "left-edge" })
        let rightTouches = try right.readUntilEOF().compactMap(\.touches)
        #expect(!rightTouches.isEmpty)
        #expect(daemon.log.contains("denied (access list): left"))
        #expect(try daemon.waitForExit() == 0)
    }

    /// Subscribes to the view named by its second argument and prints the reply's type and error
    /// code, then leaves.
    static let staffClient = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        s.sendall((json.dumps({"type": "subscribe", "views": [sys.argv[2]], "seq": 1}) + "\\n").encode())
        for line in s.makefile(encoding="utf-8"):
            message = json.loads(line)
            if message.get("seq") == 1:
                print(message["type"], message.get("code", "-"), flush=True)
                break
        """

    /// Supplementary groups again, independently of the case above: the list names its group by
    /// number, and the client holds it only as the second of several supplementary groups (its
    /// primary group is another one); a client whose supplementary groups miss it is refused.
    /// Then nesting: `desk` inside `staff` has a list of its own (the user nobody), and a client
    /// must pass both: passing either one alone is refused. Root passes every list.
    @Test(
        "a group held only as a later supplementary group admits; a nested list must be passed too",
        .enabled(
            if: OtherUserClient.isAvailable, "needs root, setpriv and /usr/bin/python3 to run clients as others"),
        arguments: [
            ("staff", ["--reuid=65534", "--regid=65534", "--groups=4243,4242"], "subscribed -"),
            ("staff", ["--reuid=65534", "--regid=65534", "--groups=4243,4244"], "error unknown-views"),
            ("desk", ["--reuid=65534", "--regid=65534", "--groups=4243,4242"], "subscribed -"),
            // Passes desk's list (the user), not staff's (the group).
            ("desk", ["--reuid=65534", "--regid=65534", "--groups=4243"], "error unknown-views"),
            // Passes staff's list (the group), not desk's (another user).
            ("desk", ["--reuid=1", "--regid=65534", "--groups=4242"], "error unknown-views"),
            // Root passes every list, named in it or not.
            ("desk", ["--reuid=0", "--regid=0", "--clear-groups"], "subscribed -"),
        ])
    func supplementaryGroupByNumber(view: String, credentials: [String], expected: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        try directory.write(
            "staff.json5",
            """
            { screens: [{ name: "main", width: 1280, height: 768, root: { id: "panel", children: [
                { id: "staff", frame: [0, 0, 640, 768], access: { groups: [4242] }, children: [
                    { id: "desk", frame: [0, 0, 100, 100], access: { users: [65534] } },
                ] },
            ] } }] }
            """)
        try directory.write("staff.py", Self.staffClient)
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(config: directory.file("staff.json5")) + ["--socket-mode", "0666"])
        defer { daemon.stop() }
        let text = try OtherUserClient.run(
            script: directory.file("staff.py"), arguments: [daemon.socketPath, view], credentials: credentials)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == expected, "\(daemon.log)")
    }
}
