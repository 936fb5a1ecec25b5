import Foundation
import Testing
import TouchRouterProtocol

/// `--exit-after-replay` and recognition: a recording that ends with a single tap on a view that
/// also recognises a double tap ends while that tap still waits to see whether a second comes. The
/// daemon fires what recognition still owes before it stops, so the tap is delivered.
@Suite("Replay end: pending recognition is settled", .serialized)
struct ReplayEndGestureTests {
    @Test("the recording's last single tap is delivered before --exit-after-replay stops the daemon")
    func lastSingleTapDelivered() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(
            "taps.json5",
            """
            {screens: [{name: "main", width: 1280, height: 768,
              root: {id: "main", children: [
                {id: "button", frame: [0, 0, 640, 768], gestures: ["tap", {type: "tap", taps: 2}]}]}}]}
            """)
        // One tap, 50 ms long, then the recording ends (the double tap's interval is 300 ms).
        try directory.write("tap.events", FieldRecording.events([(1.0, [.down(0, 100, 100)]), (1.05, [.up(0)])]))
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("taps.json5"), "--replay", directory.file("tap.events"),
                "--replay-device", FieldRecording.description, "--speed", "0", "--replay-wait-for", "1",
                "--exit-after-replay",
            ])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.send(
            ClientRequest(
                .subscribe(views: ["button"], subtree: false, delivery: Delivery(touches: false, gestures: true)),
                seq: 1))
        let gestures = try client.readUntilEOF().compactMap(\.gesture)
        #expect(gestures.map { "\($0.gesture) \($0.state)" } == ["tap recognized"])
        #expect(gestures.first?.viewID == "button")
        #expect(try daemon.waitForExit() == 0)
    }
}
