import Foundation
import Glibc
import Testing
import TouchRouterProtocol

/// Owner lists that admit through a group, and access lists changed by a reload, on the real
/// daemon with clients of other credentials (through setpriv; the tests run as root).
@Suite("Owners by group, and access lists after a reload", .serialized)
struct OwnerGroupAndReloadAccessTests {
    /// `pad` is owned by group 4242 only.
    static let ownerConfig = """
        { screens: [{ name: "main", width: 1280, height: 768, root: { id: "panel", children: [
            { id: "pad", frame: [0, 0, 640, 768], owner: { groups: [4242] } },
        ] } }] }
        """

    /// Sends one setView and prints the reply's type and code.
    static let setViewClient = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        request = {"type": "setView", "views": {"pad": {"alpha": 0.5}}, "seq": 1}
        s.sendall((json.dumps(request) + "\\n").encode())
        for line in s.makefile(encoding="utf-8"):
            message = json.loads(line)
            if message.get("seq") == 1:
                print(message["type"], message.get("code", "-"), flush=True)
                break
        """

    @Test(
        "a client in the owner group, as primary or as any supplementary group, may change the view; others not",
        .enabled(if: OtherUserClient.isAvailable, "needs root, setpriv and /usr/bin/python3"),
        arguments: [
            (["--reuid=65534", "--regid=4242", "--clear-groups"], "viewsSet -"),
            (["--reuid=65534", "--regid=65534", "--groups=4242"], "viewsSet -"),
            (["--reuid=65534", "--regid=65534", "--groups=4243,4244,4242"], "viewsSet -"),
            (["--reuid=65534", "--regid=65534", "--groups=4243,4244"], "error permission-denied"),
            (["--reuid=4242", "--regid=65534", "--clear-groups"], "error permission-denied"),
        ])
    func ownerByGroup(credentials: [String], expected: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        try directory.write("owner.json5", Self.ownerConfig)
        try directory.write("client.py", Self.setViewClient)
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(config: directory.file("owner.json5"), waitFor: 99) + [
                "--socket-mode", "0666",
            ])
        defer { daemon.stop() }
        let text = try OtherUserClient.run(
            script: directory.file("client.py"), arguments: [daemon.socketPath], credentials: credentials)
        #expect(text == expected + "\n", "\(credentials): \(text)\n\(daemon.log)")
    }

    /// `left` open to nobody (65534) in the first file, to root only in the second.
    static func accessConfig(leftUsers: String) -> String {
        """
        {
          screens: [{
            name: "main", width: 1280, height: 768,
            root: { id: "panel", children: [
              { id: "left", frame: [0, 0, 640, 768], access: { users: [\(leftUsers)] } },
              { id: "right", frame: [640, 0, 640, 768] },
            ] },
          }],
        }
        """
    }

    /// A daemon on `accessConfig(leftUsers: before)` (waiting for 2 subscribers, exiting after the
    /// replay), `script` run as nobody against it up to its READY (its first reply a `subscribed`),
    /// then the file replaced with `accessConfig(leftUsers: after)` and reloaded by root, the reply
    /// awaited. The caller stops the daemon.
    static func outsiderAcrossReload(
        in directory: TemporaryDirectory, script: String, leftUsersBefore before: String, after: String,
        firstReply: String
    ) throws -> (DaemonProcess, InteractiveOtherUserClient) {
        chmod(directory.path, 0o755)
        let configPath = directory.file("access.json5")
        try directory.write("access.json5", accessConfig(leftUsers: before))
        try directory.write("outsider.py", script)
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(config: configPath, waitFor: 2) + [
                "--exit-after-replay", "--socket-mode", "0666",
            ])
        do {
            let client = try InteractiveOtherUserClient(
                script: directory.file("outsider.py"), arguments: [daemon.socketPath])
            try client.read(until: "READY\n", context: daemon.log)
            #expect(client.text.hasPrefix(#"{"type":"subscribed""#), "\(firstReply): \(client.text)")
            try directory.write("access.json5", accessConfig(leftUsers: after))
            let admin = try LineClient(socketPath: daemon.socketPath)
            try admin.send(ClientRequest(.reload, seq: 1))
            let reloaded = try admin.readReply()
            guard case .reloaded = reloaded else { throw HarnessError("reload: \(reloaded)\n\(daemon.log)") }
            return (daemon, client)
        } catch {
            daemon.stop()  // the caller's `defer` is not set up yet
            throw error
        }
    }

    /// Subscribes to `left` and `right`, prints READY, waits for a line on stdin, then subscribes to
    /// `left` again and hit-tests it, and prints every line until the daemon closes.
    static let outsider = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        f = s.makefile(encoding="utf-8")
        s.sendall((json.dumps({"type": "subscribe", "views": ["left", "right"], "seq": 1}) + "\\n").encode())
        print(f.readline().strip(), flush=True)
        print("READY", flush=True)
        sys.stdin.readline()
        requests = [
            {"type": "subscribe", "views": ["left"], "seq": 2},
            {"type": "hitTest", "point": [100, 100], "seq": 3},
        ]
        s.sendall("".join(json.dumps(r) + "\\n" for r in requests).encode())
        for line in f:
            print(line.strip(), flush=True)
        """

