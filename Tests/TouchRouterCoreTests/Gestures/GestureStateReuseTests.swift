import Testing

@testable import TouchRouterCore

/// A view touched again after its state went, another view touched after it, a view after a
/// reload: each recognises exactly as on a new stage.
@Suite("Gesture state reuse")
struct GestureStateReuseTests {
    /// Three 100 × 100 views side by side ("a", "b", "c") at 0.1 mm per unit (the extension below).
    typealias Row = TrackedStage

    static func taps() -> [GestureSpec] {
        var double = GestureSpec(.tap)
        double.taps = 2
        return [GestureSpec(.tap), double]
    }

    /// The same length as `taps()`, other kinds: only the gesture list tells the two apart.
    static let drags = [GestureSpec(.pan), GestureSpec(.longPress)]

    /// View "b"'s events when its state is a new one (the drag `after` µs from the start).
    static func freshDrag(_ viewGestures: [String: [GestureSpec]], after micros: UInt64) -> [GestureEvent] {
        var row = Row(viewGestures)
        row.now += micros
        row.dragB()
        return row.eventsWithoutTouchIDs
    }

    /// The events of `run` on a new stage, `micros` after the start.
    static func fresh(
        _ viewGestures: [String: [GestureSpec]], after micros: UInt64, _ run: (inout Row) -> Void
    ) -> [GestureEvent] {
        var row = Row(viewGestures)
        row.now += micros
        run(&row)
        return row.eventsWithoutTouchIDs
    }

    @Test("a view touched again recognises as on a new stage: a double tap, then a tap")
    func parkedStateReusedBySameView() {
        let gestures = ["a": Self.taps(), "b": Self.drags]
        var row = Row(gestures)
        row.tapA()
        #expect(row.events.map(\.taps) == [1])
        #expect(row.stage.viewsWithState == 0)
        row.events = []
        row.doubleTapA()
        #expect(row.events.map(\.taps) == [2])
        #expect(row.eventsWithoutTouchIDs == Self.fresh(gestures, after: 1_055_000) { $0.doubleTapA() })
        row.events = []
        row.tapA()
        #expect(row.events.map(\.taps) == [1])
        #expect(row.eventsWithoutTouchIDs == Self.fresh(gestures, after: 1_055_000 + 1_213_000) { $0.tapA() })
        // Its drag neighbour parks too, the two states apart.
        row.events = []
        row.dragB()
        #expect(row.eventsWithoutTouchIDs == Self.freshDrag(gestures, after: 1_055_000 + 1_213_000 + 1_055_000))
    }

