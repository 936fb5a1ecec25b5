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
