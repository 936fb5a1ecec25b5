import Foundation
import Testing
import TouchRouterCore

/// The routing core without sockets: the stages in order (field, tracker, gestures), deliveries
/// with whom they are for, the one clock, the swap of a prepared layout, and the stop.
@Suite("Router")
struct RouterTests {
    static let panel = InputDevice(id: 1, name: "panel")

    /// One screen "main": `outer` (with `inner` inside it), `locked` with an access list, and `tapper`
    /// with a long press and a double tap. `screenKeys` go on the screen, `lockedKeys` on `locked`.
    static func config(
        screenKeys: String = "", tapperGestures: String = #"["longPress", {type: "tap", taps: 2}]"#,
        lockedKeys: String = "access: { users: [0] },"
    ) throws -> Config {
        let text = """
            {
              screens: [{
                name: "main", width: 1000, height: 1000, \(screenKeys)
                root: {
                  id: "root",
                  children: [
                    { id: "outer", frame: [0, 0, 400, 400], children: [
                      { id: "inner", frame: [100, 100, 100, 100] },
                    ] },
                    { id: "locked", frame: [500, 0, 400, 400], \(lockedKeys) children: [
                      { id: "lockedChild", frame: [0, 0, 100, 100] },
                    ] },
                    { id: "tapper", frame: [0, 500, 400, 400], gestures: \(tapperGestures) },
                  ],
                },
              }],
            }
            """
        return try Config.parse(Data(text.utf8), fileName: "router.json5")
    }

    static func frame(_ time: UInt64, _ contacts: ContactEvent...) -> InputEvent {
        .frame(InputFrame(device: panel, screen: "main", timestampMicros: time, contacts: contacts))
    }

    static func down(_ slot: Int32, _ x: Double, _ y: Double) -> ContactEvent {
        ContactEvent(kind: .down, slot: slot, screenPoint: Point(x, y))
    }

    static func up(_ slot: Int32) -> ContactEvent { ContactEvent(kind: .up, slot: slot) }

    /// A Router with `client` subscribed to each of `views` (without subtrees).
    static func router(_ config: Config, subscribing views: [String: ClientID], now: UInt64 = 0) -> Router {
        var router = Router(config: config, nowMicros: now)
        var table = router.subscriptions
        for (view, client) in views.sorted(by: { $0.key < $1.key }) {
            #expect(table.subscribe(client, to: [view], subtree: false).isEmpty)
        }
        router.replaceSubscriptions(table)
        return router
    }

    /// (view, phases, recipients) of each `touches` item, gestures as (view, kind/state, recipients).
    static func summary(_ routed: [Routed]) -> [String] {
        routed.map { item in
            switch item {
            case .touches(let touches, let clients):
                "touches \(touches.viewID) \(touches.touches.map(\.phase.rawValue).joined(separator: ",")) → \(clients)"
            case .gesture(let event, let clients):
                "gesture \(event.viewID) \(event.kind.rawValue) \(event.state.rawValue) → \(clients)"
            case .screenState(let change): "screen \(change.screen) \(change.isActive ? "active" : "idle")"
            case .filterBurst(let burst): "burst \(burst.kind.rawValue)"
            case .passthrough(let frame): "passthrough \(frame.screen) \(frame.contacts.map(\.phase.rawValue))"
            case .calibration(let event): "calibration \(event)"
            }
        }
    }

    @Test func aTouchClimbsToTheNearestSubscribedViewAndNamesItsSubscribers() throws {
        var router = Self.router(try Self.config(), subscribing: ["outer": 7])
        let began = router.route(Self.frame(1000, Self.down(0, 150, 150)), nowMicros: 1000)
        #expect(Self.summary(began) == ["touches outer began → [7]"])
        let ended = router.route(Self.frame(2000, Self.up(0)), nowMicros: 2000)
        #expect(Self.summary(ended) == ["touches outer ended → [7]"])
    }

    @Test func aViewWithNoSubscriberAnywhereOnItsChainRoutesNothing() throws {
        var router = Self.router(try Self.config(), subscribing: ["tapper": 7])
        #expect(router.route(Self.frame(1000, Self.down(0, 150, 150)), nowMicros: 1000).isEmpty)
        #expect(router.tracker.activeTouchCount == 0)
    }

    @Test func aViewWithAnAccessListStopsTheTouchBeforeAnAncestorsSubscriber() throws {
        var router = Self.router(try Self.config(), subscribing: ["root": 7])
        // Inside `locked` (a list, no subscriber): nobody gets it, not root's subscriber.
        #expect(router.route(Self.frame(1000, Self.down(0, 550, 50)), nowMicros: 1000).isEmpty)
        // Outside it the touch climbs to root.
        let outside = router.route(Self.frame(1000, Self.down(1, 150, 150)), nowMicros: 1000)
        #expect(Self.summary(outside) == ["touches root began → [7]"])
    }

