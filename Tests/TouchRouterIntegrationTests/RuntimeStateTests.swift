/// Run-time state against the real daemon under attack: clients that mount and leave at once,
/// subscriptions that outlive their views, views squatted under another owner's subscription,
/// replies as large as the layout, and the on-loop cost of the layout-sized requests.
import Foundation
import Glibc
import Testing
import TouchRouterProtocol

@Suite("Run-time state under attack", .serialized)
struct RuntimeStateTests {
    /// A status reply's counters (touches and change notices before it are skipped).
    static func counters(_ client: LineClient, seq: Int) throws -> [String: JSONValue] {
        let (reply, _) = try RuntimeChangeTests.exchange(client, #"{"type":"status","seq":\#(seq)}"#)
        guard case .status(let status) = reply else { throw HarnessError("no status: \(reply)") }
        return status.counters
    }

    @Test("60 clients that mount and close at once leave nothing mounted, round after round")
    func departedMountsGo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try RuntimeChangeTests.startDaemon(directory)
        defer { daemon.stop() }
        let observer = try LineClient(socketPath: daemon.socketPath)
        var seq = 1
        for round in 0..<16 {
            var clients: [LineClient] = []
            for index in 0..<60 {
                let client = try LineClient(socketPath: daemon.socketPath)
                try client.send(
                    #"{"type":"mount","view":"layer","children":[{"id":"m\#(round)-\#(index)","frame":[0,0,9,9]}],"seq":1}"#
                )
                clients.append(client)
            }
            clients.removeAll()  // every one closes at once, its mount in flight
            // Settled: only the observer is connected and no build is in flight or queued.
            var settled: [String: JSONValue] = [:]
            for _ in 0..<500 {
                seq += 1
                settled = try Self.counters(observer, seq: seq)
                if settled["clients"]?.integerValue == 1 && settled["mountedSubtrees"]?.integerValue == 0 { break }
                usleep(10_000)
            }
            #expect(settled["clients"]?.integerValue == 1, "round \(round)")
            #expect(settled["mountedSubtrees"]?.integerValue == 0, "round \(round): \(settled)")
            // And it stays so once every build is done: nothing is mounted again behind the undo.
            usleep(200_000)
            seq += 1
            #expect(try Self.counters(observer, seq: seq)["mountedSubtrees"]?.integerValue == 0, "round \(round)")
            let text = String(
                decoding: try RuntimeChangeTests.exchange(observer, #"{"type":"layout","seq":\#(seq)}"#).reply
                    .encodedLine(), as: UTF8.self)
            #expect(!text.contains("\"m\(round)-"), "round \(round): a departed client's view is in the layout")
            // A touch there goes to the config's own view, not to a departed client's.
            let (hit, _) = try RuntimeChangeTests.exchange(observer, #"{"type":"hitTest","point":[500,500],"seq":1}"#)
            guard case .hitTestResult(let result) = hit else { throw HarnessError("no hit-test reply: \(hit)") }
            #expect(result.viewID == "layer", "round \(round)")
        }
    }
}
