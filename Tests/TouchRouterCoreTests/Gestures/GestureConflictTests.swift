import Testing
import TouchRouterCore

/// Several recognisers on one view (UIKit's defaults), cancelsTouches, and cancellations.
@Suite("Gesture recognisers: conflicts and cancellation")
struct GestureConflictTests {
    static func tapAndDoubleTap() -> [GestureSpec] {
        var double = GestureSpec(.tap)
        double.taps = 2
        return [GestureSpec(.tap), double]
    }

    @Test("a single tap waits for the double tap to fail, and fires at its deadline")
    func singleTapWaits() {
        var run = GestureHarness(Self.tapAndDoubleTap())
        run.down(0, 0, 500, 500)
        run.up(30, 0)
        #expect(run.summary == [])
        #expect(run.stage.nextDeadlineMicros == GestureHarness.micros(330))
        run.advance(330)
        #expect(run.summary == ["tap recognized"])
        #expect(run.events[0].taps == 1 && run.events[0].recogniserIndex == 0)
        #expect(run.events[0].timestampMicros == GestureHarness.micros(330))
        #expect(run.stage.nextDeadlineMicros == nil)
    }

    /// (whether the single tap is the non-exclusive one, else the double tap is): `exclusive: false`
    /// neither waits nor makes wait, so the single tap is recognised at its finger's lift, and both
    /// count the second tap.
    @Test("a tap does not wait for a double tap when either is exclusive: false", arguments: [true, false])
    func nonExclusiveTapDoesNotWait(_ singleOptsOut: Bool) {
        var specs = Self.tapAndDoubleTap()
        specs[singleOptsOut ? 0 : 1].exclusive = false
        var run = GestureHarness(specs)
        run.down(0, 0, 500, 500)
        run.up(30, 0)
        #expect(run.summary == ["tap recognized"])
        #expect(run.events.first?.timestampMicros == GestureHarness.micros(30))
        run.down(100, 0, 505, 500)
        run.up(130, 0)
        run.advance(5000)
        #expect(run.events.map(\.taps) == [1, 1, 2])
    }

    @Test("a double tap is only a double tap: the single tap never fires")
    func doubleTapAlone() {
        var run = GestureHarness(Self.tapAndDoubleTap())
        run.down(0, 0, 500, 500)
        run.up(30, 0)
        run.down(100, 0, 505, 500)
        run.up(130, 0)
        run.advance(5000)
        #expect(run.summary == ["tap recognized"])
        #expect(run.events[0].taps == 2 && run.events[0].recogniserIndex == 1)
    }

    @Test("a second touch that drags fails the double tap, which lets the single tap through")
    func doubleTapFailsThenSingle() {
        var run = GestureHarness(Self.tapAndDoubleTap())
        run.down(0, 0, 500, 500)
        run.up(30, 0)
        run.down(100, 0, 500, 500)
        run.move(120, 0, 600, 500)
        #expect(run.summary == ["tap recognized"])
        #expect(run.events[0].taps == 1)
    }

    @Test("pan against swipe: the pan begins first and the swipe fails (UIKit's default)")
    func panBeatsSwipe() {
        var run = GestureHarness([GestureSpec(.pan), GestureSpec(.swipe)])
        run.down(0, 0, 500, 500)
        run.drag(from: 0, 0, by: 300, 0)
        run.up(60, 0)
        #expect(run.summary.first == "pan began")
        #expect(!run.summary.contains("swipe recognized"))
        #expect(run.summary.last == "pan ended")
    }

    @Test("a swipe with exclusive: false is recognised alongside the pan")
    func nonExclusiveSwipe() {
        var swipe = GestureSpec(.swipe)
        swipe.exclusive = false
        var run = GestureHarness([GestureSpec(.pan), swipe])
        run.down(0, 0, 500, 500)
        run.drag(from: 0, 0, by: 300, 0)
        run.up(60, 0)
        #expect(run.summary.contains("pan began"))
        #expect(run.summary.contains("swipe recognized"))
    }

    @Test("pinch and rotate recognise together")
    func pinchAndRotate() {
        var run = GestureHarness([GestureSpec(.pinch), GestureSpec(.rotate), GestureSpec(.pan)])
        run.down(0, 0, 500, 500)
        run.down(1, 1, 700, 500)
        // Spread and turn at once; the centroid stays put, so the pan stays possible.
        run.frame(
            10,
            [
                ContactEvent(kind: .motion, slot: 0, screenPoint: Point(450, 480)),
                ContactEvent(kind: .motion, slot: 1, screenPoint: Point(750, 520)),
            ])
        #expect(Set(run.summary) == ["pinch began", "rotate began"])
        run.up(20, 1)
        #expect(run.summary.filter { $0.hasSuffix("ended") }.count == 2)
        #expect(!run.summary.contains("pan began"))
    }

