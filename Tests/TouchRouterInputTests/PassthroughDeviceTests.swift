import Testing
import TouchRouterCore

@testable import TouchRouterInput

/// Passthrough's virtual devices: their descriptions, and frames turned into evdev events that the
/// replay decoder (which follows libinput, palm handling included) reads back as the frames meant.
@Suite("PassthroughDevice")
struct PassthroughDeviceTests {
    static let spec = PassthroughDevice.touchscreenSpec(
        screen: "main", width: 1000, height: 500, physicalSize: PhysicalSize(widthMM: 250, heightMM: 125))

    /// What libinput would make of `events` on the virtual touchscreen: the replay decoder's contacts.
    func decoded(_ events: [EvdevEvent]) throws -> [ContactEvent] {
        var absinfo: [UInt16: AbsInfo] = [:]
        for axis in Self.spec.absoluteAxes { absinfo[axis.code] = axis.info }
        let device = RecordedDevice(
            name: Self.spec.name, absinfo: absinfo, properties: Set(Self.spec.properties),
            codes: [EvdevCode.evKey: [EvdevCode.btnTouch], EvdevCode.evAbs: Set(absinfo.keys)])
        let frames = MultitouchDecoder.decode(
            Recording(device: device, events: events), inputDevice: InputDevice(id: 1, name: "virtual"),
            screen: "main", mapping: try ScreenMapping(screenWidth: 1000, screenHeight: 500),
            cancelRemainingAtEnd: false)
        return frames.flatMap(\.contacts)
    }

    func frame(_ contacts: PassthroughContact...) -> PassthroughFrame {
        PassthroughFrame(screen: "main", timestampMicros: 1000, contacts: contacts)
    }

    func contact(_ slot: Int, _ id: Int32, _ phase: PassthroughPhase, _ x: Double, _ y: Double) -> PassthroughContact {
        PassthroughContact(slot: slot, trackingID: id, phase: phase, location: Point(x, y))
    }

    func open() -> PassthroughEncoder {
        var encoder = PassthroughEncoder(width: 1000, height: 500)
        encoder.isOpen = true
        return encoder
    }

    @Test("the touchscreen: direct, BTN_TOUCH, slots, 16 axis units per layout unit, resolution from the size")
    func touchscreenSpec() {
        let spec = Self.spec
        #expect(spec.name == "touchrouter passthrough main")
        #expect(spec.properties == [EvdevCode.inputPropDirect])
        #expect(spec.codes == [EvdevCode.evKey: [EvdevCode.btnTouch]])
        #expect(spec.axis(EvdevCode.absX)?.info == AbsInfo(minimum: 0, maximum: 15_999, resolution: 64))
        #expect(spec.axis(EvdevCode.absMtPositionY)?.info == AbsInfo(minimum: 0, maximum: 7_999, resolution: 64))
        #expect(spec.axis(EvdevCode.absMtSlot)?.maximum == Int32(PassthroughDevice.slotCount - 1))
        #expect(spec.axis(EvdevCode.absMtToolType)?.maximum == EvdevCode.mtToolPalm)
        #expect(spec.axis(EvdevCode.absMtTrackingId) != nil)
        // Without a physical size: 96 layout units per inch, like the rest of touchrouter.
        let unsized = PassthroughDevice.touchscreenSpec(screen: "s", width: 100, height: 100, physicalSize: nil)
        #expect(unsized.axis(EvdevCode.absX)?.resolution == 60)  // 96 / 25.4 × 16 = 60.5
    }

    @Test("the pointer: absolute X/Y and two buttons, not direct, no touch")
    func pointerSpec() {
        let spec = PassthroughDevice.pointerSpec(screen: "main", width: 1000, height: 500, physicalSize: nil)
        #expect(spec.name == "touchrouter passthrough pointer main")
        #expect(spec.properties.isEmpty)
        #expect(spec.codes == [EvdevCode.evKey: [PassthroughDevice.btnLeft, PassthroughDevice.btnRight]])
        #expect(spec.absoluteAxes.map(\.code) == [EvdevCode.absX, EvdevCode.absY])
    }

