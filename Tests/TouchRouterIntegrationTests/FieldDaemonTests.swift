import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

/// A made-up evemu recording on the EP0430M09's description (axes 0…1279 × 0…767): the field
/// kit's streams, written by the test, replayed by the real daemon at speed 0 (the field stage
/// sees the recorded spacing, so every outcome is fixed by the recording, not by the machine).
enum FieldRecording {
    static let description = Paths.recordings.appendingPathComponent("evemu/EP0430M09.desc").path

    /// Frames `(seconds, changes)` as an evemu `.events` file (its device is `description`).
    static func events(_ frames: [(Double, [TestRecording.Change])]) -> String {
        TestRecording.evemu(header: "# EVEMU 1.3", TestRecording.events(frames))
    }

    /// A 1280 × 768 screen (raw units are layout units) with `button` on the left half and
    /// `other` on the right, and the given screen keys.
    static func config(_ keys: String) -> String {
        """
        {screens: [{name: "main", width: 1280, height: 768, \(keys),
          root: {id: "main", children: [
            {id: "button", frame: [0, 0, 640, 768]}, {id: "other", frame: [640, 0, 640, 768]}]}}]}
        """
    }
}

/// The field kit in the real daemon: idle/active to subscribers, the swallowed waking touch and its
/// grace window, setScreenState, stuck points and the stuck cancel, counters in status, and no
/// wake-ups while nothing waits.
@Suite("Field kit: the real daemon", .serialized)
struct FieldDaemonTests {
    func daemon(
        _ directory: TemporaryDirectory, keys: String, frames: [(Double, [TestRecording.Change])],
        waitFor: Int = 1, extraArguments: [String] = []
    ) throws -> DaemonProcess {
        try daemon(
            directory, config: FieldRecording.config(keys), frames: frames, waitFor: waitFor,
            extraArguments: extraArguments)
    }

