import Foundation
import Testing
import TouchRouterCore
import TouchRouterProtocol

/// A made-up `libinput record` file of several touch panels (each 0…1279 × 0…767, raw units are
/// layout units on the 1280 × 768 screen of `FieldRecording.config`), all on one clock.
enum MultiDeviceRecording {
    /// `devices` (name, frames `(seconds, changes)`) as one libinput record YAML file.
    static func text(_ devices: [(String, [(Double, [TestRecording.Change])])]) -> String {
        TestRecording.libinputRecord(
            devices.enumerated().map { index, device in
                (
                    node: "/dev/input/event\(10 + index)",
                    description: """
                    name: "\(device.0)"
                    id: [3, 1, \(index + 1), 1]
                    codes:
                      0: [0]
                      1: [330]
                      3: [0, 1, 47, 53, 54, 57]
                    absinfo:
                      0: [0, 1279, 0, 0, 0]
                      1: [0, 767, 0, 0, 0]
                      47: [0, 9, 0, 0, 0]
                      53: [0, 1279, 0, 0, 0]
                      54: [0, 767, 0, 0, 0]
                      57: [0, 65535, 0, 0, 0]
                    properties: [1]
                    """,
                    events: TestRecording.events(device.1)
                )
            })
    }
}

/// `filters` on a device matcher in the real daemon: two panels replayed on one screen, only the
/// matched panel's blips dropped and counted.
@Suite("Field filters per device matcher: the real daemon", .serialized)
struct FieldMatcherDaemonTests {
    /// The flaky panel taps at (100, 100) for 10 ms (a blip) and at (200, 200) for 100 ms; the good
    /// panel, the same two taps at x + 600 a little later. Only the flaky panel's matcher has
    /// `minContactMs: 30`.
    static let panels: [(String, [(Double, [TestRecording.Change])])] = [
        (
            "flaky panel",
            [(0.0, [.down(0, 100, 100)]), (0.010, [.up(0)]), (0.5, [.down(0, 200, 200)]), (0.6, [.up(0)])]
        ),
        ("good panel", [(0.2, [.down(0, 700, 100)]), (0.210, [.up(0)]), (0.8, [.down(0, 800, 200)]), (0.9, [.up(0)])]),
    ]

    static let devices = """
        devices: [{name: "flaky*", filters: {minContactMs: 30}}, {name: "good*"}]
        """

    /// The daemon under `field.json5` (the caller writes it), replaying the two panels at full speed
    /// once a client subscribes.
    static func replayPanels(in directory: TemporaryDirectory) throws -> DaemonProcess {
        try directory.write("panels.yml", MultiDeviceRecording.text(Self.panels))
        return try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", directory.file("field.json5"), "--replay", directory.file("panels.yml"), "--speed", "0",
                "--replay-wait",
            ])
    }

    /// Subscribes to the whole screen (which starts the replay), waits for its end, and returns every
    /// touch delivered and the `status` asked for after them.
    static func touchesUntilStatus(_ daemon: DaemonProcess) throws -> (touches: [WireTouch], status: StatusReply?) {
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("app")
        try client.send(ClientRequest(.subscribe(views: ["main"], subtree: true), seq: 1))
        _ = try client.readReply()
        try daemon.waitForLog("replay finished")
        try client.send(ClientRequest(.status, seq: 2))
        var touches: [WireTouch] = []
        var status: StatusReply?
        while status == nil, let message = try client.readMessage(timeoutSeconds: 30) {
            if let batch = message.touches { touches += batch.touches }
            if case .status(let reply) = message { status = reply }
        }
        return (touches, status)
    }

    @Test("two panels on one screen: only the matched panel's blip is dropped, and counted on it")
    func onlyTheMatchedPanelsBlipsAreDropped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("field.json5", FieldRecording.config(Self.devices))
        let daemon = try Self.replayPanels(in: directory)
        defer { daemon.stop() }
        let (touches, status) = try Self.touchesUntilStatus(daemon)
        let began = touches.filter { $0.phase == .began }
        #expect(
            began.map { "\($0.deviceName) \(Int($0.screenPoint.x)),\(Int($0.screenPoint.y))" } == [
                "good panel 700,100", "flaky panel 200,200", "good panel 800,200",
            ])
        #expect(touches.filter { $0.phase == .ended }.count == 3)
        guard case .array(let counted)? = status?.counters["fieldDevices"] else {
            Issue.record("no fieldDevices in status: \(String(describing: status))")
            return
        }
        let byName = Dictionary(
            uniqueKeysWithValues: counted.compactMap { value -> (String, [String: JSONValue])? in
                guard case .object(let object) = value, case .string(let name)? = object["device"] else { return nil }
                return (name, object)
            })
        #expect(byName["flaky panel"]?["blips-dropped"] == .integer(1))
        #expect((byName["good panel"]?["blips-dropped"] ?? .integer(0)) == .integer(0))
        #expect(daemon.log.contains("touch device flaky panel: blips-dropped began"))
        #expect(!daemon.log.contains("touch device good panel: blips-dropped"))
    }

    @Test("a reload re-resolves the replayed panels' matchers: the filter follows the matcher")
    func aReloadMovesTheFilter() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Before the replay starts, the config changes: now the good panel's matcher, listed first,
        // has the filter (so each panel's matcher index changes too).
        try directory.write("field.json5", FieldRecording.config(Self.devices))
        let daemon = try Self.replayPanels(in: directory)
        defer { daemon.stop() }
        try directory.write(
            "field.json5",
            FieldRecording.config(#"devices: [{name: "good*", filters: {minContactMs: 30}}, {name: "flaky*"}]"#))
        try daemon.waitForLog("layout generation 2")
        let began = try Self.touchesUntilStatus(daemon).touches.filter { $0.phase == .began }
            .map { "\($0.deviceName) \(Int($0.screenPoint.x))" }
        #expect(began == ["flaky panel 100", "flaky panel 200", "good panel 800"])
    }
}
