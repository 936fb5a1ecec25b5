import Testing
import TouchRouterCore

@testable import TouchRouterInput

/// Every fixture recording through a view covering the screen with every kind of recogniser: the
/// gestures written down after looking at the recordings (docs/gestures.md, "The fixture recordings").
@Suite("Gestures in the fixture recordings")
struct GestureRecordingTests {
    /// A 7-inch 15:9 panel (154 × 92 mm) for every recording: none of them reports a size.
    static let scale = PhysicalScale.resolve(
        deviceSize: nil, rotationDegrees: 0, configuredSize: PhysicalSize(widthMM: 154, heightMM: 92),
        screenWidth: 1000, screenHeight: 600)

    static func specs() -> [GestureSpec] {
        var double = GestureSpec(.tap)
        double.taps = 2
        var swipe = GestureSpec(.swipe)
        swipe.exclusive = false
        return [
            GestureSpec(.tap), double, GestureSpec(.longPress), GestureSpec(.pan), swipe,
            GestureSpec(.pinch), GestureSpec(.rotate),
        ]
    }

    /// The events of one recording as "kind state ×fingers", consecutive `changed` folded into one.
    static func gestures(_ relativePath: String) throws -> [String] {
        let recording = try Recording.load(path: Fixtures.path(relativePath))
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: InputDevice(id: 1, name: recording.device.name), screen: "main",
            mapping: try ScreenMapping(screenWidth: 1000, screenHeight: 600), physicalScale: scale)
        let pad = View(id: "pad", frame: Rect(x: 0, y: 0, width: 1000, height: 600), multipleTouch: true)
        let layout = Layout(screens: [
            Screen(
                name: "main", width: 1000, height: 600,
                root: View(id: "main", frame: Rect(x: 0, y: 0, width: 1000, height: 600), children: [pad]))
        ])
        var tracker = TouchTracker(layout: layout)
        var stage = GestureStage(viewGestures: ["pad": specs()])
        var events: [GestureEvent] = []
        for frame in frames {
            let batches = tracker.process(.frame(frame), subscribedViews: Set(["pad"]))
            events +=
                stage.process(batches, scale: frame.physicalScale, timestampMicros: frame.timestampMicros).gestures
        }
        events += stage.advance(to: (frames.last?.timestampMicros ?? 0) + 10_000_000).gestures
        var summary: [String] = []
        for event in events {
            var text = "\(event.kind.rawValue) \(event.state.rawValue) ×\(event.touchIDs.count)"
            if let taps = event.taps { text += " taps \(taps)" }
            if let direction = event.direction { text += " \(direction.rawValue)" }
            if event.state == .changed && summary.last == text { continue }
            summary.append(text)
        }
        return summary
    }

    /// Written down after looking at each recording (its contacts' times and places; see
    /// docs/gestures.md): nine quick taps in one spot are four double taps and, the window closing
    /// after the ninth, one single tap; two fingers held together are no gesture of these kinds (a
    /// one-finger tap or long press fails with two fingers down, nothing moves); a one-finger
    /// drag is a pan, fast enough at its start to also be a swipe (not exclusive here); the
    /// 4-finger drag is a 4-finger pan, the 2-finger scroll a 2-finger pan that one finger finishes.
    static let expected: [(String, [String])] = [
        (
            "evemu/Atmel maXTouch Touchscreen.1-finger-fast-taps.events",
            Array(repeating: "tap recognized ×1 taps 2", count: 4) + ["tap recognized ×1 taps 1"]
        ),
        ("evemu/Atmel maXTouch Touchscreen.2-fingers-touch-release.events", []),
        ("evemu/EP0430M09.2-fingers-touch-release.events", []),
        ("libinput/atmel-2-fingers-touch-release.yml", []),
        (
            "evemu/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events",
            ["pan began ×1", "pan changed ×1", "swipe recognized ×1 up", "pan changed ×1", "pan ended ×1"]
        ),
        (
            "evemu/EP0430M09.1-finger-drag-up-down.events",
            ["pan began ×1", "pan changed ×1", "swipe recognized ×1 down", "pan changed ×1", "pan ended ×1"]
        ),
        (
            "evemu/Atmel maXTouch Touchscreen.4-finger-drag-down.events",
            ["pan began ×4", "pan changed ×4", "pan ended ×3"]
        ),
        ("evemu/EP0430M09.4-finger-drag-down.events", ["pan began ×4", "pan changed ×4", "pan ended ×3"]),
        ("libinput/ep0430m09-4-finger-drag-down.yml", ["pan began ×4", "pan changed ×4", "pan ended ×3"]),
        (
            "evemu/EP0430M09.2-finger-scroll-down.events",
            ["pan began ×2", "pan changed ×2", "pan changed ×1", "pan ended ×1"]
        ),
    ]

    @Test("every fixture recording has an expectation")
    func everyRecordingCovered() {
        #expect(Set(Self.expected.map(\.0)) == Set(Fixtures.evemuEvents + Fixtures.libinputRecords))
    }

    @Test("each recording gives the gestures written down for it", arguments: expected)
    func recordingGestures(_ path: String, _ gestures: [String]) throws {
        #expect(try Self.gestures(path) == gestures)
    }
}
