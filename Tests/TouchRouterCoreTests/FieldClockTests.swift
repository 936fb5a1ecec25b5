import Testing
import TouchRouterCore

/// The field stage's two clocks: the caller's (`nowMicros`, what deadlines are on) and the input
/// clock of the frames' timestamps, here 5 s ahead of it or 3 s behind (a recording's clock, or
/// libinput's). What the stage makes itself is stamped on the input clock; its own clock never goes
/// back. Times are in µs.
@Suite("Field stage: the caller's clock and the input clock")
struct FieldClockTests {
    typealias S = FieldStageTests

    /// Input clock minus the caller's.
    static let offsets: [Int64] = [5_000_000, -3_000_000]
    /// The caller's time of the first frame.
    static let start: UInt64 = 10_000_000

    /// `time` (the caller's) on the input clock `offset` away.
    static func input(_ time: UInt64, _ offset: Int64) -> UInt64 { UInt64(Int64(time) + offset) }

    /// A frame handled at the caller's `time`, stamped on the input clock.
    static func process(
        _ stage: inout FieldStage, at time: UInt64, offset: Int64, _ contacts: ContactEvent...
    ) -> FieldOutput {
        let frame = InputFrame(
            device: S.panel, screen: "main", timestampMicros: input(time, offset), contacts: contacts)
        return stage.process(.frame(frame), nowMicros: time)
    }

    /// The timestamp of the first frame in `output`, if any.
    static func frameStamp(_ output: FieldOutput) -> UInt64? {
        for event in output.events { if case .frame(let frame) = event { return frame.timestampMicros } }
        return nil
    }

    @Test("a held began released at its deadline is stamped on the input clock", arguments: offsets)
    func heldBeganReleased(offset: Int64) {
        var stage = S.stage(FieldSettings(minContactMicros: 30_000), start: Self.start)
        #expect(S.contacts(Self.process(&stage, at: Self.start, offset: offset, S.down(0))).isEmpty)
        #expect(stage.nextDeadlineMicros == Self.start + 30_000)  // the caller's clock
        let released = stage.advance(nowMicros: Self.start + 30_000)
        #expect(S.contacts(released) == [S.down(0)])
        #expect(Self.frameStamp(released) == Self.input(Self.start + 30_000, offset))
    }

    @Test("a stuck cancel is stamped on the input clock", arguments: offsets)
    func stuckCancel(offset: Int64) {
        var stage = S.stage(FieldSettings(maxStationaryMicros: 1_000_000), start: Self.start)
        #expect(S.contacts(Self.process(&stage, at: Self.start, offset: offset, S.down(0))) == [S.down(0)])
        #expect(stage.nextDeadlineMicros == Self.start + 1_000_000)
        let stuck = stage.advance(nowMicros: Self.start + 1_000_000)
        #expect(S.contacts(stuck) == [ContactEvent(kind: .cancel, slot: 0, cancelReason: .stuck)])
        #expect(Self.frameStamp(stuck) == Self.input(Self.start + 1_000_000, offset))
    }

    @Test("idle, setScreenState and the waking touch are stamped on the input clock", arguments: offsets)
    func screenChanges(offset: Int64) {
        var stage = S.stage(FieldSettings(idleMicros: 1_000_000), start: Self.start)
        _ = Self.process(&stage, at: Self.start, offset: offset, S.down(0))
        _ = Self.process(&stage, at: Self.start + 100_000, offset: offset, S.up(0))
        #expect(stage.nextDeadlineMicros == Self.start + 1_100_000)
        let idle = stage.advance(nowMicros: Self.start + 1_100_000)
        #expect(
            idle.screenChanges == [
                ScreenStateChange(
                    screen: "main", isActive: false, reason: .timeout,
                    timestampMicros: Self.input(Self.start + 1_100_000, offset))
            ])
        // The waking touch's `active` carries its frame's timestamp.
        let woke = Self.process(&stage, at: Self.start + 2_000_000, offset: offset, S.down(1))
        #expect(
            woke.screenChanges == [
                ScreenStateChange(
                    screen: "main", isActive: true, reason: .touch,
                    timestampMicros: Self.input(Self.start + 2_000_000, offset))
            ])
        #expect(S.contacts(woke) == [S.down(1)])
        let off = stage.setScreenState("main", off: true, nowMicros: Self.start + 3_000_000)
        #expect(off?.screenChanges.map(\.timestampMicros) == [Self.input(Self.start + 3_000_000, offset)])
    }

    @Test("a held waking touch's `active` is stamped at its deadline on the input clock", arguments: offsets)
    func heldWakingTouch(offset: Int64) {
        var stage = S.stage(FieldSettings(minContactMicros: 30_000), start: Self.start)
        _ = stage.setScreenState("main", off: true, nowMicros: Self.start)
        _ = Self.process(&stage, at: Self.start + 1_000_000, offset: offset, S.down(0))
        let woke = stage.advance(nowMicros: Self.start + 1_030_000)
        #expect(woke.screenChanges.map(\.reason) == [.touch])
        #expect(woke.screenChanges.map(\.timestampMicros) == [Self.input(Self.start + 1_030_000, offset)])
    }

    /// A late timer (`advance` to a time before one already seen) leaves the clock where it was:
    /// a contact that comes down next counts its deadline from the latest time seen, and its held
    /// began, released then, is stamped its 50 ms after its own frame on the input clock.
    @Test("an advance to an earlier time does not turn the stage's clock back", arguments: offsets)
    func lateAdvance(offset: Int64) {
        var stage = S.stage(FieldSettings(minContactMicros: 50_000), start: Self.start)
        _ = stage.advance(nowMicros: Self.start + 5_000_000)
        _ = stage.advance(nowMicros: Self.start + 1_000_000)
        #expect(stage.nowMicros == Self.start + 5_000_000)
        _ = Self.process(&stage, at: Self.start + 1_000_000, offset: offset, S.down(0))
        #expect(stage.nextDeadlineMicros == Self.start + 5_050_000)
        #expect(S.contacts(stage.advance(nowMicros: Self.start + 1_050_000)).isEmpty)
        let released = stage.advance(nowMicros: Self.start + 5_050_000)
        #expect(S.contacts(released) == [S.down(0)])
        #expect(Self.frameStamp(released) == Self.input(Self.start + 1_050_000, offset))
    }
}
