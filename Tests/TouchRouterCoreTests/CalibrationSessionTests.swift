import Foundation
import Testing
import TouchRouterCore

/// The calibration session without sockets: samples are medians in normalized units, the three
/// refusals, the bound on kept positions, the timeout, and what the Router does around a session.
@Suite("Calibration session")
struct CalibrationSessionTests {
    static let panel = InputDevice(id: 1, name: "panel")
    static let other = InputDevice(id: 2, name: "other")

    /// A session on an 800 × 480 screen mounted at `rotation`, 250 ms gap, 10 s timeout, at t = 0.
    static func session(rotation: Int = 0) -> CalibrationSession {
        CalibrationSession(
            screen: "main", screenWidth: 800, screenHeight: 480, rotation: rotation, minimumGapMicros: 250_000,
            timeoutMicros: 10_000_000, nowMicros: 0)
    }

    static func frame(
        _ time: UInt64, _ contacts: [ContactEvent], device: InputDevice = panel, screen: String = "main"
    ) -> InputFrame {
        InputFrame(device: device, screen: screen, timestampMicros: time, contacts: contacts)
    }

    static func contact(_ kind: ContactEvent.Kind, _ slot: Int32 = 0, _ x: Double = 0, _ y: Double = 0) -> ContactEvent
    {
        ContactEvent(kind: kind, slot: slot, screenPoint: Point(x, y))
    }

    /// Feeds frames at their own times; returns every event.
    static func feed(_ session: inout CalibrationSession, _ frames: [InputFrame]) -> [CalibrationSessionEvent] {
        var events: [CalibrationSessionEvent] = []
        for frame in frames { session.take(frame, nowMicros: frame.timestampMicros, into: &events) }
        return events
    }

    /// One press at time `start`: down at the first point, a move to each other point, up.
    static func press(
        _ start: UInt64, _ points: [(Double, Double)], device: InputDevice = panel, slot: Int32 = 0
    ) -> [InputFrame] {
        var frames = [frame(start, [contact(.down, slot, points[0].0, points[0].1)], device: device)]
        for (index, point) in points.dropFirst().enumerated() {
            frames.append(
                frame(start + UInt64(index + 1) * 10_000, [contact(.motion, slot, point.0, point.1)], device: device))
        }
        frames.append(frame(start + UInt64(points.count) * 10_000, [contact(.up, slot)], device: device))
        return frames
    }

    @Test func aPressGivesTheMedianOfItsPositionsPerAxisInNormalizedUnits() {
        var session = Self.session()
        // x: 78, 80, 81, 200 (an outlier), 79 → median 80; y: 40, 48, 47, 49, 1 → median 47.
        let events = Self.feed(&session, Self.press(1000, [(78, 40), (80, 48), (81, 47), (200, 49), (79, 1)]))
        guard case .sample(let screen, let measurement) = events.first, events.count == 1 else {
            Issue.record("expected one sample, got \(events)")
            return
        }
        #expect(screen == "main")
        #expect(measurement.screenPoint == Point(80, 47))
        #expect(measurement.normalized == Point(0.1, 47.0 / 480))
        #expect(measurement.positions == 5)
        #expect(measurement.device == Self.panel)
        #expect(session.sampleCount == 1)
    }

    @Test func anEvenCountTakesTheMeanOfTheTwoMiddleValues() {
        var session = Self.session()
        let events = Self.feed(&session, Self.press(0, [(10, 10), (20, 30), (30, 20), (40, 40)]))
        guard case .sample(_, let measurement) = events.first else {
            Issue.record("no sample: \(events)")
            return
        }
        #expect(measurement.screenPoint == Point(25, 25))
    }

    @Test(
        "the rotation is undone: normalized is along the panel's native axes",
        arguments: [(0, 0.1, 0.25), (90, 0.25, 0.9), (180, 0.9, 0.75), (270, 0.75, 0.1)])
    func rotationIsUndone(rotation: Int, u: Double, v: Double) throws {
        var session = Self.session(rotation: rotation)
        let events = Self.feed(&session, Self.press(0, [(80, 120)]))
        guard case .sample(_, let measurement) = events.first else {
            Issue.record("no sample: \(events)")
            return
        }
        #expect(abs(measurement.normalized.x - u) < 1e-12 && abs(measurement.normalized.y - v) < 1e-12)
        // Mapping the normalized median forward with the rotation alone gives the point back.
        let mapping = try ScreenMapping(screenWidth: 800, screenHeight: 480, rotation: rotation)
        let back = mapping.map(normalizedX: measurement.normalized.x, normalizedY: measurement.normalized.y)
        #expect(abs(back.x - 80) < 1e-9 && abs(back.y - 120) < 1e-9)
    }

