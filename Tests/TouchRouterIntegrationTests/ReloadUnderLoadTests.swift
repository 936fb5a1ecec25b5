/// Reloads are built off the routing thread: while a large layout is saved (twice in quick
/// succession, then broken), a replay keeps routing, every touch is whole, no touch ever names a
/// view of a layout the client has not been told about, and the newest file ends up live.
/// Ordering and completeness only; how long routing pauses is `touchrouter-bench`'s business.
import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

@Suite("Reload under load", .serialized)
struct ReloadUnderLoadTests {
    /// The split layout under `fillerCount` tiny views (behind `left` and `right`, so they take no
    /// touch), with `marker` as the right half's child id.
    static func layout(marker: String, fillerCount: Int = 20_000) -> String {
        var fillers: [String] = []
        fillers.reserveCapacity(fillerCount)
        for index in 0..<fillerCount {
            fillers.append("{ id: \"f\(index)\", frame: [\(index % 1200), \(index / 1200), 2, 2] }")
        }
        return TestLayout.split(rightEdgeID: marker, fillers: fillers)
    }

    /// Everything one subscriber received, in order, read on its own thread.
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [DaemonMessage] = []
        private let done = DispatchSemaphore(value: 0)

        init(_ client: LineClient) {
            let box = AttackTests.Flooder.Connection(client)
            Thread { [self] in
                while let message = try? box.client.readMessage() { lock.withLock { messages.append(message) } }
                done.signal()
            }.start()
        }

        var received: [DaemonMessage] { lock.withLock { messages } }
        var generations: [UInt64] {
            received.compactMap { if case .layoutChanged(let generation) = $0 { generation } else { nil } }
        }

        func waitUntil(_ condition: ([DaemonMessage]) -> Bool, what: String) throws {
            let deadline = Date().addingTimeInterval(120)
            while !condition(received) {
                if Date() > deadline { throw HarnessError("never: \(what)") }
                usleep(10_000)
            }
        }

        func waitForEnd() { done.wait() }
    }

    @Test("two quick saves and a broken one under a running replay: newest live, every touch whole")
    func reloadUnderLoad() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.file("kiosk.json5")
        try Self.layout(marker: "right-a").write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", config, "--replay", Scenario.fourFingerDrag, "--loop", "--speed", "1",
                "--replay-wait",
            ])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.send(ClientRequest(.subscribe(views: ["panel"], subtree: true), seq: 1))
        guard case .subscribed = try client.readReply() else { throw HarnessError("not subscribed") }
        let recorder = Recorder(client)
        try recorder.waitUntil({ $0.count >= 20 }, what: "touches before the saves")

        // Two saves in quick succession: the second must be what ends up live.
        try Self.layout(marker: "right-b").write(toFile: config, atomically: true, encoding: .utf8)
        try Self.layout(marker: "right-c").write(toFile: config, atomically: true, encoding: .utf8)
        let probe = try LineClient(socketPath: daemon.socketPath)
        func liveMarker() throws -> String? {
            try probe.send(ClientRequest(.hitTest(screen: "main", screenPoint: Point(1200, 300)), seq: 7))
            guard case .hitTestResult(let hit) = try probe.readReply() else { return nil }
            return hit.viewID
        }
        let deadline = Date().addingTimeInterval(120)
        while try liveMarker() != "right-c" {
            if Date() > deadline { throw HarnessError("the newest save never went live:\n\(daemon.log)") }
            usleep(20_000)
        }
        let generationAfterSaves = try AttackTests.status(probe).counters["generation"]
        guard case .integer(let generationNumber)? = generationAfterSaves else { throw HarnessError("no generation") }
        // A broken save, built in the background too, changes nothing.
        try "{ screens: [ { name: \"main\", width: 0 } ] }".write(toFile: config, atomically: true, encoding: .utf8)
        try daemon.waitForLog("failed; keeping layout generation \(generationNumber)")
        #expect(try liveMarker() == "right-c")
        // Routing goes on: the newest layout's view receives touches.
        try recorder.waitUntil(
            { $0.contains { if case .touches(let t) = $0 { t.viewID == "right-c" } else { false } } },
            what: "touches on the newest layout's view")
        daemon.signal(SIGTERM)
        recorder.waitForEnd()

        // Ordering: a touch never names a view of a layout the client has not been told about
        // (right-b/right-c only after the layoutChanged that brought them), and never an old
        // view after its removal was announced, but for the cancel sent before that announcement.
        var announced: UInt64 = 1
        var knownMarkers: Set<String> = ["right-a"]
        var phasesByTouch: [UInt64: [TouchPhase]] = [:]
        for message in recorder.received {
            switch message {
            case .layoutChanged(let generation):
                #expect(generation > announced, "generations only grow")
                announced = generation
                knownMarkers = ["right-b", "right-c"]  // either may be the one that went live
            case .touches(let touches):
                if touches.viewID.hasPrefix("right-") && touches.viewID != "right-edge" {
                    #expect(knownMarkers.contains(touches.viewID), "\(touches.viewID) before its layout was announced")
                }
                for touch in touches.touches { phasesByTouch[touch.id, default: []].append(touch.phase) }
            default: break
            }
        }
        #expect(recorder.generations.count <= 2, "two quick saves give at most two swaps")
        // Completeness: every touch began once and ended or was cancelled once, nothing after.
        for (id, phases) in phasesByTouch {
            guard phases.first == .began else { continue }  // began before we subscribed: not ours to judge
            let ends = phases.filter { $0 == .ended || $0 == .cancelled }
            #expect(ends.count == 1 && (phases.last == .ended || phases.last == .cancelled), "touch \(id): \(phases)")
        }
        #expect(try daemon.waitForExit() == 0)
    }
}