    @Test("a tap and a long press: a short press is a tap, a held one a long press")
    func tapOrLongPress() {
        var short = GestureHarness([GestureSpec(.tap), GestureSpec(.longPress)])
        short.down(0, 0, 500, 500)
        short.up(100, 0)
        short.advance(1000)
        #expect(short.summary == ["tap recognized"])
        var held = GestureHarness([GestureSpec(.tap), GestureSpec(.longPress)])
        held.down(0, 0, 500, 500)
        held.advance(600)
        held.up(700, 0)
        #expect(held.summary == ["longPress began", "longPress ended"])
    }

    @Test("cancelsTouches: once a pan begins, raw clients see its touch cancelled (reason gesture), then nothing")
    func cancelsTouches() {
        var run = GestureHarness(.pan)
        run.down(0, 0, 500, 500)
        run.move(10, 0, 520, 500)
        run.move(20, 0, 600, 500)
        run.move(30, 0, 700, 500)
        run.up(40, 0)
        #expect(run.rawPhases(of: 1) == ["began", "moved", "cancelled gesture"])
        #expect(run.summary == ["pan began", "pan changed", "pan ended"])
    }

    @Test("cancelsTouches false: the raw touches carry on")
    func keepsTouches() {
        var run = GestureHarness(.pan) { $0.cancelsTouches = false }
        run.down(0, 0, 500, 500)
        run.move(20, 0, 600, 500)
        run.up(40, 0)
        #expect(run.rawPhases(of: 1) == ["began", "moved", "ended"])
        #expect(run.raw == run.trackerRaw)
    }

    @Test("a long press takes its touch at its deadline, in a message of its own")
    func longPressCancelsAtDeadline() {
        var run = GestureHarness(.longPress)
        run.down(0, 0, 500, 500)
        run.advance(500)
        run.move(600, 0, 510, 500)
        run.up(700, 0)
        #expect(run.rawPhases(of: 1) == ["began", "cancelled gesture"])
        let cancel = run.raw.last { $0.touches.contains { $0.phase == .cancelled } }
        #expect(cancel?.timestampMicros == GestureHarness.micros(500))
    }

    @Test("a long press's cancellation names its touch's device, also for an id given again under another name")
    func longPressCancellationDevice() {
        var run = GestureHarness(.longPress)
        // Each press from its own device; the view's state (and its list of devices) outlives both.
        for (index, name) in ["panel A", "panel A", "panel B"].enumerated() {
            let start = Double(index) * 2000
            let device = InputDevice(id: 1, name: name)
            for (ms, contact) in [
                (start, ContactEvent(kind: .down, slot: 0, screenPoint: Point(500, 500))),
                (start + 600, ContactEvent(kind: .up, slot: 0)),
            ] {
                let time = GestureHarness.micros(ms)
                if contact.kind == .up { run.advance(start + 500) }  // the long press begins
                let frame = InputFrame(
                    device: device, screen: "main", timestampMicros: time, contacts: [contact],
                    physicalScale: GestureHarness.scale)
                run.take(run.tracker.process(.frame(frame), subscribedViews: run.subscribed), time)
            }
        }
        let cancelled = run.raw.flatMap(\.touches).filter { $0.phase == .cancelled }
        #expect(cancelled.map(\.device.name) == ["panel A", "panel A", "panel B"])
    }

    @Test("a pan whose first finger lifts while another stays down goes on, and begins with it")
    func panOutlivesOneFinger() {
        var run = GestureHarness(.pan)
        run.down(0, 0, 500, 500)
        run.down(10, 1, 600, 500)
        run.up(20, 0)  // one of the two lifts: a finger is still down, the pan still possible
        run.drag(from: 30, 1, by: 200, 0)
        run.up(100, 1)
        #expect(run.summary.first == "pan began")
        #expect(run.summary.last == "pan ended")
    }

    @Test("a swipe whose last move comes in the frame that lifts its finger is recognised")
    func swipeOnItsLastFrame() {
        var run = GestureHarness(.swipe)
        run.down(0, 0, 500, 500)
        run.move(10, 0, 600, 500)  // 10 mm: not yet the 15 a swipe needs
        run.frame(
            20,
            [  // the last 10 mm and the lift in one input frame
                ContactEvent(kind: .motion, slot: 0, screenPoint: Point(700, 500)), ContactEvent(kind: .up, slot: 0),
            ])
        #expect(run.summary == ["swipe recognized"])
        #expect(run.events.first?.direction == .right)
    }

