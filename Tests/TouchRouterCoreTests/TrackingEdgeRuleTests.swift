import Testing
import TouchRouterCore

/// Tracking rules at their edges: a touch ending in the same frame as another begins, screens
/// kept apart, half-finite motions, and reloads that remove a hit view or move a view to another
/// screen. Each was a blind mutant (issue 31) the suite let through.
@Suite("Tracking: rules at their edges")
struct TrackingEdgeRuleTests {
    let all = TrackingFixtures.allViewIDs

    func frame(_ time: UInt64, screen: String = "main", device deviceID: UInt32 = 1, _ contacts: ContactEvent...)
        -> InputEvent
    {
        .frame(InputFrame(device: device(deviceID), screen: screen, timestampMicros: time, contacts: contacts))
    }

    /// exclusiveTouch looks at live touches: one that lifts earlier in the same frame blocks nothing.
    @Test func aTouchEndingEarlierInTheFrameDoesNotBlockByExclusiveTouch() {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        _ = tracker.process(frame(1_000, down(0, 100, 600)), subscribedViews: all)
        let output = render(tracker.process(frame(2_000, up(0), down(1, 600, 100)), subscribedViews: all))
        #expect(output == ["exclusive: #1 ended (100, 100)", "multi: #2 began (100, 100)"], "\(output)")
    }

    /// multipleTouch: false counts the touches on the same view of the same screen only: a finger
    /// on another screen's view at the same place in its tree does not block.
    @Test func multipleTouchIsPerScreen() {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        // panel (main, second in pre-order) and sideButton (side, second in pre-order).
        _ = tracker.process(frame(1_000, down(0, 50, 50)), subscribedViews: all)
        let side = render(
            tracker.process(frame(2_000, screen: "side", device: 2, down(0, 50, 50)), subscribedViews: all))
        #expect(side == ["sideButton: #2 began (50, 50)"], "\(side)")
    }

    /// A motion is taken only when both coordinates are finite.
    @Test(arguments: [(Double.nan, 120.0), (120, .nan), (.infinity, 120), (120, -.infinity)])
    func aMotionWithANonFiniteCoordinateIsDropped(x: Double, y: Double) {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        _ = tracker.process(frame(1_000, down(0, 600, 100)), subscribedViews: all)
        #expect(tracker.process(frame(2_000, move(0, x, y)), subscribedViews: all).isEmpty)
        #expect(tracker.statistics.droppedNonFinite == 1)
        let moved = render(tracker.process(frame(3_000, move(0, 610, 110)), subscribedViews: all))
        #expect(moved == ["multi: #1 moved (110, 110)"])
    }

    /// A touch whose hit view a reload removed, delivered to an ancestor that stays, records no
    /// tap on that ancestor: the next touch there is a first tap.
    @Test func aRemovedHitViewLeavesNoTapOnTheReceivingView() {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        let panelOnly: Set<String> = ["panel"]
        _ = tracker.process(frame(1_000, down(0, 150, 150)), subscribedViews: panelOnly)
        var layout = TrackingFixtures.layout
        layout.screens[0].root.children[0].children = []
        #expect(tracker.replaceLayout(layout, timestampMicros: 2_000).isEmpty)
        _ = tracker.process(frame(3_000, up(0)), subscribedViews: panelOnly)
        let next = tracker.process(frame(50_000, down(0, 150, 150)), subscribedViews: panelOnly)
        #expect(next.first?.viewID == "panel" && next.first?.touches.first?.tapCount == 1)
    }

    /// A reload that moves a view to another screen while the touch's own screen remains ends the
    /// touch (view-removed): a touch never jumps screens because an id did.
    @Test func aViewMovedToAnotherScreenEndsItsTouches() {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        _ = tracker.process(frame(1_000, down(0, 600, 600)), subscribedViews: all)
        var layout = TrackingFixtures.layout
        let single = layout.screens[0].root.children.remove(at: 2)
        #expect(single.id == "single")
        layout.screens[1].root.children.append(single)
        let output = render(tracker.replaceLayout(layout, timestampMicros: 2_000))
        #expect(output == ["single: #1 cancelled/view-removed (100, 100)"], "\(output)")
    }
}
