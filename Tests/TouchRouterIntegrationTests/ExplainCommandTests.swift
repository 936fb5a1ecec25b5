import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

/// `touchrouterctl explain`: offline it agrees with `hit-test` on every probe (text and JSON), the
/// running daemon gives the same walk with its live subscriptions, and the help text is exact.
@Suite("touchrouterctl explain", .serialized)
struct ExplainCommandTests {
    static let kioskConfig = Paths.packageRoot.appendingPathComponent("config/kiosk.json5").path

    static let probes: [[String]] = [
        ["650", "1050"], ["540", "880"], ["442", "880"], ["953", "33"], ["500", "300"], ["330", "1090.5"],
        ["--", "-5", "-5"], ["1079.5", "1919.5"], ["200", "1650"], ["--screen", "service", "600", "150"],
        ["--screen", "service", "1", "1"],
    ]

    /// The top-level `view`, `path` and `local` of a JSON line, as JSON text.
    static func jsonFields(_ line: String) throws -> (view: String, path: String, local: String) {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        func text(_ value: Any?) throws -> String {
            guard let value, !(value is NSNull) else { return "null" }
            let data = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
            return String(decoding: data, as: UTF8.self)
        }
        let local = (object["local"] as? [Double]).map { "\($0)" } ?? "null"
        return (try text(object["view"]), try text(object["path"]), local)
    }

    @Test("offline: the explained view, path and local point are hit-test's, in text and JSON")
    func agreesWithHitTest() throws {
        for probe in Self.probes {
            let hit = try TouchrouterctlProcess.run(
                ["hit-test", "--config", Self.kioskConfig, "--json"] + probe)
            let explained = try TouchrouterctlProcess.run(
                ["explain", "--config", Self.kioskConfig, "--json"] + probe)
            #expect(hit.exitCode == 0 && explained.exitCode == 0, "\(probe): \(explained.stderr)")
            #expect(explained.stdoutLines.count == 1)
            let a = try Self.jsonFields(hit.stdout)
            let b = try Self.jsonFields(explained.stdout)
            #expect(a.view == b.view && a.path == b.path && a.local == b.local, "\(probe)")
            let object = try JSONSerialization.jsonObject(with: Data(explained.stdout.utf8)) as! [String: Any]
            #expect(object["steps"] is [Any])
            // The text names the same hit line as hit-test's text output.
            let hitText = try TouchrouterctlProcess.run(["hit-test", "--config", Self.kioskConfig] + probe)
            let text = try TouchrouterctlProcess.run(["explain", "--config", Self.kioskConfig] + probe)
            if hitText.stdout.hasPrefix("no view") {
                #expect(text.stdout.contains("no view takes the point"))
            } else {
                #expect(text.stdout.contains("hit view: " + hitText.stdout), "\(probe)")
            }
        }
    }

