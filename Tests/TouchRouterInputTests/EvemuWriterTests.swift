import Testing
import TouchRouterCore

@testable import TouchRouterInput

@Suite("EvemuWriter")
struct EvemuWriterTests {
    @Test("a gesture written as evemu text reads back as the same device and events")
    func roundTrip() throws {
        let spec = VirtualDeviceSpec.defaultTouchscreen(name: "tour touchscreen", width: 1080, height: 1920)
        let events = try GestureScript.events(
            scripts: ["tap 330 670; wait 1200; drag 10 20 900 1800 300", "hold 500 500 1500"], spec: spec)
        let text = EvemuWriter.text(spec: spec, events: events, comments: ["made by: a test"])
        let parsed = try EvemuReader.parse(text, file: "gesture.events")

        #expect(parsed.events == events)
        #expect(events.last.map { $0.timestampMicros > 1_000_000 } == true)
        let device = try #require(parsed.device)
        #expect(device.name == "tour touchscreen")
        #expect(
            device.inputId == InputId(bustype: spec.bustype, vendor: spec.vendor, product: spec.product, version: 1))
        #expect(device.properties == Set(spec.properties))
        #expect(device.codes[EvdevCode.evKey] == [EvdevCode.btnTouch])
        #expect(device.codes[EvdevCode.evAbs] == Set(spec.absoluteAxes.map(\.code)))
        for axis in spec.absoluteAxes { #expect(device.absinfo[axis.code] == axis.info) }
        #expect(text.hasPrefix("# EVEMU 1.3\n# made by: a test\nN: tour touchscreen\n"))
    }

    @Test("layout units of --screen are written as the axis units that map back to them")
    func layoutUnits() throws {
        let spec = VirtualDeviceSpec.defaultTouchscreen(width: 2160, height: 3840)
        let events = try GestureScript.events(
            scripts: ["tap 542.5 1141"], spec: spec, screenSize: (width: 1080, height: 1920))
        let text = EvemuWriter.text(spec: spec, events: events)
        let parsed = try EvemuReader.parse(text, file: "tap.events")
        let xValues = parsed.events.filter { $0.type == EvdevCode.evAbs && $0.code == EvdevCode.absMtPositionX }
        #expect(xValues.map(\.value) == [1085])
    }
}
