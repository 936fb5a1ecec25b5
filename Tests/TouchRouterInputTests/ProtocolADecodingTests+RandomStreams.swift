import Foundation
import Testing
import TouchRouterCore

@testable import TouchRouterInput

/// Seeded random protocol-A streams through libmtdev: no hang, well-formed contacts.
extension ProtocolADecodingTests {
    /// Seeded: random protocol-A streams (fingers by the dozen, positions anywhere, SYN_MT_REPORT,
    /// BTN_TOUCH, SYN_DROPPED, junk) never hang libmtdev and keep the contacts well formed, at most
    /// libinput's 10 down; cancelAll leaves nothing down.
    @Test(arguments: [UInt64(21), 22, 23, 24, 25])
    func randomStreamsStayWellFormed(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var decoder = MultitouchDecoder(
            device: Self.device, inputDevice: MultitouchDecoderTests.device, screen: "main",
            mapping: try ScreenMapping(screenWidth: 1000, screenHeight: 1000))
        var frames: [InputFrame] = []
        var time: UInt64 = 0
        for _ in 0..<4_000 {
            time += UInt64.random(in: 0...3_000, using: &random)
            func event(_ type: UInt16, _ code: UInt16, _ value: Int32) -> EvdevEvent {
                EvdevEvent(timestampMicros: time, type: type, code: code, value: value)
            }
            let roll = Int.random(in: 0..<100, using: &random)
            let value = Int32.random(in: -50...1_050, using: &random)
            let next: EvdevEvent
            switch roll {
            case 0..<30: next = event(EvdevCode.evAbs, EvdevCode.absMtPositionX, value)
            case 30..<60: next = event(EvdevCode.evAbs, EvdevCode.absMtPositionY, value)
            case 60..<80: next = event(EvdevCode.evSyn, EvdevCode.synMtReport, 0)
            case 80..<83:
                next = event(EvdevCode.evKey, EvdevCode.btnTouch, Int32.random(in: 0...2, using: &random))
            case 83..<85: next = event(EvdevCode.evSyn, EvdevCode.synDropped, 0)
            case 85..<88:
                next = event(
                    UInt16.random(in: 0...5, using: &random), UInt16.random(in: 0...0x3f, using: &random),
                    Int32.random(in: -2...2, using: &random))
            default: next = event(EvdevCode.evSyn, EvdevCode.synReport, 0)
            }
            if let frame = decoder.feed(next) { frames.append(frame) }
        }
        if let frame = decoder.cancelAll(timestampMicros: time) { frames.append(frame) }
        let lives = Self.lives(frames, maxDown: MultitouchDecoder.protocolASlotCount)
        #expect(!lives.isEmpty, "seed \(seed)")
        #expect(lives.allSatisfy { $0.end != nil }, "seed \(seed)")
        #expect(decoder.activeSeatSlots.isEmpty, "seed \(seed)")
    }
}