    @Test(
        "after a reload that changes an access list, an outsider is held to the new list at once",
        .enabled(if: OtherUserClient.isAvailable, "needs root, setpriv and /usr/bin/python3"))
    func reloadedAccessListsApplyAtOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (daemon, client) = try Self.outsiderAcrossReload(
            in: directory, script: Self.outsider, leftUsersBefore: "65534", after: "0",
            firstReply: "the first file lets nobody see left")
        defer { daemon.stop() }

        client.send("go")
        // The outsider's requests are answered before the replay starts: then root's subscription
        // (the second subscriber) starts it.
        try client.read(until: #""seq":3"#, context: daemon.log)
        let watcher = try LineClient(socketPath: daemon.socketPath)
        try watcher.send(ClientRequest(.subscribe(views: ["left"], subtree: false), seq: 1))
        guard case .subscribed = try watcher.readReply() else { throw HarnessError("root refused left") }
        client.finish()
        let text = client.text

        let messages = text.split(separator: "\n").filter { $0 != "READY" }.compactMap {
            try? DaemonMessageDecoder.decode(line: Array($0.utf8)).get()
        }
        func reply(_ seq: Int64) -> DaemonMessage? { messages.first { $0.seq == seq } }
        guard case .error(let again)? = reply(2), case .hitTestResult(let hit)? = reply(3) else {
            Issue.record("unexpected replies:\n\(text)\n\(daemon.log)")
            return
        }
        #expect(again.code == .unknownViews && again.views == ["left"])
        #expect(hit.viewID == nil)
        let touches = messages.compactMap(\.touches)
        #expect(touches.contains { $0.viewID == "right" }, "the outsider still gets right: \(text)")
        #expect(!touches.contains { $0.viewID == "left" }, "a touch of left reached the outsider")
        // Root's subscriber got left's touches: the replay does touch there.
        let rootTouches = try watcher.readUntilEOF().compactMap(\.touches)
        #expect(rootTouches.contains { $0.viewID == "left" })
    }

