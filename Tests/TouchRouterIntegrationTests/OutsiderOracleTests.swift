import Foundation
import Glibc
import Testing
import TouchRouterProtocol

/// An outsider (uid nobody, through setpriv) probing views behind an access list of the real
/// daemon: by subscribing, changing, mounting over, unmounting, hit-testing and explaining them
/// (and explaining on a screen whose root it may not see),
/// and by listening to `layoutChanged` while root changes them. Every answer must be the one a
/// view that does not exist gets, and nothing it receives may name them.
@Suite("Access lists: an outsider learns nothing of a hidden view", .serialized)
struct OutsiderOracleTests {
    /// `apps` (with the mount point `slot`) is nobody's, but for `deep-secret` two levels down;
    /// `pin` and everything in it is root's only, though nobody is on its owner list too; so is the
    /// screen `till`.
    static let config = """
        { screens: [{ name: "main", width: 1000, height: 1000, root: { id: "main", children: [
            { id: "apps", frame: [0, 0, 500, 1000], owner: { users: [65534] }, children: [
                { id: "slot", frame: [0, 0, 500, 500], mount: true },
                { id: "public", frame: [0, 500, 500, 500], children: [
                    { id: "deep-secret", frame: [0, 0, 10, 10], access: { users: [0] } },
                ] },
            ] },
            { id: "pin", frame: [500, 0, 500, 1000], access: { users: [0] }, owner: { users: [0, 65534] }, children: [
                { id: "pin-secret-key", frame: [0, 0, 200, 200] },
                { id: "vault", frame: [0, 500, 500, 500], mount: true },
            ] },
        ] } },
        { name: "till", width: 100, height: 100, root: { id: "till-root", access: { users: [0] } } }] }
        """

