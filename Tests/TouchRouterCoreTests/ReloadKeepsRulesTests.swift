import Testing
import TouchRouterCore

/// A touch that survives a reload keeps what its view imposes: `multipleTouch: false` still
/// refuses a second finger on it, an `exclusiveTouch` view still blocks touches elsewhere, and tap
/// counting still sees it. Each case runs with and without a reload between the first touch and the
/// second, and the two must agree.
@Suite("Tracking: a touch that survives a reload keeps its view's rules")
struct ReloadKeepsRulesTests {
    /// The fixture layout with one more view, so the reload really swaps the tree in.
    static let reloaded: Layout = {
        var layout = TrackingFixtures.layout
        layout.screens[0].root.children.insert(
            View(id: "added", frame: Rect(x: 950, y: 950, width: 10, height: 10)), at: 0)
        return layout
    }()

    func frame(_ time: UInt64, _ contacts: ContactEvent...) -> InputEvent {
        .frame(InputFrame(device: device(1), screen: "main", timestampMicros: time, contacts: contacts))
    }

    /// Runs `first`, an optional reload, then `then`; returns what `then` produced, rendered.
    func run(reload: Bool, first: [InputEvent], then: [InputEvent]) -> [String] {
        var tracker = TouchTracker(layout: TrackingFixtures.layout)
        let all = TrackingFixtures.allViewIDs.union(["added"])
        for event in first { _ = tracker.process(event, subscribedViews: all) }
        if reload {
            #expect(tracker.replaceLayout(Self.reloaded, timestampMicros: 5_000).isEmpty, "nothing is cancelled")
        }
        return then.flatMap { render(tracker.process($0, subscribedViews: all)) }
    }

    @Test(arguments: [false, true])
    func multipleTouchFalseStillRefusesASecondFinger(reload: Bool) {
        let output = run(
            reload: reload, first: [frame(1_000, down(0, 600, 600))],
            then: [frame(10_000, down(1, 700, 600)), frame(11_000, move(1, 710, 600)), frame(12_000, up(0))])
        #expect(output == ["single: #1 ended (100, 100)"], "reload: \(reload)")
    }

    @Test(arguments: [false, true])
    func exclusiveTouchStillBlocksOtherViews(reload: Bool) {
        let output = run(
            reload: reload, first: [frame(1_000, down(0, 100, 600))],
            then: [frame(10_000, down(1, 600, 100)), frame(11_000, up(0))])
        #expect(output == ["exclusive: #1 ended (100, 100)"], "reload: \(reload)")
    }

    @Test(arguments: [false, true])
    func aTapThatEndsAfterTheReloadCountsTowardsTheNext(reload: Bool) {
        let output = run(
            reload: reload, first: [frame(1_000, down(0, 150, 150))],
            then: [frame(60_000, up(0)), frame(100_000, down(0, 152, 150)), frame(140_000, up(0))])
        #expect(
            output == [
                "button: #1 ended (50, 50)", "button: #2 began (52, 50) tap2", "button: #2 ended (52, 50) tap2",
            ], "reload: \(reload)")
    }

    @Test(arguments: [false, true])
    func aTapBeforeTheReloadCountsTowardsTheNext(reload: Bool) {
        let output = run(
            reload: reload, first: [frame(1_000, down(0, 150, 150)), frame(2_000, up(0))],
            then: [frame(100_000, down(0, 152, 150)), frame(140_000, up(0))])
        #expect(output == ["button: #2 began (52, 50) tap2", "button: #2 ended (52, 50) tap2"], "reload: \(reload)")
    }
}
