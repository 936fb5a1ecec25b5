import Foundation
import Testing
import TouchRouterCore

/// Which touches the Router passes through and how (docs/passthrough.md): the climb rules, slots
/// and tracking ids, maxTouches, pointer mode with its right click, and the field filters first.
@Suite("Passthrough routing")
struct PassthroughRoutingTests {
    typealias F = PassthroughFixture

    // MARK: - The climb

    @Test func aPassthroughRootTakesEveryTouchButThoseOfSubscribedViews() throws {
        var router = F.router(try F.config())
        // The root itself and an unsubscribed view inside the region: passed through.
        let onRoot = router.route(F.frame(1000, F.down(0, 900, 500)), nowMicros: 1000)
        #expect(F.passed(onRoot) == ["main: down 0#0 (900,500)"])
        #expect(F.socket(onRoot).isEmpty)
        let onBanner = router.route(F.frame(2000, F.down(1, 350, 50)), nowMicros: 2000)
        #expect(F.passed(onBanner) == ["main: down 1#1 (350,50)"])
        // A subscribed view: the socket only.
        let onNative = router.route(F.frame(3000, F.down(2, 50, 50)), nowMicros: 3000)
        #expect(F.passed(onNative).isEmpty)
        #expect(F.socket(onNative) == ["native began → [7]"])
        #expect(F.statistics(router)?.touchesPassed == 2)
    }

    @Test func passthroughFalseEndsTheClimbAtItsViewForItsSubscribersOrNobody() throws {
        var router = F.router(try F.config())
        let nobody = router.route(F.frame(1000, F.down(0, 650, 50)), nowMicros: 1000)
        #expect(nobody.isEmpty)
        var subscribed = F.router(try F.config(), subscribing: ["dead": 5, "root": 9])
        let toItsSubscriber = subscribed.route(F.frame(1000, F.down(0, 650, 50)), nowMicros: 1000)
        #expect(F.socket(toItsSubscriber) == ["dead began → [5]"])
        #expect(F.passed(toItsSubscriber).isEmpty)
    }

    @Test func anAccessListEndsTheClimbBeforeThePassthroughRoot() throws {
        var router = F.router(try F.config())
        #expect(router.route(F.frame(1000, F.down(0, 50, 350)), nowMicros: 1000).isEmpty)
    }

    @Test func thePassthroughViewsOwnSubscribersGetItsTouchesAsWell() throws {
        var router = F.router(try F.config(), subscribing: ["root": 9])
        let began = router.route(F.frame(1000, F.down(0, 900, 500)), nowMicros: 1000)
        #expect(F.passed(began) == ["main: down 0#0 (900,500)"])
        #expect(F.socket(began) == ["root began → [9]"])
        // An unsubscribed view inside climbs to the root: both again.
        let banner = router.route(F.frame(2000, F.down(1, 350, 50)), nowMicros: 2000)
        #expect(F.passed(banner) == ["main: down 1#1 (350,50)"])
        #expect(F.socket(banner) == ["root stationary,began → [9]"])
    }

    @Test func withoutPassthroughNothingIsPassedAndTheClimbIsAsBefore() throws {
        let text = F.text(rootKeys: "", pinchKeys: "", mouseKeys: "")
            .replacingOccurrences(of: "passthrough: false", with: "hidden: false")
            .replacingOccurrences(of: "passthrough: true", with: "hidden: false")
        var router = F.router(try F.config(text), subscribing: ["root": 9])
        let routed = router.route(F.frame(1000, F.down(0, 900, 500), F.down(1, 650, 50)), nowMicros: 1000)
        #expect(F.passed(routed).isEmpty)
        #expect(F.socket(routed) == ["root began,began → [9]"])
        #expect(router.passthroughStatistics.isEmpty)
    }

