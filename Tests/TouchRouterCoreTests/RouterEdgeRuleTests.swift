import Foundation
import Testing
import TouchRouterCore

/// The Router's rules at the seams between its stages: the input clock noted while the field stage
/// is skipped, what a swap keeps, the earlier of the two stages' deadlines, a screen turned off by
/// an external blanker. Frames are stamped on an input clock 5 s ahead of the caller's or 3 s
/// behind it; times are in µs.
@Suite("Router: edge rules")
struct RouterEdgeRuleTests {
    typealias R = RouterTests

    /// Input clock minus the caller's.
    static let offsets: [Int64] = [5_000_000, -3_000_000]
    /// The caller's time of the first frame.
    static let start: UInt64 = 10_000_000

    /// `time` (the caller's) on the input clock `offset` away.
    static func input(_ time: UInt64, _ offset: Int64) -> UInt64 { UInt64(Int64(time) + offset) }

    /// A frame routed at the caller's `time`, stamped on the input clock.
    static func route(_ router: inout Router, at time: UInt64, offset: Int64 = 0, _ contacts: ContactEvent...)
        -> [Routed]
    {
        let frame = InputFrame(
            device: R.panel, screen: "main", timestampMicros: input(time, offset), contacts: contacts)
        return router.route(.frame(frame), nowMicros: time)
    }

    /// Every routed touch's timestamp and its message's.
    static func touchStamps(_ routed: [Routed]) -> [UInt64] {
        routed.flatMap { item -> [UInt64] in
            guard case .touches(let batch, _) = item else { return [] }
            return [batch.timestampMicros] + batch.touches.map(\.timestampMicros)
        }
    }

    /// A layout's swap at the caller's `time` (the subscription table kept).
    static func swap(_ router: inout Router, to config: Config, at time: UInt64) -> [Routed] {
        router.swapLayout(PreparedLayout(config.layout), config: config, subscriptions: nil, nowMicros: time)
    }

    // MARK: - The input clock while the field stage is skipped

    /// With nothing configured the field stage is skipped, but it still notes the input clock:
    /// an `idle` that a reload turns on is stamped on the clock the touches use.
    @Test("an idle turned on by a swap is stamped on the touches' input clock", arguments: offsets)
    func idleAfterASwapOnTheInputClock(offset: Int64) throws {
        var router = R.router(try R.config(), subscribing: ["outer": 7], now: Self.start)
        #expect(router.field.isInert)
        _ = Self.route(&router, at: Self.start, offset: offset, R.down(0, 150, 150))
        let ended = Self.route(&router, at: Self.start + 100_000, offset: offset, R.up(0))
        #expect(Self.touchStamps(ended).allSatisfy { $0 == Self.input(Self.start + 100_000, offset) })
        let idle = try R.config(screenKeys: "idle: { seconds: 1 },")
        #expect(Self.swap(&router, to: idle, at: Self.start + 200_000).isEmpty)
        #expect(router.nextDeadlineMicros == Self.start + 1_200_000)
        let went = router.advance(to: Self.start + 1_200_000)
        #expect(R.summary(went) == ["screen main idle"])
        guard case .screenState(let change) = went.first else { return }
        #expect(change.timestampMicros == Self.input(Self.start + 1_200_000, offset))
    }

    // MARK: - What a swap keeps

    /// A touch whose view is in the new layout is not cancelled; it goes on to the kept table's
    /// subscriber, and its finger holds the `idle` the swap turned on off until it lifts.
    @Test func aTouchWhoseViewSurvivesASwapGoesOnAndHoldsANewIdleOff() throws {
        var router = R.router(try R.config(), subscribing: ["outer": 7])
        _ = router.route(R.frame(1000, R.down(0, 150, 150)), nowMicros: 1000)
        let idle = try R.config(screenKeys: "idle: { seconds: 1 },")
        #expect(Self.swap(&router, to: idle, at: 2000).isEmpty)
        #expect(router.nextDeadlineMicros == nil)
        #expect(router.advance(to: 5_000_000).isEmpty)
        let ended = router.route(R.frame(6_000_000, R.up(0)), nowMicros: 6_000_000)
        #expect(R.summary(ended) == ["touches outer ended → [7]"])
        #expect(router.nextDeadlineMicros == 7_000_000)
    }