    @Test("every kind with a touch lifting alone: the same events with or without failures recorded")
    func lastFingerUpEveryKind() {
        var double = GestureSpec(.tap)
        double.taps = 2
        let every = [
            GestureSpec(.tap), double, GestureSpec(.longPress), GestureSpec(.pan), GestureSpec(.swipe),
            GestureSpec(.pinch), GestureSpec(.rotate),
        ]
        var run = GestureHarness(every, recordsFailures: true)
        run.down(0, 0, 500, 500)
        run.up(50, 0)
        // The five that need a finger held or a move fail as the finger lifts, in the view's order;
        // the single tap waits for the double tap.
        #expect(run.summary == ["longPress failed", "pan failed", "swipe failed", "pinch failed", "rotate failed"])
        run.advance(400)
        #expect(run.summary.suffix(2) == ["tap failed", "tap recognized"])
    }

    @Test("a finger of an active pan lifting while another goes on: the pan carries on, raw clients see neither")
    func panFingerLiftsMidway() {
        var run = GestureHarness(.pan)
        run.down(0, 0, 500, 500)
        run.down(5, 1, 600, 500)
        run.drag(from: 10, 0, by: 100, 0)  // the pan begins and takes both touches
        run.up(70, 1)  // a taken touch leaves; the view goes on with the other
        run.drag(from: 80, 0, by: 100, 0)
        run.up(140, 0)
        #expect(run.summary.first == "pan began")
        #expect(run.summary.last == "pan ended")
        #expect(run.summary.filter { $0 == "pan changed" }.count >= 5)
        // Raw until the pan began, then one `cancelled`, then nothing (the lift included).
        for id: UInt64 in [1, 2] {
            #expect(run.rawPhases(of: id).last == "cancelled gesture")
            #expect(run.rawPhases(of: id).filter { $0.hasPrefix("cancelled") }.count == 1)
        }
    }

    @Test("a finger joining an active pan belongs to it from the start")
    func joiningFinger() {
        var run = GestureHarness(.pan)
        run.down(0, 0, 500, 500)
        run.move(10, 0, 600, 500)
        run.down(20, 1, 900, 900)
        run.up(30, 1)
        #expect(run.rawPhases(of: 2) == [])
    }

    @Test("a finger beyond a full active pan (maximumFingers down) is not the pan's: raw clients get it")
    func fingerBeyondAFullPan() {
        var run = GestureHarness(.pan) { $0.maximumFingers = 1 }
        run.down(0, 0, 500, 500)
        run.move(10, 0, 600, 500)
        run.down(20, 1, 900, 900)
        run.move(25, 1, 950, 900)
        run.up(30, 1)
        #expect(run.summary == ["pan began"])
        #expect(run.rawPhases(of: 1) == ["began", "cancelled gesture"])
        #expect(run.rawPhases(of: 2) == ["began", "moved", "ended"])
    }

