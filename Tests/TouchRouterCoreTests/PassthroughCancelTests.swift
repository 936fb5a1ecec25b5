import Foundation
import Testing
import TouchRouterCore

/// Nothing stays down on a virtual device (docs/passthrough.md, "What ends a passed-through
/// touch"): every way a touch is cancelled ends its contact with `cancel` (pointer mode: the held
/// button comes up), and a reload that keeps passthrough keeps the contact going.
@Suite("Passthrough cancels")
struct PassthroughCancelTests {
    typealias F = PassthroughFixture

    static func swap(_ router: inout Router, to config: Config, at now: UInt64) -> [Routed] {
        router.swapLayout(PreparedLayout(config.layout), config: config, subscriptions: nil, nowMicros: now)
    }

    @Test func aRemovedDeviceCancelsItsContactsAtTheirLastPoint() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 900, 100), F.down(1, 350, 50)), nowMicros: 1000)
        _ = router.route(F.frame(2000, F.move(0, 910, 110)), nowMicros: 2000)
        let removed = router.route(.deviceRemoved(F.panel, timestampMicros: 3000), nowMicros: 3000)
        #expect(F.passed(removed) == ["main: cancel 0#0 (910,110), cancel 1#1 (350,50)"])
        #expect(F.statistics(router)?.cancelled == 2)
    }

    @Test func aSlotReusedWithoutAnUpCancelsTheOldContactFirst() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 900, 100)), nowMicros: 1000)
        let reused = router.route(F.frame(2000, F.down(0, 900, 500)), nowMicros: 2000)
        #expect(F.passed(reused) == ["main: cancel 0#0 (900,100), down 1#1 (900,500)"])
    }

    @Test func aReloadThatRemovesTheViewCancels() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 400, 400)), nowMicros: 1000)
        let without = try F.config(F.text().replacingOccurrences(of: #"id: "pinch""#, with: #"id: "other""#))
        #expect(F.passed(Self.swap(&router, to: without, at: 2000)) == ["main: cancel 0#0 (400,400)"])
        #expect(F.passed(router.route(F.frame(3000, F.up(0)), nowMicros: 3000)).isEmpty)
    }

    @Test func aReloadThatDropsPassthroughFromTheViewCancelsButTheSocketGoesOn() throws {
        var router = F.router(try F.config(), subscribing: ["root": 9])
        _ = router.route(F.frame(1000, F.down(0, 900, 500)), nowMicros: 1000)
        let dropped = try F.config(F.text(rootKeys: ""))
        let swapped = Self.swap(&router, to: dropped, at: 2000)
        #expect(F.passed(swapped) == ["main: cancel 0#0 (900,500)"])
        // The view is still there: its subscriber keeps the touch, the compositor gets no more.
        let moved = router.route(F.frame(3000, F.move(0, 910, 500)), nowMicros: 3000)
        #expect(F.passed(moved).isEmpty)
        #expect(F.socket(moved) == ["root moved → [9]"])
    }

    @Test func aReloadThatChangesTheModeCancels() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 400, 400)), nowMicros: 1000)
        let pointer = try F.config(F.text(pinchKeys: #"passthrough: { mode: "pointer" },"#))
        #expect(F.passed(Self.swap(&router, to: pointer, at: 2000)) == ["main: cancel 0#0 (400,400)"])
    }

    @Test func aReloadThatKeepsPassthroughKeepsTheContactGoing() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 400, 400), F.down(1, 900, 500)), nowMicros: 1000)
        // Another region's settings change, this one's view moves: the contacts go on.
        let kept = try F.config(
            F.text(pinchKeys: "passthrough: { maxTouches: 2 },").replacingOccurrences(
                of: #"id: "banner", frame: [300, 0, 200, 200]"#, with: #"id: "banner", frame: [310, 0, 200, 200]"#))
        #expect(F.passed(Self.swap(&router, to: kept, at: 2000)).isEmpty)
        let moved = router.route(F.frame(3000, F.move(0, 410, 400), F.move(1, 910, 500)), nowMicros: 3000)
        #expect(F.passed(moved) == ["main: move 0#0 (410,400), move 1#1 (910,500)"])
        #expect(F.statistics(router)?.cancelled == 0)
    }

    @Test func aReloadThatRenamesTheScreenCancelsItsContacts() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 100, 100), screen: "side"), nowMicros: 1000)
        let renamed = try F.config(F.text().replacingOccurrences(of: #"name: "side""#, with: #"name: "left""#))
        #expect(F.passed(Self.swap(&router, to: renamed, at: 2000)) == ["side: cancel 0#0 (100,100)"])
    }

    @Test func aReloadThatAddsPassthroughNeverPassesATouchAlreadyDownHalfWay() throws {
        var router = F.router(try F.config(F.text(rootKeys: "")), subscribing: ["root": 9])
        _ = router.route(F.frame(1000, F.down(0, 900, 500)), nowMicros: 1000)
        #expect(F.passed(Self.swap(&router, to: try F.config(), at: 2000)).isEmpty)
        #expect(F.passed(router.route(F.frame(3000, F.move(0, 910, 500)), nowMicros: 3000)).isEmpty)
        #expect(F.passed(router.route(F.frame(4000, F.up(0)), nowMicros: 4000)).isEmpty)
        // The next touch is passed through.
        #expect(
            F.passed(router.route(F.frame(5000, F.down(1, 900, 500)), nowMicros: 5000)) == ["main: down 0#0 (900,500)"])
    }

    /// `setView` hides the region at run time (the daemon swaps in the effective config): the
    /// tracker keeps the touch for the view's subscribers, the compositor's contact is cancelled.
    @Test(arguments: [#"{"hidden":true}"#, #"{"interactive":false}"#, #"{"alpha":0}"#])
    func aRegionHiddenAtRunTimeCancels(change: String) throws {
        let base = try F.config(F.text(pinchKeys: "passthrough: { maxTouches: 1 }, owner: { users: [1000] },"))
        var router = F.router(base)
        _ = router.route(F.frame(1000, F.down(0, 400, 400)), nowMicros: 1000)
        var runtime = RuntimeLayout(base: base)
        let owner = RuntimeClient(id: 1) { $0.users.contains(.id(1000)) }
        let node = JSONReader.read(Array(change.utf8), syntax: .strictJSON).root!
        _ = try runtime.apply(.setView([("pinch", node)]), by: owner).get()
        #expect(F.passed(Self.swap(&router, to: runtime.effective, at: 2000)) == ["main: cancel 0#0 (400,400)"])
    }

    /// A `mount` replaces a mount point's children, passthrough views among them: their contacts end.
    @Test func aRegionUnmountedAtRunTimeCancels() throws {
        let base = try F.config(
            F.text().replacingOccurrences(
                of: #"{ id: "banner", frame: [300, 0, 200, 200] },"#,
                with: #"""
                    { id: "slot", frame: [300, 0, 200, 200], owner: { users: [1000] }, mount: true,
                      children: [{ id: "web", frame: [0, 0, 200, 200], passthrough: true }] },
                    """#))
        var router = F.router(base)
        _ = router.route(F.frame(1000, F.down(0, 350, 50)), nowMicros: 1000)
        var runtime = RuntimeLayout(base: base)
        let owner = RuntimeClient(id: 1) { $0.users.contains(.id(1000)) }
        let children = JSONReader.read(Array(#"[{"id":"popup","frame":[0,0,10,10]}]"#.utf8), syntax: .strictJSON).root!
        _ = try runtime.apply(.mount(viewID: "slot", children: children), by: owner).get()
        #expect(F.passed(Self.swap(&router, to: runtime.effective, at: 2000)) == ["main: cancel 0#0 (350,50)"])
    }

    /// A calibration session takes its screen's frames: the screen's contacts end, and its frames
    /// pass nothing through until the session ends.
    @Test func aCalibrationSessionCancelsItsScreensContacts() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 900, 500)), nowMicros: 1000)
        let session = CalibrationSession(
            screen: "main", screenWidth: 1000, screenHeight: 1000, rotation: 0, minimumGapMicros: 250_000,
            timeoutMicros: 10_000_000, nowMicros: 2000)
        #expect(F.passed(router.startCalibration(session, nowMicros: 2000)) == ["main: cancel 0#0 (900,500)"])
        #expect(F.passed(router.route(F.frame(3000, F.down(1, 900, 600)), nowMicros: 3000)).isEmpty)
    }

    @Test func shutdownCancelsEveryContactOnEveryScreen() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 900, 500)), nowMicros: 1000)
        _ = router.route(F.frame(1000, F.down(0, 100, 100), screen: "side"), nowMicros: 1000)
        let stopped = router.cancelAll(reason: .shutdown, nowMicros: 2000)
        #expect(F.passed(stopped) == ["main: cancel 0#0 (900,500)", "side: cancel 0#1 (100,100)"])
        #expect(router.nextDeadlineMicros == nil)
    }

    @Test func aCancelledPointerFingerReleasesTheHeldButtonWhereItWas() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 100, 800)), nowMicros: 1000)
        _ = router.route(F.frame(2000, F.move(0, 150, 800)), nowMicros: 2000)
        _ = router.route(F.frame(3000, F.move(0, 170, 820)), nowMicros: 3000)
        let removed = router.route(.deviceRemoved(F.panel, timestampMicros: 4000), nowMicros: 4000)
        #expect(F.passed(removed) == ["main: release(170,820) left"])
        #expect(F.statistics(router)?.cancelled == 1)
    }

    @Test func aCancelledPointerFingerThatPressedNothingReleasesNothing() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 100, 800)), nowMicros: 1000)
        #expect(F.passed(router.cancelAll(reason: .shutdown, nowMicros: 2000)).isEmpty)
        // Its right click is no longer due, and the pointer is free for the next finger.
        #expect(router.nextDeadlineMicros == nil)
    }
}