    @Test("names: the reader's test, and long screen names cut to the kernel's 79 bytes")
    func names() {
        #expect(PassthroughDevice.isOwn(name: PassthroughDevice.touchscreenName(screen: "x")))
        #expect(PassthroughDevice.isOwn(name: PassthroughDevice.pointerName(screen: "x")))
        #expect(!PassthroughDevice.isOwn(name: "touchrouter virtual touchscreen"))
        #expect(!PassthroughDevice.isOwn(name: "Atmel maXTouch Touchscreen"))
        let long = PassthroughDevice.touchscreenName(screen: String(repeating: "é", count: 100))
        #expect(long.utf8.count <= 79 && long.hasPrefix("touchrouter passthrough é"))
    }

    @Test("a tap: down, move and up arrive as libinput would report them, at 1/16 unit")
    func tap() throws {
        var encoder = open()
        var events: [EvdevEvent] = []
        encoder.encode(frame(contact(0, 7, .down, 100, 100.25)), into: &events)
        encoder.encode(frame(contact(0, 7, .move, 120.5, 101)), into: &events)
        encoder.encode(frame(contact(0, 7, .up, 120.5, 101)), into: &events)
        let contacts = try decoded(events)
        #expect(contacts.map(\.kind) == [.down, .motion, .up])
        #expect(contacts[0].screenPoint == Point(100, 100.25))
        #expect(contacts[1].screenPoint == Point(120.5, 101))
        #expect(encoder.liveContactCount == 0)
        // BTN_TOUCH goes down with the first contact and up with the last; ABS_X follows it.
        let touch = events.filter { $0.code == EvdevCode.btnTouch && $0.type == EvdevCode.evKey }.map(\.value)
        #expect(touch == [1, 0])
        #expect(events.first { $0.code == EvdevCode.absX && $0.type == EvdevCode.evAbs }?.value == 1600)
        #expect(events.filter { $0.type == EvdevCode.evSyn }.count == 3)
    }

    @Test("a cancel is a palm then a release: libinput reports a cancel, never an up (a click)")
    func cancel() throws {
        var encoder = open()
        var events: [EvdevEvent] = []
        encoder.encode(frame(contact(0, 1, .down, 10, 10), contact(1, 2, .down, 500, 250)), into: &events)
        encoder.encode(frame(contact(1, 2, .cancel, 500, 250)), into: &events)
        encoder.encode(frame(contact(0, 1, .up, 10, 10)), into: &events)
        // The slot that was a palm carries a finger again: its next down is a normal touch.
        encoder.encode(frame(contact(1, 3, .down, 600, 250)), into: &events)
        encoder.encode(frame(contact(1, 3, .up, 600, 250)), into: &events)
        let contacts = try decoded(events)
        #expect(contacts.map(\.kind) == [.down, .down, .cancel, .up, .down, .up])
        #expect(contacts[4].screenPoint == Point(600, 250))
    }

    @Test("every contact is written in its slot; BTN_TOUCH stays down while any is")
    func twoFingers() throws {
        var encoder = open()
        var events: [EvdevEvent] = []
        encoder.encode(frame(contact(0, 1, .down, 10, 10)), into: &events)
        encoder.encode(frame(contact(1, 2, .down, 20, 20)), into: &events)
        encoder.encode(frame(contact(0, 1, .up, 10, 10), contact(1, 2, .move, 30, 30)), into: &events)
        encoder.encode(frame(contact(1, 2, .up, 30, 30)), into: &events)
        let contacts = try decoded(events)
        #expect(contacts.map(\.kind) == [.down, .down, .up, .motion, .up])
        #expect(events.filter { $0.code == EvdevCode.btnTouch && $0.type == EvdevCode.evKey }.map(\.value) == [1, 0])
        // ABS_X/Y follow the lowest slot down: slot 0, then slot 1 once slot 0 lifted.
        #expect(events.filter { $0.code == EvdevCode.absX && $0.type == EvdevCode.evAbs }.map(\.value) == [160, 480])
    }

