import Foundation
import Testing
import TouchRouterCore

@testable import TouchRouterInput

/// Recordings crafted to make the readers or the decoder spend memory or time out of proportion
/// to the file, or trap: each is refused with a located error or read in bounded space.
@Suite("Crafted recordings")
struct CraftedRecordingTests {
    typealias T = MultitouchDecoderTests

    /// An evemu description whose ABS_MT_SLOT (line 3) has `slotMaximum`.
    static func evemuDescription(slotMaximum: Int64) -> String {
        "N: Panel\nA: 35 0 799 0 0 0\nA: 2f \(min(0, slotMaximum)) \(slotMaximum) 0 0 0\nA: 36 0 479 0 0 0\n"
    }

    /// The valid libinput record of `MalformedRecordingTests` with ABS_MT_SLOT (line 9) set to
    /// `slotMaximum`.
    static func libinputRecord(slotMaximum: Int64) -> String {
        MalformedRecordingTests.validYAML.replacingOccurrences(
            of: "47: [0, 9, 0, 0, 0]", with: "47: [\(min(0, slotMaximum)), \(slotMaximum), 0, 0, 0]")
    }

    /// Slot maxima no kernel makes a device for (it refuses more than 1,024 slots): once these
    /// asked for 56 bytes per slot, 120 GB for the largest.
    static let refusedSlotMaxima: [Int64] = [2_147_483_647, 100_000_000, 1024, -1, -2_147_483_648]

    @Test("an evemu ABS_MT_SLOT beyond the kernel's 1,024 slots is refused at its line", arguments: refusedSlotMaxima)
    func evemuSlotMaximumRefused(maximum: Int64) {
        let text = Self.evemuDescription(slotMaximum: maximum)
        MalformedRecordingTests().expectError(file: "big.desc", line: 3, word: "ABS_MT_SLOT maximum \(maximum)", text) {
            () throws(RecordingError) in
            _ = try EvemuReader.parse(text, file: "big.desc")
        }
    }

    @Test(
        "a libinput record ABS_MT_SLOT beyond the kernel's 1,024 slots is refused at its line",
        arguments: refusedSlotMaxima)
    func libinputSlotMaximumRefused(maximum: Int64) {
        let text = Self.libinputRecord(slotMaximum: maximum)
        MalformedRecordingTests().expectError(file: "big.yml", line: 9, word: "ABS_MT_SLOT maximum \(maximum)", text) {
            () throws(RecordingError) in
            _ = try LibinputRecordReader.parse(text, file: "big.yml")
        }
    }

    @Test("1,024 slots, the kernel's most, are read and decoded")
    func largestSlotCountAccepted() throws {
        let evemu = try #require(try EvemuReader.parse(Self.evemuDescription(slotMaximum: 1023), file: "x.desc").device)
        #expect(evemu.slotCount == 1024)
        let yaml = try LibinputRecordReader.parse(Self.libinputRecord(slotMaximum: 1023), file: "x.yml")
        #expect(yaml[0].device.slotCount == 1024)
        // The last slot works like any other.
        var decoder = try T.decoder(yaml[0].device)
        let frames = T.feed(
            &decoder,
            [
                T.abs(EvdevCode.absMtSlot, 1023, at: 0), T.abs(EvdevCode.absMtTrackingId, 5, at: 0),
                T.abs(EvdevCode.absMtPositionX, 10, at: 0), T.abs(EvdevCode.absMtPositionY, 10, at: 0),
                T.report(at: 0),
            ])
        #expect(frames.flatMap(\.contacts).map(\.kind) == [.down])
    }

    @Test("a device built in code with more slots than the kernel allows decodes with 1,024")
    func slotCountClamped() {
        var device = T.touchscreen
        device.absinfo[EvdevCode.absMtSlot] = AbsInfo(minimum: 0, maximum: .max)
        #expect(device.slotCount == RecordedDevice.maximumSlotCount)
    }

    @Test("a finger jumping across the whole Int32 range on a device with fuzz moves, without a trap")
    func hysteresisAcrossInt32Range() throws {
        var device = T.touchscreen
        device.absinfo[EvdevCode.absMtPositionX] = AbsInfo(minimum: .min, maximum: .max, fuzz: 8)
        device.absinfo[EvdevCode.absMtPositionY] = AbsInfo(minimum: .min, maximum: .max, fuzz: 8)
        var decoder = try T.decoder(device)
        let frames = T.feed(
            &decoder,
            [
                T.abs(EvdevCode.absMtTrackingId, 1, at: 0), T.abs(EvdevCode.absMtPositionX, .min, at: 0),
                T.abs(EvdevCode.absMtPositionY, .min, at: 0), T.report(at: 0),
                T.abs(EvdevCode.absMtPositionX, .max, at: 1000), T.abs(EvdevCode.absMtPositionY, .max, at: 1000),
                T.report(at: 1000),
                T.abs(EvdevCode.absMtPositionX, .min, at: 2000), T.report(at: 2000),
            ])
        #expect(frames.flatMap(\.contacts).map(\.kind) == [.down, .motion, .motion])
        #expect(frames.flatMap(\.contacts).allSatisfy { $0.screenPoint.x.isFinite && $0.screenPoint.y.isFinite })
    }