    /// A reload that gives a view `passthrough` (none had it before) passes the next touches on
    /// it through.
    @Test func aReloadThatAddsPassthroughPassesTheNextTouches() throws {
        let none = F.text(rootKeys: "", pinchKeys: "", mouseKeys: "")
            .replacingOccurrences(of: "passthrough: false", with: "hidden: false")
            .replacingOccurrences(of: "passthrough: true", with: "hidden: false")
        var router = F.router(try F.config(none))
        #expect(router.passthroughStatistics.isEmpty)
        #expect(F.passed(router.route(F.frame(1000, F.down(0, 900, 500)), nowMicros: 1000)).isEmpty)
        _ = router.route(F.frame(2000, F.up(0)), nowMicros: 2000)
        let with = try F.config(F.text(pinchKeys: "", mouseKeys: ""))
        _ = router.swapLayout(PreparedLayout(with.layout), config: with, subscriptions: nil, nowMicros: 3000)
        #expect(
            F.passed(router.route(F.frame(4000, F.down(0, 900, 500)), nowMicros: 4000)) == ["main: down 0#0 (900,500)"])
    }

    @Test func aTouchStaysPassedThroughWhenItSlidesOntoANativeViewUntilItLifts() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 350, 50)), nowMicros: 1000)
        let moved = router.route(F.frame(2000, F.move(0, 50, 50)), nowMicros: 2000)
        #expect(F.passed(moved) == ["main: move 0#0 (50,50)"])
        #expect(F.socket(moved).isEmpty)
        #expect(F.passed(router.route(F.frame(3000, F.up(0)), nowMicros: 3000)) == ["main: up 0#0 (50,50)"])
        // And a finger that went down on the native view never reaches the compositor.
        _ = router.route(F.frame(4000, F.down(1, 50, 50)), nowMicros: 4000)
        let out = router.route(F.frame(5000, F.move(1, 350, 50)), nowMicros: 5000)
        #expect(F.passed(out).isEmpty)
        #expect(F.socket(out) == ["native moved → [7]"])
    }

    @Test func aPassthroughRegionTakesSeveralFingersWhateverMultipleTouchSays() throws {
        // The root has multipleTouch false (the default): a second finger on it is still passed.
        var router = F.router(try F.config())
        let routed = router.route(F.frame(1000, F.down(0, 900, 400), F.down(1, 950, 450)), nowMicros: 1000)
        #expect(F.passed(routed) == ["main: down 0#0 (900,400), down 1#1 (950,450)"])
        #expect(router.tracker.statistics.droppedMultipleTouch == 0)
    }

    @Test func fingersOnAnUnsubscribedViewInsideARegionArePassedWhateverItsMultipleTouch() throws {
        // `banner` (multipleTouch false, the default, nobody subscribed) lies in the root's
        // region: the region takes the second finger, though the view hit would refuse it.
        var router = F.router(try F.config())
        let routed = router.route(F.frame(1000, F.down(0, 350, 50), F.down(1, 450, 150)), nowMicros: 1000)
        #expect(F.passed(routed) == ["main: down 0#0 (350,50), down 1#1 (450,150)"])
        #expect(router.tracker.statistics.droppedMultipleTouch == 0)
    }

    // MARK: - Slots and tracking ids

    @Test func slotsAreTheLowestFreeAndTrackingIDsOnlyGrow() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 900, 100), F.down(1, 900, 200), F.down(2, 900, 300)), nowMicros: 1000)
        #expect(F.passed(router.route(F.frame(2000, F.up(1)), nowMicros: 2000)) == ["main: up 1#1 (900,200)"])
        let next = router.route(F.frame(3000, F.down(5, 950, 500)), nowMicros: 3000)
        #expect(F.passed(next) == ["main: down 1#3 (950,500)"])
        // A frame lists its contacts in slot order, whatever order the input had.
        let moved = router.route(
            F.frame(4000, F.move(2, 901, 300), F.move(5, 951, 500), F.move(0, 901, 100)), nowMicros: 4000)
        #expect(F.passed(moved) == ["main: move 0#0 (901,100), move 1#3 (951,500), move 2#2 (901,300)"])
    }

    @Test func aSlotFreedInAFrameIsNotGivenAgainInThatFrame() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 900, 100)), nowMicros: 1000)
        let routed = router.route(F.frame(2000, F.up(0), F.down(1, 900, 500)), nowMicros: 2000)
        #expect(F.passed(routed) == ["main: up 0#0 (900,100), down 1#1 (900,500)"])
    }

    /// A down and an up of one contact in one input frame are two evdev frames: the up is never
    /// merged into the down (the virtual touchscreen would keep the finger down).
    @Test func aDownAndAnUpInOneFrameAreTwoFrames() throws {
        var router = F.router(try F.config())
        let routed = router.route(F.frame(1000, F.down(0, 900, 100), F.up(0)), nowMicros: 1000)
        #expect(F.passed(routed) == ["main: down 0#0 (900,100)", "main: up 0#0 (900,100)"])
    }

    @Test func eachScreenHasItsOwnSlots() throws {
        var router = F.router(try F.config())
        let main = router.route(F.frame(1000, F.down(0, 900, 100)), nowMicros: 1000)
        let side = router.route(F.frame(1000, F.down(0, 100, 100), screen: "side"), nowMicros: 1000)
        #expect(F.passed(main) == ["main: down 0#0 (900,100)"])
        #expect(F.passed(side) == ["side: down 0#1 (100,100)"])
        #expect(F.statistics(router, "side")?.touchesPassed == 1)
    }

    @Test func aScreenPassesAtMostTenFingersAndCountsTheRest() throws {
        var router = F.router(try F.config())
        // Ten on the root (its maxTouches) and one in `pinch` (its own region): no slot is left.
        let ten = (0..<10).map { F.down(Int32($0), 720 + Double($0) * 20, 800) }
        let routed = router.route(
            .frame(InputFrame(device: F.panel, screen: "main", timestampMicros: 1000, contacts: ten)),
            nowMicros: 1000)
        #expect(F.passed(routed).first?.components(separatedBy: "down").count == 11)
        #expect(F.passed(router.route(F.frame(2000, F.down(10, 500, 500)), nowMicros: 2000)).isEmpty)
        #expect(F.statistics(router)?.droppedNoSlot == 1)
        // An eleventh finger on the root is over its maxTouches first.
        #expect(F.passed(router.route(F.frame(3000, F.down(11, 900, 900)), nowMicros: 3000)).isEmpty)
        #expect(F.statistics(router)?.droppedOverMaxTouches == 1)
    }

    // MARK: - maxTouches

    @Test func fingersBeyondMaxTouchesGoNowhereAndAreCounted() throws {
        var router = F.router(try F.config())
        let routed = router.route(F.frame(1000, F.down(0, 400, 400), F.down(1, 600, 600)), nowMicros: 1000)
        #expect(F.passed(routed) == ["main: down 0#0 (400,400)"])
        #expect(F.statistics(router)?.droppedOverMaxTouches == 1)
        // The second finger's moves pass nothing; after the first lifts it stays out (decided at
        // its down), and a new finger is passed.
        #expect(F.passed(router.route(F.frame(2000, F.move(1, 610, 610)), nowMicros: 2000)).isEmpty)
        _ = router.route(F.frame(3000, F.up(0)), nowMicros: 3000)
        #expect(F.passed(router.route(F.frame(4000, F.move(1, 620, 620)), nowMicros: 4000)).isEmpty)
        let third = router.route(F.frame(5000, F.down(2, 500, 500)), nowMicros: 5000)
        #expect(F.passed(third) == ["main: down 0#1 (500,500)"])
        // maxTouches is the region's: the root around it takes its own fingers meanwhile.
        let root = router.route(F.frame(6000, F.down(3, 900, 900)), nowMicros: 6000)
        #expect(F.passed(root) == ["main: down 1#2 (900,900)"])
    }

    // MARK: - Pointer mode

    @Test func pointerModeATapIsALeftClickWhereTheFingerWentDown() throws {
        var router = F.router(try F.config())
        let down = router.route(F.frame(1000, F.down(0, 100, 800)), nowMicros: 1000)
        #expect(F.passed(down) == ["main: move(100,800)"])
        // A wobble within the slop (5 mm, about 19 units here) moves nothing.
        #expect(F.passed(router.route(F.frame(2000, F.move(0, 105, 805)), nowMicros: 2000)).isEmpty)
        let up = router.route(F.frame(3000, F.up(0)), nowMicros: 3000)
        #expect(F.passed(up) == ["main: press(100,800) left, release(100,800) left"])
        #expect(F.statistics(router)?.pointerTouches == 1)
    }

    @Test func pointerModeADragPressesTheLeftButtonWhenItLeavesTheSlop() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 100, 800)), nowMicros: 1000)
        let drag = router.route(F.frame(2000, F.move(0, 130, 800)), nowMicros: 2000)
        #expect(F.passed(drag) == ["main: press(100,800) left, move(130,800)"])
        #expect(F.passed(router.route(F.frame(3000, F.move(0, 160, 810)), nowMicros: 3000)) == ["main: move(160,810)"])
        #expect(F.passed(router.route(F.frame(4000, F.up(0)), nowMicros: 4000)) == ["main: release(160,810) left"])
        // The drag is not a right click later.
        #expect(router.nextDeadlineMicros == nil)
    }

    @Test func pointerModeAFingerHeldStillIsARightClickAtItsDeadline() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 100, 800)), nowMicros: 1000)
        #expect(router.nextDeadlineMicros == 801_000)
        #expect(router.advance(to: 800_999).isEmpty)
        let click = router.advance(to: 801_000)
        #expect(F.passed(click) == ["main: press(100,800) right, release(100,800) right"])
        #expect(router.nextDeadlineMicros == nil)
        // Then nothing more for that finger until it lifts.
        #expect(F.passed(router.route(F.frame(900_000, F.move(0, 300, 900)), nowMicros: 900_000)).isEmpty)
        #expect(F.passed(router.route(F.frame(950_000, F.up(0)), nowMicros: 950_000)).isEmpty)
        #expect(F.statistics(router)?.rightClicks == 1)
    }

    @Test func pointerModeADeadlinePassedBeforeALateFrameFiresFirst() throws {
        let config = try F.config(F.text(mouseKeys: #"passthrough: { mode: "pointer", rightClickMs: 200 },"#))
        var router = F.router(config)
        _ = router.route(F.frame(1000, F.down(0, 100, 800)), nowMicros: 1000)
        // The loop was late: the next frame (a drag) comes after the deadline.
        let late = router.route(F.frame(300_000, F.move(0, 200, 800)), nowMicros: 300_000)
        #expect(F.passed(late) == ["main: press(100,800) right, release(100,800) right"])
        if case .passthrough(let frame) = late.first { #expect(frame.timestampMicros == 201_000) }
    }

    @Test func pointerModeASecondFingerIsIgnored() throws {
        var router = F.router(try F.config())
        _ = router.route(F.frame(1000, F.down(0, 100, 800)), nowMicros: 1000)
        let second = router.route(F.frame(2000, F.down(1, 300, 900)), nowMicros: 2000)
        #expect(F.passed(second).isEmpty)
        #expect(F.passed(router.route(F.frame(3000, F.move(1, 350, 950)), nowMicros: 3000)).isEmpty)
        #expect(F.statistics(router)?.ignoredPointerFingers == 1)
        // Once the first lifts, the next finger takes the pointer.
        _ = router.route(F.frame(4000, F.up(0)), nowMicros: 4000)
        #expect(F.passed(router.route(F.frame(5000, F.down(2, 200, 850)), nowMicros: 5000)) == ["main: move(200,850)"])
    }

    // MARK: - The field filters run first

    static let filtered = """
        idle: { seconds: 1 }, wake: { swallow: true, graceMs: 0 },
        filters: { dropStuckPoints: true, debounceMs: 60, debounceMM: 3, maxStationarySeconds: 2 },
        """

    @Test func aSwallowedWakingTouchIsNeverPassedThrough() throws {
        var router = F.router(try F.config(F.text(screenKeys: Self.filtered)))
        _ = router.advance(to: 1_000_000)
        let woke = router.route(F.frame(2_000_000, F.down(0, 900, 500)), nowMicros: 2_000_000)
        #expect(F.passed(woke).isEmpty)
        #expect(F.passed(router.route(F.frame(2_100_000, F.up(0)), nowMicros: 2_100_000)).isEmpty)
        let next = router.route(F.frame(2_200_000, F.down(1, 900, 500)), nowMicros: 2_200_000)
        #expect(F.passed(next) == ["main: down 0#0 (900,500)"])
    }

    @Test func aGhostAtTheSensorsCornerIsNeverPassedThrough() throws {
        var router = F.router(try F.config(F.text(screenKeys: Self.filtered)))
        let ghost = ContactEvent(kind: .down, slot: 0, screenPoint: Point(1000, 1000), atDeviceLimit: true)
        #expect(F.passed(router.route(F.frame(1000, ghost), nowMicros: 1000)).isEmpty)
        #expect(F.passed(router.route(F.frame(2000, F.up(0)), nowMicros: 2000)).isEmpty)
    }

    @Test func aBounceIsNeverPassedThrough() throws {
        var router = F.router(try F.config(F.text(screenKeys: Self.filtered)))
        _ = router.route(F.frame(100_000, F.down(0, 900, 500)), nowMicros: 100_000)
        _ = router.route(F.frame(200_000, F.up(0)), nowMicros: 200_000)
        let bounce = router.route(F.frame(230_000, F.down(0, 901, 500)), nowMicros: 230_000)
        #expect(F.passed(bounce).isEmpty)
        #expect(F.passed(router.route(F.frame(240_000, F.up(0)), nowMicros: 240_000)).isEmpty)
    }

    @Test func aStuckFingerIsCancelledOnTheVirtualDevice() throws {
        var router = F.router(try F.config(F.text(screenKeys: Self.filtered)))
        _ = router.route(F.frame(100_000, F.down(0, 900, 500)), nowMicros: 100_000)
        let due = try #require(router.nextDeadlineMicros)
        #expect(due <= 2_100_000)
        var routed: [String] = []
        var now = due
        while routed.isEmpty, now <= 2_100_000 {
            routed = F.passed(router.advance(to: now))
            now = router.nextDeadlineMicros ?? .max
        }
        #expect(routed == ["main: cancel 0#0 (900,500)"])
        // The kernel's late release passes nothing more.
        #expect(F.passed(router.route(F.frame(3_000_000, F.up(0)), nowMicros: 3_000_000)).isEmpty)
    }
}