    @Test("a finger coming down after one of a full active pan lifted joins it: the maximum counts fingers down")
    func fingerReplacingOneOfAFullPan() {
        var run = GestureHarness(.pan) { $0.maximumFingers = 2 }
        run.down(0, 0, 500, 500)
        run.down(5, 1, 700, 500)
        run.drag(from: 10, 0, by: 100, 0)  // the pan begins with both fingers and takes them
        run.up(70, 1)  // one lifts: one finger down, room for another
        run.down(80, 1, 900, 900)  // touch 3
        run.drag(from: 90, 1, by: 0, 100)  // only the new finger moves: the centroid moves with it
        #expect(run.rawPhases(of: 3) == [])
        let afterJoin = run.events.filter { $0.timestampMicros > GestureHarness.micros(80) }
        #expect(
            afterJoin.map { "\($0.kind.rawValue) \($0.state.rawValue)" } == Array(repeating: "pan changed", count: 5))
        #expect(afterJoin.allSatisfy { $0.touchIDs == [1, 3] })
    }

    @Test("a finger joining an active pan that keeps touches (cancelsTouches false) stays raw")
    func joiningFingerKept() {
        var run = GestureHarness(.pan) { $0.cancelsTouches = false }
        run.down(0, 0, 500, 500)
        run.move(10, 0, 600, 500)
        run.down(20, 1, 900, 900)
        run.up(30, 1)
        #expect(run.summary.first == "pan began")
        #expect(run.rawPhases(of: 2) == ["began", "ended"])
    }

    @Test("a device removed mid-pan cancels it; one removed mid-tap fails the tap quietly")
    func deviceRemoved() {
        var pan = GestureHarness(.pan)
        pan.down(0, 0, 500, 500)
        pan.move(10, 0, 600, 500)
        pan.removeDevice(20)
        #expect(pan.summary == ["pan began", "pan cancelled"])
        var tap = GestureHarness(.tap, recordsFailures: true)
        tap.down(0, 0, 500, 500)
        tap.removeDevice(20)
        #expect(tap.summary == ["tap failed"])
    }

    @Test("shutdown and a reload that removes the view cancel an active gesture")
    func trackerCancellations() {
        var run = GestureHarness(.longPress)
        run.down(0, 0, 500, 500)
        run.advance(500)
        run.take(
            run.tracker.cancelAll(reason: .shutdown, timestampMicros: GestureHarness.micros(600)),
            GestureHarness.micros(600))
        #expect(run.summary == ["longPress began", "longPress cancelled"])
        #expect(run.stage.viewsWithState == 0)

        var reload = GestureHarness(.pan)
        reload.down(0, 0, 500, 500)
        reload.move(10, 0, 600, 500)
        let empty = Layout(screens: [
            Screen(
                name: "main", width: 2000, height: 2000,
                root: View(id: "main", frame: Rect(x: 0, y: 0, width: 2000, height: 2000)))
        ])
        reload.take(
            reload.tracker.replaceLayout(empty, timestampMicros: GestureHarness.micros(20)), GestureHarness.micros(20))
        #expect(reload.summary == ["pan began", "pan cancelled"])
        // The removed view's touches were cancelled, so its recognition state is gone too.
        #expect(reload.stage.viewsWithState == 0)
        #expect(reload.stage.activeViewCount == 0)
    }

    @Test("a reload that changes the view's gestures cancels the active one; the next touches use the new ones")
    func replaceGestures() {
        var run = GestureHarness(.pan)
        run.down(0, 0, 500, 500)
        run.move(10, 0, 600, 500)
        let output = run.stage.replaceGestures(["pad": [GestureSpec(.tap)]], timestampMicros: GestureHarness.micros(15))
        #expect(output.gestures.map(\.state) == [.cancelled])
        run.move(20, 0, 700, 500)
        run.up(30, 0)
        #expect(run.rawPhases(of: 1) == ["began", "cancelled gesture"])
        run.down(100, 0, 500, 500)
        run.up(120, 0)
        #expect(run.summary.last == "tap recognized")
    }

    @Test("after a reload that numbers the views anew, each message still names its own view and screen")
    func reloadRenumbersViews() {
        // "a", "b" sort before "pad": its slot moves from 0 to 2, and its records must follow.
        var run = GestureHarness(.pan)
        run.down(0, 0, 500, 500)
        run.move(10, 0, 600, 500)
        let kept = run.stage.replaceGestures(
            ["a": [GestureSpec(.tap)], "pad": [GestureSpec(.pan)]], timestampMicros: GestureHarness.micros(15))
        #expect(kept.records.isEmpty)
        run.move(20, 0, 700, 500)
        let changed = run.stage.replaceGestures(
            ["a": [GestureSpec(.tap)], "b": [GestureSpec(.tap)], "pad": [GestureSpec(.tap)]],
            timestampMicros: GestureHarness.micros(25))
        #expect(changed.gestures.map { "\($0.viewID) \($0.screen) \($0.state)" } == ["pad main cancelled"])
        run.up(30, 0)
        #expect(run.events.map { "\($0.viewID) \($0.screen) \($0.state)" } == ["pad main began", "pad main changed"])
        #expect(changed.records.map(changed.viewID(of:)) == ["pad"])
    }

    @Test("a recogniser that failed in one sequence takes part in the next, while a double tap still waits")
    func failedRecogniserTakesPartInNextSequence() {
        var double = GestureSpec(.tap)
        double.taps = 2
        var run = GestureHarness([GestureSpec(.pan), GestureSpec(.tap), double])
        run.down(0, 0, 500, 500)
        run.up(50, 0)  // a tap: the pan fails, the single tap waits for the double tap's window
        run.down(100, 0, 500, 500)  // within the window: the view's state is still there
        run.drag(from: 110, 0, by: 200, 0)  // 8 mm at the second step: the pan begins first
        run.up(200, 0)
        #expect(run.summary == ["pan began", "pan changed", "pan changed", "pan changed", "pan ended"])
    }

    @Test("views without gestures pass through untouched, message for message")
    func otherViewsPassThrough() {
        var run = GestureHarness([])
        run.stage = GestureStage(viewGestures: ["elsewhere": [GestureSpec(.pan)]])
        run.down(0, 0, 500, 500)
        run.move(10, 0, 900, 500)
        run.up(20, 0)
        #expect(run.raw == run.trackerRaw)
        #expect(run.events.isEmpty)
    }

    @Test("one timer step past two deadlines of one view fires both, in time order")
    func twoDeadlinesOfOneViewInOneStep() {
        var swipe = GestureSpec(.swipe)
        swipe.maximumDurationMicros = 300_000
        var run = GestureHarness([swipe, GestureSpec(.longPress)], recordsFailures: true)
        run.down(0, 0, 500, 500)
        run.advance(1000)  // the swipe's 300 ms, then the long press's 500 ms
        #expect(run.summary == ["swipe failed", "longPress began"])
    }
}
