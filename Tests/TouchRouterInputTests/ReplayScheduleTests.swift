import Testing
import TouchRouterCore

@testable import TouchRouterInput

@Suite("ReplaySchedule")
struct ReplayScheduleTests {
    static let device = InputDevice(id: 7, name: "replay")

    static func frames(at times: [UInt64]) -> [InputFrame] {
        times.map {
            InputFrame(
                device: device, screen: "main", timestampMicros: $0,
                contacts: [ContactEvent(kind: .motion, slot: 0)])
        }
    }

    @Test func recordedTimingAtSpeedOne() throws {
        var schedule = try ReplaySchedule(frames: Self.frames(at: [5_000, 6_000, 9_500]))
        var entries: [ReplaySchedule.Entry] = []
        while let entry = schedule.next() { entries.append(entry) }
        #expect(entries.map(\.dueOffsetMicros) == [0, 1_000, 4_500])
        #expect(entries.map(\.frame.timestampMicros) == [5_000, 6_000, 9_500])
        let after = schedule.next()
        #expect(after == nil)
    }

    @Test(arguments: [(2.0, [UInt64(0), 500, 2_250]), (0.5, [0, 2_000, 9_000])])
    func speedScalesDueOffsets(speed: Double, expected: [UInt64]) throws {
        let schedule = try ReplaySchedule(
            frames: Self.frames(at: [5_000, 6_000, 9_500]), speed: speed, startTimestampMicros: 100)
        let entries = Array(schedule)
        #expect(entries.map(\.dueOffsetMicros) == expected)
        #expect(entries.map(\.frame.timestampMicros) == expected.map { $0 + 100 })
    }

    @Test func asFastAsPossibleKeepsRecordedSpacingInTimestamps() throws {
        let schedule = try ReplaySchedule(frames: Self.frames(at: [5_000, 6_000, 9_500]), speed: 0)
        let entries = Array(schedule)
        #expect(entries.map(\.dueOffsetMicros) == [0, 0, 0])
        #expect(entries.map(\.frame.timestampMicros) == [5_000, 6_000, 9_500])
    }

    @Test(arguments: [0.0, 1.0, 3.0])
    func loopedTimestampsKeepIncreasing(speed: Double) throws {
        var schedule = try ReplaySchedule(
            frames: Self.frames(at: [1_000, 1_000, 2_000, 4_000]), speed: speed, loop: true, loopGapMicros: 10
        )
        var previous: ReplaySchedule.Entry?
        for step in 0..<40 {
            let next = schedule.next()
            let entry = try #require(next)
            #expect(entry.loopIndex == step / 4)
            #expect(entry.frameNumber == step % 4 + 1)
            if let previous {
                #expect(entry.dueOffsetMicros >= previous.dueOffsetMicros)
                if entry.loopIndex != previous.loopIndex {
                    #expect(entry.frame.timestampMicros > previous.frame.timestampMicros)
                } else {
                    #expect(entry.frame.timestampMicros >= previous.frame.timestampMicros)
                }
            }
            previous = entry
        }
        // Ten passes of a 3 010 µs period (span 3 000 + gap 10): the last frame is at 9 × 3 010 + 3 000.
        if speed == 1 { #expect(previous?.dueOffsetMicros == 9 * 3_010 + 3_000) }
    }

    /// Pass k plays each frame at its recorded offset + k × (span + gap): every pass keeps the
    /// recording's spacing.
    @Test func everyPassKeepsTheRecordedSpacing() throws {
        var schedule = try ReplaySchedule(
            frames: Self.frames(at: [1_000, 2_000, 4_000]), speed: 1, loop: true, loopGapMicros: 10)
        let offsets = (0..<9).map { _ in schedule.next()?.dueOffsetMicros }
        #expect(offsets == [0, 1_000, 3_000, 3_010, 4_010, 6_010, 6_020, 7_020, 9_020])
    }

    @Test func realRecordingLoops() throws {
        let recording = try Recording.load(
            path: Fixtures.path("evemu/EP0430M09.2-fingers-touch-release.events"))
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: Self.device, screen: "main",
            mapping: try ScreenMapping(screenWidth: 1280, screenHeight: 768))
        var schedule = try ReplaySchedule(
            frames: frames, speed: 1, loop: true, startTimestampMicros: 1_000_000)
        var last: UInt64 = 0
        for step in 0..<(frames.count * 3) {
            let next = schedule.next()
            let entry = try #require(next)
            #expect(entry.frame.timestampMicros >= last)
            last = entry.frame.timestampMicros
            #expect(entry.loopIndex == step / frames.count)
            #expect(entry.frame.contacts == frames[step % frames.count].contacts)
        }
    }

    @Test func emptyAndInvalid() throws {
        var empty = try ReplaySchedule(frames: [], loop: true)
        let next = empty.next()
        #expect(next == nil)
        #expect(throws: ReplayScheduleError.invalidSpeed(-1)) { try ReplaySchedule(frames: [], speed: -1) }
        #expect(throws: ReplayScheduleError.invalidSpeed(.infinity)) {
            try ReplaySchedule(frames: [], speed: .infinity)
        }
        #expect(throws: ReplayScheduleError.zeroLoopGap) {
            try ReplaySchedule(frames: [], loop: true, loopGapMicros: 0)
        }
    }
}
