import Testing
import TouchRouterCore

/// The timing filters on synthetic streams, each threshold at −1, exactly and +1 (ms and mm):
/// `minContactMs` (blips, the held `began`) and `debounceMs`/`debounceMM` (bounces).
@Suite("Field filters")
struct FieldFilterTests {
    typealias S = FieldStageTests

    static func run(_ stage: inout FieldStage, _ events: [InputEvent]) -> [FieldOutput] {
        FieldStageTests.run(&stage, events)
    }

    // MARK: - minContactMs

    /// A contact shorter than minContactMs that never left the tap slop is dropped whole; one that
    /// lasts minContactMs is delivered (its began released at the deadline, at its down point).
    @Test(arguments: [(29_000 as UInt64, true), (30_000, false), (31_000, false)])
    func aContactShorterThanMinContactIsABlip(lasting duration: UInt64, dropped: Bool) {
        var stage = S.stage(FieldSettings(minContactMicros: 30_000))
        let start: UInt64 = 1_000_000
        let outputs = Self.run(
            &stage, [S.frame(start, S.down(0, 100, 100)), S.frame(start + duration, S.up(0))])
        #expect(S.contacts(outputs[0]).isEmpty)
        #expect(S.contacts(outputs[1]) == (dropped ? [] : [S.down(0, 100, 100), S.up(0)]))
        #expect((stage.deviceCounters.first?[.blip] ?? 0) == (dropped ? 1 : 0))
    }

    @Test func theHeldBeganIsReleasedByTheDeadlineAtTheDownPointThenTheLatestMotion() {
        var stage = S.stage(FieldSettings(minContactMicros: 30_000))
        _ = stage.process(S.frame(1_000_000, S.down(0, 100, 100)), nowMicros: 1_000_000)
        _ = stage.process(S.frame(1_010_000, S.move(0, 110, 100)), nowMicros: 1_010_000)
        #expect(stage.nextDeadlineMicros == 1_030_000)
        #expect(S.contacts(stage.advance(nowMicros: 1_029_999)).isEmpty)
        let released = stage.advance(nowMicros: 1_030_000)
        #expect(S.contacts(released) == [S.down(0, 100, 100), S.move(0, 110, 100)])
        guard case .frame(let frame) = released.events.first else {
            Issue.record("no frame")
            return
        }
        #expect(frame.timestampMicros == 1_030_000 && frame.device == S.panel)
        // From then on the contact passes as any other.
        let moved = stage.process(S.frame(1_040_000, S.move(0, 120, 100)), nowMicros: 1_040_000)
        #expect(S.contacts(moved) == [S.move(0, 120, 100)])
    }

    /// Leaving the tap slop (45 units) before minContactMs makes it a touch at once: began at the
    /// down point, then the motion, in that frame.
    @Test(arguments: [(44.0, false), (45.0, false), (46.0, true)])
    func leavingTheTapSlopReleasesTheBeganAtOnce(distance: Double, released: Bool) {
        var stage = S.stage(FieldSettings(minContactMicros: 30_000))
        _ = stage.process(S.frame(0, S.down(0, 100, 100)), nowMicros: 0)
        let output = stage.process(S.frame(5_000, S.move(0, 100 + distance, 100)), nowMicros: 5_000)
        #expect(S.contacts(output) == (released ? [S.down(0, 100, 100), S.move(0, 100 + distance, 100)] : []))
        // A short stroke that left the slop is no blip: its up passes.
        let ended = stage.process(S.frame(10_000, S.up(0)), nowMicros: 10_000)
        #expect(S.contacts(ended) == (released ? [S.up(0)] : []))
    }