    @Test func aSecondFingerRefusesThePressWhenItsLastFingerLifts() {
        var session = Self.session()
        let events = Self.feed(
            &session,
            [
                Self.frame(0, [Self.contact(.down, 0, 10, 10)]),
                Self.frame(10_000, [Self.contact(.down, 1, 500, 300)]),
                Self.frame(20_000, [Self.contact(.up, 0)]),
            ])
        #expect(events.isEmpty)
        let last = Self.feed(&session, [Self.frame(30_000, [Self.contact(.up, 1)])])
        #expect(last == [.refused(screen: "main", .multipleFingers)])
        #expect(session.sampleCount == 0)
    }

    @Test func theFirstDeviceToPressIsTheSessionsAndOthersAreRefusedOncePerPress() {
        var session = Self.session()
        #expect(Self.feed(&session, Self.press(0, [(10, 10)])).count == 1)
        #expect(session.device == Self.panel)
        // Another device's two-finger press: one refusal, at its first finger.
        let events = Self.feed(
            &session,
            [
                Self.frame(1_000_000, [Self.contact(.down, 0, 10, 10)], device: Self.other),
                Self.frame(1_010_000, [Self.contact(.down, 1, 20, 20)], device: Self.other),
                Self.frame(1_020_000, [Self.contact(.up, 0), Self.contact(.up, 1)], device: Self.other),
            ])
        #expect(events == [.refused(screen: "main", .otherDevice)])
        #expect(Self.feed(&session, Self.press(2_000_000, [(10, 10)], device: Self.other)).count == 1)
        #expect(session.sampleCount == 1)
    }

    @Test func aPressTooSoonAfterTheReleaseIsABounceAndTheGapIsInclusive() {
        var session = Self.session()
        // Released at 10 ms (one point: down at 0, up at 10 ms).
        #expect(Self.feed(&session, Self.press(0, [(10, 10)])).count == 1)
        let bounce = Self.feed(&session, Self.press(10_000 + 249_999, [(12, 12)]))
        #expect(bounce == [.refused(screen: "main", .tooSoon)])
        // The bounce's release (at 269,999 µs) starts the gap again: 250 ms after it is accepted.
        let next = Self.feed(&session, Self.press(259_999 + 10_000 + 250_000, [(14, 14)]))
        guard case .sample = next.first else {
            Issue.record("expected a sample: \(next)")
            return
        }
    }

    @Test func aPressKeepsOnlyTheLatestPositionsUpToTheBound() {
        var session = Self.session()
        var events: [CalibrationSessionEvent] = []
        session.take(Self.frame(0, [Self.contact(.down, 0, 700, 400)]), nowMicros: 0, into: &events)
        // 1,000 early positions far away, then 2,000 at (100, 50): only the latter are kept.
        for index in 1...3000 {
            let point = index <= 1000 ? (700.0, 400.0) : (100.0, 50.0)
            session.take(
                Self.frame(UInt64(index) * 1000, [Self.contact(.motion, 0, point.0, point.1)]), nowMicros: 0,
                into: &events)
        }
        session.take(Self.frame(3_001_000, [Self.contact(.up, 0)]), nowMicros: 0, into: &events)
        guard case .sample(_, let measurement) = events.first else {
            Issue.record("no sample: \(events)")
            return
        }
        #expect(measurement.positions == CalibrationSession.maximumPositions)
        #expect(measurement.screenPoint == Point(100, 50))
    }

    @Test func theDeadlineMovesWithEachPressAndRelease() {
        var session = Self.session()
        #expect(session.deadlineMicros == 10_000_000)
        var events: [CalibrationSessionEvent] = []
        session.take(Self.frame(5, [Self.contact(.down, 0, 1, 1)]), nowMicros: 4_000_000, into: &events)
        #expect(session.deadlineMicros == 14_000_000)
        session.take(Self.frame(6, [Self.contact(.up, 0)]), nowMicros: 6_000_000, into: &events)
        #expect(session.deadlineMicros == 16_000_000)
    }