    /// 32 contacts down (every seat slot), then `reports` reports that each move slot 0 and begin a
    /// contact on slot 40, which gets no seat slot: libinput ends no frame for such a report, so
    /// slot 0's motion waits for the next.
    static func unframedEvents(reports: Int) -> [EvdevEvent] {
        var events: [EvdevEvent] = []
        for slot in 0..<32 {
            events += [
                T.abs(EvdevCode.absMtSlot, Int32(slot), at: 0), T.abs(EvdevCode.absMtTrackingId, Int32(slot), at: 0),
                T.abs(EvdevCode.absMtPositionX, Int32(slot * 10), at: 0), T.abs(EvdevCode.absMtPositionY, 10, at: 0),
            ]
        }
        events.append(T.report(at: 0))
        for index in 1...reports {
            let time = UInt64(index) * 100
            events += [
                T.abs(EvdevCode.absMtSlot, 0, at: time), T.abs(EvdevCode.absMtPositionX, Int32(index % 2), at: time),
                T.abs(EvdevCode.absMtSlot, 40, at: time),
                T.abs(EvdevCode.absMtTrackingId, Int32(1000 + index), at: time), T.report(at: time),
            ]
        }
        return events
    }

    @Test("contacts waiting for a frame end one at the limit instead of piling up over the whole file")
    func unframedContactsBounded() throws {
        var device = T.touchscreen
        device.absinfo[EvdevCode.absMtSlot] = AbsInfo(minimum: 0, maximum: 63)
        let reports = 3 * MultitouchDecoder.unframedContactLimit + 10
        let frames = try T.decode(Recording(device: device, events: Self.unframedEvents(reports: reports)))
        let sizes = frames.map(\.contacts.count)
        #expect(sizes.allSatisfy { $0 <= MultitouchDecoder.unframedContactLimit }, "largest frame: \(sizes.max() ?? 0)")
        // Nothing is lost: 32 downs, every motion, 32 cancels at the end.
        #expect(sizes.reduce(0, +) == 32 + reports + 32)
        #expect(frames.count >= 3)
    }

    @Test("a libinput record's event stream is not held as a tree: 200,000 rows (a million values) are read")
    func longEventStreamRead() throws {
        var text = MalformedRecordingTests.validYAML + "\n"
        let rows = 200_000
        text.reserveCapacity(text.utf8.count + rows * 40)
        for index in 0..<rows / 2 {
            text += "  - evdev:\n    - [1, \(index), 3, 53, \(index % 2)]\n    - [1, \(index), 0, 0, 0]\n"
        }
        let recordings = try LibinputRecordReader.parse(text, file: "long.yml")
        #expect(recordings[0].events.count == 2 + rows)
        #expect(recordings[0].events.last?.timestampMicros == 1_000_000 + UInt64(rows / 2 - 1))
    }

    @Test("a libinput record holding more YAML values at once than a description or an event can is refused")
    func heldValuesBounded() {
        let count = RecordingYAML.maximumHeldNodes + 1
        var lines = MalformedRecordingTests.validYAML.split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        // Line 12, `properties: [1]`: a list of a hundred thousand ones (once 70 bytes a value).
        lines[11] = "    properties: [" + Array(repeating: "1", count: count).joined(separator: ",") + "]"
        let text = lines.joined(separator: "\n")
        MalformedRecordingTests().expectError(
            file: "wide.yml", line: 12, word: "YAML values at once", "wide properties"
        ) { () throws(RecordingError) in
            _ = try LibinputRecordReader.parse(text, file: "wide.yml")
        }
        // One row of events with as many values: the same, at its line.
        let row = "  - evdev:\n    - [" + Array(repeating: "1", count: count).joined(separator: ",") + "]\n"
        MalformedRecordingTests().expectError(file: "row.yml", line: 18, word: "YAML values at once", "a wide row") {
            () throws(RecordingError) in
            _ = try LibinputRecordReader.parse(MalformedRecordingTests.validYAML + "\n" + row, file: "row.yml")
        }
    }