    @Test func aHeldContactDoesNotWakeTheScreenUntilItIsATouch() {
        var stage = S.stage(FieldSettings(idleMicros: 1_000_000, swallowsWakingTouch: true, minContactMicros: 30_000))
        _ = stage.advance(nowMicros: 1_000_000)
        let blip = Self.run(&stage, [S.frame(2_000_000, S.down(0)), S.frame(2_010_000, S.up(0))])
        #expect(blip.allSatisfy { $0.screenChanges.isEmpty && S.contacts($0).isEmpty })
        #expect(stage.activity(ofScreen: "main") == .idle)
        _ = stage.process(S.frame(3_000_000, S.down(0)), nowMicros: 3_000_000)
        let woke = stage.advance(nowMicros: 3_030_000)
        #expect(woke.screenChanges.map(\.reason) == [.touch])
        #expect(S.contacts(woke).isEmpty)  // the waking touch is swallowed
    }

    // MARK: - debounceMs / debounceMM

    /// A panel of 0.25 mm per layout unit (4 units per mm, exact in binary).
    static let scale = PhysicalScale(millimetresPerUnitX: 0.25, millimetresPerUnitY: 0.25, source: .config)

    static func scaled(_ time: UInt64, _ contact: ContactEvent) -> InputEvent {
        .frame(
            InputFrame(
                device: S.panel, screen: "main", timestampMicros: time, contacts: [contact], physicalScale: scale))
    }

    /// A down within debounceMs of the device's previous up is a bounce (dropped with its up).
    @Test(arguments: [(59_000 as UInt64, true), (60_000, true), (61_000, false)])
    func aDownRightAfterAnUpIsABounce(gap: UInt64, bounce: Bool) {
        var stage = S.stage(FieldSettings(debounceMicros: 60_000, debounceMillimetres: 3))
        let outputs = Self.run(
            &stage,
            [
                S.frame(0, S.down(0, 100, 100)), S.frame(100_000, S.up(0)),
                S.frame(100_000 + gap, S.down(0, 101, 100)), S.frame(150_000 + gap, S.up(0)),
            ])
        #expect(S.contacts(outputs[2]) == (bounce ? [] : [S.down(0, 101, 100)]))
        #expect(S.contacts(outputs[3]) == (bounce ? [] : [S.up(0)]))
        #expect(stage.deviceCounters.first?[.bounce] == (bounce ? 1 : 0))
    }

    /// …and within debounceMM of it.
    @Test(arguments: [(2.0, true), (3.0, true), (4.0, false)])
    func aBounceIsNearThePreviousUp(millimetres: Double, bounce: Bool) {
        var stage = S.stage(FieldSettings(debounceMicros: 60_000, debounceMillimetres: 3))
        let x = millimetres * 4
        let outputs = Self.run(
            &stage,
            [
                Self.scaled(0, S.down(0, 0, 100)), Self.scaled(100_000, S.up(0)),
                Self.scaled(120_000, S.down(1, x, 100)),
            ])
        #expect(S.contacts(outputs[2]) == (bounce ? [] : [S.down(1, x, 100)]))
    }

    @Test func aChatteringFingerIsOneTouchAndAnotherDeviceIsNotItsBounce() {
        var stage = S.stage(FieldSettings(debounceMicros: 60_000, debounceMillimetres: 3))
        let outputs = Self.run(
            &stage,
            [
                S.frame(0, S.down(0)), S.frame(100_000, S.up(0)),
                // Each bounce's up restarts the window.
                S.frame(130_000, S.down(0)), S.frame(140_000, S.up(0)),
                S.frame(190_000, S.down(0)), S.frame(200_000, S.up(0)),
                S.frame(210_000, S.down(0), device: S.other),
            ])
        #expect(outputs[2...5].allSatisfy { S.contacts($0).isEmpty })
        #expect(S.contacts(outputs[6]) == [S.down(0)])
        #expect(stage.deviceCounters.first?[.bounce] == 2)
    }

