/// The attacks an adversarial test of the daemon found (issue 17), each reproduced against the real
/// binary and held: what lands on the config path, clients that flood, oversized input, lost
/// inotify events, a sibling daemon's socket, numbers that used to trap.
import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

@Suite("Attacks: the daemon holds", .serialized)
struct AttackTests {
    /// Asks `status` and returns the reply (skipping touches and layoutChanged on the way).
    static func status(_ client: LineClient, seq: Int64 = 90) throws -> StatusReply {
        try client.send(ClientRequest(.status, seq: seq))
        guard case .status(let status) = try client.readReply() else { throw HarnessError("no status reply") }
        return status
    }

    /// Reads until a `layoutChanged` arrives and returns its generation.
    static func nextLayoutChange(_ client: LineClient) throws -> UInt64 {
        while let message = try client.readMessage() {
            if case .layoutChanged(let generation) = message { return generation }
        }
        throw HarnessError("connection closed before layoutChanged")
    }

    /// A daemon on the split layout written to `kiosk.json5` in a fresh directory (so saves there
    /// reload it), and a client that said hello. The caller removes the directory and stops the daemon.
    static func watchedDaemon(arguments extra: [String] = [])
        throws -> (TemporaryDirectory, config: String, DaemonProcess, LineClient)
    {
        let directory = try TemporaryDirectory()
        let config = directory.file("kiosk.json5")
        try directory.write("kiosk.json5", TestLayout.split())
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments(config: config) + extra)
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("watcher")
        return (directory, config, daemon, client)
    }

    // MARK: The config path

    @Test("a FIFO renamed onto the config path never blocks the daemon; the next real save loads")
    func fifoAtConfigPath() throws {
        let (directory, config, daemon, client) = try Self.watchedDaemon()
        defer { directory.remove() }
        defer { daemon.stop() }

        #expect(mkfifo(directory.file("fifo.tmp"), 0o644) == 0)
        #expect(rename(directory.file("fifo.tmp"), config) == 0)
        try daemon.waitForLog("is a FIFO (named pipe), not a config file")
        // Still serving: a request is answered, and the layout did not change.
        #expect(try Self.status(client).counters["generation"] == .integer(1))

        // Replacing the FIFO with a real file is picked up as usual.
        try directory.write("kiosk.json5", TestLayout.split(rightEdgeID: "right-edge-2"))
        #expect(try Self.nextLayoutChange(client) == 2)
        // SIGTERM still works: the daemon was never stuck in open().
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    @Test("a symlink loop at the config path is named as such, not as a missing file")
    func symlinkLoop() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.file("kiosk.json5")
        try directory.write("kiosk.json5", TestLayout.split())
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments(config: config))
        defer { daemon.stop() }
        // A link to its own name, renamed onto the config path: kiosk.json5 → kiosk.json5.
        #expect(symlink("kiosk.json5", directory.file("self.tmp")) == 0)
        #expect(rename(directory.file("self.tmp"), config) == 0)
        try daemon.waitForLog("symbolic link loop")
        #expect(daemon.process.isRunning)
    }

    @Test("a large broken file is refused in short log lines, and the daemon keeps serving")
    func largeBrokenFile() throws {
        let (directory, config, daemon, client) = try Self.watchedDaemon()
        defer { directory.remove() }
        defer { daemon.stop() }
        // A key of 2 MB: the old daemon echoed it whole into its log line.
        let huge = "{ " + String(repeating: "A", count: 2_000_000) + ": 1 }"
        try huge.write(toFile: config, atomically: true, encoding: .utf8)
        try daemon.waitForLog("failed; keeping layout generation 1")
        let longest = daemon.log.split(separator: "\n").map(\.utf8.count).max() ?? 0
        #expect(longest <= 4096 + 64, "a log line of \(longest) bytes")
        #expect(try Self.status(client).counters["generation"] == .integer(1))
    }

    @Test("a save made while inotify's queue overflowed is not lost")
    func inotifyOverflow() throws {
        let (directory, _, daemon, client) = try Self.watchedDaemon()
        defer { directory.remove() }
        defer { daemon.stop() }

        let queueLimit =
            Int(
                (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16384
        daemon.signal(SIGSTOP)
        for index in 0..<(queueLimit + 100) {
            let fd = open(directory.file("noise-\(index)"), O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
            close(fd)
        }
        try directory.write("kiosk.json5", TestLayout.split(rightEdgeID: "right-edge-2"))
        daemon.signal(SIGCONT)
        #expect(try Self.nextLayoutChange(client) == 2)
        #expect(daemon.log.contains("inotify queue overflowed"))
    }

    @Test("the config directory moved away is retried once a second, and watched again once made again")
    func directoryReplaced() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        mkdir(directory.file("etc"), 0o755)
        let config = directory.file("etc/kiosk.json5")
        try TestLayout.split().write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments(config: config))
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("watcher")

        #expect(rename(directory.file("etc"), directory.file("etc.old")) == 0)
        try daemon.waitForLog("was moved or deleted")
        // Retried once a second while it is missing: 4 tries in 4.5 s (3 or more under load).
        usleep(4_500_000)
        #expect(daemon.log.components(separatedBy: "; retrying every second").count - 1 >= 3, "\(daemon.log)")
        mkdir(directory.file("etc"), 0o755)
        try TestLayout.split(rightEdgeID: "right-edge-2").write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try Self.nextLayoutChange(client) == 2)
        try daemon.waitForLog("watching \(directory.file("etc")) again")
        // And the new directory really is watched: another save reloads.
        try TestLayout.split(rightEdgeID: "right-edge-3").write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try Self.nextLayoutChange(client) == 3)
    }

    @Test(
        "a reload that fails for want of descriptors names the errno and is retried once they are back",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
    func reloadRetriedAfterEMFILE() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.file("kiosk.json5")
        try directory.write("kiosk.json5", TestLayout.split())
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments(config: config),
            launcher: ["/usr/bin/prlimit", "--nofile=16"])
        defer { daemon.stop() }
        let watcher = try LineClient(socketPath: daemon.socketPath)
        try watcher.hello("watcher")
        // Use up the daemon's descriptors.
        var fillers: [LineClient] = []
        for _ in 0..<16 {
            let filler = try LineClient(socketPath: daemon.socketPath)
            fillers.append(filler)
        }
        try daemon.waitForLog("not accepting until a client disconnects")
        try directory.write("kiosk.json5", TestLayout.split(rightEdgeID: "right-edge-2"))
        try daemon.waitForLog("retrying in a second")
        #expect(daemon.log.contains("cannot be read: open: Too many open files"))
        #expect(!daemon.log.contains("NSCocoaErrorDomain"))
        #expect(!daemon.log.contains("accept: accept:"))
        fillers.removeAll()  // closes them: descriptors come back
        #expect(try Self.nextLayoutChange(watcher) == 2)
    }

    @Test("a reload that renames the screen cancels nothing and the replay goes on under the new name")
    func screenRenamed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.file("kiosk.json5")
        try directory.write("kiosk.json5", TestLayout.split())
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", config, "--replay", Scenario.fourFingerDrag, "--loop", "--speed", "2",
                "--replay-wait",
            ])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.send(ClientRequest(.subscribe(views: ["panel"], subtree: true), seq: 1))
        _ = try client.readReply()
        #expect(try Self.readTouches(client, count: 5).received == 5)
        try directory.write("kiosk.json5", TestLayout.split(screen: "front"))
        var cancelled: [CancelReason] = []
        var screensAfter = Set<String>()
        var touchesAfter = 0
        var changed = false
        while touchesAfter < 40, let message = try client.readMessage() {
            if case .layoutChanged = message { changed = true }
            guard let touches = message.touches else { continue }
            cancelled += touches.touches.compactMap(\.cancelReason)
            if changed {
                touchesAfter += 1
                screensAfter.insert(touches.screen)
            }
        }
        #expect(cancelled.isEmpty, "a rename cancelled \(cancelled)")
        #expect(screensAfter == ["front"])
        let status = try Self.status(client)
        #expect(status.counters["dropped-unknown-screen"] == .integer(0))
    }

    // MARK: Flooding clients

    /// A client that writes `chunk` in a loop until the daemon closes the connection, and reads
    /// what it is sent meanwhile (a flooder that reads its replies, so backpressure never holds it).
    final class Flooder: @unchecked Sendable {
        private let writerDone = DispatchSemaphore(value: 0)
        private let readerDone = DispatchSemaphore(value: 0)
        private var codes: [ErrorCode] = []
        private let connection: Connection

        /// The connection, shared by the writing and the reading thread (send and recv on one
        /// socket from two threads is safe; the line buffer is the reader's alone).
        final class Connection: @unchecked Sendable {
            let client: LineClient
            init(_ client: LineClient) { self.client = client }
        }

        init(socketPath: String, chunk: [UInt8]) throws {
            let connection = Connection(try LineClient(socketPath: socketPath))
            self.connection = connection
            let writerDone = self.writerDone
            let readerDone = self.readerDone
            Thread {
                // Write until the daemon hangs up (EPIPE / ECONNRESET).
                while (try? connection.client.sendRaw(chunk)) != nil {}
                writerDone.signal()
            }.start()
            Thread { [unowned self] in
                while let message = try? connection.client.readMessage() {
                    if let code = message.errorCode { codes.append(code) }
                }
                readerDone.signal()
            }.start()
        }

        /// Waits until the daemon has closed the connection; the error codes it sent. A daemon that
        /// never cuts the flooder off fails the test after a generous minute instead of hanging it.
        func finish() -> [ErrorCode] {
            if writerDone.wait(timeout: .now() + 60) == .timedOut {
                shutdown(connection.client.fd, Int32(SHUT_RDWR))
                writerDone.wait()
                readerDone.wait()
                return []
            }
            readerDone.wait()
            return codes
        }
    }

    /// Reads `count` touches messages; the longest gap between two of them, in ms (printed, never
    /// asserted: timing is the benchmark's business).
    static func readTouches(_ client: LineClient, count: Int) throws -> (received: Int, longestGapMs: Double) {
        var received = 0
        var longest = 0.0
        var last = Date()
        while received < count, let message = try client.readMessage() {
            guard message.touches != nil else { continue }
            received += 1
            longest = max(longest, Date().timeIntervalSince(last) * 1000)
            last = Date()
        }
        return (received, longest)
    }

    /// What a flooder writes, and how many flood at once.
    enum Flood: String, CaseIterable, CustomTestStringConvertible {
        case blankLines = "blank lines"
        case blankLinesTenClients = "blank lines, ten clients"
        case statusRequests = "valid status requests"
        case garbage = "garbage"

        var testDescription: String { rawValue }
        var flooders: Int { self == .blankLinesTenClients ? 10 : 1 }
        var chunk: [UInt8] {
            switch self {
            case .blankLines, .blankLinesTenClients: [UInt8](repeating: 0x0A, count: 1 << 20)
            case .statusRequests: Array(String(repeating: "{\"type\":\"status\"}\n", count: 4096).utf8)
            case .garbage: Array(String(repeating: "not json at all\n", count: 4096).utf8)
            }
        }
    }

    @Test(
        "a flooding client is cut off with too-many-requests while another subscriber's touches keep flowing",
        arguments: Flood.allCases)
    func flood(_ flood: Flood) throws {
        let (name, chunk, count) = (flood.rawValue, flood.chunk, flood.flooders)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", Scenario.layoutPath, "--replay", Scenario.fourFingerDrag, "--loop",
                "--speed", "4", "--replay-wait",
            ])
        defer { daemon.stop() }
        let subscriber = try TouchCounter(socketPath: daemon.socketPath)
        // Touches flow before the flood.
        try subscriber.waitFor(touches: 5)

        let flooders = try (0..<count).map { _ in try Flooder(socketPath: daemon.socketPath, chunk: chunk) }
        let floodStart = subscriber.received
        for flooder in flooders {
            #expect(flooder.finish().contains(.tooManyRequests), "\(name): the flooder was not told why")
        }
        try daemon.waitForLog("disconnected: flooding")
        // Touches kept flowing: the subscriber is served during and after the flood, never cut off.
        try subscriber.waitFor(touches: floodStart + 40)
        print("flood \(name): longest gap between the subscriber's touches \(subscriber.longestGapMs) ms")
        let status = try Self.status(LineClient(socketPath: daemon.socketPath))
        #expect(status.counters["clientsFlooding"] == .integer(Int64(count)))
        #expect(!daemon.log.contains("too slow"), "the subscriber was cut off")
        #expect(daemon.process.isRunning)
    }

    /// A subscriber to the whole panel that reads on its own thread, counting touches messages and
    /// the longest gap between two of them.
    final class TouchCounter: @unchecked Sendable {
        private let state = NSLock()
        private var count = 0
        private var longest = 0.0

        init(socketPath: String) throws {
            let client = try LineClient(socketPath: socketPath)
            try client.send(ClientRequest(.subscribe(views: ["panel"], subtree: true), seq: 1))
            guard case .subscribed = try client.readReply() else { throw HarnessError("not subscribed") }
            let box = Flooder.Connection(client)
            Thread { [self] in
                var last = Date()
                while let message = try? box.client.readMessage() {
                    guard message.touches != nil else { continue }
                    let now = Date()
                    state.withLock {
                        count += 1
                        if count > 1 { longest = max(longest, now.timeIntervalSince(last) * 1000) }
                    }
                    last = now
                }
            }.start()
        }

        var received: Int { state.withLock { count } }
        var longestGapMs: Double { state.withLock { longest } }

        /// Waits (generously; only a hang fails) until `touches` messages have arrived.
        func waitFor(touches: Int) throws {
            let deadline = Date().addingTimeInterval(60)
            while received < touches {
                if Date() > deadline { throw HarnessError("only \(received) of \(touches) touches arrived") }
                usleep(5_000)
            }
        }
    }

    @Test("400 status requests in one burst are all answered: backpressure, not a cut")
    func burstOfRequests() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments())
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        var burst: [UInt8] = []
        for seq in 1...400 { burst += ClientRequest(.status, seq: Int64(seq)).encodedLine() }
        try client.sendRaw(burst)
        var answered: [Int64] = []
        for _ in 1...400 {
            let reply = try client.readReply()
            if case .status(let status) = reply, let seq = status.seq { answered.append(seq) }
        }
        #expect(answered == Array(1...400))
        #expect(!daemon.log.contains("too slow"))
    }
}
