import Testing
import TouchRouterCore

@testable import TouchRouterInput

/// Where a `libinput record` file carries libinput's own interpreted touch events, the decoder must
/// produce the same frames: same kinds, same seat slots, frame by frame.
@Suite("libinput cross-check")
struct LibinputCrossCheckTests {
    /// libinput's touch events grouped by TOUCH_FRAME, as (kind, seat slot) per contact.
    static func libinputFrames(_ touches: [RecordedLibinputTouch]) -> [[String]] {
        var frames: [[String]] = []
        var current: [String] = []
        for touch in touches {
            if touch.type == "TOUCH_FRAME" {
                frames.append(current)
                current = []
            } else {
                let kind = touch.type.dropFirst("TOUCH_".count).lowercased()
                current.append("\(kind) \(touch.seatSlot ?? -1)")
            }
        }
        return frames
    }

    static func decodedFrames(_ recording: Recording) throws -> [[String]] {
        let mapping = try ScreenMapping(screenWidth: 100, screenHeight: 100)
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: InputDevice(id: 1, name: "x"), screen: "s", mapping: mapping,
            cancelRemainingAtEnd: false)
        return frames.map { $0.contacts.map { "\($0.kind) \($0.slot)" } }
    }

    /// Every shared libinput record carries libinput's interpreted events (captured with
    /// `libinput record --with-libinput` by scripts/vm/record-libinput.sh); a record without them
    /// would compare nothing, so it fails.
    @Test(arguments: Fixtures.libinputRecords)
    func sharedRecordsAgreeWithLibinput(relativePath: String) throws {
        let recording = try Recording.load(path: Fixtures.path(relativePath))
        try #require(
            !recording.libinputTouches.isEmpty,
            """
            \(relativePath) has no libinput TOUCH_* events: capture it again with \
            scripts/vm/record-libinput.sh
            """)
        let expected = Self.libinputFrames(recording.libinputTouches)
        #expect(expected.contains { $0.contains { $0.hasPrefix("down") } })
        #expect(try Self.decodedFrames(recording) == expected)
    }

    /// The comparison itself, on a record written the way libinput record writes touch events
    /// (`--with-libinput` puts a frame's evdev and libinput events in one item, as the second frame
    /// here; the others have them as separate items, which is read the same).
    @Test func interpretedEventsCompareFrameByFrame() throws {
        let text = """
            version: 1
            ndevices: 1
            devices:
            - node: /dev/input/event4
              evdev:
                name: "Panel"
                id: [24, 0, 0, 0]
                absinfo:
                  47: [0, 9, 0, 0, 0]
                  53: [0, 799, 0, 0, 0]
                  54: [0, 479, 0, 0, 0]
                  57: [0, 65535, 0, 0, 0]
                properties: [1]
              events:
              - evdev:
                - [  0,      0,   3,  57,       7]
                - [  0,      0,   3,  53,     539]
                - [  0,      0,   3,  54,     167]
                - [  0,      0,   0,   0,       0]
              - libinput:
                - {time: 0.000000, type: TOUCH_DOWN, slot: 0, seat_slot: 0, point: [539.00, 167.00]}
                - {time: 0.000000, type: TOUCH_FRAME}
              - evdev:
                - [  0,  57873,   3,  47,       1]
                - [  0,  57873,   3,  57,       8]
                - [  0,  57873,   3,  53,     222]
                - [  0,  57873,   3,  47,       0]
                - [  0,  57873,   3,  54,     170]
                - [  0,  57873,   0,   0,       0]
                libinput:
                - {time: 0.057873, type: TOUCH_MOTION, slot: 0, seat_slot: 0, point: [539.00, 170.00]}
                - {time: 0.057873, type: TOUCH_DOWN, slot: 1, seat_slot: 1, point: [222.00, 0.00]}
                - {time: 0.057873, type: TOUCH_FRAME}
              - evdev:
                - [  0,  90000,   3,  57,      -1]
                - [  0,  90000,   3,  47,       1]
                - [  0,  90000,   3,  57,      -1]
                - [  0,  90000,   0,   0,       0]
              - libinput:
                - {time: 0.090000, type: TOUCH_UP, slot: 0, seat_slot: 0}
                - {time: 0.090000, type: TOUCH_UP, slot: 1, seat_slot: 1}
                - {time: 0.090000, type: TOUCH_FRAME}
            """
        let recording = try #require(try LibinputRecordReader.parse(text, file: "cross.yml").first)
        #expect(recording.libinputTouches.count == 8)
        let expected = [["down 0"], ["motion 0", "down 1"], ["up 0", "up 1"]]
        #expect(Self.libinputFrames(recording.libinputTouches) == expected)
        #expect(try Self.decodedFrames(recording) == expected)
    }
}
