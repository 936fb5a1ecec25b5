import Foundation
import Glibc
import Testing
import TouchRouterProtocol

@Suite("Bad clients: malformed input, over-long lines, too many clients", .serialized)
struct BadClientTests {
    /// One bad line each, and the error code it must get; the connection stays usable after it.
    static let malformedCorpus: [(line: [UInt8], code: ErrorCode)] = [
        (Array("{".utf8), .malformedJSON),
        (Array("hello daemon".utf8), .malformedJSON),
        (Array("[1, 2, 3]".utf8), .malformedJSON),
        (Array("{\"type\":\"".utf8) + [0xFF, 0xFE] + Array("\"}".utf8), .malformedJSON),
        (Array("{\"version\":1}".utf8), .invalidMessage),
        (Array("{\"type\":42}".utf8), .invalidMessage),
        (Array("{\"type\":\"frobnicate\"}".utf8), .unknownType),
        (Array("{\"type\":\"hello\",\"version\":\"one\"}".utf8), .invalidMessage),
        (Array("{\"type\":\"hello\",\"version\":2}".utf8), .unsupportedVersion),
        (Array("{\"type\":\"subscribe\",\"views\":\"left\"}".utf8), .invalidMessage),
        (Array("{\"type\":\"subscribe\",\"views\":[\"left\",\"nope\"]}".utf8), .unknownViews),
        (Array("{\"type\":\"unsubscribe\"}".utf8), .invalidMessage),
        (Array("{\"type\":\"hitTest\",\"screen\":\"side\",\"point\":[1,2]}".utf8), .unknownScreen),
        (Array("{\"type\":\"hitTest\",\"point\":[1]}".utf8), .invalidMessage),
        (Array("{\"type\":\"status\",\"seq\":-1}".utf8), .invalidMessage),
    ]

