import Foundation
import Testing
import TouchRouterCore

/// Each recogniser at its thresholds and one layout unit (0.1 mm, or 1 ms) on either side.
@Suite("Gesture recognisers: thresholds")
struct RecogniserTableTests {
    /// (moved units, recognised): the default movement is 5 mm = 50 units.
    @Test(
        "a tap survives movement up to 5 mm, not beyond", arguments: [(0.0, true), (49, true), (50, true), (51, false)])
    func tapMovement(_ moved: Double, _ recognised: Bool) {
        var run = GestureHarness(.tap)
        run.down(0, 0, 500, 500)
        run.move(20, 0, 500 + moved, 500)
        run.up(40, 0)
        #expect(run.summary == (recognised ? ["tap recognized"] : []))
        if recognised {
            #expect(run.events[0].taps == 1)
            #expect(run.events[0].timestampMicros == GestureHarness.micros(40))
            #expect(run.events[0].localPoint == Point(500 + moved, 500))
        }
    }

    /// Movement counts from where the finger went down, not from its last step: two steps of 3 mm
    /// are 6 mm, beyond the 5 mm a tap and a long press allow.
    @Test("a tap and a long press fail on movement made in small steps", arguments: [GestureKind.tap, .longPress])
    func movementInSteps(_ kind: GestureKind) {
        var run = GestureHarness(kind)
        run.down(0, 0, 500, 500)
        run.move(20, 0, 530, 500)
        run.move(40, 0, 560, 500)
        run.up(60, 0)
        run.advance(2000)
        #expect(run.summary == [])
    }

    @Test("a two-finger tap needs both fingers down together", arguments: [1, 2, 3])
    func tapFingers(_ fingers: Int) {
        var run = GestureHarness(.tap) { $0.fingers = 2 }
        for slot in 0..<fingers { run.down(Double(slot), Int32(slot), 500 + Double(slot) * 100, 500) }
        for slot in 0..<fingers { run.up(50 + Double(slot), Int32(slot)) }
        #expect(run.summary == (fingers == 2 ? ["tap recognized"] : []))
    }

