import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol
import TouchRouterSystem

/// The layout and recordings the integration tests replay.
enum Scenario {
    static let layoutPath = Paths.fixtures.appendingPathComponent("layouts/ep0430m09-split.json5").path
    static func recording(_ name: String) -> String {
        Paths.recordings.appendingPathComponent("evemu/EP0430M09.\(name).events").path
    }
    static let fourFingerDrag = recording("4-finger-drag-down")
    static let oneFingerDrag = recording("1-finger-drag-up-down")

    /// The daemon replaying `recording` as fast as possible once `waitFor` clients subscribed.
    static func arguments(
        recording: String = fourFingerDrag, config: String = layoutPath, waitFor: Int = 1, speed: String = "0"
    ) -> [String] {
        ["--config", config, "--replay", recording, "--speed", speed, "--replay-wait-for", "\(waitFor)"]
    }
}

@Suite("Daemon lifecycle: socket, signals, reload", .serialized)
struct DaemonLifecycleTests {
    @Test("a second daemon on a live socket is refused with a clear error and a non-zero exit")
    func socketInUse() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try DaemonProcess(directory: directory, arguments: Scenario.arguments())
        defer { first.stop() }
        let second = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments(), waitUntilListening: false)
        let status = try second.waitForExit()
        #expect(status != 0)
        #expect(second.log.contains("another touchrouterd is already listening"))
        // The first one is untouched and still serves.
        let client = try LineClient(socketPath: first.socketPath)
        guard case .welcome = try client.hello("after-refusal") else {
            Issue.record("no welcome")
            return
        }
    }

    @Test("a stale socket file from a crashed run is replaced")
    func staleSocketReplaced() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socketPath = directory.file("stale.sock")
        // Bind and close without unlinking: what a crash leaves behind.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = try #require(UnixSocketAddress(path: socketPath)).withSockaddr { bind(fd, $0, $1) }
        #expect(bound == 0)
        close(fd)
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments(), socketName: "stale.sock")
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .welcome = try client.hello("stale") else {
            Issue.record("no welcome")
            return
        }
        var status = stat()
        stat(socketPath, &status)
        #expect(status.st_mode & 0o777 == 0o660)
    }

    @Test("SIGTERM mid-touch delivers cancelled with reason shutdown, then the daemon exits 0")
    func sigtermCancelsActiveTouches() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Slowed down 20×, so the drag is still going when SIGTERM arrives.
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(recording: Scenario.oneFingerDrag, speed: "0.05"))
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("sigterm")
        try client.send(ClientRequest(.subscribe(views: ["panel"], subtree: true)))
        _ = try client.readReply()
        var began: UInt64?
        while began == nil, let message = try client.readMessage() {
            began = message.touches?.touches.first { $0.phase == .began }?.id
        }
        let touchID = try #require(began)
        daemon.signal(SIGTERM)
        let rest = try client.readUntilEOF()
        let cancelled = rest.compactMap(\.touches).flatMap(\.touches).filter {
            $0.id == touchID && $0.phase == .cancelled
        }
        #expect(cancelled.count == 1)
        #expect(cancelled.first?.cancelReason == .shutdown)
        #expect(rest.last?.errorCode == .shuttingDown)
        #expect(try daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the socket file is removed")
    }

    @Test("SIGHUP with a broken config keeps the layout; a good one is swapped in and announced")
    func sighupReload() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.file("layout.json5")
        try FileManager.default.copyItem(atPath: Scenario.layoutPath, toPath: config)
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments(config: config))
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("reload")

        try "{ screens: [ { name: \"main\", width: -5 } ] }".write(
            toFile: config, atomically: false, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitForLog("failed; keeping layout generation 1")
        try client.send(ClientRequest(.layout, seq: 7))
        guard case .layout(let kept) = try client.readReply() else {
            Issue.record("no layout reply")
            return
        }
        #expect(kept.generation == 1)
        #expect(kept.seq == 7)
        #expect(LayoutIndexProbe.ids(kept.layout).contains("right-edge"))
        try client.send(ClientRequest(.status, seq: 8))
        guard case .status(let status) = try client.readReply() else {
            Issue.record("no status reply")
            return
        }
        // The write itself (inotify) and the SIGHUP are both reload attempts: one or two failures.
        guard case .integer(let reloadsFailed)? = status.counters["reloadsFailed"] else {
            Issue.record("no reloadsFailed counter in \(status.counters)")
            return
        }
        #expect((1...2).contains(reloadsFailed))

        let smaller = """
            { screens: [ { name: "main", width: 1280, height: 768,
              root: { id: "panel", children: [ { id: "left", frame: [0, 0, 640, 768] } ] } } ] }
            """
        try smaller.write(toFile: config, atomically: false, encoding: .utf8)
        daemon.signal(SIGHUP)
        var announced: UInt64?
        while announced == nil, let message = try client.readMessage() {
            if case .layoutChanged(let generation) = message { announced = generation }
        }
        #expect(announced == 2)
        try client.send(ClientRequest(.layout))
        guard case .layout(let swapped) = try client.readReply() else {
            Issue.record("no layout reply")
            return
        }
        #expect(swapped.generation == 2)
        #expect(!LayoutIndexProbe.ids(swapped.layout).contains("right-edge"))
    }

    @Test("a reload that removes a view cancels its touch; the subscription resumes when it returns")
    func reloadRemovesAndRestoresAView() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.file("layout.json5")
        let original = try String(contentsOfFile: Scenario.layoutPath, encoding: .utf8)
        try original.write(toFile: config, atomically: true, encoding: .utf8)
        // The one-finger drag starts at (605, 136): inside "left". Slowed 20× to reload mid-touch.
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(recording: Scenario.oneFingerDrag, config: config, speed: "0.05"))
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("reload-mid-touch")
        try client.send(ClientRequest(.subscribe(views: ["left"], subtree: false)))
        var began: UInt64?
        while began == nil, let message = try client.readMessage() {
            began = message.touches?.touches.first { $0.phase == .began }?.id
        }
        let touchID = try #require(began)

        let withoutLeft = """
            { screens: [ { name: "main", width: 1280, height: 768,
              root: { id: "panel", children: [ { id: "right", frame: [640, 0, 640, 768] } ] } } ] }
            """
        try withoutLeft.write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        var cancelReason: CancelReason?
        var generation: UInt64?
        while generation == nil, let message = try client.readMessage() {
            if let touch = message.touches?.touches.first(where: {
                $0.id == touchID && $0.phase == .cancelled
            }) {
                cancelReason = touch.cancelReason
            }
            if case .layoutChanged(let number) = message { generation = number }
        }
        #expect(cancelReason == .viewRemoved, "the cancel comes before layoutChanged")
        #expect(generation == 2)
        try client.send(ClientRequest(.status))
        guard case .status(let afterRemoval) = try client.readReply() else {
            Issue.record("no status")
            return
        }
        #expect(afterRemoval.counters["subscribedViewCount"] == .integer(0))
        let ownLeft = JSONValue.array([.object(["view": .string("left"), "subtree": .bool(false)])])
        #expect(afterRemoval.counters["ownSubscriptions"] == ownLeft, "kept by id while the view is gone")

        try original.write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        generation = nil
        while generation == nil, let message = try client.readMessage() {
            if case .layoutChanged(let number) = message { generation = number }
        }
        #expect(generation == 3)
        try client.send(ClientRequest(.status))
        guard case .status(let afterReturn) = try client.readReply() else {
            Issue.record("no status")
            return
        }
        #expect(afterReturn.counters["subscribedViewCount"] == .integer(1), "resumed by id")
        #expect(afterReturn.counters["ownSubscriptions"] == ownLeft)
    }

    @Test("an editor's rename-on-save of the config reloads it (inotify on the directory)")
    func renameOnSaveReloads() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.file("layout.json5")
        try FileManager.default.copyItem(atPath: Scenario.layoutPath, toPath: config)
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments(config: config))
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("inotify")
        let text = try String(contentsOfFile: config, encoding: .utf8)
            .replacingOccurrences(of: "right-edge", with: "right-corner")
        try text.write(toFile: directory.file(".layout.json5.swp"), atomically: false, encoding: .utf8)
        #expect(rename(directory.file(".layout.json5.swp"), config) == 0)
        var announced: UInt64?
        while announced == nil, let message = try client.readMessage() {
            if case .layoutChanged(let generation) = message { announced = generation }
        }
        #expect(announced == 2)
    }

    /// The scheduling policy (`SCHED_OTHER` 0, `SCHED_FIFO` 1) and nice value of each of a
    /// process's threads, from `/proc/PID/task/TID/stat` (fields 41 and 19).
    static func threadScheduling(pid: Int32) -> [(tid: Int32, policy: Int, nice: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { name in
            guard let tid = Int32(name),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // Fields from the third on, after the parenthesised command name.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 38, let nice = Int(fields[19 - 3]), let policy = Int(fields[41 - 3]) else {
                return nil
            }
            return (tid, policy, nice)
        }
    }

    @Test(
        "--realtime-priority: the loop's thread runs SCHED_FIFO, the reload worker drops to normal at nice 10",
        .enabled(if: getuid() == 0, "SCHED_FIFO needs root (CAP_SYS_NICE) here"))
    func realtimeLoop() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.file("layout.json5")
        try FileManager.default.copyItem(atPath: Scenario.layoutPath, toPath: config)
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments(config: config) + ["--realtime-priority", "3"])
        defer { daemon.stop() }
        try daemon.waitForLog("routing at SCHED_FIFO priority 3")
        let pid = daemon.process.processIdentifier
        let main = Self.threadScheduling(pid: pid).first { $0.tid == pid }
        #expect(main?.policy == Int(SCHED_FIFO), "\(Self.threadScheduling(pid: pid))")

        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("realtime")
        let text = try String(contentsOfFile: config, encoding: .utf8)
            .replacingOccurrences(of: "right-edge", with: "right-corner")
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        var announced: UInt64?
        while announced == nil, let message = try client.readMessage() {
            if case .layoutChanged(let generation) = message { announced = generation }
        }
        #expect(announced == 2)
        // The thread that built the reload is still there (Dispatch keeps idle workers a while).
        let threads = Self.threadScheduling(pid: pid)
        #expect(
            threads.contains { $0.tid != pid && $0.policy == Int(SCHED_OTHER) && $0.nice == 10 },
            "no reload worker at SCHED_OTHER, nice 10: \(threads)")
    }

    @Test("--realtime-priority without the right to it: one warning, and the daemon routes as usual")
    func realtimeRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // No RLIMIT_RTPRIO, and (for root) no CAP_SYS_NICE after exec.
        let launcher =
            getuid() == 0
            ? [
                "/usr/bin/prlimit", "--rtprio=0", "/usr/bin/setpriv", "--bounding-set=-sys_nice",
                "--inh-caps=-sys_nice",
            ]
            : ["/usr/bin/prlimit", "--rtprio=0"]
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments() + ["--realtime-priority", "3"], launcher: launcher)
        defer { daemon.stop() }
        try daemon.waitForLog("--realtime-priority 3: sched_setscheduler(SCHED_FIFO): Operation not permitted")
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("normal")
        try client.send(#"{"type":"subscribe","views":["left"],"seq":1}"#)
        var touches = 0
        while let message = try client.readMessage() {
            if case .touches = message { touches += 1 }
            if touches > 0 { break }
        }
        #expect(touches > 0)
    }
}

/// Every view id of a layout (test helper).
enum LayoutIndexProbe {
    static func ids(_ layout: Layout) -> Set<String> {
        var ids = Set<String>()
        func walk(_ view: View) {
            ids.insert(view.id)
            view.children.forEach(walk)
        }
        layout.screens.forEach { walk($0.root) }
        return ids
    }
}
