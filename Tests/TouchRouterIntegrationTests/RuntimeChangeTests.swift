/// Run-time layout changes against the real daemon: owners and outsiders of different uids,
/// atomic refusals, touches in flight through hide, move, unmount and a mounting client's
/// disconnect, a reload under run-time state, and the limits.
import Foundation
import Glibc
import Testing
import TouchRouterProtocol

@Suite("Run-time layout changes", .serialized)
struct RuntimeChangeTests {
    /// `app` is root's (uid 0); `guest` is nobody's (65534) and resets when its client leaves;
    /// `layer` is a mount point over everything.
    static let config = """
        { screens: [{ name: "main", width: 1280, height: 768, root: { id: "panel", children: [
            { id: "app", frame: [0, 0, 1280, 768], owner: { users: [0] }, children: [
                { id: "pad", frame: [0, 0, 1280, 768] },
                { id: "layer", frame: [0, 0, 1280, 768], mount: true },
            ] },
            { id: "guest", frame: [0, 0, 10, 10], owner: { users: [65534] }, resetOnDisconnect: true },
        ] } }] }
        """

    static func startDaemon(
        _ directory: TemporaryDirectory, speed: String = "1", waitFor: Int = 1, extraArguments: [String] = []
    ) throws -> DaemonProcess {
        chmod(directory.path, 0o755)
        try directory.write("runtime.json5", Self.config)
        return try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(
                recording: Scenario.oneFingerDrag, config: directory.file("runtime.json5"), waitFor: waitFor,
                speed: speed) + ["--socket-mode", "0666"] + extraArguments)
    }

    /// The reply to `request` (touches and layoutChanged lines before it are returned too).
    static func exchange(_ client: LineClient, _ json: String) throws -> (reply: DaemonMessage, before: [DaemonMessage])
    {
        try client.send(json)
        var before: [DaemonMessage] = []
        while let message = try client.readMessage() {
            switch message {
            case .touches, .layoutChanged, .viewsChanged: before.append(message)
            default: return (message, before)
            }
        }
        throw HarnessError("closed while waiting for the reply to \(json)")
    }

    static func layoutView(_ client: LineClient, _ id: String) throws -> String {
        let (reply, _) = try exchange(client, #"{"type":"layout","seq":90}"#)
        return view(id, in: reply)
    }

    /// The view's own fields as `reply` (a `layout`) writes them ("" when it is not there).
    static func view(_ id: String, in reply: DaemonMessage) -> String {
        let text = String(decoding: reply.encodedLine(), as: UTF8.self)
        guard let range = text.range(of: "{\"id\":\"\(id)\"") else { return "" }
        return String(text[range.lowerBound...].prefix { $0 != "}" })
    }

    /// Sends its requests one by one and prints each reply's type and code, as a client of another
    /// uid (run through setpriv).
    static let outsiderClient = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        f = s.makefile("rwb")
        for request in sys.argv[2:]:
            f.write((request + "\\n").encode()); f.flush()
            while True:
                m = json.loads(f.readline())
                if "seq" in m:
                    print(m["type"], m.get("code", "-"), flush=True)
                    break
        """

    @Test(
        "an owner may change its views; another uid is refused, may change only its own, and its changes reset",
        .enabled(if: OtherUserClient.isAvailable, "needs root, setpriv and /usr/bin/python3"))
    func ownerAndOutsider() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        try directory.write("outsider.py", Self.outsiderClient)
        let requests = [
            #"{"type":"setView","views":{"pad":{"hidden":true}},"seq":1}"#,
            #"{"type":"mount","view":"layer","children":[{"id":"x","frame":[0,0,1,1]}],"seq":2}"#,
            #"{"type":"setView","views":{"guest":{"alpha":0.5},"pad":{"alpha":0.5}},"seq":3}"#,
            #"{"type":"setView","views":{"guest":{"alpha":0.5}},"seq":4}"#,
            #"{"type":"setView","views":{"panel":{"alpha":0.5}},"seq":5}"#,
            // Refused on two counts: the gravest, permission, is the error's code.
            #"{"type":"setView","views":{"nope":{"alpha":0.5},"pad":{"alpha":0.5}},"seq":6}"#,
        ]
        let text = try OtherUserClient.run(
            script: directory.file("outsider.py"), arguments: [daemon.socketPath] + requests)
        #expect(
            text.split(separator: "\n") == [
                "error permission-denied", "error permission-denied", "error permission-denied", "viewsSet -",
                "error permission-denied", "error permission-denied",
            ], "\(daemon.log)")

        let owner = try LineClient(socketPath: daemon.socketPath)
        // The outsider's change of guest was undone when it left (resetOnDisconnect); pad never changed.
        try daemon.waitForLog("run-time change (1 run-time change(s)): layout generation 3")
        #expect(try Self.layoutView(owner, "guest").contains("alpha") == false)
        #expect(try Self.layoutView(owner, "pad").contains("hidden") == false)
        guard
            case .viewsSet(let set) = try Self.exchange(
                owner, #"{"type":"setView","views":{"pad":{"hidden":true}},"seq":7}"#
            ).reply
        else { throw HarnessError("root refused") }
        #expect(set.views == ["pad"] && set.generation == 4)
        #expect(try Self.layoutView(owner, "pad").contains("hidden"))
    }

    /// (The reply before the change's `viewsChanged`: a client that reads one line per request gets
    /// its reply first.)
    @Test("replies stay in request order: a status sent right after a setView is answered after it")
    func repliesInOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.send(
            #"{"type":"setView","views":{"pad":{"alpha":0.5}},"seq":1}"# + "\n" + #"{"type":"status","seq":2}"#)
        var order: [String] = []
        while order.count < 3, let message = try client.readMessage() {
            if let seq = message.seq { order.append("reply \(seq)") }
            if case .viewsChanged(_, let views) = message { order.append("viewsChanged \(views)") }
        }
        #expect(order.filter { $0.hasPrefix("reply") } == ["reply 1", "reply 2"])
        #expect(order.first == "reply 1" && order.contains("viewsChanged [\"pad\"]"), "\(order)")
    }

    /// Requests that come while a build runs wait for the next one, together; there each `layout`
    /// is answered after the changes, with what they made and the generation it has once live.
    /// Four clients' lines wait while the daemon is stopped, so that one of them starts a build
    /// and the other three (two changes and a layout at least, or a change and both layouts)
    /// make the next.
    @Test("a layout answered in a build that changes the layout reports the new generation")
    func layoutInAChangingBuild() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        let changes = [("pad", "0.5"), ("layer", "0.25")]
        let changers = try changes.map { _ in try LineClient(socketPath: daemon.socketPath) }
        let askers = try (0..<2).map { _ in try LineClient(socketPath: daemon.socketPath) }
        for client in changers + askers { _ = try client.hello("client") }
        daemon.signal(SIGSTOP)
        for (client, (id, alpha)) in zip(changers, changes) {
            try client.send(#"{"type":"setView","views":{"\#(id)":{"alpha":\#(alpha)}},"seq":1}"#)
        }
        for client in askers { try client.send(#"{"type":"layout","seq":2}"#) }
        daemon.signal(SIGCONT)
        let madeIn = try changers.map { client -> UInt64 in
            guard case .viewsSet(let set) = try client.readReply() else { throw HarnessError("refused") }
            return set.generation
        }
        for asker in askers {
            let reply = try asker.readReply()
            guard case .layout(let layout) = reply else { throw HarnessError("no layout: \(reply)") }
            for ((id, alpha), generation) in zip(changes, madeIn) {
                let shown = Self.view(id, in: reply).contains("\"alpha\":\(alpha)")
                #expect(shown == (layout.generation >= generation), "\(id) at generation \(layout.generation)")
            }
        }
    }

    @Test("one bad field refuses the whole request: nothing changes, every failure is listed")
    func atomicRefusal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        let (reply, _) = try Self.exchange(
            client,
            #"{"type":"setView","views":{"pad":{"hidden":true},"layer":{"frame":[0,0,0,5],"alpha":-1}},"seq":1}"#)
        guard case .error(let error) = reply else { throw HarnessError("accepted: \(reply)") }
        #expect(error.code == .invalidLayout && error.seq == 1)
        #expect(error.failures.map(\.code) == ["alphaOutOfRange", "nonPositiveSize"])
        #expect(error.failures.allSatisfy { $0.view == "panel/app/layer" })
        #expect(error.failures.map(\.field) == ["alpha", "frame"])
        #expect(try Self.layoutView(client, "pad").contains("hidden") == false)
        // Mounting outside a mount point, and ids that exist, are refused too.
        let (notMount, _) = try Self.exchange(client, #"{"type":"mount","view":"pad","children":[],"seq":2}"#)
        #expect(notMount.errorCode == .notMountPoint)
        let (collision, _) = try Self.exchange(
            client, #"{"type":"mount","view":"layer","children":[{"id":"guest","frame":[0,0,1,1]}],"seq":3}"#)
        guard case .error(let duplicate) = collision else { throw HarnessError("accepted") }
        #expect(duplicate.code == .invalidLayout && duplicate.failures.first?.code == "duplicateID")
        #expect(daemon.log.contains("setView refused"))
    }

    @Test("a reload keeps the run-time state of the views the new file still has")
    func reloadKeepsRuntimeState() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory, waitFor: 5)
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        _ = try Self.exchange(client, #"{"type":"setView","views":{"pad":{"hidden":true}},"seq":1}"#)
        _ = try Self.exchange(
            client, #"{"type":"mount","view":"layer","children":[{"id":"popup","frame":[0,0,10,10]}],"seq":2}"#)
        try directory.write(
            "runtime.json5", Self.config.replacingOccurrences(of: "[0, 0, 10, 10]", with: "[5, 5, 10, 10]"))
        var sawReload = false
        while !sawReload, let message = try client.readMessage() {
            if case .layoutChanged = message { sawReload = true }
        }
        #expect(try Self.layoutView(client, "pad").contains("hidden"))
        #expect(try Self.layoutView(client, "popup").contains("frame"))
        #expect(try Self.layoutView(client, "guest").contains("[5.0,5.0,10.0,10.0]"))
    }

    @Test("limits: a mount past the view limit and a flood of changes are refused; the daemon and the client go on")
    func limits() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory, waitFor: 5)
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        let views = (0...1500).map { #"{"id":"v\#($0)","frame":[0,0,1,1]}"# }.joined(separator: ",")
        let (tooLarge, _) = try Self.exchange(
            client, #"{"type":"mount","view":"layer","children":[\#(views)],"seq":1}"#)
        #expect(tooLarge.errorCode == .mountTooLarge)
        // 900 one-view changes at once (under the 1,000-line flood limit): the budget (bursts of
        // 200, then 100/s) refuses what goes past it. A client's lines are handled one change at a
        // time (its later lines wait for the build), so how many the refill lets through depends on
        // how fast this machine builds: the rule is checked against the time the flood took.
        let changes = 900
        let start = monotonicSeconds()
        try client.sendRaw(
            Array(
                (0..<changes).map {
                    #"{"type":"setView","views":{"pad":{"alpha":0.\#($0 % 9 + 1)}},"seq":\#($0 + 10)}"# + "\n"
                }
                .joined().utf8))
        var applied = 0
        var refused = 0
        while applied + refused < changes, let message = try client.readMessage() {
            if case .viewsSet = message { applied += 1 }
            if message.errorCode == .tooManyChanges { refused += 1 }
        }
        let elapsed = monotonicSeconds() - start
        #expect(applied + refused == changes)
        #expect(applied >= 200, "the burst is 200")
        #expect(Double(applied) <= 200 + 100 * elapsed + 1, "\(applied) applied in \(elapsed) s")
        if 200 + 100 * elapsed < Double(changes) - 1 { #expect(refused > 0) }
        let (status, _) = try Self.exchange(client, #"{"type":"status","seq":999}"#)
        guard case .status = status else { throw HarnessError("no status after the flood") }
    }

    @Test("every view a setView names takes a change token: one naming more than the burst is refused whole")
    func aSetViewTakesATokenPerView() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        let children = (0..<201).map { #"{"id":"m\#($0)","frame":[0,0,1,1]}"# }.joined(separator: ",")
        let (mounted, _) = try Self.exchange(
            client, #"{"type":"mount","view":"layer","children":[\#(children)],"seq":1}"#)
        guard case .mounted = mounted else { throw HarnessError("not mounted: \(mounted)") }
        // The mount took 1 token of the burst of 200; 201 views take 201.
        let views = (0..<201).map { #""m\#($0)":{"alpha":0.5}"# }.joined(separator: ",")
        let (reply, _) = try Self.exchange(client, #"{"type":"setView","views":{\#(views)},"seq":2}"#)
        #expect(reply.errorCode == .tooManyChanges)
        #expect(try Self.layoutView(client, "m200").hasPrefix(#"{"id":"m200""#))
        #expect(try Self.layoutView(client, "m200").contains(#""alpha""#) == false, "nothing of it applied")
    }

    @Test(
        "python-client.py and touchrouterctl set/mount/unmount change the running layout; the mount goes with its client"
    )
    func tools() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory, speed: "1", waitFor: 1)
        defer { daemon.stop() }
        try directory.write("popup.json", #"[{"id":"popup","frame":[0,0,1280,768]}]"#)
        let script = Paths.packageRoot.appendingPathComponent("examples/python-client.py").path
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", script, "--socket", daemon.socketPath, "--set", "pad", "alpha=0.5", "--mount", "layer",
            directory.file("popup.json"), "popup",
        ]
        let output = Pipe()
        python.standardOutput = output
        try python.run()
        let reader = output.fileHandleForReading
        var text = ""
        while !text.contains("popup touch") {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text.hasPrefix("viewsSet 2  \nmounted 3  \nsubscribed: ['popup']\n"), "\(text)")
        #expect(text.contains("popup touch"))
        // SIGKILL: a child of the test runner may inherit its blocked SIGTERM.
        kill(python.processIdentifier, SIGKILL)
        python.waitUntilExit()
        let ctl = Paths.product("touchrouterctl")
        let client = try LineClient(socketPath: daemon.socketPath)
        // The python client's mount went with it.
        try daemon.waitForLog("layout generation 4")
        #expect(try Self.layoutView(client, "popup") == "")
        let set = try ProgramRun(ctl, ["set", "pad", "hidden=true", "--socket", daemon.socketPath]).lines
        #expect(set == ["set pad: layout generation 5"])
        let refused = Process()
        refused.executableURL = URL(fileURLWithPath: ctl)
        refused.arguments = ["set", "pad", "alpha=3", "--socket", daemon.socketPath]
        let errors = Pipe()
        refused.standardError = errors
        try refused.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        refused.waitUntilExit()
        #expect(refused.terminationStatus == 1)
        #expect(errorText.contains("alphaOutOfRange: view \"panel/app/pad\": alpha: alpha must be in 0…1, found 3"))
        let unmount = try ProgramRun(ctl, ["unmount", "layer", "--json", "--socket", daemon.socketPath]).lines
        #expect(unmount == [#"{"type":"unmounted","generation":5,"views":[],"seq":1}"#])
        let unmountText = try ProgramRun(ctl, ["unmount", "layer", "--socket", daemon.socketPath]).lines
        #expect(unmountText == ["unmount layer: nothing was mounted: layout generation 5"])
        // The text layout says what the changes set: pad hidden, and half transparent (the python
        // client's alpha stays: pad does not say resetOnDisconnect).
        let layout = try ProgramRun(ctl, ["layout", "--socket", daemon.socketPath]).lines
        #expect(layout.contains("      pad  [0, 0, 1280, 768]  hidden alpha=0.5"), "\(layout)")
    }

    @Test(
        "a mount whose subtree is malformed JSON: the worker answers with the loop's error, in order; the client goes on"
    )
    func malformedMount() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        // The subtree is read on the worker; the status after it waits for its reply.
        let broken = #"{"type":"mount","seq":7,"view":"layer","children":[{"id":"x","frame":[0,0,1,1]},{"id":"y",,}]}"#
        try client.send(broken + "\n" + #"{"type":"status","seq":8}"#)
        var replies: [DaemonMessage] = []
        while replies.count < 2, let message = try client.readMessage() {
            if message.seq != nil { replies.append(message) }
        }
        guard case .error(let error) = replies.first else { throw HarnessError("accepted: \(replies)") }
        #expect(error.code == .malformedJSON && error.seq == 7)
        // Exactly what decoding the whole line at once says.
        #expect(RequestDecoder.decode(line: Array(broken.utf8)) == .error(error))
        #expect(replies.last?.seq == 8)
        // A subtree that is JSON but not a valid view: the config's error, with the path in the request.
        let (invalid, _) = try Self.exchange(
            client, #"{"type":"mount","view":"layer","children":[{"id":"x","frame":[0,0,-1,1]}],"seq":9}"#)
        guard case .error(let refused) = invalid else { throw HarnessError("accepted: \(invalid)") }
        #expect(refused.code == .invalidLayout && refused.seq == 9)
        #expect(refused.failures.map(\.view) == ["panel/app/layer/x"] && refused.failures.map(\.field) == ["children"])
        let (mounted, _) = try Self.exchange(
            client, #"{"type":"mount","view":"layer","children":[{"id":"x","frame":[0,0,1,1]}],"seq":10}"#)
        guard case .mounted(let reply) = mounted else { throw HarnessError("not mounted: \(mounted)") }
        #expect(reply.views == ["layer"] && reply.seq == 10)
    }

    @Test("owner names that match no user or group are logged at start and at reload, as access lists' are")
    func unknownOwnerNames() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(
            "runtime.json5",
            Self.config.replacingOccurrences(
                of: "owner: { users: [0] }",
                with: #"owner: { users: [0, "tr-no-such-user"], groups: ["tr-no-such-group"] }"#))
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(
                recording: Scenario.oneFingerDrag, config: directory.file("runtime.json5"), waitFor: 1, speed: "1"))
        defer { daemon.stop() }
        try daemon.waitForLog(#"owner list: no such user "tr-no-such-user" (view app); it admits nobody"#)
        try daemon.waitForLog(#"owner list: no such group "tr-no-such-group" (view app); it admits nobody"#)
        try directory.write(
            "runtime.json5",
            Self.config.replacingOccurrences(of: "users: [65534]", with: #"users: ["tr-nobody-here"]"#))
        try daemon.waitForLog(#"owner list: no such user "tr-nobody-here" (view guest); it admits nobody"#)
    }
}

/// CLOCK_MONOTONIC in seconds.
private func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