    @Test func aCancelledPressGivesNothing() {
        var session = Self.session()
        let events = Self.feed(
            &session, [Self.frame(0, [Self.contact(.down, 0, 1, 1)]), Self.frame(10, [Self.contact(.cancel, 0)])])
        #expect(events.isEmpty)
    }

    /// A palm gives nothing, not even a refusal a person would have to read: also when it came
    /// too soon after the last press, or with a second finger.
    @Test func aCancelledPressGivesNothingEvenTooSoonOrWithTwoFingers() {
        var session = Self.session()
        let soon = Self.feed(
            &session,
            Self.press(0, [(1, 1)]) + [
                Self.frame(20_000, [Self.contact(.down, 0, 1, 1)]), Self.frame(30_000, [Self.contact(.cancel, 0)]),
            ])
        #expect(soon.count == 1)
        guard case .sample = soon.first else {
            Issue.record("expected the first press's sample alone, got \(soon)")
            return
        }
        var twoFingers = Self.session()
        let events = Self.feed(
            &twoFingers,
            [
                Self.frame(0, [Self.contact(.down, 0, 1, 1), Self.contact(.down, 1, 5, 5)]),
                Self.frame(10_000, [Self.contact(.cancel, 0), Self.contact(.cancel, 1)]),
            ])
        #expect(events.isEmpty)
    }

    /// The session's device is the first to *press*: a finger of another device that was down
    /// before the start and lifts first does not make that device the session's.
    @Test func theSessionsDeviceIsTheFirstToPressNotTheFirstToSendAFrame() {
        var session = Self.session()
        let events = Self.feed(
            &session,
            [Self.frame(1000, [Self.contact(.up, 3)], device: Self.other)] + Self.press(300_000, [(80, 48)]))
        #expect(events.count == 1)
        guard case .sample(_, let measurement) = events.first else {
            Issue.record("expected the panel's sample, got \(events)")
            return
        }
        #expect(measurement.device == Self.panel)
    }

    // MARK: - The Router around a session

    static func config(screenKeys: String = "", width: Int = 800, height: Int = 480) throws -> Config {
        let text = """
            {
              screens: [
                { name: "main", width: \(width), height: \(height), \(screenKeys)
                  root: { id: "root", children: [{ id: "button", frame: [0, 0, 800, 480] }] } },
                { name: "side", width: 100, height: 100,
                  root: { id: "sideRoot", children: [{ id: "sideButton", frame: [0, 0, 100, 100] }] } },
              ],
            }
            """
        return try Config.parse(Data(text.utf8), fileName: "calibration.json5")
    }

    static func router(_ config: Config) -> Router {
        var router = Router(config: config, nowMicros: 0)
        var table = router.subscriptions
        _ = table.subscribe(7, to: ["button", "sideButton"], subtree: false)
        router.replaceSubscriptions(table)
        return router
    }

    static func summary(_ routed: [Routed]) -> [String] { RouterTests.summary(routed) }

    @Test func aSessionCancelsTheScreensTouchesTakesItsFramesAndLeavesOtherScreensAlone() throws {
        var router = Self.router(try Self.config())
        let down = router.route(.frame(Self.frame(0, [Self.contact(.down, 0, 10, 10)])), nowMicros: 0)
        #expect(Self.summary(down) == ["touches button began → [7]"])
        // A finger down on the other screen when the session starts is not cancelled: it ends as usual.
        let sideDown = router.route(
            .frame(Self.frame(500, [Self.contact(.down, 1, 5, 5)], device: Self.other, screen: "side")), nowMicros: 500)
        #expect(Self.summary(sideDown) == ["touches sideButton began → [7]"])
        let started = router.startCalibration(Self.session(), nowMicros: 1000)
        #expect(Self.summary(started) == ["touches button cancelled → [7]"])
        if case .touches(let touches, _) = started.first {
            #expect(touches.touches.first?.cancelReason == .viewRemoved)
        }
        let sideUp = router.route(
            .frame(Self.frame(1500, [Self.contact(.up, 1)], device: Self.other, screen: "side")), nowMicros: 1500)
        #expect(Self.summary(sideUp) == ["touches sideButton ended → [7]"])
        // The finger lifts, a press comes: the session's, nothing routed.
        #expect(router.route(.frame(Self.frame(2000, [Self.contact(.up, 0)])), nowMicros: 2000).isEmpty)
        var routed: [String] = []
        for frame in Self.press(1_000_000, [(80, 48)]) {
            routed += Self.summary(router.route(.frame(frame), nowMicros: frame.timestampMicros))
        }
        #expect(routed.count == 1 && routed[0].hasPrefix("calibration sample"))
        // The other screen routes as usual.
        let side = router.route(
            .frame(Self.frame(2_000_000, [Self.contact(.down, 0, 5, 5)], device: Self.other, screen: "side")),
            nowMicros: 2_000_000)
        #expect(Self.summary(side) == ["touches sideButton began → [7]"])
        // Ended: the screen routes again.
        #expect(router.endCalibration(nowMicros: 3_000_000)?.sampleCount == 1)
        let after = router.route(.frame(Self.frame(4_000_000, [Self.contact(.down, 1, 10, 10)])), nowMicros: 4_000_000)
        #expect(Self.summary(after) == ["touches button began → [7]"])
    }