    @Test("each malformed line gets its error code and the connection is kept", arguments: malformedCorpus)
    func malformedLine(line: [UInt8], code: ErrorCode) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments())
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.sendRaw(line + [0x0A])
        let reply = try client.readReply()
        #expect(reply.errorCode == code, "\(String(decoding: line, as: UTF8.self)) → \(reply)")
        try client.send(ClientRequest(.status, seq: 99))
        guard case .status(let status) = try client.readReply() else {
            Issue.record("the connection did not survive \(String(decoding: line, as: UTF8.self))")
            return
        }
        #expect(status.seq == 99)
        #expect(daemon.process.isRunning)
    }

    @Test("a line over 64 KiB gets line-too-long and the connection is closed")
    func overLongLine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments())
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        let prefix = Array("{\"type\":\"hello\",\"version\":1,\"client\":\"".utf8)
        // The daemon may close before reading all of it: a failed send is fine.
        try? client.sendRaw(prefix + [UInt8](repeating: UInt8(ascii: "x"), count: 70_000))
        let messages = try client.readUntilEOF()
        #expect(messages.map(\.errorCode) == [.lineTooLong])
        try daemon.waitForLog("disconnected: sent a line over 64 KiB")
        // The daemon itself carries on.
        let next = try LineClient(socketPath: daemon.socketPath)
        guard case .welcome = try next.hello("next") else {
            Issue.record("no welcome after the over-long line")
            return
        }
    }

    /// A daemon whose client queues hold 16 MiB (so it goes on reading), and a client that sent 900
    /// `status` requests, then `then`, and never reads: the replies fill its socket.
    static func clientNotReading(_ directory: TemporaryDirectory, then: String = "") throws -> (
        DaemonProcess, LineClient
    ) {
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments() + ["--client-queue-bytes", "16777216"])
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.sendRaw(Array((String(repeating: "{\"type\":\"status\"}\n", count: 900) + then).utf8))
        return (daemon, client)
    }

    /// A flooder that never reads: 900 status replies fill its socket (a large queue keeps the
    /// daemon reading), then blank lines spend its request budget, so its final line cannot be
    /// written; the daemon still closes it, 2 s after cutting it off.
    @Test("a cut-off client that never reads its final line is closed all the same")
    func cutOffClientNeverReading() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (daemon, flooder) = try Self.clientNotReading(directory, then: String(repeating: "\n", count: 3000))
        defer { daemon.stop() }
        try daemon.waitForLog("disconnected: flooding")
        withExtendedLifetime(flooder) {}
    }

    /// A client that stopped reading, its socket full of replies, delays a stop by 2 s at most:
    /// the daemon exits though its last lines for that client cannot be written (10 s allowed).
    @Test("SIGTERM does not wait long for a client that does not read")
    func stopDespiteAClientNotReading() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (daemon, stalled) = try Self.clientNotReading(directory)
        defer { daemon.stop() }
        usleep(1_000_000)  // the replies written and queued
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit(timeoutSeconds: 10) == 0)
        withExtendedLifetime(stalled) {}
    }

    @Test("clients beyond --max-clients get too-many-clients and are closed")
    func maxClients() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments() + ["--max-clients", "2"])
        defer { daemon.stop() }
        let first = try LineClient(socketPath: daemon.socketPath)
        let second = try LineClient(socketPath: daemon.socketPath)
        try first.hello("one")
        try second.hello("two")
        let third = try LineClient(socketPath: daemon.socketPath)
        #expect(try third.readUntilEOF().map(\.errorCode) == [.tooManyClients])
        // A place frees up when one leaves.
        shutdown(first.fd, Int32(SHUT_RDWR))
        try daemon.waitForLog("client 1 (\"one\"")
        try daemon.waitForLog("disconnected")
        let fourth = try LineClient(socketPath: daemon.socketPath)
        guard case .welcome = try fourth.hello("four") else {
            Issue.record("no welcome once a place was free")
            return
        }
    }

    @Test(
        "out of file descriptors, the daemon stops accepting until a client leaves, then resumes",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"),
            "needs prlimit (util-linux; scripts/setup installs it)"))
    func outOfDescriptors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments(),
            launcher: ["/usr/bin/prlimit", "--nofile=16"])
        defer { daemon.stop() }
        var clients: [LineClient] = []
        for index in 0..<16 {
            let client = try LineClient(socketPath: daemon.socketPath)
            try client.send(ClientRequest(.hello(version: 1, client: "fd-\(index)")))
            clients.append(client)
        }
        try daemon.waitForLog("not accepting until a client disconnects")
        let accepted = daemon.log.components(separatedBy: " connected\n").count - 1
        #expect(accepted > 0 && accepted < 16)
        for client in clients.prefix(accepted) {
            guard case .welcome = try client.readReply() else {
                Issue.record("an accepted client got no welcome")
                return
            }
        }
        shutdown(clients[0].fd, Int32(SHUT_RDWR))
        guard case .welcome = try clients[accepted].readReply() else {
            Issue.record("the first waiting client was not accepted after a place freed up")
            return
        }
        #expect(daemon.process.isRunning)
    }

    @Test("hitTest, status and reload answer with the request's seq")
    func requests() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments())
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.send(ClientRequest(.hitTest(screen: "main", screenPoint: .init(1000, 100)), seq: 3))
        guard case .hitTestResult(let hit) = try client.readReply() else {
            Issue.record("no hit-test reply")
            return
        }
        #expect(hit.viewID == "right-edge")
        #expect(hit.path == ["panel", "right", "right-edge"])
        #expect(hit.localPoint == .init(60, 100))
        #expect(hit.seq == 3)
        try client.send(ClientRequest(.status, seq: 4))
        guard case .status(let status) = try client.readReply() else {
            Issue.record("no status reply")
            return
        }
        #expect(status.seq == 4)
        #expect(status.counters["clients"] == .integer(1))
        // This test runs as the daemon's own user, so it may ask for a reload (the file is unchanged).
        try client.send(ClientRequest(.reload, seq: 5))
        #expect(try client.readReply() == .reloaded(generation: 1, seq: 5))
    }
}
