import Testing
import TouchRouterCore

@testable import TouchRouterInput

/// A touch-down on a slot whose contact is still down is a kernel bug: ignored as libinput ignores
/// it, counted, and described for the log (the first few only, as libinput rate-limits
/// `log_bug_kernel`).
@Suite("MultitouchDecoder: kernel bugs")
struct MultitouchKernelBugTests {
    typealias T = MultitouchDecoderTests

    /// Slot 0 down with tracking id 1, then `repeats` more tracking ids on it without a lift.
    static func events(repeats: Int) -> [EvdevEvent] {
        var events = [
            T.abs(EvdevCode.absMtSlot, 0, at: 0), T.abs(EvdevCode.absMtTrackingId, 1, at: 0),
            T.abs(EvdevCode.absMtPositionX, 100, at: 0), T.abs(EvdevCode.absMtPositionY, 100, at: 0),
            T.report(at: 0),
        ]
        for index in 0..<repeats {
            let time = UInt64(index + 1) * 1000
            events += [T.abs(EvdevCode.absMtTrackingId, Int32(index + 2), at: time), T.report(at: time)]
        }
        return events
    }

    @Test("a second touch-down on a live slot is ignored and logged once as a kernel bug")
    func secondDownIgnored() throws {
        var decoder = try T.decoder()
        let frames = T.feed(&decoder, Self.events(repeats: 1))
        #expect(frames.flatMap(\.contacts).map(\.kind) == [.down], "no second down, no cancel")
        #expect(decoder.kernelBugCount == 1)
        #expect(decoder.kernelBugMessages.count == 1)
        #expect(decoder.kernelBugMessages.first?.hasPrefix("kernel bug: device \"synthetic\"") == true)
        #expect(decoder.kernelBugMessages.first?.contains("slot 0") == true)
    }

    @Test("past the limit, kernel bugs are counted but no longer described")
    func rateLimited() throws {
        var decoder = try T.decoder()
        _ = T.feed(&decoder, Self.events(repeats: 12))
        #expect(decoder.kernelBugCount == 12)
        #expect(decoder.kernelBugMessages.count == MultitouchDecoder.kernelBugMessageLimit)
        #expect(decoder.kernelBugMessages.last?.hasSuffix("further kernel bugs are only counted") == true)
        var logged: [String] = []
        _ = MultitouchDecoder.decode(
            Recording(device: T.touchscreen, events: Self.events(repeats: 12)), inputDevice: T.device,
            screen: "main", mapping: try ScreenMapping(screenWidth: 1000, screenHeight: 1000),
            logKernelBug: { logged.append($0) })
        #expect(logged.count == MultitouchDecoder.kernelBugMessageLimit + 1)
        #expect(logged.last == "kernel bug: 12 in all from device \"synthetic\"")
    }
}