    /// A swap that takes a view's access list away lets the next touch inside it climb to an
    /// ancestor's subscriber; the lists are the new config's at once.
    @Test func aSwapThatRemovesAnAccessListLetsTheNextTouchClimb() throws {
        var router = R.router(try R.config(), subscribing: ["root": 7])
        #expect(router.route(R.frame(1000, R.down(0, 550, 50)), nowMicros: 1000).isEmpty)
        _ = router.route(R.frame(2000, R.up(0)), nowMicros: 2000)
        let open = try R.config(lockedKeys: "")
        #expect(Self.swap(&router, to: open, at: 3000).isEmpty)
        let began = router.route(R.frame(4000, R.down(0, 550, 50)), nowMicros: 4000)
        #expect(R.summary(began) == ["touches root began → [7]"])
    }

    /// The cancels of a swap (a view gone) and of a stop are stamped on the input clock, as the
    /// touches they end were.
    @Test("a swap's and a stop's cancels are stamped on the input clock", arguments: offsets)
    func cancelsOnTheInputClock(offset: Int64) throws {
        var router = R.router(try R.config(), subscribing: ["inner": 4, "outer": 5], now: Self.start)
        _ = Self.route(&router, at: Self.start, offset: offset, R.down(0, 150, 150), R.down(1, 50, 50))
        // The same screen without `inner`.
        let text = """
            { screens: [{ name: "main", width: 1000, height: 1000,
              root: { id: "root", children: [{ id: "outer", frame: [0, 0, 400, 400] }] } }] }
            """
        let new = try Config.parse(Data(text.utf8), fileName: "new.json5")
        let swapped = Self.swap(&router, to: new, at: Self.start + 1000)
        #expect(R.summary(swapped) == ["touches inner cancelled → [4]"])
        #expect(
            Self.touchStamps(swapped) == [Self.input(Self.start + 1000, offset), Self.input(Self.start + 1000, offset)])
        let stopped = router.cancelAll(reason: .shutdown, nowMicros: Self.start + 2000)
        #expect(R.summary(stopped) == ["touches outer cancelled → [5]"])
        #expect(
            Self.touchStamps(stopped) == [Self.input(Self.start + 2000, offset), Self.input(Self.start + 2000, offset)])
    }

    /// A swap that gives gestures to a layout that had none turns recognition on.
    @Test func aSwapThatBringsTheFirstGesturesTurnsRecognitionOn() throws {
        var router = R.router(try R.config(tapperGestures: "[]"), subscribing: ["tapper": 3])
        #expect(router.gestures.isEmpty)
        #expect(Self.swap(&router, to: try R.config(), at: 1000).isEmpty)
        _ = router.route(R.frame(2000, R.down(0, 100, 600)), nowMicros: 2000)
        #expect(router.nextDeadlineMicros == 502_000)
        let pressed = router.advance(to: 502_000)
        #expect(R.summary(pressed).last == "gesture tapper longPress began → [3]")
    }

    /// A swap that takes every gesture away cancels the one in progress.
    @Test func aSwapThatRemovesEveryGestureCancelsTheActiveOne() throws {
        var router = R.router(try R.config(), subscribing: ["tapper": 3])
        _ = router.route(R.frame(1000, R.down(0, 100, 600)), nowMicros: 1000)
        #expect(R.summary(router.advance(to: 501_000)).last == "gesture tapper longPress began → [3]")
        let swapped = Self.swap(&router, to: try R.config(tapperGestures: "[]"), at: 600_000)
        #expect(R.summary(swapped) == ["gesture tapper longPress cancelled → [3]"])
    }

    /// A client that left a view after its touch went down gets nothing more of it, touches or
    /// gestures: the touch keeps its target, which now has nobody; the next touch climbs to the new
    /// subscriber.
    @Test func touchesAndGesturesOfAViewWhoseSubscriberLeftGoToNobody() throws {
        var router = R.router(try R.config(), subscribing: ["outer": 7, "tapper": 3])
        _ = router.route(R.frame(1000, R.down(0, 150, 150), R.down(1, 100, 600)), nowMicros: 1000)
        var table = SubscriptionTable(layout: router.layout)
        #expect(table.subscribe(8, to: ["root"], subtree: false).isEmpty)
        router.replaceSubscriptions(table)
        #expect(router.advance(to: 501_000).isEmpty)  // the long press begins, for nobody
        #expect(router.route(R.frame(600_000, R.up(0), R.up(1)), nowMicros: 600_000).isEmpty)
        let next = router.route(R.frame(700_000, R.down(0, 150, 150)), nowMicros: 700_000)
        #expect(R.summary(next) == ["touches root began → [8]"])
    }

    // MARK: - Deadlines

    /// After a tap on `tapper` (up at 150 ms), the double tap waits 300 ms for a second one (due at
    /// 450 ms) and the screen's idle counts from the up: the Router's next deadline is the earlier
    /// of the two, on the caller's clock, whichever stage it comes from.
    @Test(
        "the next deadline is the earlier of the field stage's and recognition's",
        arguments: [("0.1", 250_000 as UInt64), ("1", 450_000)])
    func theEarlierDeadline(idleSeconds: String, due: UInt64) throws {
        let config = try R.config(screenKeys: "idle: { seconds: \(idleSeconds) },")
        var router = R.router(config, subscribing: ["tapper": 3])
        let offset: Int64 = 5_000_000
        _ = Self.route(&router, at: 100_000, offset: offset, R.down(0, 100, 600))
        _ = Self.route(&router, at: 150_000, offset: offset, R.up(0))
        #expect(router.nextDeadlineMicros == due)
    }

    // MARK: - setScreenState

    /// A screen turned off by an external blanker, with `wake.swallow`: the next touch wakes it and
    /// is swallowed from down to up; the one after is delivered.
    @Test func aTouchOnAScreenTurnedOffWithSwallowWakesItAndIsSwallowed() throws {
        let config = try R.config(screenKeys: "wake: { swallow: true, graceMs: 0 },")
        var router = R.router(config, subscribing: ["outer": 7])
        #expect(router.setScreenState("main", off: true, nowMicros: 1000).map(R.summary) == ["screen main idle"])
        let woke = router.route(R.frame(2000, R.down(0, 150, 150)), nowMicros: 2000)
        #expect(R.summary(woke) == ["screen main active", "burst wake-swallowed"])
        #expect(router.route(R.frame(3000, R.up(0)), nowMicros: 3000).isEmpty)
        let next = router.route(R.frame(4000, R.down(1, 150, 150)), nowMicros: 4000)
        #expect(R.summary(next) == ["touches outer began → [7]"])
    }

    /// A screen with no field keys turned off: the field stage is no longer skipped, so the next
    /// touch wakes the screen (announced) and, without `wake.swallow`, is delivered.
    @Test func aTouchOnAScreenTurnedOffWithoutFieldKeysWakesItAndIsDelivered() throws {
        var router = R.router(try R.config(), subscribing: ["outer": 7])
        #expect(router.field.isInert)
        _ = router.setScreenState("main", off: true, nowMicros: 1000)
        #expect(!router.field.isInert)
        let woke = router.route(R.frame(2000, R.down(0, 150, 150)), nowMicros: 2000)
        #expect(R.summary(woke) == ["screen main active", "touches outer began → [7]"])
        #expect(router.field.activity(ofScreen: "main") == .active)
    }
}
