import Testing
import TouchRouterCore

/// The fields the scenario notation leaves out: previous location, timestamps, screen point, device,
/// screen, and bit-identical local points.
@Suite("Tracking details")
struct TrackingDetailTests {
    let allViews = TrackingFixtures.allViewIDs

    func frame(_ time: UInt64, _ contacts: ContactEvent..., deviceID: UInt32 = 1) -> InputEvent {
        .frame(
            InputFrame(device: device(deviceID), screen: "main", timestampMicros: time, contacts: contacts))
    }

    @Test func previousLocationIsTheLocationAtTheLastDelivery() {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        let began = tracker.process(frame(1000, down(0, 150, 150)), subscribedViews: allViews)[0].touches[0]
        #expect(began.previousLocalPoint == Point(50, 50))
        let moved = tracker.process(frame(2000, move(0, 160, 170)), subscribedViews: allViews)[0].touches[0]
        #expect(moved.localPoint == Point(60, 70))
        #expect(moved.previousLocalPoint == Point(50, 50))
        // A second touch on the same view: the first is stationary, previous == current.
        _ = tracker.process(frame(2500, down(1, 50, 50)), subscribedViews: allViews)
        let ended = tracker.process(frame(3000, up(0)), subscribedViews: allViews)[0].touches[0]
        #expect(ended.phase == .ended)
        #expect(ended.localPoint == Point(60, 70))
        #expect(ended.previousLocalPoint == Point(60, 70))
    }

    /// Taps are counted on the view a touch hit, not the one it was delivered to: a tap on `panel`
    /// then one beside it on `button` (both delivered to panel, the only subscriber) are two first
    /// taps; a second one on `button` is its double tap.
    @Test func tapsCountOnTheHitViewNotTheReceivingOne() {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        let panelOnly: Set<String> = ["panel"]
        _ = tracker.process(frame(1_000, down(0, 201, 150)), subscribedViews: panelOnly)
        _ = tracker.process(frame(20_000, up(0)), subscribedViews: panelOnly)
        let beside = tracker.process(frame(60_000, down(0, 199, 150)), subscribedViews: panelOnly)
        #expect(beside.first?.viewID == "panel" && beside.first?.touches.first?.tapCount == 1)
        _ = tracker.process(frame(80_000, up(0)), subscribedViews: panelOnly)
        let again = tracker.process(frame(120_000, down(0, 198, 150)), subscribedViews: panelOnly)
        #expect(again.first?.touches.first?.tapCount == 2)
    }

    @Test func stationaryTouchesKeepTheirOwnTimestampAndPoints() {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        _ = tracker.process(frame(1000, down(0, 510, 10)), subscribedViews: allViews)
        _ = tracker.process(frame(2000, down(0, 520, 20), deviceID: 2), subscribedViews: allViews)
        let messages = tracker.process(frame(3000, move(0, 530, 30), deviceID: 2), subscribedViews: allViews)
        #expect(messages.count == 1)
        let message = messages[0]
        #expect(message.viewID == "multi" && message.screen == "main" && message.timestampMicros == 3000)
        let stationary = message.touches[0]
        let moved = message.touches[1]
        #expect(stationary.phase == .stationary && stationary.timestampMicros == 1000)
        #expect(stationary.screenPoint == Point(510, 10) && stationary.previousLocalPoint == Point(10, 10))
        #expect(stationary.device == device(1))
        #expect(moved.phase == .moved && moved.timestampMicros == 3000 && moved.screenPoint == Point(530, 30))
        #expect(moved.previousLocalPoint == Point(20, 20) && moved.device == device(2))
    }

    @Test func previousLocationAfterAReloadIsInTheNewTree() {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        _ = tracker.process(frame(1000, down(0, 150, 150)), subscribedViews: allViews)
        _ = tracker.replaceLayout(TrackingFixtures.reloaded, timestampMicros: 1500)
        let moved = tracker.process(frame(2000, move(0, 160, 160)), subscribedViews: allViews)[0].touches[0]
        #expect(moved.localPoint == Point(-40, -40))
        #expect(moved.previousLocalPoint == Point(-50, -50))
    }

    /// The previous point is where the touch was at its last delivery (a move), not where it
    /// began, converted through the new tree.
    @Test func previousLocationAfterAReloadIsTheLastDeliveredPoint() {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        _ = tracker.process(frame(1000, down(0, 150, 150)), subscribedViews: allViews)
        _ = tracker.process(frame(1200, move(0, 155, 156)), subscribedViews: allViews)
        _ = tracker.replaceLayout(TrackingFixtures.reloaded, timestampMicros: 1500)
        let moved = tracker.process(frame(2000, move(0, 160, 160)), subscribedViews: allViews)[0].touches[0]
        #expect(moved.localPoint == Point(-40, -40))
        #expect(moved.previousLocalPoint == Point(-45, -44))
    }