    @Test("the gate: a contact that began while shut is never written, not even after it opens")
    func gate() throws {
        var encoder = PassthroughEncoder(width: 1000, height: 500)
        var events: [EvdevEvent] = []
        encoder.encode(frame(contact(0, 1, .down, 10, 10)), into: &events)
        encoder.isOpen = true
        encoder.encode(frame(contact(0, 1, .move, 20, 20)), into: &events)
        #expect(events.isEmpty)
        encoder.encode(frame(contact(1, 2, .down, 50, 50)), into: &events)
        encoder.encode(frame(contact(0, 1, .up, 20, 20), contact(1, 2, .up, 50, 50)), into: &events)
        let contacts = try decoded(events)
        #expect(contacts.map(\.kind) == [.down, .up])
        #expect(contacts.first?.screenPoint == Point(50, 50))
        #expect(encoder.heldBackCount == 1)
        // Shutting the gate leaves a written contact alone until its end.
        events = []
        encoder.encode(frame(contact(0, 3, .down, 1, 1)), into: &events)
        encoder.isOpen = false
        encoder.encode(frame(contact(0, 3, .up, 1, 1)), into: &events)
        #expect(try decoded(events).map(\.kind) == [.down, .up])
    }

    @Test("cancelAll ends every written contact as a cancel, in one frame")
    func cancelAll() throws {
        var encoder = open()
        var events: [EvdevEvent] = []
        encoder.encode(frame(contact(0, 1, .down, 10, 10), contact(3, 2, .down, 20, 20)), into: &events)
        encoder.cancelAll(timestampMicros: 2000, into: &events)
        #expect(try decoded(events).map(\.kind) == [.down, .down, .cancel, .cancel])
        #expect(encoder.liveContactCount == 0)
        var none: [EvdevEvent] = []
        encoder.cancelAll(timestampMicros: 3000, into: &none)
        #expect(none.isEmpty)
    }

    @Test("positions off the screen are held to the axis; a slot out of range is held back")
    func bounds() throws {
        var encoder = open()
        var events: [EvdevEvent] = []
        encoder.encode(frame(contact(0, 1, .down, -5, 900)), into: &events)
        encoder.encode(frame(contact(PassthroughDevice.slotCount, 2, .down, 5, 5)), into: &events)
        let contacts = try decoded(events)
        #expect(contacts.map(\.kind) == [.down])
        #expect(contacts.first?.screenPoint == Point(0, 499.9375))
        #expect(encoder.heldBackCount == 1)
    }

    @Test("pointer: move, press and release, one report each; gated like touches")
    func pointer() {
        var encoder = PointerEncoder(width: 1000, height: 500)
        var events: [EvdevEvent] = []
        encoder.encode([.press(Point(1, 1), .left)], at: 0, into: &events)
        #expect(events.isEmpty)
        encoder.isOpen = true
        encoder.encode(
            [.move(Point(100, 50)), .press(Point(100, 50), .right), .release(Point(100, 50), .right)], at: 0,
            into: &events)
        #expect(
            events.map { "\($0.type)/\($0.code)=\($0.value)" } == [
                "3/0=1600", "3/1=800", "0/0=0",
                "3/0=1600", "3/1=800", "1/273=1", "0/0=0",
                "3/0=1600", "3/1=800", "1/273=0", "0/0=0",
            ])
        events = []
        encoder.encode([.release(Point(1, 1), .left)], at: 0, into: &events)
        #expect(events.isEmpty)  // never pressed here
        encoder.encode([.press(Point(1, 1), .left)], at: 0, into: &events)
        events = []
        encoder.releaseAll(timestampMicros: 0, into: &events)
        #expect(events.map { "\($0.type)/\($0.code)=\($0.value)" } == ["1/272=0", "0/0=0"])
    }

    @Test("the live reader never reads passthrough's own devices, touch-capable as they are")
    func readerIgnoresOwnDevices() {
        func description(_ name: String, touch: Bool) -> LiveDeviceDescription {
            LiveDeviceDescription(
                name: name, sysname: "event9", node: "/dev/input/event9",
                udevProperties: ["ID_INPUT_TOUCHSCREEN": "1"], hasTouch: touch)
        }
        let own = description(PassthroughDevice.touchscreenName(screen: "main"), touch: true)
        #expect(LibinputReader.ignoreReason(own) == "touchrouter's own passthrough device")
        #expect(LibinputReader.ignoreReason(description("Atmel maXTouch Touchscreen", touch: true)) == nil)
        #expect(LibinputReader.ignoreReason(description("AT keyboard", touch: false)) == "not a touch device")
    }
}
