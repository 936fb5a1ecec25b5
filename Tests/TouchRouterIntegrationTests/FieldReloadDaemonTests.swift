import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

/// Issue 26, item 13, against the real daemon: a reload that turns `idle` on while a finger moves.
@Suite("Field kit: a reload that turns idle on", .serialized)
struct FieldReloadDaemonTests {
    @Test("no idle while the finger that was moving through the reload is down; idle's time is on the touches' clock")
    func reloadTurningIdleOnUnderAFinger() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // One finger down at 0 s, moving every 50 ms, up at 3 s; replayed in real time.
        var frames: [(Double, [TestRecording.Change])] = [(0, [.down(0, 100, 100)])]
        for step in 1..<60 { frames.append((Double(step) * 0.05, [.move(0, Int32(100 + step * 5), 100)])) }
        frames.append((3.0, [.up(0)]))
        try directory.write("field.json5", FieldRecording.config("rotation: 0"))
        try directory.write("field.events", FieldRecording.events(frames))
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("field.json5"), "--replay", directory.file("field.events"),
                "--replay-device", FieldRecording.description, "--speed", "1", "--replay-wait-for", "1",
            ])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("app")
        try client.send(ClientRequest(.subscribe(views: ["main"], subtree: true), seq: 1))
        _ = try client.readReply()

        var reloaded = false
        var reloadedWhileDown = false
        var touchTimes: [UInt64] = []
        var changesWhileDown: [ScreenStateChange] = []
        var ended = false
        var idle: ScreenStateChange?
        while idle == nil, let message = try? client.readMessage(timeoutSeconds: 15) {
            switch message {
            case .touches(let touches):
                touchTimes.append(touches.timestampMicros)
                if !reloaded {
                    // The finger is down: turn idle on (0.2 s) under it.
                    reloaded = true
                    try FieldRecording.config("idle: {seconds: 0.2}").write(
                        toFile: directory.file("field.json5"), atomically: true, encoding: .utf8)
                }
                if touches.touches.contains(where: { $0.phase == .ended }) { ended = true }
            case .layoutChanged:
                if !ended { reloadedWhileDown = true }
            case .screenState(let change):
                if ended { idle = change } else { changesWhileDown.append(change) }
            default:
                continue
            }
        }
        try #require(reloadedWhileDown, "the reload came after the finger lifted: nothing was tested")
        #expect(changesWhileDown.isEmpty, "\(changesWhileDown)")
        let lastTouch = try #require(touchTimes.last)
        let change = try #require(idle)
        #expect(change.reason == .timeout && !change.isActive)
        // On the touches' clock (the recording's: the finger lifted at 3 s), 0.2 s after the lift.
        #expect(lastTouch == 3_000_000)
        #expect(change.timestampMicros >= lastTouch + 200_000, "idle at \(change.timestampMicros)")
        #expect(change.timestampMicros <= lastTouch + 5_000_000, "idle at \(change.timestampMicros)")
    }
}