    /// (pause ms, double): the default interval is 300 ms.
    @Test(
        "a double tap's second tap must start less than 300 ms after the first ends",
        arguments: [(299.0, true), (300, false)])
    func doubleTapInterval(_ pause: Double, _ double: Bool) {
        var run = GestureHarness(.tap) { $0.taps = 2 }
        run.down(0, 0, 500, 500)
        run.up(30, 0)
        run.advance(30 + pause - 0.001)
        run.down(30 + pause, 0, 500, 500)
        run.up(60 + pause, 0)
        run.advance(2000)
        #expect(run.summary == (double ? ["tap recognized"] : []))
        if double { #expect(run.events[0].taps == 2) }
    }

    /// (distance units, double): the next tap may land 15.875 mm (Android's 100 dp) away.
    @Test("a double tap's taps must land within 100 dp of each other", arguments: [(158.0, true), (159, false)])
    func doubleTapSpacing(_ distance: Double, _ double: Bool) {
        var run = GestureHarness(.tap) { $0.taps = 2 }
        run.down(0, 0, 500, 500)
        run.up(30, 0)
        run.down(100, 0, 500 + distance, 500)
        run.up(130, 0)
        #expect(run.summary == (double ? ["tap recognized"] : []))
    }

    /// (held ms, began): the default duration is 500 ms.
    @Test("a long press begins after 500 ms held", arguments: [(499.0, false), (500, true)])
    func longPressDuration(_ held: Double, _ began: Bool) {
        var run = GestureHarness(.longPress)
        run.down(0, 0, 500, 500)
        run.advance(held)
        #expect(run.summary == (began ? ["longPress began"] : []))
        run.up(held + 0.5, 0)
        #expect(run.summary == (began ? ["longPress began", "longPress ended"] : []))
        if began {
            #expect(run.events[0].timestampMicros == GestureHarness.micros(500))
            #expect(run.events[0].durationMicros == 500_000)
        }
    }

    @Test("a long press fails when a finger moves more than 5 mm first", arguments: [(50.0, true), (51, false)])
    func longPressMovement(_ moved: Double, _ began: Bool) {
        var run = GestureHarness(.longPress)
        run.down(0, 0, 500, 500)
        run.move(100, 0, 500, 500 + moved)
        run.advance(600)
        #expect(run.summary == (began ? ["longPress began"] : []))
    }

    @Test("a long press's duration counts from the finger down: jitter within its movement does not restart it")
    func longPressJitter() {
        var run = GestureHarness(.longPress)
        run.down(0, 0, 500, 500)
        run.move(200, 0, 520, 500)
        run.move(400, 0, 500, 530)
        run.move(499, 0, 510, 510)
        run.advance(500)
        #expect(run.summary == ["longPress began"])
        #expect(run.events.first?.timestampMicros == GestureHarness.micros(500))
    }

    @Test("after it began, a long press follows the finger and ends when it lifts")
    func longPressChanges() {
        var run = GestureHarness(.longPress)
        run.down(0, 0, 500, 500)
        run.advance(500)
        run.move(600, 0, 900, 500)
        run.up(700, 0)
        #expect(run.summary == ["longPress began", "longPress changed", "longPress ended"])
        #expect(run.events[1].localPoint == Point(900, 500))
    }

    /// (moved units, began): the default distance is 5 mm = 50 units.
    @Test("a pan begins once the fingers moved 5 mm", arguments: [(49.0, false), (50, true), (51, true)])
    func panDistance(_ moved: Double, _ began: Bool) {
        var run = GestureHarness(.pan)
        run.down(0, 0, 500, 500)
        run.move(10, 0, 500, 500 + moved)
        run.up(20, 0)
        #expect(run.summary == (began ? ["pan began", "pan ended"] : []))
    }

    /// (the pad's scale, moved screen units, began): 5 mm is 50 units on the glass whatever the
    /// view's scale; `translation` is in the view's units.
    @Test(
        "a pan's distance is measured on the glass, not in the view's units",
        arguments: [(2.0, 49.0, false), (2, 50, true), (0.5, 49, false), (0.5, 50, true)])
    func panDistanceOnTheGlass(_ scale: Double, _ moved: Double, _ began: Bool) {
        var run = GestureHarness([GestureSpec(.pan)], transform: ViewTransform(scaleX: scale, scaleY: scale))
        run.down(0, 0, 1000, 1000)
        run.move(10, 0, 1000, 1000 + moved)
        #expect(run.summary == (began ? ["pan began"] : []))
        if began, let translation = run.events.first?.translation {
            #expect(abs(translation.x) < 1e-9 && abs(translation.y - moved / scale) < 1e-9)
        }
    }

    @Test("a pan ends when fewer than minimumFingers are left down")
    func panEndsBelowMinimumFingers() {
        var run = GestureHarness(.pan) { $0.minimumFingers = 2 }
        run.down(0, 0, 500, 500)
        run.down(5, 1, 700, 500)
        run.frame(
            10,
            [
                ContactEvent(kind: .motion, slot: 0, screenPoint: Point(500, 600)),
                ContactEvent(kind: .motion, slot: 1, screenPoint: Point(700, 600)),
            ])
        #expect(run.summary == ["pan began"])
        run.up(20, 1)
        #expect(run.summary == ["pan began", "pan ended"])
        #expect(run.events.last?.timestampMicros == GestureHarness.micros(20))
        run.move(30, 0, 500, 800)
        run.up(40, 0)
        #expect(run.summary == ["pan began", "pan ended"])
    }

    @Test("a gesture's event names the fingers it follows that are still on the view, not one that lifted")
    func eventNamesFingersStillDown() {
        var run = GestureHarness(.pan)
        run.down(0, 0, 500, 500)
        run.down(5, 1, 700, 500)
        run.drag(from: 10, 0, by: 100, 0)  // the pan begins with both fingers (touches 1 and 2)
        run.up(70, 1)  // touch 2 lifts: the pan goes on with touch 1
        run.move(80, 0, 700, 600)
        run.up(90, 0)
        #expect(run.summary.last == "pan ended")
        let afterLift = run.events.filter { $0.timestampMicros > GestureHarness.micros(70) }
        #expect(afterLift.map(\.touchIDs) == [[1], [1]])
        #expect(afterLift.map(\.localPoint) == [Point(700, 600), Point(700, 600)])
    }

    @Test("a pan reports translation in view units and velocity in units per second")
    func panValues() {
        var run = GestureHarness(.pan)
        run.down(0, 0, 500, 500)
        run.move(10, 0, 560, 500)
        run.move(20, 0, 600, 530)
        run.up(30, 0)
        #expect(run.summary == ["pan began", "pan changed", "pan ended"])
        #expect(run.events[1].translation == Point(100, 30))
        #expect(run.events[1].velocity == Point(4000, 3000))
    }

    @Test("a pan takes between minimumFingers and maximumFingers", arguments: [1, 2, 3])
    func panFingers(_ fingers: Int) {
        var run = GestureHarness(.pan) {
            $0.minimumFingers = 2
            $0.maximumFingers = 2
        }
        for slot in 0..<fingers { run.down(Double(slot), Int32(slot), 500 + Double(slot) * 100, 500) }
        run.frame(
            10,
            (0..<fingers).map {
                ContactEvent(kind: .motion, slot: Int32($0), screenPoint: Point(500 + Double($0) * 100, 600))
            })
        #expect(run.summary == (fingers == 2 ? ["pan began"] : []))
    }

    /// (distance units, recognised): the default swipe distance is 15 mm = 150 units.
    @Test("a swipe needs 15 mm", arguments: [(149.0, false), (150, true)])
    func swipeDistance(_ distance: Double, _ recognised: Bool) {
        var run = GestureHarness(.swipe)
        run.down(0, 0, 500, 500)
        run.drag(from: 0, 0, by: distance, 0)
        run.up(60, 0)
        #expect(run.summary == (recognised ? ["swipe recognized"] : []))
        if recognised { #expect(run.events[0].direction == .right) }
    }

    /// (fingers down, recognised): a 2-finger swipe takes exactly two; one finger covering the
    /// distance is no 2-finger swipe.
    @Test("a 2-finger swipe needs two fingers", arguments: [(1, false), (2, true)])
    func swipeFingers(_ fingers: Int, _ recognised: Bool) {
        var run = GestureHarness(.swipe) { $0.fingers = 2 }
        for slot in 0..<fingers { run.down(0, Int32(slot), 500, 500 + Double(slot) * 100) }
        run.frame(
            20,
            (0..<fingers).map {
                ContactEvent(kind: .motion, slot: Int32($0), screenPoint: Point(700, 500 + Double($0) * 100))
            })
        #expect(run.summary == (recognised ? ["swipe recognized"] : []))
    }

    /// (ms taken, recognised): the default maximum duration is 500 ms.
    @Test("a swipe must cover its distance in less than 500 ms", arguments: [(499.0, true), (500, false)])
    func swipeDuration(_ taken: Double, _ recognised: Bool) {
        var run = GestureHarness(.swipe)
        run.down(0, 0, 500, 500)
        run.advance(taken - 1)
        run.move(taken, 0, 500, 300)
        #expect(run.summary == (recognised ? ["swipe recognized"] : []))
        if recognised { #expect(run.events[0].direction == .up) }
    }

    /// (ms the three steps take, recognised): each step is well under 500 ms, but the distance
    /// must come within 500 ms of the finger down.
    @Test(
        "a swipe's maximum duration counts from the finger down, not from each step",
        arguments: [(450.0, true), (600, false)])
    func swipeDurationFromTheDown(_ taken: Double, _ recognised: Bool) {
        var run = GestureHarness(.swipe, recordsFailures: true)
        run.down(0, 0, 500, 500)
        for step in 1...3 { run.move(taken * Double(step) / 3, 0, 500 + 50 * Double(step), 500) }
        #expect(run.summary == (recognised ? ["swipe recognized"] : ["swipe failed"]))
        if !recognised { #expect(run.events.first?.timestampMicros == GestureHarness.micros(500)) }
    }

    /// (sideways units per 200 forward, recognised): up to 30 degrees off the axis.
    @Test("a swipe may stray 30 degrees from its axis", arguments: [(115.0, true), (116, false)])
    func swipeAngle(_ sideways: Double, _ recognised: Bool) {
        var run = GestureHarness(.swipe)
        run.down(0, 0, 500, 500)
        run.move(50, 0, 300, 500 + sideways)
        #expect(run.summary == (recognised ? ["swipe recognized"] : []))
        if recognised { #expect(run.events[0].direction == .left) }
    }

    @Test("a swipe in a direction it does not take fails", arguments: SwipeDirection.allCases)
    func swipeDirections(_ direction: SwipeDirection) {
        var run = GestureHarness(.swipe) { $0.directions = [.left] }
        let (dx, dy): (Double, Double) =
            switch direction {
            case .left: (-200, 0)
            case .right: (200, 0)
            case .up: (0, -200)
            case .down: (0, 200)
            }
        run.down(0, 0, 1000, 1000)
        run.move(50, 0, 1000 + dx, 1000 + dy)
        #expect(run.summary == (direction == .left ? ["swipe recognized"] : []))
    }

    /// (spread units, began): the default pinch distance is 5 mm = 50 units of change, the fingers
    /// moving apart (spread > 0) or together (< 0) alike.
    @Test(
        "a pinch begins when the fingers' distance changed by 5 mm, opening or closing",
        arguments: [(49.0, false), (50, true), (-49, false), (-50, true)])
    func pinchDistance(_ spread: Double, _ began: Bool) {
        var run = GestureHarness(.pinch)
        run.down(0, 0, 500, 500)
        run.down(1, 1, 700, 500)
        run.move(10, 1, 700 + spread, 500)
        #expect(run.summary == (began ? ["pinch began"] : []))
        if began { #expect(run.events[0].scale == (200 + spread) / 200) }
    }

    /// (angle degrees, began): the default rotate angle is 5 degrees.
    /// Clockwise (positive) or counter-clockwise (negative) alike.
    @Test(
        "a rotate begins after 5 degrees, either way",
        arguments: [(4.9, false), (5.1, true), (-4.9, false), (-5.1, true)])
    func rotateAngle(_ degrees: Double, _ began: Bool) {
        var run = GestureHarness(.rotate)
        run.down(0, 0, 500, 500)
        run.down(1, 1, 700, 500)
        let radians = degrees * .pi / 180
        run.move(10, 1, 500 + 200 * cos(radians), 500 + 200 * sin(radians))
        #expect(run.summary == (began ? ["rotate began"] : []))
        if began, let event = run.events.first { #expect(abs(event.rotation! - radians) < 1e-9) }
    }

    @Test("a rotation across the half turn keeps counting (175° to 185° is +10°, not -350°)")
    func rotateAcrossHalfTurn() {
        var run = GestureHarness(.rotate)
        func point(_ degrees: Double) -> (Double, Double) {
            (1000 + 200 * cos(degrees * .pi / 180), 1000 + 200 * sin(degrees * .pi / 180))
        }
        run.down(0, 0, 1000, 1000)
        let start = point(170)
        run.down(1, 1, start.0, start.1)
        for (step, degrees) in [175.0, 185, 190].enumerated() {
            let next = point(degrees)
            run.move(10 + Double(step) * 10, 1, next.0, next.1)
        }
        #expect(run.summary.first == "rotate began")
        #expect(abs(run.events.last!.rotation! - 20 * .pi / 180) < 1e-9)
    }
}
