import Testing
import TouchRouterCore

/// Random layouts and random multi-finger streams, bad input included; invariants after every call.
@Suite("Tracking properties")
struct TrackingPropertyTests {
    @Test(arguments: 0..<60)
    func randomStreamsKeepTheInvariants(seedIndex: Int) {
        let seed = 0x7EAC_0000 + UInt64(seedIndex)
        var run = RandomTrackingRun(seed: seed)
        run.run(steps: 500)
        #expect(run.failures.isEmpty, "seed \(seed): \(run.failures.prefix(5))")
    }

    /// The same on the hit-test engineer's generator: big, deep, edge-heavy screens, touch-downs
    /// mostly right on view edges, corners and margins (where a local point computed differently
    /// from the hit-test would show).
    @Test(arguments: 0..<20)
    func edgeHeavyLayoutsKeepTheInvariants(seedIndex: Int) {
        let seed = 0x5EED_0000 + UInt64(seedIndex)
        var run = RandomTrackingRun(seed: seed, sharedGenerator: true)
        run.run(steps: 300)
        #expect(run.failures.isEmpty, "seed \(seed): \(run.failures.prefix(5))")
    }

    /// The streams reach every rule: over a few seeds, every counter moves.
    @Test func randomStreamsReachEveryRule() {
        var totals: [String: UInt64] = [:]
        for seed in 0..<UInt64(20) {
            var run = RandomTrackingRun(seed: 0x7EAC_0000 + seed)
            run.run(steps: 500)
            for (name, value) in run.tracker.statistics.namedCounters { totals[name, default: 0] += value }
        }
        for (name, value) in totals.sorted(by: { $0.key < $1.key }) {
            #expect(value > 0, "counter \(name) never moved")
        }
    }
}

/// What the test knows about one touch from the tracker's output alone.
private struct ObservedTouch {
    var screen: String
    var viewID: String
    var isLive: Bool
}

private struct RandomTrackingRun {
    let seed: UInt64
    var random: SeededRandom
    var generator: TrackingLayoutGenerator
    /// When set, layouts come from the shared `LayoutGenerator` and touch-downs from its probe points.
    var sharedGenerator: LayoutGenerator?
    var probePoints: [Point] = []
    var layout: Layout
    var tracker: TouchTracker
    var subscribed: Set<String> = []
    var observed: [UInt64: ObservedTouch] = [:]
    var began: UInt64 = 0
    var terminated: UInt64 = 0
    var failures: [String] = []
    var step = 0
    var time: UInt64 = 1_000_000

    init(seed: UInt64, sharedGenerator useShared: Bool = false) {
        self.seed = seed
        random = SeededRandom(seed: seed)
        generator = TrackingLayoutGenerator(seed: seed &* 31)
        if useShared {
            var shared = LayoutGenerator(seed: seed &* 17)
            let screen = shared.screen(viewCount: 150)
            probePoints = shared.points(on: screen, count: 400)
            layout = Layout(screens: [screen])
            sharedGenerator = shared
        } else {
            layout = generator.layout()
        }
        let cap = Int.random(in: 2...12, using: &random)
        tracker = TouchTracker(
            layout: layout, configuration: TrackerConfiguration(maximumSimultaneousTouches: cap))
        resubscribe()
    }

    mutating func fail(_ message: String) {
        failures.append("step \(step): \(message)")
    }

    mutating func resubscribe() {
        subscribed = []
        for screen in layout.screens {
            var stack = [screen.root]
            while let view = stack.popLast() {
                if Int.random(in: 0..<3, using: &random) == 0 { subscribed.insert(view.id) }
                stack.append(contentsOf: view.children)
            }
        }
    }

    mutating func run(steps: Int) {
        for index in 0..<steps {
            step = index
            time += UInt64.random(in: 0...40_000, using: &random)
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 2 {
                let newLayout = Bool.random(using: &random) ? generator.reloaded(layout) : freshLayout()
                let messages = tracker.replaceLayout(newLayout, timestampMicros: time)
                check(messages, layoutAtBegan: layout)
                layout = newLayout
            } else if roll < 4 {
                let device = InputDevice(id: UInt32.random(in: 1...3, using: &random), name: "d")
                check(
                    tracker.process(
                        .deviceRemoved(device, timestampMicros: time), subscribedViews: subscribed),
                    layoutAtBegan: layout)
            } else if roll < 5 {
                check(tracker.cancelAll(reason: .shutdown, timestampMicros: time), layoutAtBegan: layout)
            } else if roll < 8 {
                resubscribe()
            } else {
                let frame = randomFrame()
                check(tracker.process(.frame(frame), subscribedViews: subscribed), layoutAtBegan: layout)
            }
            let live = observed.values.filter(\.isLive).count
            if live != tracker.activeTouchCount {
                fail("\(live) live touches seen, tracker has \(tracker.activeTouchCount)")
            }
        }
        check(tracker.cancelAll(reason: .shutdown, timestampMicros: time + 1), layoutAtBegan: layout)
        if observed.values.contains(where: \.isLive) { fail("a touch never ended") }
        let statistics = tracker.statistics
        if statistics.touchesBegan != began { fail("began counter \(statistics.touchesBegan) != \(began)") }
        if statistics.touchesEnded + statistics.touchesCancelled != terminated {
            fail("terminal counters != \(terminated)")
        }
    }

