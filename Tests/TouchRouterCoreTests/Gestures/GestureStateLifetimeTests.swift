import Testing

@testable import TouchRouterCore

/// Recognition state lives only while a view has touches or something pending: a kiosk that
/// touches thousands of views over a day holds state for the few touched now, and a view touched
/// again recognises exactly as it did the first time.
@Suite("Gesture state lifetime")
struct GestureStateLifetimeTests {
    /// A 40 × 25 grid of 50 × 50 buttons (1000 views) on a 2000 × 1250 screen at 0.1 mm per unit;
    /// even columns take taps, odd ones pans and long presses (recogniser lists of other lengths,
    /// so a reused state is refilled from a different template). The extension below.
    typealias Grid = TrackedStage

    @Test("every one of 1000 views touched in turn: state for one view at a time, none once it is over")
    func stateGoesBackToZero() {
        var grid = Grid()
        #expect(grid.stage.viewsWithState == 0)
        var expected: [String] = []
        for column in 0..<Grid.columns {
            for row in 0..<Grid.rows {
                grid.use(column, row)
                // A tap waits for its double tap's interval; a pan is over when its finger lifts.
                #expect(grid.stage.viewsWithState == (column % 2 == 0 ? 1 : 0), "\(Grid.id(column, row))")
                grid.advance(after: 400)
                #expect(grid.stage.viewsWithState == 0, "\(Grid.id(column, row))")
                #expect(grid.stage.activeViewCount == 0)
                expected +=
                    column % 2 == 0
                    ? ["tap recognized"] : ["pan began", "pan changed", "pan changed", "pan changed", "pan ended"]
            }
        }
        #expect(grid.events.map { "\($0.kind.rawValue) \($0.state.rawValue)" } == expected)
    }