    /// A blip is no touch: its up starts no debounce window, so a real touch right after it in the
    /// same place is delivered (and counted as no bounce).
    @Test func aBlipStartsNoDebounceWindow() {
        var stage = S.stage(FieldSettings(minContactMicros: 30_000, debounceMicros: 60_000, debounceMillimetres: 3))
        let outputs = Self.run(
            &stage,
            [
                S.frame(1_000_000, S.down(0, 100, 100)), S.frame(1_010_000, S.up(0)),
                S.frame(1_020_000, S.down(0, 100, 100)),
            ])
        #expect(outputs.allSatisfy { S.contacts($0).isEmpty })
        #expect(stage.deviceCounters.first?[.blip] == 1)
        #expect(S.contacts(stage.advance(nowMicros: 1_050_000)) == [S.down(0, 100, 100)])
        #expect(stage.deviceCounters.first?[.bounce] == 0)
    }

    @Test func aDownReusingTheSlotOfADeliveredTouchEndsItEvenWhenTheNewOneIsDropped() {
        var stage = S.stage(FieldSettings(dropsStuckPoints: true))
        _ = stage.process(S.frame(0, S.down(0, 100, 100)), nowMicros: 0)
        let output = stage.process(S.frame(1000, S.down(0, 0, 0, corner: true)), nowMicros: 1000)
        #expect(S.contacts(output) == [ContactEvent(kind: .cancel, slot: 0, cancelReason: .slotReused)])
        #expect(S.contacts(stage.process(S.frame(2000, S.up(0)), nowMicros: 2000)).isEmpty)
    }

    /// The rule: a filter never drops an up whose down was delivered, whatever comes in between.
    @Test(arguments: 0..<UInt64(40))
    func noDeliveredDownLosesItsEnd(seed: UInt64) {
        var random = SeededRandom(seed: 0xF1E1D + seed)
        var stage = S.stage(
            FieldSettings(
                idleMicros: 400_000, swallowsWakingTouch: true, wakeGraceMicros: 50_000, dropsStuckPoints: true,
                maxStationaryMicros: 300_000, minContactMicros: 30_000, debounceMicros: 60_000,
                debounceMillimetres: 3))
        var time: UInt64 = 0
        var down: Set<Int32> = []
        var delivered: Set<Int32> = []
        func take(_ output: FieldOutput) {
            for case .frame(let frame) in output.events {
                for contact in frame.contacts {
                    switch contact.kind {
                    case .down: #expect(delivered.insert(contact.slot).inserted, "seed \(seed)")
                    case .motion: #expect(delivered.contains(contact.slot), "seed \(seed)")
                    case .up, .cancel: #expect(delivered.remove(contact.slot) != nil, "seed \(seed)")
                    }
                }
            }
        }
        for _ in 0..<400 {
            time += UInt64.random(in: 1...120_000, using: &random)
            if Int.random(in: 0..<8, using: &random) == 0 {
                take(stage.advance(nowMicros: time))
                continue
            }
            let slot = Int32.random(in: 0...2, using: &random)
            let point = Point(Double.random(in: 0...200, using: &random), Double.random(in: 0...200, using: &random))
            let contact: ContactEvent
            if down.contains(slot), Int.random(in: 0..<12, using: &random) == 0 {
                // The kernel reusing a slot without an up in between.
                contact = S.down(slot, point.x, point.y, corner: Bool.random(using: &random))
            } else if down.contains(slot) {
                let lifts = Bool.random(using: &random)
                contact = lifts ? S.up(slot) : S.move(slot, point.x, point.y)
                if lifts { down.remove(slot) }
            } else {
                contact = S.down(slot, point.x, point.y, corner: Int.random(in: 0..<10, using: &random) == 0)
                down.insert(slot)
            }
            take(stage.process(S.frame(time, contact), nowMicros: time))
        }
        for slot in down { take(stage.process(S.frame(time + 1, S.up(slot)), nowMicros: time + 1)) }
        #expect(delivered.isEmpty, "seed \(seed): delivered downs never ended: \(delivered)")
    }
}