    @Test func theFieldFiltersAndIdleAreBypassedForTheScreenAndComeBackAfter() throws {
        // A 1 s idle with a swallowed waking touch, and short contacts dropped (a 10 ms press would be).
        let config = try Self.config(
            screenKeys: "idle: { seconds: 1 }, wake: { swallow: true, graceMs: 0 }, filters: { minContactMs: 50 },")
        var router = Self.router(config)
        #expect(Self.summary(router.advance(to: 1_000_000)) == ["screen main idle"])
        // Starting on an idle screen makes it active; it never goes idle during the session.
        #expect(Self.summary(router.startCalibration(Self.session(), nowMicros: 1_100_000)) == ["screen main active"])
        #expect(router.nextDeadlineMicros == 10_000_000)  // the session's timeout, not the idle countdown
        // A press at the corner is measured, not swallowed or filtered.
        var events: [String] = []
        for frame in Self.press(1_200_000, [(0, 0)]) {
            events += Self.summary(router.route(.frame(frame), nowMicros: frame.timestampMicros))
        }
        #expect(events.count == 1 && events[0].hasPrefix("calibration sample"))
        #expect(Self.summary(router.advance(to: 5_000_000)).isEmpty)
        // Ended at 6 s: the idle countdown starts again from there.
        _ = router.endCalibration(nowMicros: 6_000_000)
        #expect(router.nextDeadlineMicros == 7_000_000)
        #expect(Self.summary(router.advance(to: 7_000_000)) == ["screen main idle"])
    }

    @Test func theRouterEndsTheSessionAtItsTimeout() throws {
        var router = Self.router(try Self.config())
        _ = router.startCalibration(Self.session(), nowMicros: 0)
        #expect(router.nextDeadlineMicros == 10_000_000)
        #expect(router.advance(to: 9_999_999).isEmpty)
        #expect(
            Self.summary(router.advance(to: 10_000_000)) == [
                "calibration ended(screen: \"main\", TouchRouterModel.CalibrationEndReason.timeout)"
            ])
        #expect(router.calibration == nil)
        #expect(router.nextDeadlineMicros == nil)
    }

    @Test func aReloadThatChangesTheScreenEndsTheSessionAndOneThatDoesNotKeepsIt() throws {
        var router = Self.router(try Self.config())
        _ = router.startCalibration(Self.session(), nowMicros: 0)
        let same = try Self.config()
        #expect(router.swapLayout(PreparedLayout(same.layout), config: same, subscriptions: nil, nowMicros: 1).isEmpty)
        #expect(router.calibration != nil)
        let rotated = try Self.config(screenKeys: "rotation: 180,")
        let swapped = router.swapLayout(
            PreparedLayout(rotated.layout), config: rotated, subscriptions: nil, nowMicros: 2)
        #expect(Self.summary(swapped).last?.contains("reload") == true)
        #expect(router.calibration == nil)
    }

    /// The screen's size is part of what the session measured: a new width or a new height alone
    /// ends it.
    @Test(arguments: [(800, 600), (1000, 480)])
    func aReloadThatResizesTheScreenEndsTheSession(width: Int, height: Int) throws {
        var router = Self.router(try Self.config())
        _ = router.startCalibration(Self.session(), nowMicros: 0)
        let resized = try Self.config(width: width, height: height)
        let swapped = router.swapLayout(
            PreparedLayout(resized.layout), config: resized, subscriptions: nil, nowMicros: 1)
        #expect(Self.summary(swapped).last?.contains("reload") == true)
        #expect(router.calibration == nil)
    }
}
