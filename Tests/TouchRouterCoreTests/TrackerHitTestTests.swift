import Testing

@testable import TouchRouterCore

/// The daemon answers `hitTest` requests with the tracker's own index: it must agree with the
/// plain recursion, as the touches the tracker binds do.
@Suite("Tracker hit-test requests")
struct TrackerHitTestTests {
    @Test("answers exactly what PlainHitTest answers, on every screen; nil for an unknown screen")
    func agreesWithPlainRecursion() {
        let seed: UInt64 = 0x7EAC_4E11
        var generator = LayoutGenerator(seed: seed)
        let screens = (0..<3).map { index in
            var screen = generator.screen(viewCount: 60 + 40 * index)
            screen.name = "screen\(index)"
            return screen
        }
        let tracker = TouchTracker(layout: Layout(screens: screens))
        for screen in screens {
            for point in generator.points(on: screen, count: 400) {
                #expect(
                    tracker.hitTest(screen: screen.name, point) == screen.plainHitTest(point),
                    "seed \(seed), screen \(screen.name), point \(point)")
            }
        }
        #expect(tracker.hitTest(screen: "no-such-screen", Point(10, 10)) == nil)
    }
}
