import Testing

@testable import TouchRouterCore

/// Arbitration's links (who waits for whom, who excludes whom) are sets of places in the view's
/// list, which holds at most 16.
@Suite("Gesture arbitration: links")
struct GestureLinksTests {
    @Test("a set of places holds each of 0 to 15 and lists them in order")
    func setOfPlaces() {
        var set = RecogniserSet()
        for index in [15, 0, 7, 14] { set.insert(index) }
        #expect(Array(set) == [0, 7, 14, 15])
        #expect((0..<16).filter { set.contains($0) } == [0, 7, 14, 15])
        #expect(Array(RecogniserSet()).isEmpty)
    }

    /// A view may have 16 gestures: arbitration's links hold for the last places of a full list
    /// too (14 inert two-finger rotates first, then the tap and the double tap).
    @Test("a full list of 16: the single tap in place 15 waits for the double tap in place 16")
    func linksAtTheEndOfAFullList() {
        var rotate = GestureSpec(.rotate)
        rotate.exclusive = false
        let specs =
            Array(repeating: rotate, count: GestureDefaults.recognisersPerView - 2)
            + GestureConflictTests.tapAndDoubleTap()
        var single = GestureHarness(specs)
        single.down(0, 0, 500, 500)
        single.up(30, 0)
        #expect(single.summary == [])
        single.advance(330)
        #expect(single.summary == ["tap recognized"])
        #expect(single.events.first?.recogniserIndex == 14)
        var double = GestureHarness(specs)
        double.down(0, 0, 500, 500)
        double.up(30, 0)
        double.down(100, 0, 505, 500)
        double.up(130, 0)
        double.advance(5000)
        #expect(double.summary == ["tap recognized"])
        #expect(double.events.first?.taps == 2 && double.events.first?.recogniserIndex == 15)
    }

    /// A tap waits only for taps with as many fingers: a one-finger tap beside a two-finger double
    /// tap is recognised at its lift.
    @Test("a one-finger tap does not wait for a two-finger double tap")
    func otherFingerCountsDoNotBlock() {
        var double = GestureSpec(.tap)
        double.taps = 2
        double.fingers = 2
        var run = GestureHarness([GestureSpec(.tap), double])
        run.down(0, 0, 500, 500)
        run.up(30, 0)
        #expect(run.summary == ["tap recognized"])
        #expect(run.events.first?.timestampMicros == GestureHarness.micros(30))
    }

    /// The one case where waiting would show: a two-finger double tap that is itself waiting (for a
    /// two-finger triple tap) does not watch touches, so it cannot fail on a one-finger tap. The
    /// one-finger tap that does not wait for it is recognised and fails it as a rival; one that
    /// waited would be stuck until the triple tap failed, which releases the double tap instead.
    @Test("a one-finger tap beats a waiting two-finger double tap")
    func oneFingerTapBeatsAWaitingDoubleTap() {
        var double = GestureSpec(.tap)
        double.taps = 2
        double.fingers = 2
        var triple = double
        triple.taps = 3
        var run = GestureHarness([GestureSpec(.tap), double, triple])
        for start in [0.0, 100] {  // two two-finger taps: the double tap waits for the triple
            run.frame(start, [down(0, 500), down(1, 520)])
            run.frame(start + 30, [ContactEvent(kind: .up, slot: 0), ContactEvent(kind: .up, slot: 1)])
        }
        #expect(run.summary == [])
        run.down(200, 0, 510, 500)
        run.up(230, 0)
        run.advance(5000)
        #expect(run.summary == ["tap recognized"])
        #expect(run.events.first?.recogniserIndex == 0)
        #expect(run.events.first?.timestampMicros == GestureHarness.micros(230))
    }

    private func down(_ slot: Int32, _ x: Double) -> ContactEvent {
        ContactEvent(kind: .down, slot: slot, screenPoint: Point(x, 500))
    }
}