    mutating func freshLayout() -> Layout {
        guard var shared = sharedGenerator else { return generator.layout() }
        let screen = shared.screen(viewCount: Int.random(in: 50...300, using: &random))
        probePoints = shared.points(on: screen, count: 400)
        sharedGenerator = shared
        return Layout(screens: [screen])
    }

    mutating func randomFrame() -> InputFrame {
        let deviceID = UInt32.random(in: 1...3, using: &random)
        let screenRoll = Int.random(in: 0..<50, using: &random)
        let screen = screenRoll == 0 ? "ghost" : layout.screens[screenRoll % layout.screens.count].name
        var contacts: [ContactEvent] = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let kindRoll = Int.random(in: 0..<100, using: &random)
            let kind: ContactEvent.Kind =
                kindRoll < 30 ? .down : kindRoll < 78 ? .motion : kindRoll < 95 ? .up : .cancel
            var point = Point(
                Double.random(in: -20...820, using: &random), Double.random(in: -20...620, using: &random))
            if !probePoints.isEmpty, Int.random(in: 0..<10, using: &random) < 8 {
                point = probePoints[Int.random(in: 0..<probePoints.count, using: &random)]
            }
            if Int.random(in: 0..<30, using: &random) == 0 {
                point.x = [.nan, .infinity, -.infinity][step % 3]
            }
            // One cancel in five is the field stage's stuck cancel (no extra draw: other streams stay as they were).
            contacts.append(
                ContactEvent(
                    kind: kind, slot: Int32.random(in: 0...5, using: &random), screenPoint: point,
                    cancelReason: kindRoll == 99 ? .stuck : nil))
        }
        return InputFrame(
            device: InputDevice(id: deviceID, name: "d"), screen: screen, timestampMicros: time,
            contacts: contacts)
    }

    mutating func check(_ messages: [ViewTouches], layoutAtBegan layout: Layout) {
        for message in messages {
            var idsInMessage = Set<UInt64>()
            var nonBegan = Set<UInt64>()
            for touch in message.touches {
                if !idsInMessage.insert(touch.id).inserted { fail("touch \(touch.id) twice in one message") }
                if (touch.phase == .cancelled) != (touch.cancelReason != nil) {
                    fail("cancel reason on \(touch.phase)")
                }
                if touch.phase == .began {
                    if observed[touch.id] != nil { fail("id \(touch.id) reused") }
                    began += 1
                    observed[touch.id] = ObservedTouch(
                        screen: message.screen, viewID: message.viewID, isLive: true)
                    checkBegan(touch, message: message, layout: layout)
                    continue
                }
                nonBegan.insert(touch.id)
                guard let seen = observed[touch.id] else {
                    fail("touch \(touch.id) \(touch.phase) before began")
                    continue
                }
                if !seen.isLive { fail("touch \(touch.id) \(touch.phase) after it ended") }
                if seen.viewID != message.viewID || seen.screen != message.screen {
                    fail("touch \(touch.id) went to \(message.viewID), bound to \(seen.viewID)")
                }
            }
            // Completeness: every live touch of the view is in the message (stationary if unchanged).
            let beganHere = idsInMessage.subtracting(nonBegan)
            let liveOfView = Set(
                observed.filter {
                    $0.value.isLive && $0.value.viewID == message.viewID && $0.value.screen == message.screen
                }.keys
            ).subtracting(beganHere)
            if liveOfView != nonBegan {
                fail("message for \(message.viewID) has \(nonBegan), live \(liveOfView)")
            }
            if message.touches.allSatisfy({ $0.phase == .stationary }) { fail("a message with no change") }
            for touch in message.touches where touch.phase.isTerminal {
                observed[touch.id]?.isLive = false
                terminated += 1
            }
        }
    }

    /// The began touch went where an independent plain hit-test and responder-chain walk say.
    mutating func checkBegan(_ touch: RoutedTouch, message: ViewTouches, layout: Layout) {
        guard let screen = layout.screen(named: message.screen),
            let hit = screen.plainHitTest(touch.screenPoint)
        else { return fail("began touch \(touch.id) hits nothing") }
        guard let depth = hit.path.lastIndex(where: { subscribed.contains($0) }) else {
            return fail("began touch \(touch.id) has no subscribed view on its path")
        }
        if hit.path[depth] != message.viewID {
            fail("touch \(touch.id) to \(message.viewID), chain says \(hit.path[depth])")
        }
        var view = screen.root
        var localPoint = view.convertFromParent(touch.screenPoint)
        for childIndex in hit.indexPath.prefix(depth) {
            view = view.children[childIndex]
            localPoint = view.convertFromParent(localPoint)
        }
        if localPoint != touch.localPoint || touch.previousLocalPoint != touch.localPoint {
            fail("touch \(touch.id) began at \(touch.localPoint), expected \(localPoint)")
        }
    }
}
