import Testing
import TouchRouterCore

@testable import TouchRouterInput

@Suite("GestureScript")
struct GestureScriptTests {
    let spec = VirtualDeviceSpec.defaultTouchscreen(width: 1000, height: 500, slots: 4)

    /// Decodes the events into (slot, tracking id or position) per SYN_REPORT, as a reader would.
    func frames(_ events: [EvdevEvent]) -> [[String]] {
        var frames: [[String]] = []
        var current: [String] = []
        var slot: Int32 = 0
        for event in events {
            switch (event.type, event.code) {
            case (EvdevCode.evSyn, EvdevCode.synReport):
                frames.append(current)
                current = []
            case (EvdevCode.evAbs, EvdevCode.absMtSlot): slot = event.value
            case (EvdevCode.evAbs, EvdevCode.absMtTrackingId):
                current.append("s\(slot) id \(event.value)")
            case (EvdevCode.evAbs, EvdevCode.absMtPositionX):
                current.append("s\(slot) x \(event.value)")
            case (EvdevCode.evAbs, EvdevCode.absMtPositionY):
                current.append("s\(slot) y \(event.value)")
            case (EvdevCode.evKey, EvdevCode.btnTouch): current.append("touch \(event.value)")
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
        #expect(events.last?.timestampMicros == 60_000)
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
        #expect(events.map(\.timestampMicros) == events.map(\.timestampMicros).sorted())
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

    /// On a device without slots the same scripts come out as protocol A, and the decoder (libmtdev,
    /// as libinput) reads them back as the scripted contacts: a drag and a pinch at once, three fingers
    /// that land together and lift at different times.
    @Test("protocol A: every finger every frame, decoded back through libmtdev")
    func protocolA() throws {
        let spec = VirtualDeviceSpec.defaultTouchscreen(width: 1000, height: 500, protocolA: true)
        #expect(spec.axis(EvdevCode.absMtSlot) == nil)
        #expect(spec.axis(EvdevCode.absMtTrackingId) == nil)
        let events = try GestureScript.events(
            scripts: ["drag 100 100 300 100 100", "pinch 700 300 50 150 200"], spec: spec)
        #expect(!events.contains { $0.code == EvdevCode.absMtSlot && $0.type == EvdevCode.evAbs })
        let reports = events.filter {
            $0.type == EvdevCode.evSyn && $0.code == EvdevCode.synMtReport
        }
        #expect(reports.count > 3 * 10)
        // The last frame: one lone SYN_MT_REPORT, BTN_TOUCH 0.
        #expect(
            events.suffix(3).map { [$0.type, $0.code] } == [
                [EvdevCode.evSyn, EvdevCode.synMtReport],
                [EvdevCode.evKey, EvdevCode.btnTouch],
                [EvdevCode.evSyn, EvdevCode.synReport],
            ])
        var absinfo: [UInt16: AbsInfo] = [:]
        for axis in spec.absoluteAxes {
            absinfo[axis.code] = AbsInfo(
                minimum: axis.minimum, maximum: axis.maximum, resolution: axis.resolution)
        }
        let device = RecordedDevice(
            name: spec.name, absinfo: absinfo, properties: Set(spec.properties),
            codes: [EvdevCode.evKey: [EvdevCode.btnTouch]])
        #expect(device.isProtocolA)
        let recording = Recording(
            device: device,
            events: events.map {
                EvdevEvent(timestampMicros: $0.timestampMicros, type: $0.type, code: $0.code, value: $0.value)
            })
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: InputDevice(id: 1, name: "test"), screen: "main",
            mapping: try ScreenMapping(screenWidth: 1000, screenHeight: 500), cancelRemainingAtEnd: false)
        let contacts = frames.flatMap { frame in frame.contacts.map { (frame.timestampMicros, $0) } }
        let downs = contacts.filter { $0.1.kind == .down }
        #expect(downs.map(\.1.screenPoint) == [Point(100, 100), Point(650, 300), Point(750, 300)])
        #expect(Set(downs.map(\.0)) == [0])
        let ups = contacts.filter { $0.1.kind == .up }
        #expect(ups.count == 3 && Set(ups.map(\.0)).count == 2)  // the drag ends before the pinch
        func last(_ slot: Int32) -> Point? {
            contacts.last { $0.1.slot == slot && $0.1.kind == .motion }?.1.screenPoint
        }
        // libmtdev's filter (fuzz 999 / 250 = 3, 499 / 250 = 1) may hold a final position back a little.
        for (slot, end) in [(Int32(0), Point(300, 100)), (1, Point(550, 300)), (2, Point(850, 300))] {
            let point = try #require(last(slot))
            #expect(Swift.abs(point.x - end.x) < 6 && Swift.abs(point.y - end.y) < 2)
        }
    }
}
