import Testing
import TouchRouterCore

@testable import TouchRouterInput

@Suite("MultitouchDecoder")
struct MultitouchDecoderTests {
    static let device = InputDevice(id: 1, name: "test")

    static func decode(_ recording: Recording, rotation: Int = 0, cancelAtEnd: Bool = true) throws
        -> [InputFrame]
    {
        let x = recording.device.xAxis!
        let y = recording.device.yAxis!
        // A screen the size of the device's range: positions come out in device units.
        let size = (Double(x.maximum - x.minimum + 1), Double(y.maximum - y.minimum + 1))
        let mapping = try ScreenMapping(
            screenWidth: rotation % 180 == 0 ? size.0 : size.1,
            screenHeight: rotation % 180 == 0 ? size.1 : size.0,
            rotation: rotation)
        return MultitouchDecoder.decode(
            recording, inputDevice: device, screen: "main", mapping: mapping,
            cancelRemainingAtEnd: cancelAtEnd)
    }

    /// Every fixture decodes to well-formed contact sequences: each down is followed by motions and one up,
    /// never a motion or up for a seat slot that is not down, and the recording ends with no finger down.
    @Test(arguments: Fixtures.evemuEvents + Fixtures.libinputRecords)
    func fixturesDecodeToWellFormedContacts(relativePath: String) throws {
        let recording = try Recording.load(path: Fixtures.path(relativePath))
        let frames = try Self.decode(recording, cancelAtEnd: false)
        #expect(!frames.isEmpty)
        var down = Set<Int32>()
        var downs = 0
        var previousTime: UInt64 = 0
        for frame in frames {
            #expect(frame.timestampMicros >= previousTime)
            previousTime = frame.timestampMicros
            #expect(!frame.contacts.isEmpty)
            for contact in frame.contacts {
                switch contact.kind {
                case .down:
                    #expect(!down.contains(contact.slot))
                    down.insert(contact.slot)
                    downs += 1
                case .motion:
                    #expect(down.contains(contact.slot))
                case .up, .cancel:
                    #expect(down.remove(contact.slot) != nil)
                }
                if contact.kind == .down || contact.kind == .motion {
                    #expect(contact.screenPoint.x >= 0 && contact.screenPoint.y >= 0)
                }
            }
        }
        #expect(down.isEmpty)
        // Each tracking id ≥ 0 in the stream starts exactly one contact.
        let trackingStarts = recording.events.filter {
            $0.type == EvdevCode.evAbs && $0.code == EvdevCode.absMtTrackingId && $0.value >= 0
        }.count
        #expect(downs == trackingStarts)
    }

    /// The libinput record of a gesture and the evemu file it was played from decode to the same contacts.
    @Test(arguments: [
        (
            "libinput/atmel-2-fingers-touch-release.yml",
            "evemu/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
        ),
        ("libinput/ep0430m09-4-finger-drag-down.yml", "evemu/EP0430M09.4-finger-drag-down.events"),
    ])
    func libinputRecordAndEvemuDecodeAlike(yml: String, evemu: String) throws {
        let fromYAML = try Self.decode(try Recording.load(path: Fixtures.path(yml)))
        let fromEvemu = try Self.decode(try Recording.load(path: Fixtures.path(evemu)))
        #expect(fromYAML.count == fromEvemu.count)
        #expect(fromYAML.map(\.contacts) == fromEvemu.map(\.contacts))
    }

