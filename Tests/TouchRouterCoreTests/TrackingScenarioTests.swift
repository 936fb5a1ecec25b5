import Testing
import TouchRouterCore

/// Every tracking rule as a table: frames in, each view's message out (notation in
/// Support/TrackingScenarioSupport.swift, layout drawn on `TrackingFixtures`).
enum TrackingScenarios {
    /// Every scenario, in the order they run.
    static let all: [TrackingScenario] = binding + lifecycle

    /// Where a touch goes: its view for life, hit-testing, the responder chain, multipleTouch and
    /// exclusiveTouch, touch ids.
    static let binding: [TrackingScenario] = [
        TrackingScenario(
            name: "a touch stays bound to the view it went down in, even outside it",
            steps: [
                frame(1000, down(0, 150, 150), expect: ["button: #1 began (50, 50)"]),
                frame(2000, move(0, 900, 900), expect: ["button: #1 moved (800, 800)"]),
                frame(3000, up(0), expect: ["button: #1 ended (800, 800)"]),
            ],
            counters: ["touches-began": 1, "touches-ended": 1]),
        TrackingScenario(
            name: "a view's message carries its stationary touches",
            steps: [
                frame(
                    1000, down(0, 510, 10), down(1, 520, 20),
                    expect: ["multi: #1 began (10, 10), #2 began (20, 20)"]),
                frame(2000, move(1, 530, 30), expect: ["multi: #1 stationary (10, 10), #2 moved (30, 30)"]),
                frame(3000, up(0), expect: ["multi: #1 ended (10, 10), #2 stationary (30, 30)"]),
                frame(4000, up(1), expect: ["multi: #2 ended (30, 30)"]),
            ]),
        TrackingScenario(
            name: "one message per changed view per frame, views in began order",
            steps: [
                frame(
                    1000, down(0, 510, 10), down(1, 50, 50),
                    expect: ["multi: #1 began (10, 10)", "panel: #2 began (50, 50)"]),
                frame(
                    2000, move(1, 60, 60), move(0, 520, 20),
                    expect: ["multi: #1 moved (20, 20)", "panel: #2 moved (60, 60)"]),
                frame(3000, move(1, 70, 70), expect: ["panel: #2 moved (70, 70)"]),
            ]),
        TrackingScenario(
            name: "a motion to the same point changes nothing",
            steps: [
                frame(1000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                frame(2000, move(0, 510, 10), expect: []),
            ]),
        TrackingScenario(
            name: "local coordinates go through every transform",
            steps: [
                frame(1000, down(0, 700, 850), expect: ["turned: #1 began (100, 50)"]),
                frame(2000, move(0, 720, 870), expect: ["turned: #1 moved (120, 30)"]),
                frame(3000, up(0), expect: ["turned: #1 ended (120, 30)"]),
            ]),
        TrackingScenario(
            name: "responder chain: an unsubscribed hit view's touch goes to the nearest subscribed ancestor",
            subscribed: ["panel", "root"],
            steps: [
                frame(1000, down(0, 150, 150), expect: ["panel: #1 began (150, 150)"]),
                frame(2000, down(1, 510, 10), expect: ["root: #2 began (510, 10)"]),
                frame(
                    3000, up(0), up(1), expect: ["panel: #1 ended (150, 150)", "root: #2 ended (510, 10)"]),
            ]),
        TrackingScenario(
            name: "a touch nobody subscribed to is dropped, counted, and its slot consumed quietly",
            subscribed: ["multi"],
            steps: [
                frame(1000, down(0, 150, 150), expect: []),
                frame(2000, move(0, 160, 160), expect: []),
                frame(3000, up(0), expect: []),
            ],
            counters: ["dropped-no-subscriber": 1, "ignored-unknown-slot": 0, "touches-began": 0]),
        TrackingScenario(
            name: "subscriptions matter only at touch-down: the target is fixed for the touch's life",
            subscribed: ["multi"],
            steps: [
                frame(1000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                subscribe([]),
                frame(2000, move(0, 520, 20), expect: ["multi: #1 moved (20, 20)"]),
                frame(3000, down(1, 530, 30), expect: []),
                subscribe(["root"]),
                frame(4000, up(0), expect: ["multi: #1 ended (20, 20)"]),
            ],
            counters: ["dropped-no-subscriber": 1]),
        TrackingScenario(
            name: "a touch outside every view is dropped and counted",
            steps: [
                frame(1000, down(0, -5, -5), down(1, 1000, 1000), expect: []),
                frame(2000, up(0), up(1), expect: []),
            ],
            counters: ["dropped-hit-nothing": 2, "ignored-unknown-slot": 0]),
        TrackingScenario(
            name: "a touch-down for a screen the layout lacks is dropped and counted",
            steps: [
                frame(1000, screen: "nowhere", down(0, 10, 10), expect: []),
                frame(2000, screen: "nowhere", up(0), expect: []),
            ],
            counters: ["dropped-unknown-screen": 1, "ignored-unknown-slot": 0]),
        TrackingScenario(
            name: "each screen hit-tests against its own tree",
            steps: [
                frame(
                    1000, device: 2, screen: "side", down(0, 50, 50),
                    expect: ["sideButton: #1 began (50, 50)"]),
                frame(2000, device: 1, down(0, 50, 50), expect: ["panel: #2 began (50, 50)"]),
            ]),
        TrackingScenario(
            name: "multipleTouch=false: the view takes only the first of concurrent touches",
            steps: [
                frame(1000, down(0, 510, 510), expect: ["single: #1 began (10, 10)"]),
                frame(2000, down(1, 520, 520), expect: []),
                frame(3000, move(1, 530, 530), move(0, 600, 600), expect: ["single: #1 moved (100, 100)"]),
                frame(4000, up(1), expect: []),
                frame(5000, up(0), expect: ["single: #1 ended (100, 100)"]),
                frame(6000, down(2, 550, 550), expect: ["single: #2 began (50, 50)"]),
            ],
            counters: ["dropped-multiple-touch": 1, "ignored-unknown-slot": 0]),
        TrackingScenario(
            name: "multipleTouch is the hit view's, even when an ancestor receives the touch",
            subscribed: ["root"],
            steps: [
                frame(1000, down(0, 150, 150), expect: ["root: #1 began (150, 150)"]),
                frame(2000, down(1, 160, 160), expect: []),
                frame(3000, down(2, 50, 50), expect: ["root: #1 stationary (150, 150), #2 began (50, 50)"]),
            ],
            counters: ["dropped-multiple-touch": 1]),
        TrackingScenario(
            name: "multipleTouch counts touches by hit view, not by the view receiving them",
            subscribed: ["root"],
            steps: [
                // `single` and `button` take one touch each; both touches go to root: both taken.
                frame(1000, down(0, 510, 510), expect: ["root: #1 began (510, 510)"]),
                frame(
                    2000, down(1, 150, 150), expect: ["root: #1 stationary (510, 510), #2 began (150, 150)"]),
                frame(3000, up(0), up(1), expect: ["root: #1 ended (510, 510), #2 ended (150, 150)"]),
                subscribe(["button", "root"]),
                frame(1_000_000, down(0, 150, 150), expect: ["button: #3 began (50, 50)"]),
                // A second touch in `button` would go to root now, but button is touched: dropped.
                subscribe(["root"]),
                frame(1_001_000, down(1, 160, 160), expect: []),
            ],
            counters: ["dropped-multiple-touch": 1]),
        TrackingScenario(
            name:
                "exclusiveTouch: a touched exclusive view keeps every other view of its screen from new touches",
            steps: [
                frame(1000, down(0, 200, 700), expect: ["exclusive: #1 began (200, 200)"]),
                frame(2000, down(1, 510, 10), expect: []),
                frame(
                    3000, down(2, 210, 710),
                    expect: ["exclusive: #1 stationary (200, 200), #2 began (210, 210)"]),
                frame(4000, down(3, 50, 550), expect: []),
                frame(
                    5000, device: 2, screen: "side", down(0, 50, 50),
                    expect: ["sideButton: #3 began (50, 50)"]),
                frame(6000, up(0), up(2), expect: ["exclusive: #1 ended (200, 200), #2 ended (210, 210)"]),
                frame(7000, move(1, 520, 20), expect: []),
                frame(8000, down(5, 510, 10), expect: ["multi: #4 began (10, 10)"]),
            ],
            counters: ["dropped-exclusive-touch": 2, "ignored-unknown-slot": 0]),
        TrackingScenario(
            name: "exclusiveTouch: an exclusive view takes no new touch while another view is touched",
            steps: [
                frame(1000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                frame(2000, down(1, 200, 700), expect: []),
                frame(3000, up(0), expect: ["multi: #1 ended (10, 10)"]),
                frame(4000, down(2, 200, 700), expect: ["exclusive: #2 began (200, 200)"]),
            ],
            counters: ["dropped-exclusive-touch": 1]),
        TrackingScenario(
            name: "exclusiveTouch stays on its screen: a touch elsewhere blocks no exclusive view, and back",
            steps: [
                frame(
                    1000, device: 2, screen: "side", down(0, 50, 50),
                    expect: ["sideButton: #1 began (50, 50)"]),
                frame(2000, down(0, 200, 700), expect: ["exclusive: #2 began (200, 200)"]),
                frame(3000, down(1, 510, 10), expect: []),
                frame(
                    4000, device: 2, screen: "side", down(1, 300, 300),
                    expect: ["sideRoot: #3 began (300, 300)"]),
            ],
            counters: ["dropped-exclusive-touch": 1]),
        TrackingScenario(
            name: "touch ids are never reused, slots are",
            steps: [
                frame(1000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                frame(2000, up(0), expect: ["multi: #1 ended (10, 10)"]),
                frame(3000, down(0, 810, 310), expect: ["multi: #2 began (310, 310)"]),
                frame(4000, up(0), expect: ["multi: #2 ended (310, 310)"]),
                frame(5000, device: 2, down(0, 610, 210), expect: ["multi: #3 began (110, 210)"]),
            ]),
    ]
}

@Suite("Tracking scenarios")
struct TrackingScenarioTests {
    @Test(arguments: TrackingScenarios.all)
    func scenario(_ scenario: TrackingScenario) {
        var tracker = TouchTracker(layout: scenario.layout, configuration: scenario.configuration)
        var subscribed = scenario.subscribed
        for (number, step) in scenario.steps.enumerated() {
            if case .setSubscribed(let viewIDs) = step.input {
                subscribed = viewIDs
                continue
            }
            let messages = render(tracker.feed(step.input, subscribed: subscribed))
            #expect(messages == step.expected, "step \(number + 1)")
        }
        let counters = Dictionary(
            uniqueKeysWithValues: tracker.statistics.namedCounters.map { ($0.name, $0.value) })
        for (name, value) in scenario.counters.sorted(by: { $0.key < $1.key }) {
            #expect(counters[name] == value, "counter \(name)")
        }
        #expect(counters.count == TrackerStatistics().namedCounters.count)
    }
}
