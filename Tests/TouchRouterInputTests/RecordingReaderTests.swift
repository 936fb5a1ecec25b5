import Foundation
import Testing
import TouchRouterCore

@testable import TouchRouterInput

@Suite("Recording readers")
struct RecordingReaderTests {
    @Test func fixturesArePresent() {
        #expect(Fixtures.evemuEvents.count == 8)
        #expect(Fixtures.evemuDescriptions.count == 2)
        #expect(Fixtures.libinputRecords.count == 2)
    }

    @Test(arguments: Fixtures.evemuEvents)
    func everyEvemuRecordingParses(relativePath: String) throws {
        let recording = try Recording.load(path: Fixtures.path(relativePath))
        #expect(recording.device.isMultitouch)
        #expect(recording.device.isDirect)
        #expect(!recording.events.isEmpty)
        #expect(recording.events.last?.type == EvdevCode.evSyn)
        let expectedSlots = recording.device.name == "EP0430M09" ? 5 : 10
        #expect(recording.device.slotCount == expectedSlots)
    }

    @Test(arguments: Fixtures.evemuDescriptions)
    func everyEvemuDescriptionParses(relativePath: String) throws {
        let recording = try Recording.load(path: Fixtures.path(relativePath))
        #expect(recording.events.isEmpty)
        #expect(recording.device.properties == [EvdevCode.inputPropDirect])
        #expect(recording.device.inputId == InputId(bustype: 0x18, vendor: 0, product: 0, version: 0))
        #expect(recording.device.codes[EvdevCode.evKey] == [EvdevCode.btnTouch])
        #expect(recording.device.codes[EvdevCode.evSyn] == nil)
        #expect(recording.device.codes[EvdevCode.evAbs] == Set(recording.device.absinfo.keys))
        #expect(recording.device.has(type: EvdevCode.evKey, code: EvdevCode.btnTouch))
        if recording.device.name == "Atmel maXTouch Touchscreen" {
            #expect(recording.device.codes[EvdevCode.evAbs] == [0, 1, 47, 53, 54, 55, 57, 59])
            #expect(recording.device.absinfo[EvdevCode.absMtPositionX] == AbsInfo(minimum: 0, maximum: 799))
            #expect(recording.device.absinfo[EvdevCode.absMtPositionY] == AbsInfo(minimum: 0, maximum: 479))
            #expect(recording.device.absinfo.count == 8)
        } else {
            #expect(recording.device.name == "EP0430M09")
            #expect(recording.device.absinfo[EvdevCode.absMtPositionX] == AbsInfo(minimum: 0, maximum: 1279))
            #expect(recording.device.absinfo.count == 6)
        }
    }

    @Test(arguments: Fixtures.libinputRecords)
    func everyLibinputRecordParses(relativePath: String) throws {
        let recording = try Recording.load(path: Fixtures.path(relativePath))
        #expect(recording.device.isMultitouch && recording.device.isDirect)
        #expect(!recording.events.isEmpty)
        #expect(recording.events.first?.timestampMicros == 0)
    }

    /// The yml was captured while evemu-play played the evemu file: same device, same events, other times.
    @Test(arguments: [
        (
            "libinput/atmel-2-fingers-touch-release.yml",
            "evemu/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
        ),
        ("libinput/ep0430m09-4-finger-drag-down.yml", "evemu/EP0430M09.4-finger-drag-down.events"),
    ])
    func libinputRecordMatchesItsEvemuSource(yml: String, evemu: String) throws {
        let fromYAML = try Recording.load(path: Fixtures.path(yml))
        let fromEvemu = try Recording.load(path: Fixtures.path(evemu))
        #expect(fromYAML.device == fromEvemu.device)
        // The kernel drops a slot selection that changes nothing (evemu's leading "slot 0"); else equal.
        let strip = { (events: [EvdevEvent]) -> [[Int]] in
            var slot: Int32 = 0
            var result: [[Int]] = []
            for event in events {
                if event.type == EvdevCode.evAbs && event.code == EvdevCode.absMtSlot {
                    if event.value == slot { continue }
                    slot = event.value
                }
                result.append([Int(event.type), Int(event.code), Int(event.value)])
            }
            return result
        }
        let yamlEvents = strip(fromYAML.events)
        let evemuEvents = strip(fromEvemu.events)
        #expect(yamlEvents.count == evemuEvents.count)
        let firstDifference = Array(zip(yamlEvents, evemuEvents)).firstIndex(where: { $0.0 != $0.1 })
        #expect(yamlEvents == evemuEvents, "first difference at \(firstDifference ?? -1)")
    }

