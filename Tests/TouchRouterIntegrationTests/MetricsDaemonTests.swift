import Foundation
import Glibc
import Testing
import TouchRouterProtocol

/// `metrics` on the real daemon: the text read by the reference OpenMetrics parser, each counter
/// family moving when what it counts happens (recordings replayed, requests sent), labels bounded
/// with 10,000 views, a hostile device name kept whole inside its label.
@Suite(
    "Metrics: the real daemon", .serialized,
    .enabled(if: ReferenceParser.isAvailable, "needs python3 with prometheus_client"))
struct MetricsDaemonTests {
    func daemon(
        _ directory: TemporaryDirectory, config: String, frames: [(Double, [TestRecording.Change])],
        description: String = FieldRecording.description, extraArguments: [String] = []
    ) throws -> DaemonProcess {
        try directory.write("metrics.json5", config)
        try directory.write("metrics.events", FieldRecording.events(frames))
        return try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("metrics.json5"), "--replay", directory.file("metrics.events"),
                "--replay-device", description, "--speed", "0", "--replay-wait-for", "1",
            ] + extraArguments)
    }

    /// A client subscribed to `views` with their subtrees, the whole screen by default (it starts
    /// the replay).
    func subscriber(_ daemon: DaemonProcess, views: [String] = ["main"]) throws -> LineClient {
        let client = try LineClient(socketPath: daemon.socketPath)
        _ = try client.hello("app")
        try client.send(ClientRequest(.subscribe(views: views, subtree: true), seq: 1))
        _ = try client.readReply()
        return client
    }

    /// Reads `touches` messages until `count` touches ended (or were cancelled).
    func waitForTouchesToEnd(_ client: LineClient, count: Int) throws {
        var ended = 0
        while ended < count, let message = try client.readMessage() {
            guard case .touches(let touches) = message else { continue }
            ended += touches.touches.filter { $0.phase == .ended || $0.phase == .cancelled }.count
        }
    }

    /// The daemon's metrics, parsed.
    func metrics(_ client: LineClient, format: MetricsFormat = .openMetrics) throws -> ReferenceParser.Parsed {
        try client.send(ClientRequest(.metrics(format: format), seq: 99))
        while let message = try client.readMessage() {
            switch message {
            case .metrics(let replied, let text, _):
                #expect(replied == format)
                return try ReferenceParser.parse(text, format: format)
            case .error(let error): throw HarnessError("metrics refused: \(error)")
            default: continue
            }
        }
        throw HarnessError("connection closed before the metrics reply")
    }

    static func taps(_ points: [(Int32, Int32)], from start: Double = 0) -> [(Double, [TestRecording.Change])] {
        points.enumerated().flatMap { index, point in
            let at = start + Double(index) * 0.2
            return [(at, [TestRecording.Change.down(0, point.0, point.1)]), (at + 0.05, [.up(0)])]
        }
    }

    @Test(
        "touchrouterctl metrics: the reference parser reads both formats; every family has its type; --output writes 0644"
    )
    func parsesAndTypes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory, config: FieldRecording.config("filters: {dropStuckPoints: true}"),
            frames: Self.taps([(100, 100), (700, 300)]))
        defer { daemon.stop() }
        let client = try subscriber(daemon)
        try waitForTouchesToEnd(client, count: 2)

        let run = try ProgramRun(Paths.product("touchrouterctl"), ["metrics", "--socket", daemon.socketPath])
        #expect(run.status == 0)
        let text = run.lines.joined(separator: "\n") + "\n"
        #expect(text.hasSuffix("# EOF\n"))
        let parsed = try ReferenceParser.parse(text)
        let expected: [String: String] = [
            "touchrouter_build_info": "gauge", "touchrouter_uptime_seconds": "gauge",
            "touchrouter_layout_generation": "gauge", "touchrouter_reloads": "counter",
            "touchrouter_layout_builds": "counter", "touchrouter_mounted_subtrees": "gauge",
            "touchrouter_screen_state": "gauge", "touchrouter_input_contacts": "counter",
            "touchrouter_touches": "counter", "touchrouter_view_touches": "counter",
            "touchrouter_active_touches": "gauge", "touchrouter_input_frames": "counter",
            "touchrouter_touches_ended": "counter", "touchrouter_touches_cancelled": "counter",
            "touchrouter_touches_dropped": "counter", "touchrouter_unknown_slot_events": "counter",
            "touchrouter_gesture_views_active": "gauge", "touchrouter_blips_dropped": "counter",
            "touchrouter_stuck_points_dropped": "counter", "touchrouter_bounces_dropped": "counter",
            "touchrouter_stuck_contacts_cancelled": "counter", "touchrouter_wake_touches_swallowed": "counter",
            "touchrouter_device_removals": "counter", "touchrouter_controller_resets": "counter",
            "touchrouter_clients": "gauge", "touchrouter_clients_connected": "counter",
            "touchrouter_clients_refused": "counter", "touchrouter_clients_cut_off": "counter",
            "touchrouter_requests_refused": "counter", "touchrouter_subscribed_views": "gauge",
            "touchrouter_messages_queued": "counter", "touchrouter_messages_coalesced": "counter",
            "touchrouter_messages_dropped_non_finite": "counter", "touchrouter_replay_frames": "counter",
            "touchrouter_frame_latency_seconds": "histogram",
        ]
        #expect(parsed.types == expected)
        #expect(parsed.value("touchrouter_touches_total", ["screen": "main"]) == 2)
        #expect((0.001..<600).contains(parsed.value("touchrouter_uptime_seconds") ?? -1), "uptime in seconds")
        // Every sample's name is its family's, or with the suffix its type gives.
        for sample in parsed.samples {
            let suffixes =
                sample.type == "counter"
                ? ["_total"] : sample.type == "histogram" ? ["_bucket", "_count", "_sum"] : [""]
            #expect(suffixes.contains { sample.family + $0 == sample.name }, "\(sample.name) in \(sample.family)")
        }

        // The node_exporter format, through Prometheus' own text parser, says the same.
        let prometheus = try metrics(client, format: .prometheus)
        #expect(prometheus.value("touchrouter_touches_total", ["screen": "main"]) == 2)
        #expect(prometheus.types["touchrouter_touches"] == "counter")
        #expect(prometheus.types["touchrouter_frame_latency_seconds"] == "histogram")

        // --output: the file appears whole, mode 0644 whatever the umask, no temporary file left.
        let output = directory.file("textfile/touchrouter.prom")
        try FileManager.default.createDirectory(atPath: directory.file("textfile"), withIntermediateDirectories: false)
        // The umask is the child's own: the test process's is shared with the tests running
        // beside it (set here, their files came out 0600 and unreadable to another user).
        let written = try ProgramRun(
            "/bin/sh",
            [
                "-c", "umask 077 && exec \"$0\" \"$@\"", Paths.product("touchrouterctl"),
                "metrics", "--format", "prometheus", "--output", output, "--socket", daemon.socketPath,
            ])
        #expect(written.status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: output)
        #expect((attributes[.posixPermissions] as? Int) == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("textfile")) == ["touchrouter.prom"])
        let file = try ReferenceParser.parse(String(contentsOfFile: output, encoding: .utf8), format: .prometheus)
        #expect(file.value("touchrouter_touches_total", ["screen": "main"]) == 2)
    }

    @Test("touches per screen and view, contacts, frames, latency and messages move with the taps routed")
    func touchesMove() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory, config: FieldRecording.config("filters: {dropStuckPoints: true}"),
            frames: Self.taps([(100, 100), (200, 100), (700, 300)]))
        defer { daemon.stop() }
        let client = try subscriber(daemon)
        try waitForTouchesToEnd(client, count: 3)
        let parsed = try metrics(client)
        #expect(parsed.value("touchrouter_touches_total", ["screen": "main"]) == 3)
        #expect(parsed.value("touchrouter_view_touches_total", ["screen": "main", "view": "button"]) == 2)
        #expect(parsed.value("touchrouter_view_touches_total", ["screen": "main", "view": "other"]) == 1)
        #expect(parsed.value("touchrouter_input_contacts_total", ["screen": "main"]) == 3)
        #expect(parsed.value("touchrouter_touches_ended_total") == 3)
        #expect(parsed.value("touchrouter_input_frames_total") == 6)
        #expect(parsed.value("touchrouter_messages_queued_total", ["kind": "touches"]) == 6)
        // One sample per frame that delivered: each tap's down and up.
        #expect(parsed.value("touchrouter_frame_latency_seconds_count") == 6)
        #expect(parsed.value("touchrouter_frame_latency_seconds_bucket", ["le": "+Inf"]) == 6)
        #expect(parsed.value("touchrouter_replay_frames_total") == 6)
        #expect(parsed.value("touchrouter_clients") == 1 && parsed.value("touchrouter_clients_connected_total") == 1)
        #expect(parsed.value("touchrouter_subscribed_views") == 3)  // main and its two children
        #expect(parsed.value("touchrouter_screen_state", ["screen": "main", "state": "active"]) == 1)
    }

    @Test("ghost filters per device: stuck points, stuck cancels, blips and bounces; dropped and cancelled by reason")
    func fieldFiltersMove() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The stuck finger and the corner ghost of FieldDaemonTests, then a blip and its bounce.
        let daemon = try self.daemon(
            directory,
            config: FieldRecording.config(
                "filters: {maxStationarySeconds: 1, dropStuckPoints: true, minContactMs: 20, debounceMs: 60, debounceMM: 3}"
            ),
            frames: [
                (0.0, [.down(0, 100, 100)]), (0.1, [.move(0, 110, 110)]),
                (0.2, [.down(1, 0, 0)]), (0.3, [.move(1, 0, 0)]), (0.4, [.up(1)]),
                (2.0, [.down(2, 700, 300)]), (2.1, [.move(0, 120, 120)]), (2.2, [.up(0)]), (2.3, [.up(2)]),
                (3.0, [.down(0, 300, 300)]), (3.01, [.up(0)]),  // a 10 ms blip
                (3.5, [.down(0, 400, 400)]), (3.6, [.up(0)]),  // a tap…
                (3.63, [.down(0, 401, 400)]), (3.7, [.up(0)]),  // …and its bounce 30 ms later
                (4.5, [.down(0, 500, 500)]), (4.6, [.up(0)]),
            ])
        defer { daemon.stop() }
        let client = try subscriber(daemon)
        try waitForTouchesToEnd(client, count: 4)
        let parsed = try metrics(client)
        let device = ["device": "EP0430M09"]
        #expect(parsed.value("touchrouter_stuck_points_dropped_total", device) == 1)
        #expect(parsed.value("touchrouter_stuck_contacts_cancelled_total", device) == 1)
        #expect(parsed.value("touchrouter_blips_dropped_total", device) == 1)
        #expect(parsed.value("touchrouter_bounces_dropped_total", device) == 1)
        #expect(parsed.value("touchrouter_wake_touches_swallowed_total", device) == 0)
        #expect(parsed.value("touchrouter_touches_cancelled_total", ["reason": "stuck"]) == 1)
        // Input saw every contact; the ghosts never became touches.
        #expect(parsed.value("touchrouter_input_contacts_total", ["screen": "main"]) == 7)
        #expect(parsed.value("touchrouter_touches_total", ["screen": "main"]) == 4)
    }

    @Test("the screen's state follows setScreenState and the waking touch; the swallowed touch is counted")
    func screenStateAndWake() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("metrics.json5", FieldRecording.config("idle: {seconds: 600}, wake: {swallow: true}"))
        // The second tap after the grace window (250 ms by default).
        try directory.write(
            "metrics.events",
            FieldRecording.events([
                (0.0, [.down(0, 100, 100)]), (0.05, [.up(0)]), (1.0, [.down(0, 200, 100)]), (1.05, [.up(0)]),
            ]))
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("metrics.json5"), "--replay", directory.file("metrics.events"),
                "--replay-device", FieldRecording.description, "--speed", "0", "--replay-wait-for", "2",
            ])
        defer { daemon.stop() }
        let admin = try subscriber(daemon)
        try admin.send(ClientRequest(.setScreenState(screen: "main", off: true), seq: 2))
        while let message = try admin.readMessage() { if case .screenStateSet = message { break } }
        let off = try metrics(admin)
        #expect(off.value("touchrouter_screen_state", ["screen": "main", "state": "off"]) == 1)
        #expect(off.value("touchrouter_screen_state", ["screen": "main", "state": "active"]) == 0)
        let app = try subscriber(daemon)  // the second subscriber starts the replay
        try waitForTouchesToEnd(app, count: 1)
        let woken = try metrics(app)
        #expect(woken.value("touchrouter_screen_state", ["screen": "main", "state": "active"]) == 1)
        #expect(woken.value("touchrouter_wake_touches_swallowed_total", ["device": "EP0430M09"]) == 1)
        #expect(woken.value("touchrouter_touches_total", ["screen": "main"]) == 1)
        #expect(woken.value("touchrouter_input_contacts_total", ["screen": "main"]) == 2)
    }

    @Test("reloads ok and failed, the layout generation, clients refused and cut off, requests refused")
    func daemonCountersMove() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory, config: FieldRecording.config("filters: {dropStuckPoints: true}"),
            frames: Self.taps([(700, 300), (100, 100)]), extraArguments: ["--max-clients", "2"])
        defer { daemon.stop() }
        // Only the left button is watched: the first tap, on the right, reaches no subscriber.
        let client = try subscriber(daemon, views: ["button"])
        try waitForTouchesToEnd(client, count: 1)
        let before = try metrics(client)
        #expect(before.value("touchrouter_touches_dropped_total", ["reason": "no-subscriber"]) == 1)
        #expect(before.value("touchrouter_touches_total", ["screen": "main"]) == 1)
        #expect(before.value("touchrouter_reloads_total", ["result": "ok"]) == 0)
        #expect(before.value("touchrouter_layout_generation") == 1)

        // The reload renames the screen: the old name's counts stay, beside the new name's.
        let renamed = FieldRecording.config("filters: {dropStuckPoints: false}")
            .replacingOccurrences(of: #"name: "main""#, with: #"name: "front""#)
        try directory.write("metrics.json5", renamed)
        try client.send(ClientRequest(.reload, seq: 3))
        while let message = try client.readMessage() { if case .reloaded = message { break } }
        try directory.write("metrics.json5", "{ screens: [")
        try client.send(ClientRequest(.reload, seq: 4))
        while let message = try client.readMessage() { if case .error = message { break } }

        // A flooding client is cut off (and its line refused); a third connection is refused.
        let flooder = try LineClient(socketPath: daemon.socketPath)
        try flooder.sendRaw(Array(String(repeating: "{\"type\":\"status\"}\n", count: 4096).utf8))
        _ = try flooder.readUntilEOF()
        let blocker = try LineClient(socketPath: daemon.socketPath)
        _ = try blocker.hello("second")
        let refused = try LineClient(socketPath: daemon.socketPath)
        _ = try refused.readUntilEOF()

        let after = try metrics(client)
        // The config watch may have reloaded too: at least the requests' own.
        #expect(after.value("touchrouter_reloads_total", ["result": "ok"])! >= 1)
        #expect(after.value("touchrouter_reloads_total", ["result": "failed"])! >= 1)
        #expect(after.value("touchrouter_layout_generation") == 2)
        #expect(after.value("touchrouter_touches_total", ["screen": "main"]) == 1)
        #expect(after.value("touchrouter_touches_total", ["screen": "front"]) == 0)
        #expect(after.value("touchrouter_layout_builds_total")! >= 2)
        #expect(after.value("touchrouter_clients_cut_off_total", ["reason": "flooding"]) == 1)
        #expect(after.value("touchrouter_requests_refused_total", ["reason": "flooding"]) == 1)
        #expect(after.value("touchrouter_clients_refused_total") == 1)
        #expect(after.value("touchrouter_clients_connected_total") == 3)
        #expect(after.value("touchrouter_clients") == 2)
    }

    /// Run as `nobody`: a hitTest into the left button, then metrics; prints each reply line.
    static let outsiderScript = """
        import socket, sys
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(sys.argv[1])
        sock.sendall(b'{"type":"hitTest","point":[100,100],"seq":1}\\n{"type":"metrics","seq":2}\\n')
        data = b""
        while data.count(b"\\n") < 2:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        sys.stdout.write(data.decode())
        """

    @Test(
        "metrics are refused to a client outside the admins while a view has an access list; the denial is counted",
        .enabled(if: OtherUserClient.isAvailable, "needs root, setpriv and /usr/bin/python3"),
        arguments: [true, false])
    func outsiderRefused(withAccessList: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        try directory.write("outsider.py", Self.outsiderScript)
        let access = withAccessList ? ", access: {users: [0]}" : ""
        let config = """
            {screens: [{name: "main", width: 1280, height: 768, root: {id: "main", children: [
              {id: "button", frame: [0, 0, 640, 768]\(access)}, {id: "other", frame: [640, 0, 640, 768]}]}}]}
            """
        let daemon = try self.daemon(
            directory, config: config, frames: Self.taps([(100, 100)]), extraArguments: ["--socket-mode", "0666"])
        defer { daemon.stop() }
        let text = try OtherUserClient.run(script: directory.file("outsider.py"), arguments: [daemon.socketPath])
        let replies = try text.split(separator: "\n").map {
            try DaemonMessageDecoder.decode(line: Array($0.utf8)).get()
        }
        guard replies.count == 2 else { throw HarnessError("outsider got \(text)") }
        let admin = try subscriber(daemon)
        let parsed = try metrics(admin)
        if withAccessList {
            guard case .error(let error) = replies[1] else { throw HarnessError("outsider was served: \(replies[1])") }
            #expect(error.code == .permissionDenied && error.seq == 2)
            #expect(parsed.value("touchrouter_requests_refused_total", ["reason": "access-denied"]) == 1)
        } else {
            guard case .metrics(_, let outsiderText, let seq) = replies[1] else {
                throw HarnessError("outsider refused: \(replies[1])")
            }
            #expect(seq == 2 && outsiderText.hasSuffix("# EOF\n"))
            #expect(parsed.value("touchrouter_requests_refused_total", ["reason": "access-denied"]) == 0)
        }
    }

    @Test("10,000 views, 300 touched: 128 view labels and one (other) per screen; every touch counted once")
    func tenThousandViews() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var views: [String] = []
        for row in 0..<100 {
            for column in 0..<100 {
                views.append(
                    "{id: \"v\(row)_\(column)\", frame: [\(Double(column) * 12.8), \(Double(row) * 7.68), 12.8, 7.68]}")
            }
        }
        let config = """
            {screens: [{name: "main", width: 1280, height: 768, root: {id: "main", children: [\(views.joined(separator: ","))]}}]}
            """
        // 300 taps, each in another cell's centre.
        let points: [(Int32, Int32)] = (0..<300).map { (index: Int) -> (Int32, Int32) in
            let column = Int32(index % 100)
            let row = Int32(index / 100) * 10
            return (column * 128 / 10 + 6, row * 768 / 100 + 3)
        }
        let daemon = try self.daemon(directory, config: config, frames: Self.taps(points))
        defer { daemon.stop() }
        let client = try subscriber(daemon)
        try waitForTouchesToEnd(client, count: 300)
        let parsed = try metrics(client)
        let viewSamples = parsed.family("touchrouter_view_touches")
        #expect(viewSamples.count == 129)
        let values: [Double] = viewSamples.map { $0.value }
        #expect(viewSamples.filter { $0.labels["view"] == "(other)" }.map { $0.value } == [172])
        #expect(values.reduce(0, +) == 300)
        #expect(parsed.value("touchrouter_touches_total", ["screen": "main"]) == 300)
        #expect(parsed.value("touchrouter_subscribed_views") == 10_001)
        // The whole text stays small: the samples do not grow with the views.
        #expect(parsed.samples.count < 250)
    }

    @Test("a device name with quotes, backslashes and braces stays one label value, read back whole")
    func hostileDeviceName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let name = "evil\"} 1 \\\" # EOF {x=\"y"
        let description = try String(contentsOfFile: FieldRecording.description, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("N: ") ? "N: \(name)" : String($0) }.joined(separator: "\n")
        try directory.write("evil.desc", description)
        let daemon = try self.daemon(
            directory, config: FieldRecording.config("filters: {minContactMs: 20}"),
            frames: [(0.0, [.down(0, 100, 100)]), (0.01, [.up(0)]), (0.5, [.down(0, 100, 100)]), (0.6, [.up(0)])],
            description: directory.file("evil.desc"))
        defer { daemon.stop() }
        let client = try subscriber(daemon)
        try waitForTouchesToEnd(client, count: 1)
        for format in MetricsFormat.allCases {
            let parsed = try metrics(client, format: format)
            #expect(parsed.value("touchrouter_blips_dropped_total", ["device": name]) == 1)
            #expect(parsed.family("touchrouter_blips_dropped").count == 1)
        }
    }
}