    @Test func theFieldStageRunsFirstTheWakingTouchIsSwallowedAndTheScreenAnnounced() throws {
        let config = try Self.config(screenKeys: "idle: { seconds: 1 }, wake: { swallow: true, graceMs: 0 },")
        var router = Self.router(config, subscribing: ["outer": 7])
        #expect(router.nextDeadlineMicros == 1_000_000)
        #expect(Self.summary(router.advance(to: 1_000_000)) == ["screen main idle"])
        // The waking touch: the screen is announced, the touch goes nowhere, from down to up.
        let woke = router.route(Self.frame(2_000_000, Self.down(0, 150, 150)), nowMicros: 2_000_000)
        #expect(Self.summary(woke) == ["screen main active", "burst wake-swallowed"])
        #expect(router.route(Self.frame(2_100_000, Self.up(0)), nowMicros: 2_100_000).isEmpty)
        // The next touch is delivered.
        let next = router.route(Self.frame(2_200_000, Self.down(1, 150, 150)), nowMicros: 2_200_000)
        #expect(Self.summary(next) == ["touches outer began → [7]"])
    }

    @Test func gesturesFollowTheTrackerAndTheirDeadlinesAreOnTheCallersClock() throws {
        var router = Self.router(try Self.config(), subscribing: ["tapper": 3])
        // Frames stamped on an input clock 5 s ahead of the caller's (a recording's, say).
        let offset: UInt64 = 5_000_000
        let began = router.route(Self.frame(offset + 1000, Self.down(0, 100, 600)), nowMicros: 1000)
        #expect(Self.summary(began) == ["touches tapper began → [3]"])
        // The long press's 500 ms, mapped once onto the caller's clock.
        #expect(router.nextDeadlineMicros == 501_000)
        #expect(router.advance(to: 500_999).isEmpty)
        let pressed = router.advance(to: 501_000)
        // The press takes the touch from raw clients (cancelsTouches), then begins.
        #expect(Self.summary(pressed) == ["touches tapper cancelled → [3]", "gesture tapper longPress began → [3]"])
        guard case .gesture(let event, _) = pressed.last else { return }
        #expect(event.timestampMicros == offset + 501_000)  // stamped on the input clock
    }

    @Test func settlingFiresTheSingleTapThatWaitedForASecondOneWithoutWaiting() throws {
        let config = try Self.config(tapperGestures: #"["tap", {type: "tap", taps: 2}]"#)
        var router = Self.router(config, subscribing: ["tapper": 3])
        _ = router.route(Self.frame(1000, Self.down(0, 100, 600)), nowMicros: 1000)
        _ = router.route(Self.frame(50_000, Self.up(0)), nowMicros: 50_000)
        #expect(router.nextDeadlineMicros != nil)
        let settled = router.settleGestures()
        #expect(Self.summary(settled).contains("gesture tapper tap recognized → [3]"))
        #expect(router.gestures.viewsWithState == 0 && router.nextDeadlineMicros == nil)
    }

    @Test func aSwapCancelsTouchesOfAGoneViewForTheSubscribersTheyHadThenTakesTheNewTable() throws {
        let old = try Self.config()
        var router = Self.router(old, subscribing: ["inner": 4, "outer": 5])
        _ = router.route(Self.frame(1000, Self.down(0, 150, 150)), nowMicros: 1000)
        // The new layout has no `inner`; the new table (re-expanded off the loop) has nobody.
        let text = """
            { screens: [{ name: "main", width: 1000, height: 1000,
              root: { id: "root", children: [{ id: "outer", frame: [0, 0, 400, 400] }] } }] }
            """
        let new = try Config.parse(Data(text.utf8), fileName: "new.json5")
        let emptyTable = SubscriptionTable(layout: new.layout)
        let swapped = router.swapLayout(
            PreparedLayout(new.layout), config: new, subscriptions: emptyTable, nowMicros: 2000)
        #expect(Self.summary(swapped) == ["touches inner cancelled → [4]"])
        #expect(router.config == new && router.subscriptions.subscribedViewCount == 0)
        // The next touch finds nobody.
        #expect(router.route(Self.frame(3000, Self.down(1, 150, 150)), nowMicros: 3000).isEmpty)
    }

    @Test func cancelAllEndsEveryTouchThroughRecognition() throws {
        var router = Self.router(try Self.config(), subscribing: ["outer": 7, "tapper": 3])
        _ = router.route(Self.frame(1000, Self.down(0, 150, 150), Self.down(1, 100, 600)), nowMicros: 1000)
        let stopped = router.cancelAll(reason: .shutdown, nowMicros: 2000)
        #expect(Set(Self.summary(stopped)) == ["touches outer cancelled → [7]", "touches tapper cancelled → [3]"])
        #expect(router.tracker.activeTouchCount == 0 && router.gestures.viewsWithState == 0)
    }

    @Test func setScreenStateAnswersNilForAnUnknownScreen() throws {
        var router = Self.router(try Self.config(), subscribing: [:])
        #expect(router.setScreenState("nope", off: true, nowMicros: 0) == nil)
        #expect(router.setScreenState("main", off: true, nowMicros: 0).map(Self.summary) == ["screen main idle"])
    }
}