    @Test("views touched together each hold state; all of it goes, and the views recognise again")
    func severalAtOnce() {
        var grid = Grid()
        // 10 fingers down on 10 tap buttons, then 50 more views' taps pending at once.
        let downs = (0..<10).map {
            ContactEvent(kind: .down, slot: Int32($0), screenPoint: Point(Double($0) * 100 + 25, 25))
        }
        grid.frame(after: 5, downs)
        #expect(grid.stage.viewsWithState == 10)
        grid.frame(after: 8, (0..<10).map { ContactEvent(kind: .up, slot: Int32($0)) })
        #expect(grid.stage.viewsWithState == 10)  // every single tap waits for its double tap
        for row in 1..<6 {
            grid.frame(
                after: 1,
                (0..<10).map {
                    ContactEvent(
                        kind: .down, slot: Int32($0), screenPoint: Point(Double($0) * 100 + 25, Double(row) * 50 + 25))
                })
            grid.frame(after: 1, (0..<10).map { ContactEvent(kind: .up, slot: Int32($0)) })
        }
        #expect(grid.stage.viewsWithState == 60)
        #expect(grid.stage.activeViewCount == 60)
        grid.advance(after: 400)
        #expect(grid.stage.viewsWithState == 0)
        #expect(grid.events.count == 60)
        #expect(grid.events.allSatisfy { $0.kind == .tap && $0.state == .recognized && $0.taps == 1 })
        // Deadlines due together fire in view id order, whatever order the views got state in.
        for row in 0..<6 {
            let ids = grid.events[(row * 10)..<(row * 10 + 10)].map(\.viewID)
            #expect(ids == ids.sorted(), "row \(row): \(ids)")
        }
        // Views touched again recognise as before: a double tap on a tap button, a pan on a pan one.
        grid.events = []
        grid.use(0, 0)
        grid.use(0, 0)
        grid.use(1, 0)
        grid.advance(after: 400)
        #expect(
            grid.events.map { "\($0.kind.rawValue) \($0.state.rawValue)" } == [
                "tap recognized", "pan began", "pan changed", "pan changed", "pan changed", "pan ended",
            ])
        #expect(grid.events.first?.taps == 2)
        #expect(grid.stage.viewsWithState == 0)
    }

    @Test("40 views tapped in four frames of 10 fingers: every tap recognised, state for none after")
    func manyViewsThenNone() {
        var grid = Grid()
        for row in 0..<4 { grid.tapTogether((0..<10).map { (2 * $0, row) }) }
        #expect(grid.stage.viewsWithState == 40)
        grid.advance(after: 400)
        #expect(grid.stage.viewsWithState == 0)
        // A view touched again, and a view never touched: each recognises its tap, then holds nothing.
        grid.use(0, 0)
        grid.use(20, 20)
        #expect(grid.stage.viewsWithState == 2)
        grid.advance(after: 400)
        #expect(grid.stage.viewsWithState == 0)
        #expect(grid.events.count == 42)
        #expect(grid.events.allSatisfy { $0.kind == .tap && $0.state == .recognized && $0.taps == 1 })
    }

    @Test("over the 1000-view grid, state is held only by views touched or waiting, and every tap counts")
    func idleStatesStayBounded() {
        var grid = Grid()
        var mostLive = 0
        var recognised = 0
        func check(_ label: String) {
            mostLive = max(mostLive, grid.stage.viewsWithState)
            #expect(grid.stage.viewsWithState == grid.stage.activeViewCount, "\(label)")
        }
        // Rounds of 1 to 10 fingers on 60 tap buttons taken in a stride (views come back while their
        // single tap still waits, or after it was decided), every 15th round 40 views at once, the
        // timer run after most rounds only.
        var next = 0
        for round in 0..<120 {
            let fingers = round % 15 == 14 ? [10, 10, 10, 10] : [1 + round % 10]
            for count in fingers {
                var views: [(Int, Int)] = []
                for _ in 0..<count {
                    let index = (next * 7) % 60
                    next += 1
                    views.append((2 * (index % 20), index / 20))
                }
                grid.tapTogether(views)
                check("round \(round) lifted")
                recognised += views.count
            }
            if round % 3 != 1 {
                grid.advance(after: 400)
                check("round \(round) timer")
                #expect(grid.stage.viewsWithState == 0)
            }
        }
        grid.advance(after: 400)
        check("end")
        #expect(mostLive >= 40)
        #expect(grid.stage.viewsWithState == 0)
        // Every tap was recognised once: single taps, or double taps where a view came back
        // within its interval (a round without the timer before it).
        let taps = grid.events.filter { $0.kind == .tap && $0.state == .recognized }
        #expect(taps.reduce(0) { $0 + ($1.taps ?? 0) } == recognised)
    }

    @Test("a reload that removes a touched view's gestures keeps its state until it is idle, then drops it")
    func reloadRemovesAView() {
        var grid = Grid()
        grid.frame(after: 5, [ContactEvent(kind: .down, slot: 0, screenPoint: Point(75, 25))])  // button-1-0: a pan
        grid.frame(after: 8, [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(175, 25))])
        #expect(grid.events.map(\.state) == [.began])
        var remaining: [String: [GestureSpec]] = [:]
        for column in 0..<Grid.columns where column != 1 {
            for row in 0..<Grid.rows { remaining[Grid.id(column, row)] = Grid.gestures(column: column) }
        }
        let output = grid.stage.replaceGestures(remaining, timestampMicros: grid.now)
        #expect(output.gestures.map(\.state) == [.cancelled])
        #expect(grid.stage.viewsWithState == 1)
        grid.frame(after: 8, [ContactEvent(kind: .up, slot: 0)])
        #expect(grid.stage.viewsWithState == 0)
        #expect(grid.stage.activeViewCount == 0)
        // The view's later touches pass through as raw touches only.
        grid.events = []
        grid.raw = []
        grid.use(1, 0)
        #expect(grid.events.isEmpty)
        #expect(grid.raw.flatMap(\.touches).map(\.phase) == [.began, .moved, .moved, .moved, .moved, .ended])
        #expect(grid.stage.viewsWithState == 0)
    }

    @Test("a frame's messages processed together give what each gives alone: passed on, taken, dropped, in order")
    func wholeFramesMatchMessageByMessage() {
        var grid = Grid()
        var single = Grid().stage  // the same config, fed one message per call
        var together: [ViewTouches] = []
        var alone: [ViewTouches] = []
        var togetherEvents: [GestureEvent] = []
        var aloneEvents: [GestureEvent] = []
        func run(_ contacts: [ContactEvent]) {
            grid.now += 8_000
            let frame = InputFrame(
                device: grid.device, screen: "main", timestampMicros: grid.now, contacts: contacts,
                physicalScale: grid.scale)
            let batches = grid.tracker.process(.frame(frame), subscribedViews: grid.subscribed)
            let output = grid.stage.process(batches, scale: grid.scale, timestampMicros: grid.now)
            together += output.touches
            togetherEvents += output.gestures
            for message in batches.isEmpty ? [[]] : batches.map({ [$0] }) {
                let one = single.process(message, scale: grid.scale, timestampMicros: grid.now)
                alone += one.touches
                aloneEvents += one.gestures
            }
        }
        // Taps on button-0-0 and button-2-0 (the first barely moving: its messages pass on as they
        // are), pans on button-1-0 and button-3-0 (they begin and take their touches: a
        // cancellation, then nothing), in the same frames.
        let starts = [Point(25, 25), Point(75, 25), Point(125, 25), Point(175, 25)]
        run(starts.enumerated().map { ContactEvent(kind: .down, slot: Int32($0), screenPoint: $1) })
        for step in 1...4 {
            run(
                starts.enumerated().map { slot, start in
                    let dx = slot % 2 == 1 ? Double(step) * 50 : Double(step % 2)
                    return ContactEvent(kind: .motion, slot: Int32(slot), screenPoint: Point(start.x + dx, start.y))
                })
        }
        run((0..<4).map { ContactEvent(kind: .up, slot: Int32($0)) })
        grid.now += 400_000
        run([])
        #expect(together == alone)
        #expect(togetherEvents == aloneEvents)
        #expect(together.flatMap(\.touches).contains { $0.cancelReason == .gesture })
        #expect(togetherEvents.filter { $0.kind == .tap }.map(\.state) == [.recognized, .recognized])
        #expect(togetherEvents.filter { $0.kind == .pan }.map(\.state).first == .began)
    }
}

