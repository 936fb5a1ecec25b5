import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol

/// Clients that subscribe and never read, beside one that reads: the readers' stream is whole
/// and in order, and the stalled clients' queues are coalesced a few messages at a time as
/// touches arrive, never in one pass over a full queue (docs/protocol.md, "Limits and slow clients").
@Suite("Stalled readers: clients that never read cost the others nothing", .serialized)
struct StalledReaderTests {
    @Test("never-reading clients are coalesced a few messages per step; a reader gets every frame in order")
    func neverReadingClientsCostBoundedSteps() throws {
        let config = try loadConfig(path: Scenario.layoutPath)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stalledCount = 8
        // Real time: the reader keeps up; the stalled clients fill their sockets, then their
        // 64 KiB queues, which hold about a hundred messages when coalescing starts.
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(waitFor: stalledCount + 1, speed: "1") + [
                "--loop", "--client-queue-bytes", "65536", "--max-clients", "\(stalledCount + 4)",
            ])
        defer { daemon.stop() }
        var stalled: [LineClient] = []
        for _ in 0..<stalledCount {
            let client = try LineClient(socketPath: daemon.socketPath)
            try client.send(ClientRequest(.subscribe(views: ["panel"], subtree: true)))
            stalled.append(client)
        }
        let control = try LineClient(socketPath: daemon.socketPath)
        _ = try control.hello("control")
        let reader = try LineClient(socketPath: daemon.socketPath)
        try reader.hello("reader")
        try reader.send(ClientRequest(.subscribe(views: ["panel"], subtree: true)))

        let covered = Expected.covered(["panel"], subtree: true, layout: config.layout)
        let events = try Expected.events(recording: Scenario.fourFingerDrag, config: config, speed: 1)
        let firstPass = Expected.messages(events: events, layout: config.layout, subscribers: [covered])[0]
        var received: [TouchesMessage] = []
        var counters: [String: JSONValue] = [:]
        func coalesced() -> Int64 {
            if case .integer(let value)? = counters["coalescedMessages"] { return value }
            return 0
        }
        // Read on until every stalled client has been coalesced many times over.
        while received.count < firstPass.count || coalesced() < Int64(stalledCount * 300) {
            guard let message = try reader.readMessage() else {
                Issue.record("the reader was disconnected:\n\(daemon.log)")
                return
            }
            guard let touches = message.touches else { continue }
            received.append(touches)
            if received.count % 50 == 0 { counters = try AttackTests.status(control).counters }
        }
        #expect(Array(received.prefix(firstPass.count)) == firstPass)
        let log = daemon.log
        let readerLabel = "(\"reader\" pid=\(getpid()) uid=\(getuid()) gid=\(getgid()))"
        #expect(!log.contains("\(readerLabel) is behind") && !log.contains("\(readerLabel) disconnected"))
        // Each step of coalescing removed about as many messages as the one that arrived needed:
        // a 64 KiB queue of this stream holds about a hundred.
        guard case .integer(let mostInOneStep)? = counters["coalescedMostInOneStep"] else {
            Issue.record("no coalescedMostInOneStep counter: \(counters)")
            return
        }
        #expect(mostInOneStep >= 1 && mostInOneStep <= 8)
        // A total never goes down: what was coalesced for clients that left stays counted (two
        // leave, each after hundreds of coalesced messages; the status after each sees it gone).
        func status() throws -> [String: JSONValue] { try AttackTests.status(control).counters }
        var totals = [try status()["coalescedMessages"]?.integerValue ?? 0]
        for leaving in 0..<2 {
            Glibc.shutdown(stalled[leaving].fd, Int32(SHUT_RDWR))
            let remaining = Int64(stalledCount + 2 - (leaving + 1))
            var after = try status()
            for _ in 0..<1000 where after["clients"]?.integerValue != remaining {
                usleep(2000)
                after = try status()
            }
            #expect(after["clients"]?.integerValue == remaining)
            totals.append(after["coalescedMessages"]?.integerValue ?? 0)
        }
        #expect(totals == totals.sorted(), "coalescedMessages went down: \(totals)")
        withExtendedLifetime(stalled) {}
    }
}
