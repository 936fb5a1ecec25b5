import Testing
import TouchRouterCore

/// A reload that renames a screen keeps the touches whose views survive (view ids are unique in a
/// whole config, so a touch's view is found by id on whichever screen now has it).
@Suite("Tracking: a screen renamed by a reload")
struct TrackingScreenRenameTests {
    let allViews = TrackingFixtures.allViewIDs

    func frame(_ time: UInt64, screen: String, _ contacts: ContactEvent...) -> InputEvent {
        .frame(InputFrame(device: device(1), screen: screen, timestampMicros: time, contacts: contacts))
    }

    /// The fixture layout with its first screen renamed.
    static func renamed(_ layout: Layout, to name: String) -> Layout {
        var screens = layout.screens
        screens[0] = Screen(name: name, width: screens[0].width, height: screens[0].height, root: screens[0].root)
        return Layout(screens: screens)
    }

    @Test("a live touch survives the rename and goes on under the new screen name")
    func touchSurvivesRename() throws {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        let began = tracker.process(frame(1000, screen: "main", down(0, 150, 150)), subscribedViews: allViews)
        let viewID = try #require(began.first?.viewID)
        let cancels = tracker.replaceLayout(Self.renamed(TrackingFixtures.layout, to: "front"), timestampMicros: 1500)
        #expect(cancels.isEmpty, "nothing is cancelled: the view still exists")
        #expect(tracker.activeTouchCount == 1)
        let moved = tracker.process(frame(2000, screen: "front", move(0, 160, 160)), subscribedViews: allViews)
        #expect(moved.map(\.viewID) == [viewID])
        #expect(moved.first?.touches.map(\.phase) == [.moved])
        let ended = tracker.process(frame(3000, screen: "front", up(0)), subscribedViews: allViews)
        #expect(ended.first?.touches.map(\.phase) == [.ended])
    }

    @Test("a touch whose view is gone from every screen is still cancelled as view-removed")
    func goneViewCancelled() throws {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        _ = tracker.process(frame(1000, screen: "main", down(0, 150, 150)), subscribedViews: allViews)
        let bare = Layout(
            screens: [
                Screen(
                    name: "front", width: 100, height: 100,
                    root: View(id: "only", frame: Rect(x: 0, y: 0, width: 100, height: 100)))
            ])
        let cancels = tracker.replaceLayout(bare, timestampMicros: 1500)
        #expect(cancels.flatMap(\.touches).map(\.cancelReason) == [.viewRemoved])
        #expect(tracker.activeTouchCount == 0)
    }
}
