import Foundation
import Testing
import TouchRouterCore

/// The field stage on synthetic streams: idle and wake, the swallowed first touch and its grace
/// window, setScreenState, stuck points and stuck cancels, each threshold at −1, exactly, +1.
/// Times are in µs; the stage's clock is the frames' own timestamps here.
@Suite("Field stage")
struct FieldStageTests {
    static let panel = InputDevice(id: 1, name: "panel")
    static let other = InputDevice(id: 2, name: "other")

    static func frame(_ time: UInt64, _ contacts: ContactEvent..., device: InputDevice = panel) -> InputEvent {
        .frame(InputFrame(device: device, screen: "main", timestampMicros: time, contacts: contacts))
    }

    static func down(_ slot: Int32, _ x: Double = 100, _ y: Double = 100, corner: Bool = false) -> ContactEvent {
        ContactEvent(kind: .down, slot: slot, screenPoint: Point(x, y), atDeviceLimit: corner)
    }

    static func move(_ slot: Int32, _ x: Double, _ y: Double) -> ContactEvent {
        ContactEvent(kind: .motion, slot: slot, screenPoint: Point(x, y))
    }

    static func up(_ slot: Int32) -> ContactEvent { ContactEvent(kind: .up, slot: slot) }

    static func stage(_ settings: FieldSettings, start: UInt64 = 0) -> FieldStage {
        FieldStage(screens: ["main", "side"], settings: ["main": settings], nowMicros: start)
    }

    /// The contacts of every frame the stage passes on, flattened.
    static func contacts(_ output: FieldOutput) -> [ContactEvent] {
        output.events.flatMap { event -> [ContactEvent] in
            if case .frame(let frame) = event { return frame.contacts }
            return []
        }
    }

    /// Feeds events at their own timestamps.
    static func run(_ stage: inout FieldStage, _ events: [InputEvent]) -> [FieldOutput] {
        events.map { event in
            let time: UInt64
            switch event {
            case .frame(let frame): time = frame.timestampMicros
            case .deviceRemoved(_, let stamp): time = stamp
            }
            return stage.process(event, nowMicros: time)
        }
    }

    // MARK: - Inert

    @Test func aStageWithNothingOnPassesFramesUnchangedAndNeverWakes() {
        var stage = FieldStage(screens: ["main"], settings: [:], nowMicros: 0)
        #expect(stage.isInert && stage.nextDeadlineMicros == nil)
        let event = Self.frame(1000, Self.down(0, 0, 0, corner: true))
        let output = stage.process(event, nowMicros: 1000)
        #expect(output.events == [event] && output.screenChanges.isEmpty)
        #expect(stage.nextDeadlineMicros == nil)
    }

    // MARK: - Idle and wake