    @Test("a view idle at a reload recognises its new gestures as on a new stage")
    func reloadWithParkedStates() {
        var row = Row(["a": Self.taps(), "b": Self.drags])
        row.tapA()
        // "a" gets the drags (a list of the same length), "b" and "c" the taps.
        let reloaded = ["a": Self.drags, "b": Self.taps(), "c": Self.taps()]
        let output = row.stage.replaceGestures(reloaded, timestampMicros: row.now)
        #expect(output.gestures.isEmpty)
        #expect(row.stage.viewsWithState == 0)
        #expect(row.stage.activeViewCount == 0)
        row.events = []
        row.dragA()
        #expect(row.events.map(\.kind).allSatisfy { $0 == .pan })
        #expect(row.eventsWithoutTouchIDs == Self.fresh(reloaded, after: 1_055_000) { $0.dragA() })
        // A view whose list the reload kept recognises as before (the state refilled again).
        _ = row.stage.replaceGestures(["a": Self.drags, "b": Self.taps()], timestampMicros: row.now)
        row.events = []
        row.dragA()
        #expect(
            row.eventsWithoutTouchIDs
                == Self.fresh(["a": Self.drags, "b": Self.taps()], after: 1_055_000 + 1_045_000) { $0.dragA() })
        // A reload that removes a parked view's gestures: its touches pass through, no state made.
        _ = row.stage.replaceGestures(["b": Self.taps()], timestampMicros: row.now)
        row.events = []
        row.raw = []
        row.dragA()
        #expect(row.events.isEmpty)
        #expect(row.raw.flatMap(\.touches).map(\.phase) == [.began, .moved, .moved, .moved, .moved, .ended])
        #expect(row.stage.viewsWithState == 0)
    }

    @Test("a view touched after another with a list of as many gestures recognises its own")
    func otherListSameLength() {
        let gestures = ["a": Self.taps(), "b": Self.drags]
        var row = Row(gestures)
        row.tapA()
        #expect(row.events.map(\.kind) == [.tap])
        row.events = []
        row.dragB()
        #expect(row.events.map(\.kind).allSatisfy { $0 == .pan })
        #expect(row.eventsWithoutTouchIDs == Self.freshDrag(gestures, after: 1_055_000))
    }

    @Test("a view touched again after its recognisers ended starts as on a new stage")
    func sameListAgain() {
        let gestures = ["a": Self.drags, "b": Self.drags]
        var row = Row(gestures)
        row.now += 1_055_000
        row.dragB()  // b's state goes once its pan ended
        row.events = []
        row.dragB()
        #expect(!row.events.isEmpty)
        #expect(row.eventsWithoutTouchIDs == Self.freshDrag(gestures, after: 1_055_000 + 1_045_000))
    }

    @Test("a stage copied while its single tap waits: each copy goes on alone")
    func copiedStage() {
        var first = GestureHarness(Self.taps())
        first.down(0, 0, 500, 500)
        first.up(50, 0)  // one tap: the single tap waits for the double tap to fail
        var second = first
        first.down(150, 0, 500, 500)
        first.up(200, 0)  // the first copy's double tap
        second.advance(400)  // the second copy's interval passes
        #expect(first.events.map { "\($0.kind.rawValue) \($0.taps ?? 0)" } == ["tap 2"])
        #expect(second.events.map { "\($0.kind.rawValue) \($0.taps ?? 0)" } == ["tap 1"])
        #expect(first.events.map(\.recogniserIndex) == [1])
        #expect(second.events.map(\.recogniserIndex) == [0])
    }

    @Test("a view whose gestures a reload removed while touched holds no state when touched again")
    func removedViewTouchedAgain() {
        var row = Row(["a": Self.taps(), "b": Self.drags])
        row.frame(after: 5, [ContactEvent(kind: .down, slot: 0, screenPoint: Point(150, 50))])
        _ = row.stage.replaceGestures(["a": Self.taps()], timestampMicros: row.now)
        #expect(row.stage.activeViewCount == 1)
        row.frame(after: 8, [ContactEvent(kind: .up, slot: 0)])  // idle: its state goes
        #expect(row.stage.activeViewCount == 0)
        row.frame(after: 100, [ContactEvent(kind: .down, slot: 0, screenPoint: Point(150, 50))])
        #expect(row.stage.activeViewCount == 0)
        #expect(row.stage.viewsWithState == 0)
        row.frame(after: 8, [ContactEvent(kind: .up, slot: 0)])
    }

    @Test("after a reload that moves the lists, a view recognises its own list")
    func reloadRenumbersLists() {
        var row = Row(["a": Self.taps(), "b": Self.drags])
        row.tapA()  // its state goes once the double tap's interval passed
        // Now "b" is the first view, its list the first of the config.
        let reloaded = ["b": Self.drags, "c": Self.taps()]
        _ = row.stage.replaceGestures(reloaded, timestampMicros: row.now)
        row.events = []
        row.dragB()
        #expect(row.eventsWithoutTouchIDs == Self.freshDrag(reloaded, after: 1_055_000))
    }
}

fileprivate extension GestureStateReuseTests.Row {
    init(_ viewGestures: [String: [GestureSpec]]) {
        let views = ["a", "b", "c"].enumerated().map { index, id in
            View(id: id, frame: Rect(x: Double(index) * 100, y: 0, width: 100, height: 100))
        }
        let root = View(id: "root", frame: Rect(x: 0, y: 0, width: 300, height: 100), children: views)
        self.init(root: root, viewGestures: viewGestures, subscribed: ["a", "b", "c"], deviceName: "row panel")
    }

    /// The events without their touch ids (the tracker numbers touches on from the earlier ones).
    var eventsWithoutTouchIDs: [GestureEvent] {
        events.map {
            var event = $0
            event.touchIDs = []
            return event
        }
    }

    /// A tap in view "a", its double tap's interval let pass: its state goes.
    mutating func tapA() {
        frame(after: 5, [ContactEvent(kind: .down, slot: 0, screenPoint: Point(50, 50))])
        frame(after: 50, [ContactEvent(kind: .up, slot: 0)])
        advance(after: 1000)
    }

    /// Two taps in view "a" 100 ms apart, the double tap's interval then let pass (213 ms in all,
    /// and the timer).
    mutating func doubleTapA() {
        frame(after: 5, [ContactEvent(kind: .down, slot: 0, screenPoint: Point(50, 50))])
        frame(after: 50, [ContactEvent(kind: .up, slot: 0)])
        frame(after: 100, [ContactEvent(kind: .down, slot: 0, screenPoint: Point(52, 50))])
        frame(after: 50, [ContactEvent(kind: .up, slot: 0)])
        advance(after: 8)
        advance(after: 1000)
    }

    /// A 20 mm drag right in view "a", then up.
    mutating func dragA() { drag(from: 10) }

    /// A 20 mm drag right in view "b", then up.
    mutating func dragB() { drag(from: 110) }

    /// A 20 mm drag right from (`x`, 50), then up, and the timer a second later.
    private mutating func drag(from x: Double) {
        frame(after: 5, [ContactEvent(kind: .down, slot: 0, screenPoint: Point(x, 50))])
        for step in 1...4 {
            frame(after: 8, [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(x + Double(step) * 20, 20))])
        }
        frame(after: 8, [ContactEvent(kind: .up, slot: 0)])
        advance(after: 1000)
    }
}