fileprivate extension GestureStateLifetimeTests.Grid {
    static let columns = 40
    static let rows = 25

    static func id(_ column: Int, _ row: Int) -> String { "button-\(column)-\(row)" }
    static func gestures(column: Int) -> [GestureSpec] {
        var double = GestureSpec(.tap)
        double.taps = 2
        return column % 2 == 0
            ? [GestureSpec(.tap), double] : [GestureSpec(.pan), GestureSpec(.longPress), GestureSpec(.swipe)]
    }

    init() {
        var buttons: [View] = []
        var viewGestures: [String: [GestureSpec]] = [:]
        for column in 0..<Self.columns {
            for row in 0..<Self.rows {
                let id = Self.id(column, row)
                buttons.append(
                    View(id: id, frame: Rect(x: Double(column) * 50, y: Double(row) * 50, width: 50, height: 50)))
                viewGestures[id] = Self.gestures(column: column)
            }
        }
        let root = View(id: "root", frame: Rect(x: 0, y: 0, width: 2000, height: 1250), children: buttons)
        self.init(
            root: root, viewGestures: viewGestures, subscribed: Set(viewGestures.keys), deviceName: "grid panel")
    }

    /// One finger on each of these buttons in one frame, all lifted in the next.
    mutating func tapTogether(_ views: [(Int, Int)]) {
        frame(
            after: 5,
            views.enumerated().map { finger, view in
                ContactEvent(
                    kind: .down, slot: Int32(finger),
                    screenPoint: Point(Double(view.0) * 50 + 25, Double(view.1) * 50 + 25))
            })
        frame(after: 8, views.indices.map { ContactEvent(kind: .up, slot: Int32($0)) })
    }

    /// A tap on an even column's button, a pan (a 20 mm drag) on an odd one's.
    mutating func use(_ column: Int, _ row: Int, slot: Int32 = 0) {
        let centre = Point(Double(column) * 50 + 25, Double(row) * 50 + 25)
        frame(after: 5, [ContactEvent(kind: .down, slot: slot, screenPoint: centre)])
        if column % 2 == 1 {
            for step in 1...4 {
                frame(
                    after: 8,
                    [
                        ContactEvent(
                            kind: .motion, slot: slot, screenPoint: Point(centre.x + Double(step) * 50, centre.y))
                    ])
            }
        }
        frame(after: 8, [ContactEvent(kind: .up, slot: slot)])
    }
}