    @Test(arguments: [(999_999 as UInt64, false), (1_000_000, true), (1_000_001, true)])
    func idleComesAfterTheGivenTimeWithoutContact(at time: UInt64, idle: Bool) {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000))
        #expect(stage.nextDeadlineMicros == 1_000_000)
        let output = stage.advance(nowMicros: time)
        #expect(output.screenChanges.map(\.isActive) == (idle ? [false] : []))
        #expect(stage.activity(ofScreen: "main") == (idle ? .idle : .active))
        if idle {
            #expect(
                output.screenChanges[0]
                    == ScreenStateChange(
                        screen: "main", isActive: false, reason: .timeout, timestampMicros: 1_000_000))
            #expect(stage.nextDeadlineMicros == nil)
        }
    }

    /// A held contact (`minContactMs`) is not a touch yet: a blip (dropped whole) leaves the idle
    /// countdown where it was.
    @Test func aBlipDoesNotRestartTheIdleCountdown() {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000, minContactMicros: 30_000))
        let blip = Self.run(&stage, [Self.frame(900_000, Self.down(0)), Self.frame(910_000, Self.up(0))])
        #expect(blip.allSatisfy { Self.contacts($0).isEmpty })
        #expect(stage.nextDeadlineMicros == 1_000_000)
        #expect(stage.advance(nowMicros: 1_000_000).screenChanges.map(\.reason) == [.timeout])
        #expect(stage.activity(ofScreen: "main") == .idle)
    }

    @Test func aFingerDownHoldsIdleOffAndItsLiftRestartsTheCountdown() {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000))
        _ = stage.process(Self.frame(500_000, Self.down(0)), nowMicros: 500_000)
        #expect(stage.nextDeadlineMicros == nil)
        #expect(stage.advance(nowMicros: 5_000_000).screenChanges.isEmpty)
        _ = stage.process(Self.frame(6_000_000, Self.up(0)), nowMicros: 6_000_000)
        #expect(stage.nextDeadlineMicros == 7_000_000)
    }

    @Test func withoutSwallowTheWakingTouchIsDeliveredAndTheScreenIsActive() {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000))
        let outputs = Self.run(&stage, [Self.frame(2_000_000, Self.down(0)), Self.frame(2_100_000, Self.up(0))])
        #expect(outputs[0].screenChanges.map(\.isActive) == [false, true])
        #expect(outputs[0].screenChanges[1].reason == .touch)
        #expect(outputs[0].screenChanges[1].timestampMicros == 2_000_000)
        #expect(Self.contacts(outputs[0]) == [Self.down(0)])
        #expect(Self.contacts(outputs[1]) == [Self.up(0)])
    }

    @Test func theWakingTouchIsSwallowedWholeFromDownToUp() {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000, swallowsWakingTouch: true))
        let outputs = Self.run(
            &stage,
            [
                Self.frame(2_000_000, Self.down(0)), Self.frame(2_050_000, Self.move(0, 300, 300)),
                Self.frame(2_100_000, Self.up(0)), Self.frame(3_000_000, Self.down(0)),
            ])
        #expect(outputs[0].screenChanges.map(\.isActive) == [false, true])
        #expect(outputs.prefix(3).allSatisfy { Self.contacts($0).isEmpty })
        #expect(Self.contacts(outputs[3]) == [Self.down(0)])
        #expect(stage.deviceCounters.first?[.wakeSwallowed] == 1)
    }

    /// A second finger beginning within graceMs of the waking touch is swallowed too; at +1 µs it
    /// is delivered (and so are its later events).
    @Test(arguments: [(249_999 as UInt64, true), (250_000, true), (250_001, false)])
    func aTouchBeginningInsideTheGraceWindowIsSwallowed(after delay: UInt64, swallowed: Bool) {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000, swallowsWakingTouch: true))
        let wake: UInt64 = 2_000_000
        let outputs = Self.run(
            &stage,
            [
                Self.frame(wake, Self.down(0)), Self.frame(wake + delay, Self.down(1, 400, 400)),
                Self.frame(wake + delay + 10, Self.move(1, 410, 410), Self.up(0)),
            ])
        #expect(Self.contacts(outputs[0]).isEmpty)
        #expect(Self.contacts(outputs[1]) == (swallowed ? [] : [Self.down(1, 400, 400)]))
        #expect(Self.contacts(outputs[2]) == (swallowed ? [] : [Self.move(1, 410, 410)]))
    }

    /// With `minContactMs` the waking touch becomes a touch only at its deadline, but the grace
    /// window counts from its down: a second finger beginning more than graceMs after that down is
    /// delivered, even though it began less than graceMs after the waking touch was confirmed.
    @Test(arguments: [(250_000 as UInt64, true), (250_001, false), (300_000, false)])
    func theGraceWindowCountsFromAHeldWakingTouchsDown(after delay: UInt64, swallowed: Bool) {
        var stage = Self.stage(
            FieldSettings(
                idleMicros: 1_000_000, swallowsWakingTouch: true, wakeGraceMicros: 250_000, minContactMicros: 100_000))
        _ = stage.advance(nowMicros: 1_000_000)
        let wake: UInt64 = 2_000_000
        _ = stage.process(Self.frame(wake, Self.down(0)), nowMicros: wake)
        let woke = stage.advance(nowMicros: wake + 100_000)
        #expect(woke.screenChanges.map(\.reason) == [.touch])
        #expect(Self.contacts(woke).isEmpty)
        _ = stage.process(Self.frame(wake + delay, Self.down(1, 400, 400)), nowMicros: wake + delay)
        let second = stage.advance(nowMicros: wake + delay + 100_000)
        #expect(Self.contacts(second) == (swallowed ? [] : [Self.down(1, 400, 400)]))
    }

    @Test func aTouchOnAnotherScreenNeitherWakesNorIsSwallowed() {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000, swallowsWakingTouch: true))
        let side = InputEvent.frame(
            InputFrame(device: Self.other, screen: "side", timestampMicros: 2_000_000, contacts: [Self.down(0)]))
        let output = stage.process(side, nowMicros: 2_000_000)
        #expect(output.events.last == side)
        #expect(stage.activity(ofScreen: "main") == .idle)
    }

    // MARK: - setScreenState

    @Test func offMakesTheNextTouchTheWakingOneAndOnEndsIt() {
        var stage = Self.stage(FieldSettings(swallowsWakingTouch: true))
        #expect(stage.isInert == false)
        let off = stage.setScreenState("main", off: true, nowMicros: 1000)
        #expect(
            off?.screenChanges == [
                ScreenStateChange(screen: "main", isActive: false, reason: .admin, timestampMicros: 1000)
            ])
        #expect(stage.activity(ofScreen: "main") == .off)
        let touched = Self.run(&stage, [Self.frame(5000, Self.down(0)), Self.frame(6000, Self.up(0))])
        #expect(touched[0].screenChanges.map(\.reason) == [.touch])
        #expect(touched.allSatisfy { Self.contacts($0).isEmpty })
        // off then on: nothing is swallowed.
        _ = stage.setScreenState("main", off: true, nowMicros: 1_000_000)
        let on = stage.setScreenState("main", off: false, nowMicros: 1_000_100)
        #expect(on?.screenChanges.map(\.reason) == [.admin] && on?.screenChanges.first?.isActive == true)
        let after = stage.process(Self.frame(1_000_200, Self.down(0)), nowMicros: 1_000_200)
        #expect(Self.contacts(after) == [Self.down(0)])
        #expect(stage.setScreenState("nowhere", off: true, nowMicros: 1_000_300) == nil)
    }

    /// `on` is activity: a screen with `idle` counts its idle time again from the `on`, whether it
    /// was idle by the countdown or off by an admin.
    @Test(arguments: [false, true])
    func onRestartsTheIdleCountdown(turnedOff: Bool) {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000))
        _ = stage.advance(nowMicros: 1_000_000)
        #expect(stage.activity(ofScreen: "main") == .idle)
        if turnedOff {
            // idle and active alternate: `off` on a screen already idle tells nobody anything.
            #expect(stage.setScreenState("main", off: true, nowMicros: 2_000_000)?.screenChanges == [])
            #expect(stage.setScreenState("main", off: true, nowMicros: 2_000_001)?.screenChanges == [])
        }
        let on = stage.setScreenState("main", off: false, nowMicros: 5_000_000)
        #expect(on?.screenChanges.map(\.isActive) == [true])
        #expect(stage.activity(ofScreen: "main") == .active)
        #expect(stage.nextDeadlineMicros == 6_000_000)
        #expect(stage.advance(nowMicros: 5_999_999).screenChanges.isEmpty)
        #expect(stage.activity(ofScreen: "main") == .active)
        #expect(stage.advance(nowMicros: 6_000_000).screenChanges.map(\.reason) == [.timeout])
        #expect(stage.activity(ofScreen: "main") == .idle)
    }

    @Test func offOnAScreenWithNothingConfiguredStillWakesOnTouchWithoutSwallowing() {
        var stage = FieldStage(screens: ["main"], settings: [:], nowMicros: 0)
        _ = stage.setScreenState("main", off: true, nowMicros: 10)
        #expect(!stage.isInert)
        let output = stage.process(Self.frame(20, Self.down(0)), nowMicros: 20)
        #expect(output.screenChanges.map(\.isActive) == [true])
        #expect(Self.contacts(output) == [Self.down(0)])
        _ = stage.process(Self.frame(30, Self.up(0)), nowMicros: 30)
        #expect(stage.isInert)
    }

    // MARK: - Stuck points

    @Test func aContactAtTheSensorsCornerIsDroppedWholeAndCounted() {
        var stage = Self.stage(FieldSettings(dropsStuckPoints: true))
        let outputs = Self.run(
            &stage,
            [
                Self.frame(1000, Self.down(0, 0, 0, corner: true), Self.down(1, 50, 50)),
                Self.frame(2000, Self.move(0, 0, 0), Self.move(1, 60, 60)), Self.frame(3000, Self.up(0), Self.up(1)),
                Self.frame(4000, Self.down(0, 0, 0, corner: true)), Self.frame(4100, Self.up(0)),
            ])
        #expect(Self.contacts(outputs[0]) == [Self.down(1, 50, 50)])
        #expect(Self.contacts(outputs[1]) == [Self.move(1, 60, 60)])
        #expect(Self.contacts(outputs[2]) == [Self.up(1)])
        #expect(outputs[3].events.isEmpty && outputs[4].events.isEmpty)
        #expect(stage.deviceCounters.first?[.stuckPoint] == 2)
        // Both in one burst: one log line.
        #expect(outputs.flatMap(\.bursts).map(\.kind) == [.stuckPoint])
    }

    @Test func withoutTheFilterACornerContactPasses() {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000))
        let output = stage.process(Self.frame(1000, Self.down(0, 0, 0, corner: true)), nowMicros: 1000)
        #expect(Self.contacts(output) == [Self.down(0, 0, 0, corner: true)])
    }

    // MARK: - Stuck cancels

    @Test(arguments: [(4_999_999 as UInt64, false), (5_000_000, true), (5_000_001, true)])
    func aContactStillForMaxStationarySecondsIsCancelledAsStuck(after still: UInt64, cancelled: Bool) {
        var stage = Self.stage(FieldSettings(maxStationaryMicros: 5_000_000))
        _ = stage.process(Self.frame(1000, Self.down(0)), nowMicros: 1000)
        _ = stage.process(Self.frame(2000, Self.move(0, 120, 120)), nowMicros: 2000)
        #expect(stage.nextDeadlineMicros == 5_002_000)
        let output = stage.advance(nowMicros: 2000 + still)
        let stuck = ContactEvent(kind: .cancel, slot: 0, cancelReason: .stuck)
        #expect(Self.contacts(output) == (cancelled ? [stuck] : []))
        if cancelled {
            #expect(
                output.events.first.map { event in
                    if case .frame(let frame) = event { return frame.timestampMicros == 5_002_000 }
                    return false
                } == true)
            // The slot is ignored until it really lifts; then the next touch passes again.
            let later = Self.run(
                &stage,
                [
                    Self.frame(6_000_000, Self.move(0, 130, 130)), Self.frame(7_000_000, Self.up(0)),
                    Self.frame(8_000_000, Self.down(0)),
                ])
            #expect(Self.contacts(later[0]).isEmpty && Self.contacts(later[1]).isEmpty)
            #expect(Self.contacts(later[2]) == [Self.down(0)])
            #expect(stage.deviceCounters.first?[.stuckCancel] == 1)
        }
    }

    @Test func movingKeepsAContactFromBeingStuck() {
        var stage = Self.stage(FieldSettings(maxStationaryMicros: 1_000_000))
        _ = stage.process(Self.frame(0, Self.down(0)), nowMicros: 0)
        for step in 1...10 {
            let time = UInt64(step) * 900_000
            let output = stage.process(Self.frame(time, Self.move(0, 100 + Double(step), 100)), nowMicros: time)
            #expect(Self.contacts(output) == [Self.move(0, 100 + Double(step), 100)])
        }
    }

    @Test func aStuckContactNoLongerHoldsTheScreenAwake() {
        var stage = Self.stage(FieldSettings(idleMicros: 10_000_000, maxStationaryMicros: 2_000_000))
        _ = stage.process(Self.frame(0, Self.down(0)), nowMicros: 0)
        #expect(stage.nextDeadlineMicros == 2_000_000)
        _ = stage.advance(nowMicros: 2_000_000)
        #expect(stage.nextDeadlineMicros == 12_000_000)
        #expect(stage.advance(nowMicros: 12_000_000).screenChanges.map(\.reason) == [.timeout])
    }

    // MARK: - Device removal and reload

    @Test func aRemovedDeviceLetsTheScreenGoIdle() {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000))
        _ = stage.process(Self.frame(0, Self.down(0)), nowMicros: 0)
        let removed = stage.process(.deviceRemoved(Self.panel, timestampMicros: 500), nowMicros: 500)
        #expect(removed.events == [.deviceRemoved(Self.panel, timestampMicros: 500)])
        #expect(stage.nextDeadlineMicros == 1_000_500)
    }

    @Test func aReloadKeepsAnIdleScreenIdleAndAppliesNewSettings() throws {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000))
        _ = stage.advance(nowMicros: 1_000_000)
        let config = try Config.parse(
            Data(
                """
                {screens: [{name: "main", width: 10, height: 10, root: {id: "r"},
                  wake: {swallow: true}}]}
                """.utf8), fileName: "test.json5")
        stage.replaceSettings(config: config, nowMicros: 1_000_000)
        #expect(stage.activity(ofScreen: "main") == .idle)
        let output = stage.process(Self.frame(2_000_000, Self.down(0)), nowMicros: 2_000_000)
        #expect(Self.contacts(output).isEmpty)
    }

    // MARK: - Time

    @Test func anEarlierTimeCountsAsTheLatestSeen() {
        var stage = Self.stage(FieldSettings(idleMicros: 1_000_000))
        _ = stage.advance(nowMicros: 500_000)
        _ = stage.process(Self.frame(100, Self.down(0)), nowMicros: 100)
        #expect(stage.nowMicros == 500_000)
    }
}
