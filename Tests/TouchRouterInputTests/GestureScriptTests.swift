import Testing
import TouchRouterCore

@testable import TouchRouterInput

@Suite("GestureScript")
struct GestureScriptTests {
    let spec = VirtualDeviceSpec.defaultTouchscreen(width: 1000, height: 500, slots: 4)

    /// Decodes the events into (slot, tracking id or position) per SYN_REPORT, as a reader would.
    func frames(_ events: [InjectedEvent]) -> [[String]] {
        var frames: [[String]] = []
        var current: [String] = []
        var slot: Int32 = 0
        for event in events {
            switch (event.type, event.code) {
            case (LinuxInputCode.evSyn, LinuxInputCode.synReport):
                frames.append(current)
                current = []
            case (LinuxInputCode.evAbs, LinuxInputCode.absMTSlot): slot = event.value
            case (LinuxInputCode.evAbs, LinuxInputCode.absMTTrackingID):
                current.append("s\(slot) id \(event.value)")
            case (LinuxInputCode.evAbs, LinuxInputCode.absMTPositionX):
                current.append("s\(slot) x \(event.value)")
            case (LinuxInputCode.evAbs, LinuxInputCode.absMTPositionY):
                current.append("s\(slot) y \(event.value)")
            case (LinuxInputCode.evKey, LinuxInputCode.btnTouch): current.append("touch \(event.value)")
            default: break
            }
        }
        return frames
    }

    @Test("tap: one down frame with BTN_TOUCH, one up frame")
    func tap() throws {
        let events = try GestureScript.events(scripts: ["tap 100 200"], spec: spec)
        #expect(
            frames(events) == [["s0 id 1", "s0 x 100", "s0 y 200", "touch 1"], ["s0 id -1", "touch 0"]])
        #expect(events.last?.timeMicros == 60_000)
    }

    @Test("layout units are scaled to the axis range")
    func layoutUnits() throws {
        let events = try GestureScript.events(scripts: ["tap 50 25"], spec: spec, screenSize: (100, 50))
        #expect(frames(events).first == ["s0 id 1", "s0 x 500", "s0 y 250", "touch 1"])
    }

    @Test("a pinch uses two slots moving apart; concurrent scripts get their own slots")
    func pinchAndConcurrent() throws {
        let events = try GestureScript.events(scripts: ["pinch 500 250 10 100 100", "tap 1 1"], spec: spec)
        let decoded = frames(events)
        #expect(
            decoded.first == [
                "s0 id 1", "s0 x 490", "s0 y 250", "s1 id 2", "s1 x 510", "s1 y 250",
                "s2 id 3", "s2 x 1", "s2 y 1", "touch 1",
            ])
        #expect(decoded.last == ["s0 id -1", "s1 id -1", "touch 0"])
        #expect(decoded.dropLast().last == ["s0 x 400", "s0 y 250", "s1 x 600", "s1 y 250"])
    }

    @Test(
        "gestures separated by ; play one after another",
        arguments: ["tap 1 1; tap 2 2", "drag 0 0 10 10 50; tap 3 3"])
    func sequential(script: String) throws {
        let events = try GestureScript.events(scripts: [script], spec: spec)
        let downs = frames(events).joined().filter { $0.hasPrefix("s0 id") && $0 != "s0 id -1" }
        #expect(downs.count == 2)
        #expect(events.map(\.timeMicros) == events.map(\.timeMicros).sorted())
    }

    @Test("bad scripts name the gesture", arguments: ["tap 1", "drag 1 2 3 x", "swipe 1 2", "wait -5"])
    func rejects(script: String) {
        #expect(throws: GestureScriptError.self) { try GestureScript.events(scripts: [script], spec: spec) }
    }

    @Test("more fingers than slots is refused")
    func tooManyFingers() {
        #expect(throws: GestureScriptError.self) {
            try GestureScript.events(scripts: ["pinch 1 1 1 1", "pinch 2 2 2 2", "tap 1 1"], spec: spec)
        }
    }
}
