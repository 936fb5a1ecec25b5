import Foundation
import Testing
import TouchRouterCore

@testable import TouchRouterInput

/// Seeded property tests: the readers never crash on damaged text, the decoder never produces an
/// ill-formed contact sequence whatever the device sends.
@Suite("Robustness")
struct RobustnessTests {
    /// Damaged copies of the real recordings (bytes deleted, duplicated, replaced, truncated) either
    /// parse or fail with a RecordingError whose line is inside the file.
    @Test(arguments: [
        "libinput/atmel-2-fingers-touch-release.yml",
        "evemu/Atmel maXTouch Touchscreen.2-fingers-touch-release.events",
    ])
    func damagedRecordingsFailCleanly(relativePath: String) throws {
        let original = Array(try String(contentsOfFile: Fixtures.path(relativePath), encoding: .utf8))
        let lineCount = original.filter { $0 == "\n" }.count + 1
        let isYAML = relativePath.hasSuffix(".yml")
        for seed in UInt64(1)...120 {
            var random = SeededRandom(seed: seed)
            var text = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let position = Int.random(in: 0..<text.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: text.remove(at: position)
                case 1: text.insert(text[position], at: position)
                case 2: text[position] = Array(" -:[]{},#\"\t\n0123456789xE").randomElement(using: &random)!
                default: text.removeSubrange(position...)
                }
                if text.isEmpty { text = ["x"] }
            }
            let damaged = String(text)
            do {
                if isYAML {
                    _ = try LibinputRecordReader.parse(damaged, file: "damaged")
                } else {
                    _ = try EvemuReader.parse(damaged, file: "damaged")
                }
            } catch {
                #expect(error.line >= 0 && error.line <= lineCount + 4, "seed \(seed): \(error)")
            }
        }
    }

    /// Random event streams (including SYN_DROPPED, out-of-range slots, tracking-id reuse, palms) keep
    /// the contact sequence well formed, and cancelAll always leaves nothing down.
    @Test(arguments: [UInt64(7), 8, 9, 10, 11])
    func randomStreamsStayWellFormed(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var device = MultitouchDecoderTests.touchscreen
        device.absinfo[EvdevCode.absMtToolType] = AbsInfo(minimum: 0, maximum: 2)
        if seed % 2 == 1 {  // odd seeds: axes with a fuzz (kernel defuzz and libinput hysteresis)
            device.absinfo[EvdevCode.absMtPositionX]?.fuzz = 16
            device.absinfo[EvdevCode.absMtPositionY]?.fuzz = 10
        }
        var decoder = try MultitouchDecoderTests.decoder(device)
        var down = Set<Int32>()
        var time: UInt64 = 0
        func check(_ frame: InputFrame?) {
            guard let frame else { return }
            #expect(frame.timestampMicros == time, "seed \(seed)")
            for contact in frame.contacts {
                #expect(contact.slot >= 0 && contact.slot < 32, "seed \(seed)")
                switch contact.kind {
                case .down:
                    #expect(down.insert(contact.slot).inserted, "seed \(seed): double down \(contact.slot)")
                    #expect(contact.screenPoint.isFinite, "seed \(seed)")
                case .motion:
                    #expect(down.contains(contact.slot), "seed \(seed): motion of \(contact.slot) not down")
                case .up, .cancel:
                    #expect(down.remove(contact.slot) != nil, "seed \(seed): end of \(contact.slot) not down")
                }
            }
        }
        for _ in 0..<3_000 {
            time += UInt64.random(in: 0...3_000, using: &random)
            let roll = Int.random(in: 0..<100, using: &random)
            let event: EvdevEvent
            switch roll {
            case 0..<15:
                event = MultitouchDecoderTests.abs(
                    EvdevCode.absMtSlot, Int32.random(in: -1...5, using: &random), at: time)
            case 15..<30:
                let id: Int32 = Bool.random(using: &random) ? -1 : Int32.random(in: 0...20, using: &random)
                event = MultitouchDecoderTests.abs(EvdevCode.absMtTrackingId, id, at: time)
            case 30..<55:
                let code = Bool.random(using: &random) ? EvdevCode.absMtPositionX : EvdevCode.absMtPositionY
                event = MultitouchDecoderTests.abs(
                    code, Int32.random(in: -50...1_050, using: &random), at: time)
            case 55..<60:
                event = MultitouchDecoderTests.abs(
                    EvdevCode.absMtToolType, Int32.random(in: 0...2, using: &random), at: time)
            case 60..<62:
                event = MultitouchDecoderTests.dropped(at: time)
            case 62..<65:
                event = EvdevEvent(
                    timestampMicros: time, type: UInt16.random(in: 0...5, using: &random),
                    code: UInt16.random(in: 0...400, using: &random),
                    value: Int32.random(in: -2...2, using: &random))
            default:
                event = MultitouchDecoderTests.report(at: time)
            }
            check(decoder.feed(event))
        }
        #expect(Set(decoder.activeSeatSlots) == down, "seed \(seed)")
        check(decoder.cancelAll(timestampMicros: time))
        #expect(down.isEmpty && decoder.activeSeatSlots.isEmpty, "seed \(seed)")
    }
}
