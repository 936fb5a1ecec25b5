import Foundation
import Testing
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol

/// The real daemon replaying a recording to a client that asked for gestures only and one that
/// asked for raw touches: each gets exactly what the tracker and the recognisers compute.
@Suite("Gestures: the real daemon, a replayed recording", .serialized)
struct GestureDeliveryTests {
    static let config = """
        { screens: [{ name: "main", width: 1280, height: 768, physicalSize: [154, 92],
            root: { id: "panel", multipleTouch: true,
                    gestures: ["tap", { type: "tap", taps: 2 }, "longPress", "pan", "pinch"] } }] }
        """

    @Test("a gestures-only client gets the pan of the 4-finger drag; a raw client gets its touches cancelled by it")
    func replayedGestures() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("gestures.json5", Self.config)
        let configPath = directory.file("gestures.json5")
        let config = try loadConfig(path: configPath)
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(config: configPath, waitFor: 2) + ["--exit-after-replay"])
        defer { daemon.stop() }
        let gesturesOnly = try LineClient(socketPath: daemon.socketPath)
        try gesturesOnly.send(
            ClientRequest(
                .subscribe(views: ["panel"], subtree: false, delivery: Delivery(touches: false, gestures: true)),
                seq: 1))
        let raw = try LineClient(socketPath: daemon.socketPath)
        try raw.send(ClientRequest(.subscribe(views: ["panel"], subtree: false), seq: 1))
        let gestureLines = try gesturesOnly.readUntilEOF()
        let rawLines = try raw.readUntilEOF()

        // What the tracker and the recognisers make of the same frames.
        let recording = try Recording.load(path: Scenario.fourFingerDrag)
        let scale = config.physicalScale(forScreen: "main", deviceSize: recording.device.physicalSize)
        #expect(scale.source == .config)
        var tracker = TouchTracker(layout: config.layout)
        var stage = GestureStage(viewGestures: config.viewGestures)
        var expectedGestures: [GestureMessage] = []
        var expectedTouches: [TouchesMessage] = []
        for event in try Expected.events(recording: Scenario.fourFingerDrag, config: config) {
            guard case .frame(let frame) = event else { continue }
            let output = stage.process(
                tracker.process(event, subscribedViews: Set(["panel"])), scale: scale,
                timestampMicros: frame.timestampMicros)
            expectedGestures += output.gestures.map(GestureMessage.init)
            expectedTouches += output.touches.map(TouchesMessage.init)
        }
        #expect(expectedGestures.first?.gesture == "pan" && expectedGestures.first?.state == "began")
        #expect(expectedGestures.first?.touchIDs.count == 4)
        #expect(expectedGestures.last?.state == "ended")

        #expect(gestureLines.compactMap(\.gesture) == expectedGestures)
        #expect(gestureLines.compactMap(\.touches).isEmpty)
        #expect(rawLines.compactMap(\.gesture).isEmpty)
        #expect(rawLines.compactMap(\.touches) == expectedTouches)
        let reasons = Set(rawLines.compactMap(\.touches).flatMap(\.touches).compactMap(\.reason))
        #expect(reasons == ["gesture"])
        #expect(try daemon.waitForExit() == 0)
    }

    /// What the tracker and the recognisers make of the 4-finger drag on `config`'s view "panel".
    static func expectedGestures(config: Config) throws -> [GestureMessage] {
        let recording = try Recording.load(path: Scenario.fourFingerDrag)
        let scale = config.physicalScale(forScreen: "main", deviceSize: recording.device.physicalSize)
        var tracker = TouchTracker(layout: config.layout)
        var stage = GestureStage(viewGestures: config.viewGestures)
        var expected: [GestureMessage] = []
        for event in try Expected.events(recording: Scenario.fourFingerDrag, config: config) {
            guard case .frame(let frame) = event else { continue }
            let output = stage.process(
                tracker.process(event, subscribedViews: Set(["panel"])), scale: scale,
                timestampMicros: frame.timestampMicros)
            expected += output.gestures.map(GestureMessage.init)
        }
        return expected
    }

    /// A daemon replaying the 4-finger drag on `config` once one client subscribed.
    static func replayingDaemon(_ directory: TemporaryDirectory) throws -> (DaemonProcess, Config) {
        try directory.write("gestures.json5", Self.config)
        let configPath = directory.file("gestures.json5")
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments(config: configPath) + ["--exit-after-replay"])
        return (daemon, try loadConfig(path: configPath))
    }

    @Test("touchrouterctl monitor --gestures prints one line per gesture message, between the raw touches")
    func monitorGestures() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (daemon, config) = try Self.replayingDaemon(directory)
        defer { daemon.stop() }
        let monitor = try TouchrouterctlProcess.run(["monitor", "panel", "--gestures", "--socket", daemon.socketPath])
        let lines = monitor.stdoutLines
        #expect(lines.first == "watching panel (layout generation 1); Ctrl-C to stop")
        let expected = try Self.expectedGestures(config: config)
        #expect(expected.count > 2)
        let gestureLines = lines.filter { $0.hasPrefix("panel  gesture ") }
        #expect(gestureLines.count == expected.count, "\(gestureLines.prefix(3))")
        for (line, message) in zip(gestureLines, expected) {
            #expect(line.hasPrefix("panel  gesture \(message.gesture) \(message.state)  local ("), "\(line)")
            #expect(line.contains("  touches \(message.touchIDs.map(String.init).joined(separator: ","))"), "\(line)")
            if message.gesture == "pan" { #expect(line.contains("  translation ("), "\(line)") }
        }
        // The raw touches still come (the monitor did not say touches: false), the pan's cancelled.
        #expect(lines.contains { $0.hasPrefix("panel  touch ") && $0.contains(" began ") })
        #expect(lines.contains { $0.hasPrefix("panel  touch ") && $0.contains("(gesture)") })
        // The pan begins after its touches began, and its end is the last gesture line.
        let firstGesture = try #require(lines.firstIndex { $0.hasPrefix("panel  gesture pan began") })
        let firstTouch = try #require(lines.firstIndex { $0.hasPrefix("panel  touch ") })
        #expect(firstTouch < firstGesture)
        #expect(gestureLines.last?.hasPrefix("panel  gesture pan ended") == true)
        #expect(monitor.stderr.contains("shutting-down"))
        #expect(try daemon.waitForExit() == 0)
    }

    @Test("python-client.py --gestures prints the gesture messages with their location and fields")
    func pythonGestures() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (daemon, config) = try Self.replayingDaemon(directory)
        defer { daemon.stop() }
        let script = Paths.packageRoot.appendingPathComponent("examples/python-client.py").path
        let run = try ProgramRun("python3", [script, "--socket", daemon.socketPath, "--gestures", "panel"])
        let lines = run.lines
        #expect(lines.first == "subscribed: ['panel']")
        let expected = try Self.expectedGestures(config: config)
        // Python's `:g` is C's `%g`; the wire carries the same doubles (the message round-trips).
        let expectedLines = expected.map { message in
            "panel \(message.gesture) \(message.state) at "
                + String(format: "(%g, %g)", message.localPoint.x, message.localPoint.y)
        }
        let gestureLines = lines.filter { $0.hasPrefix("panel ") && !$0.hasPrefix("panel touch ") }
        #expect(gestureLines.count == expectedLines.count)
        for (line, (prefix, message)) in zip(gestureLines, zip(expectedLines, expected)) {
            #expect(line.hasPrefix(prefix), "\(line) vs \(prefix)")
            if message.gesture == "pan" { #expect(line.contains(" {'translation': ["), "\(line)") }
        }
        #expect(gestureLines.first?.hasPrefix("panel pan began at (") == true)
        #expect(lines.contains { $0.hasPrefix("panel touch ") && $0.contains(" began at ") })
        #expect(lines.last == "error shutting-down the daemon is stopping")
        #expect(run.status == 0)
    }

    @Test("a config with a bad gesture does not start the daemon, and says where")
    func badGestureConfig() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(
            "bad.json5",
            #"{ screens: [{ name: "main", width: 10, height: 10, root: { id: "r", gestures: ["tapp"] } }] }"#)
        let daemon = try DaemonProcess(
            directory: directory, arguments: ["--config", directory.file("bad.json5")], waitUntilListening: false)
        #expect(try daemon.waitForExit() == 1)
        #expect(daemon.log.contains(#"unknown gesture "tapp" (did you mean "tap"?)"#))
    }
}
