import Foundation
import Testing
import TouchRouterCore

/// Issue 26, item 13: a reload that turned `idle` on sent `idle` under a moving finger (the stage,
/// skipped while it had nothing to do, did not know the finger, and counted down from long before
/// the reload), stamped on the monotonic clock instead of the touches' input clock.
@Suite("Field stage: a reload that turns idle on")
struct FieldReloadTests {
    typealias S = FieldStageTests

    /// The input clock runs this far ahead of the stage's (a replay: recorded times).
    static let inputAhead: UInt64 = 7_000_000

    static func idleConfig(seconds: Double = 1) throws -> Config {
        try Config.parse(
            Data(
                """
                {screens: [{name: "main", width: 1000, height: 1000, root: {id: "r"}, idle: {seconds: \(seconds)}},
                  {name: "side", width: 10, height: 10, root: {id: "s"}}]}
                """.utf8), fileName: "test.json5")
    }

    static func frame(_ stageTime: UInt64, _ contacts: ContactEvent...) -> InputEvent {
        .frame(
            InputFrame(
                device: S.panel, screen: "main", timestampMicros: stageTime + inputAhead, contacts: contacts))
    }

    @Test("no idle while a finger that was down through the reload stays down; the countdown starts at its up")
    func noIdleUnderAFinger() throws {
        // Nothing on: the daemon skips the stage, which only notes the input clock.
        var stage = FieldStage(screens: ["main", "side"], settings: [:], nowMicros: 0)
        #expect(stage.isInert)
        stage.noteInputClock(frameTimestampMicros: 1_000_000 + Self.inputAhead, nowMicros: 1_000_000)
        // The reload at 10 s turns idle on while the tracker has a finger down.
        let down = FieldStage.DownContact(device: S.panel, slot: 0, screen: "main", screenPoint: Point(100, 100))
        stage.replaceSettings(config: try Self.idleConfig(), nowMicros: 10_000_000, contactsDown: [down])
        #expect(stage.nextDeadlineMicros == nil)
        #expect(stage.advance(nowMicros: 30_000_000).screenChanges.isEmpty)
        let moved = stage.process(Self.frame(31_000_000, S.move(0, 200, 200)), nowMicros: 31_000_000)
        #expect(moved.screenChanges.isEmpty && S.contacts(moved) == [S.move(0, 200, 200)])
        let lifted = stage.process(Self.frame(32_000_000, S.up(0)), nowMicros: 32_000_000)
        #expect(lifted.screenChanges.isEmpty && S.contacts(lifted) == [S.up(0)])
        #expect(stage.nextDeadlineMicros == 33_000_000)
        // The idle is stamped on the input clock, as the touches are.
        let idle = stage.advance(nowMicros: 34_000_000).screenChanges
        #expect(
            idle == [
                ScreenStateChange(
                    screen: "main", isActive: false, reason: .timeout, timestampMicros: 33_000_000 + Self.inputAhead)
            ])
    }

    @Test("the countdown starts at the reload, not at the last activity the old settings saw")
    func countdownFromTheReload() throws {
        var stage = FieldStage(screens: ["main", "side"], settings: [:], nowMicros: 0)
        stage.replaceSettings(config: try Self.idleConfig(), nowMicros: 50_000_000)
        #expect(stage.nextDeadlineMicros == 51_000_000)
        #expect(stage.advance(nowMicros: 50_500_000).screenChanges.isEmpty)
        #expect(stage.advance(nowMicros: 51_000_000).screenChanges.map(\.reason) == [.timeout])
    }

    @Test("a reload that keeps the same idle keeps its countdown")
    func sameIdleKeepsCountdown() throws {
        var stage = FieldStage(config: try Self.idleConfig(), nowMicros: 0)
        stage.replaceSettings(config: try Self.idleConfig(), nowMicros: 500_000)
        #expect(stage.nextDeadlineMicros == 1_000_000)
        // A changed idle counts from the reload.
        stage.replaceSettings(config: try Self.idleConfig(seconds: 2), nowMicros: 600_000)
        #expect(stage.nextDeadlineMicros == 2_600_000)
    }

    @Test("a contact the stage does not follow still counts as activity when it moves")
    func unknownMotionIsActivity() throws {
        var stage = FieldStage(config: try Self.idleConfig(), nowMicros: 0)
        _ = stage.process(Self.frame(900_000, S.move(5, 1, 1)), nowMicros: 900_000)
        #expect(stage.nextDeadlineMicros == 1_900_000)
    }
}