    @Test("evemu lines end at a newline with or without a carriage return; a file of empty lines is read")
    func evemuLines() throws {
        let crlf = "N: Panel\r\nA: 35 0 799 0 0 0\r\nE: 0.000001 0003 0035 5\r\n"
        let parsed = try EvemuReader.parse(crlf, file: "crlf.events")
        #expect(parsed.device?.name == "Panel")
        #expect(parsed.events.map(\.value) == [5])
        let empty = try EvemuReader.parse(String(repeating: "\n", count: 100_000) + "E: 1.0 0 0 0", file: "e.events")
        #expect(empty.events.count == 1)
        MalformedRecordingTests().expectError(file: "late.events", line: 50_001, word: "tag", "a bad last line") {
            () throws(RecordingError) in
            _ = try EvemuReader.parse(String(repeating: "\n", count: 50_000) + "X", file: "late.events")
        }
    }
    @Test("a field of any length is quoted as an excerpt in an error, in both formats")
    func longFieldsExcerpted() {
        let long = String(repeating: "9", count: 100_000)
        let evemuTexts = [
            "E: \(long).0 0003 0035 1", "E: 1.0 \(long)x 0035 1", "E: 1.0 0003 \(long)x 1", "E: 1.0 0003 0035 \(long)",
            "N: X\nA: \(long) 0 1 0 0", "N: X\nA: 35 \(long) 1 0 0", "N: X\nP: \(long)", long,
            "\u{301}" + String(repeating: "\u{301}", count: 100_000),
        ]
        for text in evemuTexts {
            do {
                _ = try EvemuReader.parse(text, file: "long.events")
                Issue.record("accepted")
            } catch {
                #expect(error.message.unicodeScalars.count <= 200, "\(error.message.prefix(120))")
            }
        }
        let key = String(repeating: "0", count: 100_000) + "53"
        let yaml = MalformedRecordingTests.validYAML.replacingOccurrences(
            of: "53: [0, 799, 0, 0, 0]", with: "? \(key)\n      : [0, 799, 0, 0]")
        do {
            _ = try LibinputRecordReader.parse(yaml, file: "long.yml")
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("5 numbers"), "\(error.message.prefix(120))")
            #expect(error.message.unicodeScalars.count <= 200, "\(error.message.prefix(120))")
        }
    }
    /// Found by `scripts/fuzz recording-libinput`: a text ending just after a comma in a flow list,
    /// or a document of nothing, made libyaml name the line after the last (inputs in
    /// Tests/Fixtures/fuzz).
    @Test(
        "a YAML text ending inside a list or an empty document names its last line, not the one after",
        arguments: [
            ("version: 1\ndevices:\n- [0,", 3, "node content"), ("version: 1\ndevices:\n- [0,\n", 3, "node content"),
            ("version: 1\ndevices:\n- [0,\n\n\n", 5, "node content"), ("--- ", 1, "top level must be a mapping"),
            ("---\n", 1, "top level must be a mapping"),
        ])
    func endOfTextLine(text: String, line: Int, word: String) {
        MalformedRecordingTests().expectError(file: "cut.yml", line: line, word: word, text.debugDescription) {
            () throws(RecordingError) in
            _ = try LibinputRecordReader.parse(text, file: "cut.yml")
        }
    }

    @Test("the fuzzer's input that ended 65,536 bytes into a shared recording fails at its last line")
    func fuzzEndOfTextInput() throws {
        let text = try #require(
            try? String(contentsOfFile: Fixtures.path("../fuzz/recording-libinput-eof-line.yml"), encoding: .utf8))
        MalformedRecordingTests().expectError(file: "eof.yml", line: 879, word: "node content", "the fuzz input") {
            () throws(RecordingError) in
            _ = try LibinputRecordReader.parse(text, file: "eof.yml")
        }
    }
    @Test("an evemu time whose microseconds overflow 64 bits is refused, not a trap")
    func evemuTimestampOverflow() {
        MalformedRecordingTests().expectError(
            file: "late.events", line: 1, word: "timestamp", "18446744073709.999999"
        ) { () throws(RecordingError) in
            _ = try EvemuReader.parse("E: 18446744073709.999999 0000 0000 0000", file: "late.events")
        }
    }

    @Test("a recording spanning ages, looped as fast as possible, saturates its times instead of trapping")
    func loopedScheduleSaturates() throws {
        let frames = [UInt64(0), 1 << 62].map {
            InputFrame(
                device: ReplayScheduleTests.device, screen: "main", timestampMicros: $0,
                contacts: [ContactEvent(kind: .motion, slot: 0)])
        }
        var schedule = try ReplaySchedule(frames: frames, speed: 0, loop: true)
        var times: [UInt64] = []
        while times.count < 20, let entry = schedule.next() { times.append(entry.frame.timestampMicros) }
        #expect(times.count == 20)
        #expect(times == times.sorted())
        #expect(times.last == .max)
    }
    /// Found by `scripts/fuzz recording-evemu`: a protocol-A device whose position axis spans the
    /// whole Int32 range with fuzz 0 overflowed libmtdev's default fuzz (range / 250) in 32 bits.
    @Test("a protocol-A axis spanning the Int32 range gets libmtdev's default fuzz without a trap")
    func protocolAWholeRange() throws {
        let text = try #require(
            try? String(
                contentsOfFile: Fixtures.path("../fuzz/recording-evemu-mtdev-fuzz-range.events"), encoding: .utf8))
        let parsed = try EvemuReader.parse(text, file: "range.events")
        let device = try #require(parsed.device)
        #expect(device.isProtocolA)
        var decoder = try T.decoder(device)
        let frames = T.feed(
            &decoder,
            [
                T.abs(EvdevCode.absMtPositionX, 100, at: 0), T.abs(EvdevCode.absMtPositionY, 100, at: 0),
                EvdevEvent(timestampMicros: 0, type: EvdevCode.evSyn, code: EvdevCode.synMtReport, value: 0),
                T.report(at: 0),
            ])
        #expect(frames.flatMap(\.contacts).map(\.kind) == [.down])
    }
}