    /// Asks each request in turn (printing every line up to its reply), prints READY, waits for a
    /// line on stdin, then asks `status` and prints everything up to its reply: the `layoutChanged`
    /// lines root's changes sent it in between are among them.
    static let outsider = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        f = s.makefile(encoding="utf-8")
        def ask(request):
            s.sendall((json.dumps(request) + "\\n").encode())
            while True:
                line = f.readline()
                if not line:
                    sys.exit("closed")
                print(line.strip(), flush=True)
                if json.loads(line).get("seq") == request["seq"]:
                    return
        one = {"id": "pin-secret-key", "frame": [0, 0, 1, 1]}
        ask({"type": "hello", "version": 1, "client": "outsider", "seq": 0})
        for seq, view in ((1, "pin-secret-key"), (2, "no-such-key")):
            ask({"type": "subscribe", "views": [view], "seq": seq})
        for seq, view in ((3, "pin-secret-key"), (4, "no-such-key")):
            ask({"type": "setView", "views": {view: {"alpha": 0.5}}, "seq": seq})
        for seq, view in ((5, "vault"), (6, "no-such-key")):
            ask({"type": "unmount", "view": view, "seq": seq})
        for seq, view in ((7, "vault"), (8, "no-such-key")):
            ask({"type": "mount", "view": view, "children": [{"id": "x", "frame": [0, 0, 1, 1]}], "seq": seq})
        ask({"type": "mount", "view": "slot", "children": [one], "seq": 9})
        ask({"type": "hitTest", "point": [600, 100], "seq": 10})
        ask({"type": "explain", "point": [600, 100], "seq": 11})
        ask({"type": "explain", "point": [100, 700], "seq": 12})
        ask({"type": "explain", "screen": "till", "point": [1, 1], "seq": 13})
        ask({"type": "explain", "screen": "no-such-key", "point": [1, 1], "seq": 14})
        ask({"type": "layout", "seq": 15})
        print("READY", flush=True)
        sys.stdin.readline()
        ask({"type": "status", "seq": 99})
        """

    @Test(
        "subscribe, setView, mount, unmount, hitTest, explain and layoutChanged say nothing of a hidden view",
        .enabled(
            if: OtherUserClient.isAvailable, "needs root, setpriv and /usr/bin/python3 to run a client as nobody"))
    func outsiderLearnsNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        try directory.write("oracle.json5", Self.config)
        try directory.write("outsider.py", Self.outsider)
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(config: directory.file("oracle.json5"), waitFor: 99) + [
                "--socket-mode", "0666",
            ])
        defer { daemon.stop() }
        let admin = try LineClient(socketPath: daemon.socketPath)
        _ = try admin.hello("root")

        let client = try InteractiveOtherUserClient(
            script: directory.file("outsider.py"), arguments: [daemon.socketPath])
        try client.read(until: "READY\n", context: daemon.log)

        // Root changes the hidden views, one open to everybody, then one of each at once, waiting for
        // each reply.
        func alpha(_ value: Double) -> JSONValue { .object(["alpha": .double(value)]) }
        for (seq, request) in [
            (Int64(1), RequestMessage.setView(views: ["pin-secret-key": alpha(0.5)])),
            (2, .setView(views: ["public": alpha(0.5)])),
            (4, .setView(views: ["pin-secret-key": alpha(0.6), "public": alpha(0.6)])),
        ] {
            try admin.send(ClientRequest(request, seq: seq))
            let reply = try admin.readReply()
            guard case .viewsSet = reply else { throw HarnessError("root's setView \(seq): \(reply)") }
        }
        try admin.send(
            #"{"type":"mount","view":"vault","children":[{"id":"vault-inner","frame":[0,0,10,10]}],"seq":3}"#)
        guard case .mounted = try admin.readReply() else { throw HarnessError("root's mount refused:\n\(daemon.log)") }

        client.send("go")
        client.finish()
        let text = client.text
        let lines = text.split(separator: "\n").map(String.init).filter { $0 != "READY" }
        var replies: [Int64: (line: String, message: DaemonMessage)] = [:]
        var events: [DaemonMessage] = []
        for line in lines {
            guard case .success(let message) = DaemonMessageDecoder.decode(line: Array(line.utf8)) else {
                throw HarnessError("undecodable line \(line)")
            }
            if let seq = message.seq { replies[seq] = (line, message) } else { events.append(message) }
        }
        func error(_ seq: Int64) -> ProtocolError? {
            if case .error(let error)? = replies[seq]?.message { return error }
            return nil
        }
        func sameAnswer(_ hidden: Int64, _ missing: Int64, _ hiddenID: String) {
            let named = replies[hidden]?.line ?? "none"
            let made = (replies[missing]?.line ?? "none").replacingOccurrences(of: "no-such-key", with: hiddenID)
                .replacingOccurrences(of: "\"seq\":\(missing)", with: "\"seq\":\(hidden)")
            #expect(named == made, "request \(hidden) was answered apart from a made-up id:\n\(named)\n\(made)")
        }
        #expect(error(1)?.code == .unknownViews && error(1)?.views == ["pin-secret-key"], "\(text)")
        sameAnswer(1, 2, "pin-secret-key")
        #expect(error(3)?.code == .unknownViews, "\(text)")
        sameAnswer(3, 4, "pin-secret-key")
        sameAnswer(5, 6, "vault")
        sameAnswer(7, 8, "vault")
        // A colliding id is refused without saying where the other view is.
        #expect(error(9)?.code == .invalidLayout, "\(text)")
        #expect(replies[9]?.line.contains("main/pin") == false, "\(replies[9]?.line ?? "")")
        guard case .hitTestResult(let hit)? = replies[10]?.message else {
            Issue.record("no hitTest reply: \(text)")
            return
        }
        #expect(hit.viewID == nil && hit.path.isEmpty)
        guard case .explanation(let explained)? = replies[11]?.message,
            case .explanation(let open)? = replies[12]?.message
        else {
            Issue.record("no explanations: \(text)")
            return
        }
        #expect(explained.explanation.viewID == "main" && explained.explanation.target == nil, "a walk without pin")
        #expect(open.explanation.viewID == "public", "the explanation of a point open to it is whole")
        // A screen whose root it may not see is no screen to it.
        #expect(error(13)?.code == .unknownScreen, "\(text)")
        sameAnswer(13, 14, "till")
        // Nothing the outsider received names a hidden view, but for its own requests' ids above.
        for (seq, reply) in replies where ![1, 3, 5, 7, 9].contains(seq) {
            for hidden in ["pin", "vault"] {
                #expect(!reply.line.contains(hidden), "reply \(seq) names \(hidden): \(reply.line)")
            }
        }
        // Its layout has neither the hidden screen nor a hidden view at any depth.
        guard case .layout(let layout)? = replies[15]?.message else {
            Issue.record("no layout reply: \(text)")
            return
        }
        #expect(layout.layout.screens.map(\.name) == ["main"])
        let layoutLine = replies[15]?.line ?? ""
        #expect(layoutLine.contains("\"public\"") && !layoutLine.contains("deep-secret"), "\(layoutLine)")
        // Of root's four changes, the outsider hears of the two that change a view it may see, and
        // only of that view.
        let changes = events.compactMap { message -> [String]? in
            if case .viewsChanged(_, let views) = message { return views }
            return nil
        }
        #expect(changes == [["public"], ["public"]], "\(text)")
        // Touch counters would tell when a hidden view is touched: admins only, while lists exist.
        guard case .status(let outsiderStatus)? = replies[99]?.message else {
            Issue.record("no status reply: \(text)")
            return
        }
        #expect(outsiderStatus.counters["touchMessages"] == nil && outsiderStatus.counters["activeTouches"] == nil)
        let adminStatus = try AttackTests.status(admin, seq: 5)
        #expect(adminStatus.counters["touchMessages"] != nil && adminStatus.counters["activeTouches"] != nil)
        try daemon.waitForLog("denied (access list): pin-secret-key")
    }
}