    /// The Atmel two-finger recording, frame by frame at the start and the end.
    @Test func atmelTwoFingersFrameStructure() throws {
        let recording = try Recording.load(path: Fixtures.path("libinput/atmel-2-fingers-touch-release.yml"))
        let frames = try Self.decode(recording)
        try #require(frames.count == 16)
        #expect(frames[0].contacts == [ContactEvent(kind: .down, slot: 0, screenPoint: Point(539, 167))])
        #expect(frames[0].timestampMicros == 0)
        #expect(frames[1].contacts == [ContactEvent(kind: .down, slot: 1, screenPoint: Point(222, 306))])
        #expect(frames[1].timestampMicros == 56_002)
        #expect(frames[2].contacts == [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(535, 177))])
        // One kernel frame moving both fingers is one frame with both motions, in slot order.
        #expect(
            frames[7].contacts == [
                ContactEvent(kind: .motion, slot: 0, screenPoint: Point(535, 180)),
                ContactEvent(kind: .motion, slot: 1, screenPoint: Point(228, 318)),
            ])
        #expect(frames[14].contacts == [ContactEvent(kind: .up, slot: 1)])
        #expect(frames[15].contacts == [ContactEvent(kind: .up, slot: 0)])
        #expect(frames.allSatisfy { $0.device == Self.device && $0.screen == "main" })
    }

    /// Rotation reaches the decoded points, with libinput's truncation to whole device units.
    @Test func rotationAppliesToDecodedPoints() throws {
        let recording = try Recording.load(path: Fixtures.path("libinput/atmel-2-fingers-touch-release.yml"))
        let frames = try Self.decode(recording, rotation: 90)
        // Device 800×480, screen 480×800. (539, 167): rotated device x = 800·(1 - 167/480) = 521.67 → 521,
        // device y = 480·539/800 = 323.4 → 323; then scaled: x = 521·480/800, y = 323·800/480.
        let point = try #require(frames.first?.contacts.first?.screenPoint)
        #expect(
            Swift.abs(point.x - 521.0 * 480 / 800) < 1e-9 && Swift.abs(point.y - 323.0 * 800 / 480) < 1e-9)
        // Within one device unit of the exact mapping (313, 539).
        #expect(Swift.abs(point.x - 313) <= 0.6 && Swift.abs(point.y - 539) <= 1.67)
    }

    // MARK: - Synthetic streams

    static let touchscreen = RecordedDevice(
        name: "synthetic",
        absinfo: [
            EvdevCode.absMtSlot: AbsInfo(minimum: 0, maximum: 3),
            EvdevCode.absMtPositionX: AbsInfo(minimum: 0, maximum: 999),
            EvdevCode.absMtPositionY: AbsInfo(minimum: 0, maximum: 999),
            EvdevCode.absMtTrackingId: AbsInfo(minimum: 0, maximum: 65535),
        ],
        properties: [EvdevCode.inputPropDirect])

    static func decoder(_ device: RecordedDevice = touchscreen) throws -> MultitouchDecoder {
        MultitouchDecoder(
            device: device, inputDevice: Self.device, screen: "main",
            mapping: try ScreenMapping(screenWidth: 1000, screenHeight: 1000))
    }

    static func abs(_ code: UInt16, _ value: Int32, at time: UInt64) -> EvdevEvent {
        EvdevEvent(timestampMicros: time, type: EvdevCode.evAbs, code: code, value: value)
    }

    static func report(at time: UInt64) -> EvdevEvent {
        EvdevEvent(timestampMicros: time, type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0)
    }

    static func dropped(at time: UInt64) -> EvdevEvent {
        EvdevEvent(timestampMicros: time, type: EvdevCode.evSyn, code: EvdevCode.synDropped, value: 0)
    }

    static func feed(_ decoder: inout MultitouchDecoder, _ events: [EvdevEvent]) -> [InputFrame] {
        events.compactMap { decoder.feed($0) }
    }

    @Test func unchangedPositionsMakeNoMotion() throws {
        var decoder = try Self.decoder()
        let frames = Self.feed(
            &decoder,
            [
                Self.abs(EvdevCode.absMtTrackingId, 5, at: 0), Self.abs(EvdevCode.absMtPositionX, 10, at: 0),
                Self.abs(EvdevCode.absMtPositionY, 20, at: 0), Self.report(at: 0),
                // Same values again: the kernel would drop them, libinput sees nothing.
                Self.abs(EvdevCode.absMtPositionX, 10, at: 10),
                Self.abs(EvdevCode.absMtPositionY, 20, at: 10),
                Self.report(at: 10),
                Self.abs(EvdevCode.absMtPositionY, 21, at: 20), Self.report(at: 20),
            ])
        #expect(
            frames.map(\.contacts) == [
                [ContactEvent(kind: .down, slot: 0, screenPoint: Point(10, 20))],
                [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(10, 21))],
            ])
        #expect(frames.map(\.timestampMicros) == [0, 20])
    }

    @Test func seatSlotsAreLowestFreeNotKernelSlots() throws {
        var decoder = try Self.decoder()
        let frames = Self.feed(
            &decoder,
            [
                Self.abs(EvdevCode.absMtSlot, 2, at: 0), Self.abs(EvdevCode.absMtTrackingId, 1, at: 0),
                Self.abs(EvdevCode.absMtPositionX, 1, at: 0), Self.report(at: 0),
                Self.abs(EvdevCode.absMtSlot, 3, at: 5), Self.abs(EvdevCode.absMtTrackingId, 2, at: 5),
                Self.abs(EvdevCode.absMtPositionX, 2, at: 5), Self.report(at: 5),
                Self.abs(EvdevCode.absMtSlot, 2, at: 9), Self.abs(EvdevCode.absMtTrackingId, -1, at: 9),
                Self.abs(EvdevCode.absMtSlot, 0, at: 9), Self.abs(EvdevCode.absMtTrackingId, 3, at: 9),
                Self.report(at: 9),
            ])
        // Slots flush in kernel-slot order, so slot 0's new finger is placed before slot 2's frees seat 0.
        #expect(frames.map { $0.contacts.map(\.kind) } == [[.down], [.down], [.down, .up]])
        #expect(frames.map { $0.contacts.map(\.slot) } == [[0], [1], [2, 0]])
    }

    @Test func secondBeginOnALiveSlotIsIgnored() throws {
        var decoder = try Self.decoder()
        let frames = Self.feed(
            &decoder,
            [
                Self.abs(EvdevCode.absMtTrackingId, 1, at: 0), Self.report(at: 0),
                Self.abs(EvdevCode.absMtTrackingId, 2, at: 5), Self.abs(EvdevCode.absMtPositionX, 50, at: 5),
                Self.report(at: 5),
                Self.abs(EvdevCode.absMtPositionX, 60, at: 7), Self.report(at: 7),
            ])
        #expect(frames.map { $0.contacts.map(\.kind) } == [[.down], [.motion]])
        #expect(frames.last?.contacts.first?.screenPoint == Point(60, 0))
    }

    /// SYN_DROPPED: pending changes flush, the rest up to SYN_REPORT is discarded, contacts down are
    /// cancelled, and a finger that is still there comes back as a new contact at its next position.
    @Test func synDroppedResynchronises() throws {
        var decoder = try Self.decoder()
        let frames = Self.feed(
            &decoder,
            [
                Self.abs(EvdevCode.absMtTrackingId, 1, at: 0), Self.abs(EvdevCode.absMtPositionX, 100, at: 0),
                Self.abs(EvdevCode.absMtPositionY, 100, at: 0),
                Self.abs(EvdevCode.absMtSlot, 1, at: 0), Self.abs(EvdevCode.absMtTrackingId, 2, at: 0),
                Self.abs(EvdevCode.absMtPositionX, 500, at: 0), Self.report(at: 0),
                Self.abs(EvdevCode.absMtSlot, 0, at: 10), Self.abs(EvdevCode.absMtPositionX, 110, at: 10),
                Self.dropped(at: 11),
                // Discarded: includes the end of slot 1's finger.
                Self.abs(EvdevCode.absMtSlot, 1, at: 12), Self.abs(EvdevCode.absMtTrackingId, -1, at: 12),
                Self.abs(EvdevCode.absMtSlot, 0, at: 12), Self.abs(EvdevCode.absMtPositionX, 999, at: 12),
                Self.report(at: 12),
                // Slot 0's finger is still down and moves; a new finger lands in slot 2.
                Self.abs(EvdevCode.absMtPositionX, 120, at: 20),
                Self.abs(EvdevCode.absMtSlot, 2, at: 20), Self.abs(EvdevCode.absMtTrackingId, 3, at: 20),
                Self.abs(EvdevCode.absMtPositionX, 700, at: 20),
                Self.abs(EvdevCode.absMtPositionY, 700, at: 20),
                Self.report(at: 20),
                Self.abs(EvdevCode.absMtSlot, 0, at: 30), Self.abs(EvdevCode.absMtTrackingId, -1, at: 30),
                Self.abs(EvdevCode.absMtSlot, 2, at: 30), Self.abs(EvdevCode.absMtTrackingId, -1, at: 30),
                Self.report(at: 30),
            ])
        #expect(decoder.droppedCount == 1)
        #expect(frames.map(\.timestampMicros) == [0, 11, 12, 20, 30])
        #expect(frames[0].contacts.map(\.kind) == [.down, .down])
        #expect(frames[1].contacts == [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(110, 100))])
        #expect(
            frames[2].contacts == [
                ContactEvent(kind: .cancel, slot: 0), ContactEvent(kind: .cancel, slot: 1),
            ])
        #expect(
            frames[3].contacts == [
                ContactEvent(kind: .down, slot: 0, screenPoint: Point(120, 100)),
                ContactEvent(kind: .down, slot: 1, screenPoint: Point(700, 700)),
            ])
        #expect(frames[4].contacts == [ContactEvent(kind: .up, slot: 0), ContactEvent(kind: .up, slot: 1)])
        #expect(decoder.activeSeatSlots.isEmpty)
    }

    @Test func palmCancelsTheContact() throws {
        var device = Self.touchscreen
        device.absinfo[EvdevCode.absMtToolType] = AbsInfo(minimum: 0, maximum: 2)
        var decoder = try Self.decoder(device)
        let frames = Self.feed(
            &decoder,
            [
                Self.abs(EvdevCode.absMtTrackingId, 1, at: 0), Self.abs(EvdevCode.absMtPositionX, 5, at: 0),
                Self.report(at: 0),
                Self.abs(EvdevCode.absMtToolType, EvdevCode.mtToolPalm, at: 5), Self.report(at: 5),
                Self.abs(EvdevCode.absMtPositionX, 9, at: 7), Self.report(at: 7),
                Self.abs(EvdevCode.absMtTrackingId, -1, at: 9), Self.report(at: 9),
            ])
        #expect(frames.map { $0.contacts.map(\.kind) } == [[.down], [.cancel]])
        #expect(decoder.activeSeatSlots.isEmpty)
    }

    /// A single-touch device (ABS_X/ABS_Y/BTN_TOUCH only), described and recorded in evemu text.
    @Test func singleTouchDevice() throws {
        let text = """
            # EVEMU 1.3
            N: Old Resistive Panel
            I: 0003 0eef 0001 0100
            P: 02 00 00 00 00 00 00 00
            B: 00 0b 00 00 00 00 00 00 00
            A: 00 100 4195 0 0 0
            A: 01 200 4095 0 0 0
            E: 1.000000 0003 0000 2148\t# ABS_X
            E: 1.000000 0003 0001 2148
            E: 1.000000 0001 014a 0001\t# BTN_TOUCH 1
            E: 1.000000 0000 0000 0000
            E: 1.010000 0003 0000 2200
            E: 1.010000 0000 0000 0000
            E: 1.020000 0003 0000 2200
            E: 1.020000 0000 0000 0000
            E: 1.030000 0001 014a 0000
            E: 1.030000 0000 0000 0000
            """
        let parsed = try EvemuReader.parse(text, file: "resistive.events")
        let recording = Recording(device: try #require(parsed.device), events: parsed.events)
        #expect(!recording.device.isMultitouch && recording.device.slotCount == 1)
        let mapping = try ScreenMapping(screenWidth: 4096, screenHeight: 3896)
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: Self.device, screen: "main", mapping: mapping)
        #expect(
            frames.map(\.contacts) == [
                [ContactEvent(kind: .down, slot: 0, screenPoint: Point(2048, 1948))],
                [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(2100, 1948))],
                [ContactEvent(kind: .up, slot: 0)],
            ])
        #expect(frames.map(\.timestampMicros) == [1_000_000, 1_010_000, 1_030_000])
    }

    @Test func cancelRemainingAtEndClosesOpenContacts() throws {
        let events = [
            Self.abs(EvdevCode.absMtTrackingId, 1, at: 0), Self.abs(EvdevCode.absMtPositionX, 5, at: 0),
            Self.report(at: 0),
        ]
        let recording = Recording(device: Self.touchscreen, events: events)
        let mapping = try ScreenMapping(screenWidth: 10, screenHeight: 10)
        let closed = MultitouchDecoder.decode(
            recording, inputDevice: Self.device, screen: "s", mapping: mapping)
        #expect(closed.map { $0.contacts.map(\.kind) } == [[.down], [.cancel]])
        let open = MultitouchDecoder.decode(
            recording, inputDevice: Self.device, screen: "s", mapping: mapping, cancelRemainingAtEnd: false)
        #expect(open.count == 1)
    }
}
