import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

/// Passthrough in the real daemon under `--replay` (no uinput here: the VM suite has the devices):
/// each passthrough frame is a log line, the native view's touches go to its subscriber, and
/// `status` lists the passing screen.
@Suite("Passthrough: the real daemon in replay mode", .serialized)
struct PassthroughDaemonTests {
    @Test("a tap in the passthrough root is logged as a frame; a tap on the native view reaches the socket")
    func replayLogsFrames() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(
            "pass.json5",
            """
            {screens: [{name: "main", width: 1280, height: 768,
              root: {id: "root", passthrough: true, children: [{id: "native", frame: [640, 0, 640, 768]}]}}]}
            """)
        try directory.write(
            "pass.events",
            FieldRecording.events([
                (0.0, [.down(0, 100, 100)]), (0.1, [.move(0, 110, 100)]), (0.2, [.up(0)]),
                (0.5, [.down(0, 700, 300)]), (0.6, [.up(0)]),
            ]))
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("pass.json5"), "--replay", directory.file("pass.events"),
                "--replay-device", FieldRecording.description, "--speed", "0", "--replay-wait-for", "1",
            ])
        defer { daemon.stop() }
        try daemon.waitForLog("passthrough: screen main: replay, its frames go to the log")
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("pin-pad")
        try client.send(ClientRequest(.subscribe(views: ["native"], subtree: false), seq: 1))
        _ = try client.readReply()
        var phases: [TouchPhase] = []
        while phases.last != .ended, let message = try client.readMessage(timeoutSeconds: 30) {
            guard let touches = message.touches else { continue }
            #expect(touches.viewID == "native")
            phases += touches.touches.map(\.phase)
        }
        #expect(phases == [.began, .ended])
        try daemon.waitForLog("passthrough main: up slot 0 id")
        let frames = daemon.log.split(separator: "\n").filter { $0.contains("passthrough main: ") }
        #expect(frames.count == 3)
        #expect(frames.first?.hasSuffix("down slot 0 id 0 (100.0, 100.0)") == true)
        #expect(frames.dropFirst().first?.hasSuffix("move slot 0 id 0 (110.0, 100.0)") == true)
        try client.send(ClientRequest(.status, seq: 2))
        guard case .status(let status) = try client.readReply(),
            case .array(let screens) = status.counters["passthrough"],
            case .object(let screen) = screens.first
        else {
            Issue.record("no passthrough in status")
            return
        }
        #expect(screen["screen"] == .string("main"))
        #expect(screen["active"] == .bool(true))
        #expect(screen["touchscreen"] == nil)  // replay: no device
        #expect(screen["touches-passed"] == .integer(1))
    }

    /// A reload that changes a passing screen's size makes its devices anew (here, in replay: the
    /// screen is stopped and started again); one that changes nothing of it keeps them.
    @Test("a reload that resizes a passing screen stops and starts it; an unrelated change keeps it")
    func reloadRemakesAChangedScreen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func config(width: Int, extraView: String = "") -> String {
            """
            {screens: [{name: "main", width: \(width), height: 768,
              root: {id: "root", passthrough: true, children: [{id: "native", frame: [640, 0, 640, 768]}\(extraView)]}}]}
            """
        }
        try directory.write("pass.json5", config(width: 1280))
        try directory.write("pass.events", FieldRecording.events([(0.0, [.down(0, 100, 100)]), (0.2, [.up(0)])]))
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("pass.json5"), "--replay", directory.file("pass.events"),
                "--replay-device", FieldRecording.description, "--speed", "0", "--replay-wait-for", "1",
            ])
        defer { daemon.stop() }
        let started = "passthrough: screen main: replay, its frames go to the log"
        try daemon.waitForLog(started)
        try directory.write("pass.json5", config(width: 1280, extraView: #", {id: "more", frame: [0, 0, 10, 10]}"#))
        try daemon.waitForLog("layout generation 2")
        try directory.write("pass.json5", config(width: 1024))
        try daemon.waitForLog("layout generation 3")
        try daemon.waitForLog(started, occurrences: 2)
        let stopped = "passthrough: screen main stopped"
        #expect(daemon.log.components(separatedBy: stopped).count == 2, "stopped once, at the resize:\n\(daemon.log)")
    }
}