    @Test("text: an indented tree naming every view on the way, skip reasons in words")
    func textTree() throws {
        let result = try TouchrouterctlProcess.run(
            ["explain", "--config", Self.kioskConfig, "--subscribed", "content", "953", "33"])
        #expect(result.exitCode == 0)
        #expect(
            result.stdout == """
                point (953, 33) on screen "main":
                  main: inside at (953, 33): asking its children, top first
                    out-of-service: skipped: hidden (with its subtree)
                    content: skipped at (953, -127): outside its touch area
                    header: HIT at (953, 33): no child takes it
                      help: skipped at (1, 1): inside its bounds but outside its shape
                      logo: skipped at (921, 9): outside its touch area
                hit view: main/header at local (953, 33)
                responder chain: header (no subscriber) -> main (no subscriber)
                delivered to: nobody (no view on the chain has a subscriber: dropped-no-subscriber)
                note: dropped if another finger is already down on header (multipleTouch: false)
                note: dropped while pay is being touched (pay has exclusiveTouch)

                """)
    }

    @Test("the running daemon explains with its subscriptions and names the receiving clients")
    func daemon() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try HitTestDaemonTests.startDaemon(directory)
        defer { daemon.stop() }
        for probe in Self.probes {
            let offline = try TouchrouterctlProcess.run(
                ["explain", "--config", Self.kioskConfig, "--subscribed", ""] + probe)
            let live = try TouchrouterctlProcess.run(["explain", "--socket", daemon.socketPath] + probe)
            #expect(live.exitCode == 0, "\(probe): \(live.stderr)")
            // The tests run as root (an admin): the same walk, plus the (empty) list of clients.
            let clients = offline.stdout.contains("hit view:") ? "clients that would receive it: none\n" : ""
            #expect(live.stdout == offline.stdout + clients, "\(probe)")
            let json = try TouchrouterctlProcess.run(
                ["explain", "--socket", daemon.socketPath, "--json"] + probe)
            #expect(json.stdout.hasPrefix(#"{"type":"explanation","#))
        }
        let unknown = try TouchrouterctlProcess.run(
            ["explain", "--socket", daemon.socketPath, "--screen", "nope", "1", "1"])
        #expect(unknown.exitCode == 1)
        #expect(unknown.stderr.contains("no such screen"))
    }

    /// The explain request with access lists: an admin sees everything and the receiving clients;
    /// `nobody` (through setpriv) sees only the views open to it, and is refused a restricted hit.
    @Test(
        "explain over the socket: admin sees all and the clients, an outsider only what is open to it",
        .enabled(
            if: OtherUserClient.isAvailable,
            "needs root, setpriv and /usr/bin/python3 to run a client as nobody"))
    func accessLists() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        try directory.write("access.json5", AccessListTests.config)
        try directory.write(
            "nobody.py",
            """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            for seq, point in ((1, [100, 100]), (2, [1000, 100])):
                s.sendall((json.dumps({"type": "explain", "point": point, "seq": seq}) + "\\n").encode())
            f = s.makefile(encoding="utf-8")
            print(f.readline().strip(), flush=True)
            print(f.readline().strip(), flush=True)
            """)
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("access.json5"), "--replay", HitTestDaemonTests.recording,
                "--replay-wait-for", "5", "--socket-mode", "0666",
            ])
        defer { daemon.stop() }
        let admin = try LineClient(socketPath: daemon.socketPath)
        _ = try admin.hello("root right")
        try admin.send(ClientRequest(.subscribe(views: ["right"], subtree: false), seq: 1))
        guard case .subscribed = try admin.readReply() else { throw HarnessError("right: not subscribed") }
        try admin.send(ClientRequest(.explain(screen: nil, screenPoint: Point(700, 100)), seq: 2))
        guard case .explanation(let adminReply) = try admin.readReply() else {
            throw HarnessError("no explanation")
        }
        #expect(adminReply.explanation.viewID == "right" && adminReply.explanation.target == "right")
        #expect(adminReply.clients?.count == 1 && adminReply.clients?.first?.contains("root right") == true)
        #expect(adminReply.explanation.steps.contains { $0.viewID == "left" })

        let text = try OtherUserClient.run(script: directory.file("nobody.py"), arguments: [daemon.socketPath])
        let lines = text.split(separator: "\n").map { DaemonMessageDecoder.decode(line: Array($0.utf8)) }
        guard lines.count == 2, case .success(.explanation(let hidden)) = lines[0],
            case .success(.explanation(let open)) = lines[1]
        else {
            Issue.record("unexpected replies: \(text)\n\(daemon.log)")
            return
        }
        // (100, 100) hits left-edge, root only: to nobody, the walk of a screen without "left" (the
        // point hits the root there), and the touch reaches no view it knows of.
        #expect(hidden.seq == 1 && hidden.explanation.target == nil)
        #expect(!hidden.explanation.steps.contains { $0.viewID.hasPrefix("left") })
        #expect(hidden.explanation.viewID == "panel")
        // (1000, 100) hits right-edge (open to nogroup); "left", below it, is left out, uncounted.
        #expect(open.explanation.viewID == "right-edge" && open.seq == 2)
        #expect(!open.explanation.steps.contains { $0.viewID == "left" })
        #expect(open.explanation.steps.count == 3 && open.clients == nil, "\(open.explanation.steps)")
    }

    /// The daemon's own user is an admin as root is: a daemon run as nobody (setpriv) explains a
    /// restricted point whole to a nobody client, with the receiving clients, and takes its
    /// `reload`; a client of another user (not root) is refused the reload.
    @Test(
        "the daemon's own user is an admin: explain shows a restricted view whole, reload is taken",
        .enabled(
            if: OtherUserClient.isAvailable,
            "needs root, setpriv and /usr/bin/python3 to run the daemon and a client as nobody"))
    func daemonsOwnUserIsAnAdmin() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o777)
        try directory.write("access.json5", AccessListTests.config)
        try directory.write(
            "client.py",
            """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            f = s.makefile(encoding="utf-8")
            for request in ({"type": "explain", "point": [100, 100], "seq": 1}, {"type": "reload", "seq": 2}):
                s.sendall((json.dumps(request) + "\\n").encode())
                while True:
                    line = f.readline().strip()
                    if json.loads(line).get("seq") == request["seq"]:
                        print(line, flush=True)
                        break
            """)
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("access.json5"), "--replay", HitTestDaemonTests.recording,
                "--replay-wait-for", "5", "--socket-mode", "0666",
            ],
            launcher: ["/usr/bin/setpriv"] + OtherUserClient.nobody)
        defer { daemon.stop() }
        let replies = try OtherUserClient.run(script: directory.file("client.py"), arguments: [daemon.socketPath])
            .split(separator: "\n").map { DaemonMessageDecoder.decode(line: Array($0.utf8)) }
        guard replies.count == 2, case .success(.explanation(let reply)) = replies[0] else {
            Issue.record("unexpected replies: \(replies)\n\(daemon.log)")
            return
        }
        // (100, 100) hits left-edge, root's only: to an admin the walk reaches it.
        #expect(reply.explanation.target != nil && reply.explanation.steps.contains { $0.viewID.hasPrefix("left") })
        #expect(reply.clients != nil, "an admin's explanation names the receiving clients")
        guard case .success(.reloaded) = replies[1] else {
            Issue.record("the daemon's own user could not reload: \(replies[1])\n\(daemon.log)")
            return
        }
        // Another user, not root, is no admin.
        let other = try OtherUserClient.run(
            script: directory.file("client.py"), arguments: [daemon.socketPath],
            credentials: ["--reuid=65533", "--regid=65533", "--clear-groups"]
        ).split(separator: "\n").map { DaemonMessageDecoder.decode(line: Array($0.utf8)) }
        guard other.count == 2, case .success(.error(let refused)) = other[1] else {
            Issue.record("another user's reload was not refused: \(other)\n\(daemon.log)")
            return
        }
        #expect(refused.code == .permissionDenied)
        guard case .success(.explanation(let outsider)) = other[0] else {
            Issue.record("no explanation for another user: \(other[0])")
            return
        }
        #expect(outsider.clients == nil)
    }

    @Test("usage errors")
    func usageErrors() throws {
        let both = try TouchrouterctlProcess.run(
            ["explain", "--config", Self.kioskConfig, "--socket", "/x", "1", "1"])
        #expect(both.exitCode == 2)
        let notNumber = try TouchrouterctlProcess.run(["explain", "--config", Self.kioskConfig, "a", "1"])
        #expect(notNumber.exitCode == 2)
        #expect(
            notNumber.stderr
                == "touchrouterctl explain: X and Y must be finite numbers\nSee 'touchrouterctl explain --help'.\n"
        )
        let badScreen = try TouchrouterctlProcess.run(
            ["explain", "--config", Self.kioskConfig, "--screen", "servce", "1", "1"])
        #expect(badScreen.exitCode == 1)
        #expect(badScreen.stderr.contains(#"(did you mean "service"?)"#))
    }

    @Test("explain and render --help, exactly")
    func help() throws {
        let explain = try TouchrouterctlProcess.run(["explain", "--help"])
        #expect(explain.exitCode == 0)
        #expect(
            explain.stdout == """
                OVERVIEW: Explain the hit-test walk for a screen point, view by view.

                USAGE: touchrouterctl explain [--config FILE] [--screen NAME] [--subscribed IDS] [--json] [--socket PATH] X Y

                ARGUMENTS:
                  X                     The point's x in screen (layout) units.
                  Y                     The point's y in screen (layout) units.

                OPTIONS:
                  --config FILE         Explain against this config file (offline).
                  --screen NAME         The screen (default: the first).
                  --subscribed IDS      Views with subscribers, comma-separated (default: every view).
                  --json                Print one JSON object: {"view", "path", "steps", …}.
                  --socket PATH         The daemon's socket (default /run/touchrouter/touchrouter.sock).
                  -h, --help            Show this help.

                Prints the hit-test walk as an indented tree: every view met, top child first, the point
                in its own coordinates, and why it was skipped (hidden, alpha below 0.01, not interactive,
                outside its touch area, outside its shape but inside its bounds, a sibling on top took
                it); then the hit view, the responder chain up to the view the touch is delivered to (the
                nearest view with subscribers; a view with an access list stops the climb), and the
                multipleTouch / exclusiveTouch rules that would drop the touch. The walk is the plain
                hit-test itself, so the answer is always the one 'hit-test' gives. Without --config the
                running daemon answers with its live subscriptions and names the clients that would get
                the touch (admin only; others see only the views open to them). --json prints the
                'explanation' reply of docs/protocol.md; docs/render-explain.md describes every field.

                """)
        let render = try TouchrouterctlProcess.run(["help", "render"])
        #expect(render.exitCode == 0)
        #expect(
            render.stdout.hasPrefix(
                """
                OVERVIEW: Draw a screen's layout, touch regions and touches as SVG.

                USAGE: touchrouterctl render --config FILE [--screen NAME] [--recording FILE] [--live SOCKET] [--seconds N] [--subscribed IDS] [--hidden] [--output FILE]

                OPTIONS:
                  --config FILE         The config file to draw.
                  --screen NAME         The screen (default: the first).
                  --recording FILE      Draw a recording's touches (libinput record YAML or evemu .events).
                  --live SOCKET         Draw the touches a running daemon delivers.
                  --seconds N           How long --live watches (default 10).
                  --subscribed IDS      Subscribed views, comma-separated: for --recording (default: every view) and the passthrough hatch (default: none).
                  --hidden              Also draw hidden views (dotted, grey).
                  -o, --output FILE     Write the SVG here (default: standard output).
                  -h, --help            Show this help.

                Draws the screen at its layout size (one unit, one SVG pixel) with a legend on the right.
                """))
        #expect(render.stdout.contains("\n\n--recording maps the recording onto this screen"))
    }
}
