import Testing
import TouchRouterCore
import TouchRouterModel

@testable import TouchRouterInput

/// What the kernel does to events before a client reads them, as the decoder replays it: the
/// defuzz bands, a held key's repeats, and which raw positions count as the sensor's corner.
@Suite("Kernel rules before the decoder")
struct KernelRuleTests {
    /// `input_defuzz_abs_event` with fuzz 20 around a current value of 100: nearer than half the
    /// fuzz the value stays (dropped as unchanged), nearer than the fuzz it is ¾ old + ¼ new,
    /// nearer than twice the fuzz the mean, farther the new value (integer division truncates).
    @Test(
        "defuzz: each band's bounds, both sides",
        arguments: [
            (109, nil), (91, nil), (110, 102), (90, 97), (119, 104), (81, 95),
            (120, 110), (80, 90), (139, 119), (61, 80), (140, 140), (60, 60),
        ] as [(Int32, Int32?)])
    func defuzzBands(value: Int32, expected: Int32?) {
        var current: Int32? = 100
        let passed = EvdevFilters.kernelFilter(value, fuzz: 20, old: &current)
        #expect(passed == expected)
        #expect(current == (expected ?? 100))
    }

    /// A single-touch device: a key repeat (value 2) of BTN_TOUCH is still pressed, so the finger
    /// stays down and moves on; only value 0 lifts it.
    @Test("a BTN_TOUCH repeat keeps a single-touch finger down")
    func keyRepeatKeepsTheFingerDown() throws {
        let text = """
            # EVEMU 1.3
            N: Old Resistive Panel
            I: 0003 0eef 0001 0100
            P: 02 00 00 00 00 00 00 00
            B: 00 0b 00 00 00 00 00 00 00
            A: 00 0 999 0 0 0
            A: 01 0 999 0 0 0
            E: 1.000000 0003 0000 0100
            E: 1.000000 0003 0001 0200
            E: 1.000000 0001 014a 0001
            E: 1.000000 0000 0000 0000
            E: 1.010000 0001 014a 0002
            E: 1.010000 0000 0000 0000
            E: 1.020000 0003 0000 0300
            E: 1.020000 0000 0000 0000
            E: 1.030000 0001 014a 0000
            E: 1.030000 0000 0000 0000
            """
        let parsed = try EvemuReader.parse(text, file: "repeat.events")
        let recording = Recording(device: try #require(parsed.device), events: parsed.events)
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: InputDevice(id: 1, name: "test"), screen: "main",
            mapping: try ScreenMapping(screenWidth: 1000, screenHeight: 1000))
        #expect(frames.map { $0.contacts.map(\.kind) } == [[.down], [.motion], [.up]])
        #expect(frames.map(\.timestampMicros) == [1_000_000, 1_020_000, 1_030_000])
    }

    /// `atDeviceLimit` (what `dropStuckPoints` drops) is a corner of the sensor: both raw
    /// coordinates at an end of their axis. A finger on one edge is a real touch.
    @Test("only a corner of the sensor is at the device limit, not an edge")
    func cornerNotEdge() throws {
        var decoder = try MultitouchDecoderTests.decoder()
        typealias Code = EvdevCode
        func finger(_ slot: Int32, _ id: Int32, _ x: Int32, _ y: Int32) -> [EvdevEvent] {
            [
                MultitouchDecoderTests.abs(Code.absMtSlot, slot, at: 0),
                MultitouchDecoderTests.abs(Code.absMtTrackingId, id, at: 0),
                MultitouchDecoderTests.abs(Code.absMtPositionX, x, at: 0),
                MultitouchDecoderTests.abs(Code.absMtPositionY, y, at: 0),
            ]
        }
        // The synthetic touchscreen's axes run 0…999.
        let events =
            finger(0, 10, 0, 500) + finger(1, 11, 500, 999) + finger(2, 12, 999, 0) + finger(3, 13, 0, 0)
            + [MultitouchDecoderTests.report(at: 0)]
        let frames = MultitouchDecoderTests.feed(&decoder, events)
        let contacts = try #require(frames.first?.contacts)
        #expect(contacts.map(\.kind) == [.down, .down, .down, .down])
        #expect(contacts.map(\.atDeviceLimit) == [false, false, true, true])
    }
}