    /// A touch bound to a transformed view keeps being delivered when a reload makes the view
    /// untouchable (hidden, transparent, not interactive, empty, singular, or under a hidden parent),
    /// and its local points stay `View.convertFromParent`'s, bit for bit: the index keeps the
    /// conversion values of views queries never reach.
    @Test(arguments: ["hidden", "alpha", "interactive", "empty", "singular", "parentHidden"])
    func boundTouchFollowsAViewThatBecameUntouchable(_ change: String) {
        func layout(_ change: String?) -> Layout {
            var knob = View(
                id: "knob", frame: Rect(x: 100, y: 80, width: 60, height: 40),
                transform: ViewTransform(rotationDegrees: 30, scaleX: 1.5, scaleY: 0.75))
            var panel = View(id: "panel", frame: Rect(x: 200, y: 100, width: 400, height: 300))
            switch change {
            case "hidden": knob.hidden = true
            case "alpha": knob.alpha = 0
            case "interactive": knob.interactive = false
            case "empty": knob.frame = Rect(x: 100, y: 80, width: 0, height: 40)
            case "singular": knob.transform = ViewTransform(rotationDegrees: 30, scaleX: 0, scaleY: 0.75)
            case "parentHidden": panel.hidden = true
            default: break
            }
            panel.children = [knob]
            return Layout(screens: [
                Screen(
                    name: "main", width: 1000, height: 1000,
                    root: View(id: "root", frame: Rect(x: 0, y: 0, width: 1000, height: 1000), children: [panel]))
            ])
        }
        let knobOnly: Set<String> = ["knob"]
        var tracker = TouchTracker(layout: layout(nil))
        let began = tracker.process(frame(1000, down(0, 330, 200)), subscribedViews: knobOnly)
        #expect(began.first?.viewID == "knob")
        let reloaded = layout(change)
        _ = tracker.replaceLayout(reloaded, timestampMicros: 1500)
        let moved = tracker.process(frame(2000, move(0, 337.25, 211.5)), subscribedViews: knobOnly)
        #expect(moved.first?.viewID == "knob", "still delivered to the view it is bound to")
        let panel = reloaded.screens[0].root.children[0]
        let expected = panel.children[0].convertFromParent(
            panel.convertFromParent(reloaded.screens[0].root.convertFromParent(Point(337.25, 211.5))))
        let local = moved.first?.touches.first?.localPoint ?? Point(0, 0)
        // Bit for bit (NaN for the singular transform, as View.convertFromParent gives).
        #expect(local.x.bitPattern == expected.x.bitPattern && local.y.bitPattern == expected.y.bitPattern)
    }

    @Test func localPointsAreBitIdenticalToTheHitTest() {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        let screen = TrackingFixtures.layout.screens[0]
        var random = SeededRandom(seed: 42)
        for slot in Int32(0)..<200 {
            let point = Point(
                Double.random(in: 650...750, using: &random), Double.random(in: 750...950, using: &random))
            guard let hit = screen.plainHitTest(point), hit.viewID == "turned" else { continue }
            let messages = tracker.process(
                frame(UInt64(slot) * 1_000_000, down(slot, point.x, point.y)), subscribedViews: allViews)
            #expect(messages.last?.touches.last?.localPoint == hit.localPoint)
            _ = tracker.process(frame(UInt64(slot) * 1_000_000 + 1, up(slot)), subscribedViews: allViews)
        }
    }

    @Test func ignoredInputLeavesNoTouchBehind() {
        var tracker = TouchTracker(
            layout: TrackingFixtures.layout,
            configuration: TrackerConfiguration(maximumSimultaneousTouches: 4))
        for slot in Int32(0)..<100 {
            _ = tracker.process(
                frame(UInt64(slot), down(slot, -1, -1), down(slot + 1000, .nan, 0)), subscribedViews: allViews
            )
        }
        // The dropped contacts never lifted hold the cap until their device goes.
        #expect(render(tracker.process(frame(200, down(5000, 510, 10)), subscribedViews: allViews)) == [])
        #expect(tracker.activeTouchCount == 0 && tracker.statistics.droppedOverCap > 0)
        _ = tracker.process(.deviceRemoved(device(1), timestampMicros: 300), subscribedViews: allViews)
        let messages = tracker.process(frame(400, down(0, 510, 10)), subscribedViews: allViews)
        #expect(render(messages) == ["multi: #1 began (10, 10)"])
    }

    @Test func counterNamesAreUniqueAndStable() {
        let names = TrackerStatistics().namedCounters.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.first == "frames" && names.contains("dropped-exclusive-touch"))
    }
}
