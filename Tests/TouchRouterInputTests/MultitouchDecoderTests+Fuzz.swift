import Testing
import TouchRouterCore

@testable import TouchRouterInput

/// Axes with a fuzz: the kernel's defuzzing of a replay and libinput's hysteresis, as the decoder
/// copies them.
extension MultitouchDecoderTests {
    /// A decoder for the touchscreen with fuzz 8 on both position axes (hysteresis radius 4).
    static func fuzzyDecoder() throws -> MultitouchDecoder {
        var device = touchscreen
        device.absinfo[EvdevCode.absMtPositionX]?.fuzz = 8
        device.absinfo[EvdevCode.absMtPositionY]?.fuzz = 8
        return try decoder(device)
    }

    /// Axes with a fuzz: the kernel's defuzzing of a uinput replay, then libinput's hysteresis (margin
    /// fuzz / 2), which drops small motions and reports the unfiltered position of the others.
    @Test func fuzzDefuzzAndHysteresis() throws {
        var decoder = try Self.fuzzyDecoder()
        let frames = Self.feed(
            &decoder,
            [
                Self.abs(EvdevCode.absMtTrackingId, 1, at: 0), Self.abs(EvdevCode.absMtPositionX, 100, at: 0),
                Self.abs(EvdevCode.absMtPositionY, 100, at: 0), Self.report(at: 0),
                // Kernel: within fuzz/2 of 100, dropped.
                Self.abs(EvdevCode.absMtPositionX, 102, at: 1), Self.report(at: 1),
                // Kernel passes 101; libinput's hysteresis drops it.
                Self.abs(EvdevCode.absMtPositionX, 106, at: 2), Self.report(at: 2),
                // Reported raw (130); the centre is dragged to 126.
                Self.abs(EvdevCode.absMtPositionX, 130, at: 3), Self.report(at: 3),
                // Kernel passes 101; hysteresis drops it.
                Self.abs(EvdevCode.absMtPositionY, 105, at: 4), Self.report(at: 4),
                // Reported with x = the dragged centre, 126.
                Self.abs(EvdevCode.absMtPositionY, 120, at: 5), Self.report(at: 5),
            ])
        #expect(frames.map(\.timestampMicros) == [0, 3, 5])
        #expect(
            frames.map(\.contacts) == [
                [ContactEvent(kind: .down, slot: 0, screenPoint: Point(100, 100))],
                [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(130, 100))],
                [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(126, 120))],
            ])
    }

    /// libinput keeps only the last flushed slot's result as "a frame is needed": when that slot
    /// sends nothing (a move inside the hysteresis), the report makes no frame, and the other slot's
    /// motion waits for the next frame instead of being lost or framed alone.
    @Test func aReportWhoseLastSlotSendsNothingCarriesItsContactsOn() throws {
        var decoder = try Self.fuzzyDecoder()
        let frames = Self.feed(
            &decoder,
            [
                Self.abs(EvdevCode.absMtSlot, 0, at: 0), Self.abs(EvdevCode.absMtTrackingId, 1, at: 0),
                Self.abs(EvdevCode.absMtPositionX, 100, at: 0), Self.abs(EvdevCode.absMtPositionY, 100, at: 0),
                Self.abs(EvdevCode.absMtSlot, 1, at: 0), Self.abs(EvdevCode.absMtTrackingId, 2, at: 0),
                Self.abs(EvdevCode.absMtPositionX, 500, at: 0), Self.abs(EvdevCode.absMtPositionY, 500, at: 0),
                Self.report(at: 0),
                // Slot 0 moves far; slot 1, flushed last, moves inside the hysteresis: no frame.
                Self.abs(EvdevCode.absMtSlot, 0, at: 1), Self.abs(EvdevCode.absMtPositionX, 300, at: 1),
                Self.abs(EvdevCode.absMtSlot, 1, at: 1), Self.abs(EvdevCode.absMtPositionX, 506, at: 1),
                Self.report(at: 1),
                // Slot 1 moves far: one frame with both motions.
                Self.abs(EvdevCode.absMtPositionX, 700, at: 2), Self.report(at: 2),
            ])
        #expect(frames.map(\.timestampMicros) == [0, 2])
        #expect(
            frames.last?.contacts == [
                ContactEvent(kind: .motion, slot: 0, screenPoint: Point(300, 100)),
                ContactEvent(kind: .motion, slot: 1, screenPoint: Point(700, 500)),
            ])
    }

    /// The hysteresis ellipse's radii are fuzz/2: a motion 6 units from the centre with fuzz 8 is
    /// outside it and reported (libinput's `evdev_hysteresis` margin), not suppressed.
    @Test func aMotionJustOutsideTheHysteresisEllipseIsReported() throws {
        var decoder = try Self.fuzzyDecoder()
        let frames = Self.feed(
            &decoder,
            [
                Self.abs(EvdevCode.absMtTrackingId, 1, at: 0), Self.abs(EvdevCode.absMtPositionX, 100, at: 0),
                Self.abs(EvdevCode.absMtPositionY, 100, at: 0), Self.report(at: 0),
                // The kernel averages 112 with 100 (within 2 × fuzz): 106, 6 from the centre > 4.
                Self.abs(EvdevCode.absMtPositionX, 112, at: 1), Self.report(at: 1),
            ])
        #expect(frames.map(\.timestampMicros) == [0, 1])
        #expect(frames.last?.contacts == [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(106, 100))])
    }

    /// Hysteresis again, on its other paths: a diagonal motion toward the origin (the centre lags
    /// behind on both axes, rounded toward zero as libinput's C does), the dragged centre standing in
    /// for the axis the next event does not carry, and a motion back inside the ellipse dropped.
    @Test func hysteresisDragsTheCentreBothWays() throws {
        var decoder = try Self.fuzzyDecoder()
        let frames = Self.feed(
            &decoder,
            [
                Self.abs(EvdevCode.absMtTrackingId, 1, at: 0), Self.abs(EvdevCode.absMtPositionX, 100, at: 0),
                Self.abs(EvdevCode.absMtPositionY, 100, at: 0), Self.report(at: 0),
                // 30 down-left on both axes (beyond 2 × fuzz: the kernel passes it as is). Reported raw;
                // the centre lags 4/√2 ≈ 2.83 behind on each axis: (72, 72).
                Self.abs(EvdevCode.absMtPositionX, 70, at: 1), Self.abs(EvdevCode.absMtPositionY, 70, at: 1),
                Self.report(at: 1),
                // X only: reported with y = the dragged centre (72); the centre goes to (44, 72).
                Self.abs(EvdevCode.absMtPositionX, 40, at: 2), Self.report(at: 2),
                // The kernel defuzzes 44 to 41: 3 from the centre's 44, inside the margin: dropped.
                Self.abs(EvdevCode.absMtPositionX, 44, at: 3), Self.report(at: 3),
                // Y only: x is the centre (44), not the dropped 41.
                Self.abs(EvdevCode.absMtPositionY, 100, at: 4), Self.report(at: 4),
            ])
        #expect(frames.map(\.timestampMicros) == [0, 1, 2, 4])
        #expect(
            frames.map(\.contacts) == [
                [ContactEvent(kind: .down, slot: 0, screenPoint: Point(100, 100))],
                [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(70, 70))],
                [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(40, 72))],
                [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(44, 100))],
            ])
    }

    /// The kernel's defuzzing on its own: with a fuzz on x only there is no hysteresis ellipse
    /// (libinput needs both margins), so every value the kernel passes is reported, and its
    /// weighting shows: within fuzz/2 dropped, within fuzz 3:1 toward the old value, within
    /// 2 × fuzz halfway, beyond that as is.
    @Test func kernelDefuzzWeighting() throws {
        var device = Self.touchscreen
        device.absinfo[EvdevCode.absMtPositionX]?.fuzz = 8
        var decoder = try Self.decoder(device)
        let frames = Self.feed(
            &decoder,
            [
                Self.abs(EvdevCode.absMtTrackingId, 1, at: 0), Self.abs(EvdevCode.absMtPositionX, 100, at: 0),
                Self.abs(EvdevCode.absMtPositionY, 100, at: 0), Self.report(at: 0),
                // 2 from 100, under fuzz / 2: the kernel drops it.
                Self.abs(EvdevCode.absMtPositionX, 102, at: 1), Self.report(at: 1),
                // 6 from 100, under fuzz: (3 × 100 + 106) / 4 = 101.
                Self.abs(EvdevCode.absMtPositionX, 106, at: 2), Self.report(at: 2),
                // 10 from 101, under 2 × fuzz: (101 + 111) / 2 = 106.
                Self.abs(EvdevCode.absMtPositionX, 111, at: 3), Self.report(at: 3),
                // 34 from 106: as is.
                Self.abs(EvdevCode.absMtPositionX, 140, at: 4), Self.report(at: 4),
                // y has no fuzz: as is.
                Self.abs(EvdevCode.absMtPositionY, 101, at: 5), Self.report(at: 5),
            ])
        #expect(frames.map(\.timestampMicros) == [0, 2, 3, 4, 5])
        #expect(
            frames.map(\.contacts) == [
                [ContactEvent(kind: .down, slot: 0, screenPoint: Point(100, 100))],
                [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(101, 100))],
                [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(106, 100))],
                [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(140, 100))],
                [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(140, 101))],
            ])
    }
}