    /// Subscribes to `panel` with its subtree, prints READY, then prints every line until the
    /// daemon closes.
    static let subtreeOutsider = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        f = s.makefile(encoding="utf-8")
        request = {"type": "subscribe", "views": ["panel"], "subtree": True, "seq": 1}
        s.sendall((json.dumps(request) + "\\n").encode())
        print(f.readline().strip(), flush=True)
        print("READY", flush=True)
        for line in f:
            print(line.strip(), flush=True)
        """

    /// The other way round: a reload that opens `left` to the outsider re-expands its subtree
    /// subscription under the new lists, so `left`'s touches reach it at once.
    @Test(
        "after a reload that opens an access list, a subtree subscription takes the view at once",
        .enabled(if: OtherUserClient.isAvailable, "needs root, setpriv and /usr/bin/python3"))
    func reloadedAccessListsOpenASubtree() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (daemon, client) = try Self.outsiderAcrossReload(
            in: directory, script: Self.subtreeOutsider, leftUsersBefore: "0", after: "65534",
            firstReply: "the first file hides left")
        defer { daemon.stop() }

        // Root's subscription is the second: the replay starts.
        let watcher = try LineClient(socketPath: daemon.socketPath)
        try watcher.send(ClientRequest(.subscribe(views: ["left"], subtree: false), seq: 1))
        guard case .subscribed = try watcher.readReply() else { throw HarnessError("root refused left") }
        client.finish()
        let touches = client.text.split(separator: "\n").filter { $0 != "READY" }.compactMap {
            try? DaemonMessageDecoder.decode(line: Array($0.utf8)).get()
        }.compactMap(\.touches)
        #expect(touches.contains { $0.viewID == "left" }, "left's touches never reached the outsider: \(client.text)")
        #expect(touches.contains { $0.viewID == "right" })
    }

    /// `slot`, a mount point owned by nobody (65534), and `fillers` views after it: enough that
    /// reading the file again keeps the layout worker busy for a while (about half a second in a
    /// debug build) when it changed.
    static func mountConfig(fillers: Int) -> String {
        let views = (0..<fillers).map { "{ id: \"f\($0)\", frame: [\($0 % 100 * 6), \($0 / 100 % 100 * 7), 5, 5] }," }
        return """
            { screens: [{ name: "main", width: 1280, height: 768, root: { id: "panel", children: [
                { id: "slot", frame: [0, 0, 640, 768], owner: { users: [65534] }, mount: true },
            \(views.joined(separator: "\n"))
            ] } }] }
            """
    }

    /// Two connections; prints READY, waits for a line on stdin, then mounts `secret` (open to
    /// root only) and `open` into `slot` on the first and subscribes to both on the second at
    /// once; prints each reply's connection, type, code and views.
    static let mountAndSubscribeClient = """
        import json, socket, sys
        mounter, subscriber = socket.socket(socket.AF_UNIX), socket.socket(socket.AF_UNIX)
        mounter.connect(sys.argv[1])
        subscriber.connect(sys.argv[1])
        print("READY", flush=True)
        sys.stdin.readline()
        children = [
            {"id": "secret", "frame": [0, 0, 100, 100], "access": {"users": [0]}},
            {"id": "open", "frame": [200, 0, 100, 100]},
        ]
        mount = {"type": "mount", "view": "slot", "children": children, "seq": 1}
        mounter.sendall((json.dumps(mount) + "\\n").encode())
        subscribe = {"type": "subscribe", "views": ["secret", "open"], "seq": 2}
        subscriber.sendall((json.dumps(subscribe) + "\\n").encode())
        for name, connection in (("mounter", mounter), ("subscriber", subscriber)):
            for line in connection.makefile(encoding="utf-8"):
                message = json.loads(line)
                if "seq" in message:
                    print(name, message["type"], message.get("code", "-"), message.get("views"), flush=True)
                    break
        """

    /// Requests that arrive while the worker builds are answered together in its next build, from
    /// the state the whole batch leaves: a subscription in the batch of a mount is checked against
    /// the access lists of the layout the mount makes, not the running one's.
    @Test(
        "a subscription answered in the build of a mount is held to the access lists the mount brings",
        .enabled(if: OtherUserClient.isAvailable, "needs root, setpriv and /usr/bin/python3"))
    func subscriptionInTheBuildOfAMount() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        try directory.write("mount.json5", Self.mountConfig(fillers: 50_000))
        try directory.write("client.py", Self.mountAndSubscribeClient)
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(config: directory.file("mount.json5"), waitFor: 99) + [
                "--socket-mode", "0666",
            ])
        defer { daemon.stop() }
        let client = try InteractiveOtherUserClient(script: directory.file("client.py"), arguments: [daemon.socketPath])
        try client.read(until: "READY\n", context: daemon.log)
        // Root reloads a changed file: the worker is busy with that while the mount and the
        // subscription arrive, so both wait for the next build, together.
        try directory.write("mount.json5", Self.mountConfig(fillers: 50_001))
        let admin = try LineClient(socketPath: daemon.socketPath)
        try admin.send(ClientRequest(.reload, seq: 1))
        client.send("go")
        try client.read(until: "subscriber ", context: daemon.log)
        client.finish()
        #expect(
            client.text == "READY\nmounter mounted - ['slot']\nsubscriber error unknown-views ['secret']\n",
            "\(client.text)\n\(daemon.log)")
        guard case .reloaded = try admin.readReply() else { throw HarnessError("reload failed\n\(daemon.log)") }
    }
}