    /// The daemon with `config` instead of the one screen of `FieldRecording.config`.
    func daemon(
        _ directory: TemporaryDirectory, config: String, frames: [(Double, [TestRecording.Change])],
        waitFor: Int = 1, extraArguments: [String] = []
    ) throws -> DaemonProcess {
        try directory.write("field.json5", config)
        try directory.write("field.events", FieldRecording.events(frames))
        return try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("field.json5"), "--replay", directory.file("field.events"),
                "--replay-device", FieldRecording.description, "--speed", "0", "--replay-wait-for", "\(waitFor)",
            ] + extraArguments)
    }

    /// Reads messages until `count` of them are `idle`/`active` or `touches` (skipping replies).
    func events(_ client: LineClient, count: Int, timeoutSeconds: Double = 30) throws -> [DaemonMessage] {
        var seen: [DaemonMessage] = []
        while seen.count < count, let message = try client.readMessage(timeoutSeconds: timeoutSeconds) {
            switch message {
            case .screenState, .touches: seen.append(message)
            default: continue
            }
        }
        return seen
    }

    /// Sends a request and reads up to its reply, keeping the `idle`/`active` messages met on the way
    /// (the daemon tells subscribers before it answers).
    func request(_ client: LineClient, _ request: ClientRequest) throws -> (DaemonMessage, [ScreenStateChange]) {
        try client.send(request)
        var changes: [ScreenStateChange] = []
        while let message = try client.readMessage() {
            switch message {
            case .screenState(let change): changes.append(change)
            case .touches, .layoutChanged: continue
            default: return (message, changes)
            }
        }
        throw HarnessError("connection closed while waiting for a reply")
    }

    static func change(_ message: DaemonMessage) -> ScreenStateChange? {
        if case .screenState(let change) = message { return change }
        return nil
    }

    @Test("the waking touch and a second finger in its grace window are swallowed; idle and active are sent")
    func wakeSwallowsTheFirstTouch() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory, keys: "idle: {seconds: 1}, wake: {swallow: true, graceMs: 250}",
            frames: [
                (0.0, [.down(0, 100, 100)]), (0.1, [.down(1, 700, 300)]), (0.2, [.up(0)]), (0.3, [.up(1)]),
                (0.6, [.down(0, 200, 200)]), (0.7, [.up(0)]),
                (2.0, [.down(0, 300, 300)]), (2.1, [.up(0)]),
                (2.5, [.down(0, 400, 400)]), (2.6, [.up(0)]),
            ], waitFor: 2)
        defer { daemon.stop() }
        let admin = try LineClient(socketPath: daemon.socketPath)
        try admin.hello("blanker")
        try admin.send(ClientRequest(.subscribe(views: ["main"], subtree: true), seq: 1))
        _ = try admin.readReply()
        try admin.send(ClientRequest(.setScreenState(screen: "main", off: true), seq: 2))
        #expect(try admin.readReply() == .screenStateSet(screen: "main", off: true, seq: 2))

        let app = try LineClient(socketPath: daemon.socketPath)
        try app.hello("app")
        try app.send(ClientRequest(.subscribe(views: ["button"], subtree: false), seq: 1))
        _ = try app.readReply()
        let seen = try events(app, count: 8)
        #expect(
            Self.change(seen[0])
                == ScreenStateChange(screen: "main", isActive: true, reason: .touch, timestampMicros: 0))
        let firstTap = seen[1...2].compactMap(\.touches)
        #expect(firstTap.map { $0.touches.map(\.phase) } == [[.began], [.ended]])
        #expect(firstTap.first?.touches.first?.screenPoint == Point(200, 200))
        #expect(
            Self.change(seen[3])
                == ScreenStateChange(screen: "main", isActive: false, reason: .timeout, timestampMicros: 1_700_000))
        #expect(
            Self.change(seen[4])
                == ScreenStateChange(screen: "main", isActive: true, reason: .touch, timestampMicros: 2_000_000))
        let secondTap = seen[5...6].compactMap(\.touches)
        #expect(secondTap.first?.touches.first?.screenPoint == Point(400, 400))
        #expect(secondTap.first?.touches.first?.id == 2)
        // After the recording, the real timer: idle 1 s after the last lift (recorded time 2.6 s).
        #expect(
            Self.change(seen[7])
                == ScreenStateChange(screen: "main", isActive: false, reason: .timeout, timestampMicros: 3_600_000))
        // The right-half finger inside the grace window reached nobody: the admin's subtree saw
        // only the two delivered taps, up to the last idle.
        var adminTouches: [TouchesMessage] = []
        while let message = try admin.readMessage(timeoutSeconds: 10) {
            if let touches = message.touches { adminTouches.append(touches) }
            if Self.change(message)?.timestampMicros == 3_600_000 { break }
        }
        #expect(adminTouches.count == 4)
        #expect(adminTouches.allSatisfy { $0.viewID == "button" })
    }

    @Test("setScreenState needs a known screen and a valid state; on wakes without a touch")
    func setScreenStateRequests() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The replay waits for a second subscriber that never comes: no touch interferes.
        let daemon = try self.daemon(
            directory, keys: "wake: {swallow: true}", frames: [(0, [.down(0, 1, 1)])], waitFor: 2)
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("blanker")
        try client.send(#"{"type":"setScreenState","screen":"nowhere","state":"off","seq":1}"#)
        #expect(try client.readReply().errorCode == .unknownScreen)
        try client.send(#"{"type":"setScreenState","screen":"main","state":"dim","seq":2}"#)
        #expect(try client.readReply().errorCode == .invalidMessage)
        try client.send(#"{"type":"setScreenState","screen":"main","seq":3}"#)
        #expect(try client.readReply().errorCode == .invalidMessage)
        try client.send(ClientRequest(.subscribe(views: ["other"], subtree: false), seq: 4))
        _ = try client.readReply()
        let (offReply, offChanges) = try request(
            client, ClientRequest(.setScreenState(screen: "main", off: true), seq: 5))
        #expect(offReply == .screenStateSet(screen: "main", off: true, seq: 5))
        let (onReply, onChanges) = try request(
            client, ClientRequest(.setScreenState(screen: "main", off: false), seq: 6))
        #expect(onReply == .screenStateSet(screen: "main", off: false, seq: 6))
        let changes = offChanges + onChanges
        #expect(changes.map(\.isActive) == [false, true] && changes.allSatisfy { $0.reason == .admin })
        #expect(daemon.log.contains("set screen main off"))
    }

    /// idle and active go to the clients subscribed to a view of that screen, and only to them.
    @Test("a second screen's idle goes to its own subscribers, not the first screen's")
    func screenStateToItsScreensSubscribers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let twoScreens = """
            {screens: [{name: "main", width: 1280, height: 768, root: {id: "main", children: [
              {id: "other", frame: [640, 0, 640, 768]}]}},
              {name: "side", width: 100, height: 100, root: {id: "sideRoot"}}]}
            """
        // The replay waits for a fourth subscriber that never comes: no touch interferes.
        let daemon = try self.daemon(directory, config: twoScreens, frames: [(0, [.down(0, 1, 1)])], waitFor: 4)
        defer { daemon.stop() }
        var subscribers: [LineClient] = []
        for view in ["other", "sideRoot"] {
            let client = try LineClient(socketPath: daemon.socketPath)
            try client.send(ClientRequest(.subscribe(views: [view], subtree: false), seq: 1))
            _ = try client.readReply()
            subscribers.append(client)
        }
        let admin = try LineClient(socketPath: daemon.socketPath)
        let (reply, _) = try request(admin, ClientRequest(.setScreenState(screen: "side", off: true), seq: 2))
        #expect(reply == .screenStateSet(screen: "side", off: true, seq: 2))
        // Each subscriber's status reply comes after any change the daemon sent it.
        let heard = try subscribers.map { try request($0, ClientRequest(.status, seq: 3)).1.map(\.screen) }
        #expect(heard == [[], ["side"]])
    }

    /// The attack: a client that is not an admin tries to blank the screen (so that the next
    /// touch, on the emergency stop, is swallowed). Refused, and nothing changes.
    @Test(
        "setScreenState from a client that is not an admin is refused and changes nothing",
        .enabled(
            if: OtherUserClient.isAvailable,
            "needs root, setpriv and /usr/bin/python3 to run a client as nobody"))
    func setScreenStateNeedsAnAdmin() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        try directory.write(
            "nobody.py",
            """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            s.sendall(b'{"type":"setScreenState","screen":"main","state":"off","seq":1}\\n')
            print(s.makefile(encoding="utf-8").readline().strip(), flush=True)
            """)
        let daemon = try self.daemon(
            directory, keys: "wake: {swallow: true}", frames: [(0, [.down(0, 1, 1)])], waitFor: 2,
            extraArguments: ["--socket-mode", "0666"])
        defer { daemon.stop() }
        let watcher = try LineClient(socketPath: daemon.socketPath)
        try watcher.send(ClientRequest(.subscribe(views: ["main"], subtree: false), seq: 1))
        _ = try watcher.readReply()
        let text = try OtherUserClient.run(script: directory.file("nobody.py"), arguments: [daemon.socketPath])
        guard case .success(.error(let refused)) = DaemonMessageDecoder.decode(line: Array(text.utf8.dropLast()))
        else {
            Issue.record("unexpected reply: \(text)")
            return
        }
        #expect(refused.code == .permissionDenied && refused.seq == 1)
        // No idle reached the subscriber: its next message is the reply to its own request.
        let (reply, changes) = try request(watcher, ClientRequest(.status, seq: 2))
        #expect(changes.isEmpty)
        guard case .status = reply else {
            Issue.record("no status reply")
            return
        }
        #expect(!daemon.log.contains("set screen main off"))
    }

    @Test("touchrouterctl screen NAME off|on")
    func screenCommand() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory, keys: "idle: {seconds: 600}", frames: [(0, [.down(0, 1, 1)])], waitFor: 2)
        defer { daemon.stop() }
        let watcher = try LineClient(socketPath: daemon.socketPath)
        try watcher.send(ClientRequest(.subscribe(views: ["other"], subtree: false), seq: 1))
        _ = try watcher.readReply()
        for state in ["off", "on"] {
            let run = try TouchrouterctlProcess.run(["screen", "main", state, "--socket", daemon.socketPath])
            #expect(run.exitCode == 0 && run.stdout == "screen main: \(state)\n")
        }
        let changes = try events(watcher, count: 2, timeoutSeconds: 5).compactMap(Self.change)
        #expect(changes.map(\.isActive) == [false, true])
        let bad = try TouchrouterctlProcess.run(["screen", "main", "dim", "--socket", daemon.socketPath])
        #expect(bad.exitCode == 2)
    }

    @Test("a stuck finger is cancelled with reason stuck, a corner ghost dropped, both counted in status")
    func stuckCancelAndStuckPoint() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory, keys: "filters: {maxStationarySeconds: 1, dropStuckPoints: true}",
            frames: [
                (0.0, [.down(0, 100, 100)]), (0.1, [.move(0, 110, 110)]),
                (0.2, [.down(1, 0, 0)]), (0.3, [.move(1, 0, 0)]), (0.4, [.up(1)]),
                (2.0, [.down(2, 700, 300)]), (2.1, [.move(0, 120, 120)]), (2.2, [.up(0)]), (2.3, [.up(2)]),
            ])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("app")
        try client.send(ClientRequest(.subscribe(views: ["main"], subtree: true), seq: 1))
        _ = try client.readReply()
        let touches = try events(client, count: 5).compactMap(\.touches)
        let button = touches.filter { $0.viewID == "button" }.flatMap(\.touches).filter { $0.id == 1 }
        #expect(button.map(\.phase) == [.began, .moved, .cancelled])
        #expect(button.last?.reason == "stuck")
        let other = touches.filter { $0.viewID == "other" }.flatMap(\.touches)
        #expect(other.map(\.phase) == [.began, .ended] && other.allSatisfy { $0.id == 2 })
        try daemon.waitForLog("replay finished")
        try client.send(ClientRequest(.status, seq: 2))
        guard case .status(let status) = try client.readReply() else {
            Issue.record("no status reply")
            return
        }
        #expect(status.counters["cancelled-stuck"] == .integer(1))
        guard case .array(let devices) = status.counters["fieldDevices"], case .object(let device) = devices.first
        else {
            Issue.record("no fieldDevices in status: \(status.counters)")
            return
        }
        #expect(device["device"] == .string("EP0430M09"))
        #expect(device["stuck-cancels"] == .integer(1) && device["stuck-points"] == .integer(1))
        #expect(device["blips-dropped"] == .integer(0))
        #expect(daemon.log.contains("touch device EP0430M09: stuck-points began"))
        #expect(daemon.log.contains("touch device EP0430M09: stuck-cancels began"))
    }

    @Test("a blip and a bounce are dropped whole by the real daemon and counted; the taps around them pass")
    func blipAndBounce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try self.daemon(
            directory, keys: "filters: {minContactMs: 20, debounceMs: 60, debounceMM: 3}",
            frames: [
                (0.0, [.down(0, 100, 100)]), (0.010, [.up(0)]),  // a 10 ms blip…
                (0.2, [.down(0, 150, 150)]), (0.205, [.up(0)]),  // …and another in the same burst
                (0.5, [.down(0, 200, 200)]), (0.6, [.up(0)]),  // a tap…
                (0.63, [.down(0, 201, 200)]), (0.7, [.up(0)]),  // …and its bounce 30 ms later, 1 unit away
                (1.0, [.down(0, 300, 300)]), (1.1, [.up(0)]),
            ])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.send(ClientRequest(.subscribe(views: ["main"], subtree: true), seq: 1))
        _ = try client.readReply()
        let touches = try events(client, count: 4).compactMap(\.touches).flatMap(\.touches)
        #expect(touches.map(\.phase) == [.began, .ended, .began, .ended])
        #expect(touches.filter { $0.phase == .began }.map(\.screenPoint) == [Point(200, 200), Point(300, 300)])
        try daemon.waitForLog("replay finished")
        let (reply, _) = try request(client, ClientRequest(.status, seq: 2))
        guard case .status(let status) = reply, case .array(let devices) = status.counters["fieldDevices"],
            case .object(let device) = devices.first
        else {
            Issue.record("no fieldDevices in status")
            return
        }
        #expect(device["blips-dropped"] == .integer(2) && device["bounces"] == .integer(1))
        // Logged once per burst: the two blips are one line, the bounce another.
        #expect(daemon.log.components(separatedBy: "blips-dropped began").count == 2)
        #expect(daemon.log.components(separatedBy: "bounces began").count == 2)
    }

    /// The daemon's threads' voluntary context switches: each is a wake-up.
    static func wakeUps(_ pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            return total + (line.flatMap { Int($0.split(separator: "\t").last ?? "") } ?? 0)
        }
    }

    /// Idle costs one timer armed for its deadline and nothing else: no wake-up while it counts
    /// down (600 s here), none once the screen is idle, none without `idle`.
    @Test("no wake-ups while nothing is due: without idle, while idle counts down, once the screen is idle")
    func noPeriodicWakeUps() throws {
        for keys in ["filters: {maxStationarySeconds: 5}", "idle: {seconds: 600}", "idle: {seconds: 0.2}"] {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let daemon = try self.daemon(directory, keys: keys, frames: [(0, [.down(0, 1, 1)])], waitFor: 2)
            defer { daemon.stop() }
            let client = try LineClient(socketPath: daemon.socketPath)
            try client.send(ClientRequest(.subscribe(views: ["main"], subtree: false), seq: 1))
            _ = try client.readReply()
            if keys == "idle: {seconds: 0.2}" {
                let idle = try events(client, count: 1, timeoutSeconds: 10).compactMap(Self.change)
                #expect(idle.map(\.reason) == [.timeout])
            }
            let pid = daemon.process.processIdentifier
            usleep(300_000)  // the daemon goes back to sleep after its last reply
            let before = Self.wakeUps(pid)
            usleep(1_500_000)
            #expect(Self.wakeUps(pid) == before, "\(keys): the daemon woke up while nothing waited")
        }
    }
}