    @Test func evemuEventLineIsReadExactly() throws {
        let text = """
            N: Test
            A: 35 0 99 0 0 3
            E: 12.000345 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1
            E: 12.5 0001 014a 0001
            """
        let parsed = try EvemuReader.parse(text, file: "t.events")
        #expect(parsed.device?.absinfo[0x35] == AbsInfo(minimum: 0, maximum: 99, resolution: 3))
        #expect(
            parsed.events == [
                EvdevEvent(timestampMicros: 12_000_345, type: 3, code: 0x39, value: -1),
                EvdevEvent(timestampMicros: 12_500_000, type: 1, code: 0x14a, value: 1),
            ])
    }

    @Test func libinputInterpretedTouchesAreKept() throws {
        let text = """
            version: 1
            ndevices: 1
            devices:
            - node: /dev/input/event4
              evdev:
                name: "Panel: one"
                absinfo:
                  53: [0, 799, 0, 0, 0]
                properties: [1]
              events:
              - evdev:
                - [  0,      0,   3,  57,       7] # EV_ABS / ABS_MT_TRACKING_ID        7
                - [  0,      0,   0,   0,       0]
              - libinput:
                - {time: 0.000000, type: "TOUCH_DOWN", slot: 0, seat_slot: 0, point: [ 1.50, 2.25]}
                - {time: 0.000000, type: "TOUCH_FRAME"}
                - {time: 0.1, type: "POINTER_MOTION", delta: [1, 2]}
            """
        let recordings = try LibinputRecordReader.parse(text, file: "t.yml")
        #expect(recordings.count == 1)
        #expect(recordings[0].device.name == "Panel: one")
        #expect(recordings[0].events.count == 2)
        #expect(
            recordings[0].libinputTouches == [
                RecordedLibinputTouch(
                    type: "TOUCH_DOWN", timestampMicros: 0, slot: 0, seatSlot: 0,
                    pointMillimetres: Point(1.5, 2.25)),
                RecordedLibinputTouch(
                    type: "TOUCH_FRAME", timestampMicros: 0, slot: nil, seatSlot: nil,
                    pointMillimetres: nil),
            ])
    }

    /// A long recording (one `evdev:` list of 60,000 events, as a minute of a busy panel writes)
    /// reads whole, every event in order: the tree is built in place, in linear time.
    @Test func longRecordingReadsWhole() throws {
        var text = "version: 1\ndevices:\n- evdev:\n    name: Long\n  events:\n  - evdev:\n"
        for index in 0..<60_000 {
            text += "    - [\(index / 1000), \(index % 1000 * 1000), 3, 53, \(index % 800)]\n"
        }
        let recording = try #require(try LibinputRecordReader.parse(text, file: "long.yml").first)
        #expect(recording.events.count == 60_000)
        #expect(recording.events.last == EvdevEvent(timestampMicros: 59_999_000, type: 3, code: 53, value: 799))
    }
}

@Suite("Recording files")
struct RecordingFileTests {
    /// An events file without its own header finds the `.desc` beside it named by its prefix.
    @Test func headerlessEventsFindTheirDescription() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let desc = try String(contentsOfFile: Fixtures.path("evemu/EP0430M09.desc"), encoding: .utf8)
        let events = try String(
            contentsOfFile: Fixtures.path("evemu/EP0430M09.2-fingers-touch-release.events"), encoding: .utf8)
        let onlyEvents = events.split(separator: "\n").filter { $0.hasPrefix("E:") }.joined(separator: "\n")
        try directory.write("EP0430M09.desc", desc)
        try directory.write("EP04.desc", desc)
        let eventsPath = try directory.write("EP0430M09.tap.events", onlyEvents)

        let loaded = try Recording.load(path: eventsPath)
        let reference = try Recording.load(
            path: Fixtures.path("evemu/EP0430M09.2-fingers-touch-release.events"))
        #expect(loaded == reference)
        let pair = try Recording.loadEvemu(
            descriptionPath: directory.path("EP0430M09.desc"), eventsPath: eventsPath)
        #expect(pair == reference)

        try FileManager.default.removeItem(atPath: directory.path("EP0430M09.desc"))
        try FileManager.default.removeItem(atPath: directory.path("EP04.desc"))
        #expect(throws: RecordingError.self) { try Recording.load(path: eventsPath) }
    }

    /// A libinput record file of several devices plays the first that has events (a keyboard
    /// recorded beside the panel may come first, with none), or the first device when none has.
    @Test func aRecordingPlaysTheFirstDeviceWithEvents() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        func device(_ name: String, events: Bool) -> String {
            """
            - node: /dev/input/event\(name.count)
              evdev:
                name: "\(name)"
                absinfo:
                  53: [0, 799, 0, 0, 0]
                properties: [1]
              events:\(events ? "\n  - evdev:\n    - [0, 0, 3, 57, 7]\n    - [0, 0, 0, 0, 0]" : " []")
            """
        }
        let header = "version: 1\nndevices: 2\ndevices:\n"
        let withEvents = try directory.write(
            "two.yml", header + device("Keys", events: false) + "\n" + device("Panel", events: true) + "\n")
        #expect(try Recording.load(path: withEvents).device.name == "Panel")
        let without = try directory.write(
            "none.yml", header + device("Keys", events: false) + "\n" + device("Panel", events: false) + "\n")
        #expect(try Recording.load(path: without).device.name == "Keys")
    }

    /// Of two descriptions whose names are prefixes of the events file's, the longer is its own:
    /// `EP0430M09.tap.desc`, not `EP0430M09.desc` (another panel here).
    @Test func theLongestPrefixDescriptionIsTheEventsOwn() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let own = try String(contentsOfFile: Fixtures.path("evemu/EP0430M09.desc"), encoding: .utf8)
        let other = try String(
            contentsOfFile: Fixtures.path("evemu/Atmel maXTouch Touchscreen.desc"), encoding: .utf8)
        let events = try String(
            contentsOfFile: Fixtures.path("evemu/EP0430M09.2-fingers-touch-release.events"), encoding: .utf8)
        try directory.write("EP0430M09.desc", other)
        try directory.write("EP0430M09.tap.desc", own)
        let eventsPath = try directory.write(
            "EP0430M09.tap.events", events.split(separator: "\n").filter { $0.hasPrefix("E:") }.joined(separator: "\n"))
        let loaded = try Recording.load(path: eventsPath)
        #expect(loaded.device.name == "EP0430M09")
    }
}
