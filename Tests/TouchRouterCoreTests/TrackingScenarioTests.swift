import Testing
import TouchRouterCore

/// Every tracking rule as a table: frames in, each view's message out (notation in
/// Support/TrackingScenarioSupport.swift, layout drawn on `TrackingFixtures`).
enum TrackingScenarios {
    static let all: [TrackingScenario] = [
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
        TrackingScenario(
            name: "tapCount counts taps close in time and place on the same view",
            steps: [
                frame(1_000_000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                frame(1_050_000, up(0), expect: ["multi: #1 ended (10, 10)"]),
                frame(1_300_000, down(0, 520, 20), expect: ["multi: #2 began (20, 20) tap2"]),
                frame(1_350_000, up(0), expect: ["multi: #2 ended (20, 20) tap2"]),
                frame(1_600_000, down(0, 515, 15), expect: ["multi: #3 began (15, 15) tap3"]),
                frame(1_650_000, up(0), expect: ["multi: #3 ended (15, 15) tap3"]),
                // 450 ms after the last tap: too late.
                frame(2_100_000, down(0, 515, 15), expect: ["multi: #4 began (15, 15)"]),
                frame(2_150_000, up(0), expect: ["multi: #4 ended (15, 15)"]),
                // 120 units from the last tap: too far.
                frame(2_200_000, down(0, 600, 100), expect: ["multi: #5 began (100, 100)"]),
            ]),
        TrackingScenario(
            name:
                "tap boundaries: moving exactly tapSlop, starting exactly tapIntervalMicros later and tapSlop away",
            steps: [
                frame(1_000_000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                // Exactly 45 units (tapSlop) from where it began: still a tap.
                frame(1_050_000, move(0, 555, 10), expect: ["multi: #1 moved (55, 10)"]),
                frame(1_100_000, up(0), expect: ["multi: #1 ended (55, 10)"]),
                // Exactly 350 ms (tapIntervalMicros) after that end and exactly 45 units from it: tap2.
                frame(1_450_000, down(0, 555, 55), expect: ["multi: #2 began (55, 55) tap2"]),
                frame(1_500_000, up(0), expect: ["multi: #2 ended (55, 55) tap2"]),
                // One microsecond more than the interval: a new run.
                frame(1_850_001, down(0, 555, 55), expect: ["multi: #3 began (55, 55)"]),
                frame(1_900_000, up(0), expect: ["multi: #3 ended (55, 55)"]),
                // A hair more than the slop away: a new run.
                frame(2_000_000, down(0, 555, 100.000001), expect: ["multi: #4 began (55, 100)"]),
            ]),
        TrackingScenario(
            name: "a drag or a cancel breaks the run of taps",
            steps: [
                frame(1_000_000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                frame(1_050_000, up(0), expect: ["multi: #1 ended (10, 10)"]),
                frame(1_100_000, down(0, 510, 10), expect: ["multi: #2 began (10, 10) tap2"]),
                frame(1_150_000, move(0, 610, 10), expect: ["multi: #2 moved (110, 10) tap2"]),
                frame(1_200_000, move(0, 510, 10), expect: ["multi: #2 moved (10, 10) tap2"]),
                frame(1_250_000, up(0), expect: ["multi: #2 ended (10, 10) tap2"]),
                frame(1_300_000, down(0, 510, 10), expect: ["multi: #3 began (10, 10)"]),
                frame(1_350_000, up(0), expect: ["multi: #3 ended (10, 10)"]),
                frame(1_400_000, down(0, 510, 10), expect: ["multi: #4 began (10, 10) tap2"]),
                frame(1_450_000, cancel(0), expect: ["multi: #4 cancelled/input-cancelled (10, 10) tap2"]),
                frame(1_500_000, down(0, 510, 10), expect: ["multi: #5 began (10, 10)"]),
            ]),
        TrackingScenario(
            name: "taps are counted per hit view, not per receiving view",
            subscribed: ["panel"],
            steps: [
                frame(1_000_000, down(0, 105, 105), expect: ["panel: #1 began (105, 105)"]),
                frame(1_050_000, up(0), expect: ["panel: #1 ended (105, 105)"]),
                frame(1_100_000, down(0, 95, 95), expect: ["panel: #2 began (95, 95)"]),
                frame(1_150_000, up(0), expect: ["panel: #2 ended (95, 95)"]),
                frame(1_200_000, down(0, 96, 96), expect: ["panel: #3 began (96, 96) tap2"]),
            ]),
        TrackingScenario(
            name: "a libinput cancel cancels the touch",
            steps: [
                frame(
                    1000, down(0, 510, 10), down(1, 520, 20),
                    expect: ["multi: #1 began (10, 10), #2 began (20, 20)"]),
                frame(
                    2000, cancel(0),
                    expect: ["multi: #1 cancelled/input-cancelled (10, 10), #2 stationary (20, 20)"]),
            ],
            counters: ["cancelled-input-cancelled": 1]),
        TrackingScenario(
            name: "a device that vanishes without ups has every touch cancelled; other devices go on",
            steps: [
                frame(1000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                frame(1500, down(1, 150, 150), expect: ["button: #2 began (50, 50)"]),
                frame(
                    2000, device: 2, down(0, 520, 20),
                    expect: ["multi: #1 stationary (10, 10), #3 began (20, 20)"]),
                removeDevice(
                    1, at: 3000,
                    expect: [
                        "multi: #1 cancelled/device-removed (10, 10), #3 stationary (20, 20)",
                        "button: #2 cancelled/device-removed (50, 50)",
                    ]),
                frame(4000, up(0), expect: []),
                frame(5000, device: 2, up(0), expect: ["multi: #3 ended (20, 20)"]),
            ],
            counters: ["cancelled-device-removed": 2, "ignored-unknown-slot": 1]),
        TrackingScenario(
            name: "a removed device's dropped contacts free their place under the cap",
            configuration: TrackerConfiguration(maximumSimultaneousTouches: 1),
            steps: [
                // Dropped (it hits nothing) but its finger is down: it holds the one place.
                frame(1000, down(0, -5, -5), expect: []),
                frame(1500, device: 2, down(0, 510, 10), expect: []),
                removeDevice(1, at: 2000, expect: []),
                // The device comes back under a new id; a touch on device 2 is taken.
                frame(3000, device: 2, down(1, 520, 20), expect: ["multi: #1 began (20, 20)"]),
            ],
            counters: ["dropped-hit-nothing": 1, "dropped-over-cap": 1, "touches-began": 1]),
        TrackingScenario(
            name: "a second down on a live slot cancels the old touch and starts a new one",
            steps: [
                frame(1000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                frame(
                    2000, down(0, 150, 150),
                    expect: ["multi: #1 cancelled/slot-reused (10, 10)", "button: #2 began (50, 50)"]),
                frame(3000, up(0), expect: ["button: #2 ended (50, 50)"]),
            ],
            counters: ["cancelled-slot-reused": 1]),
        TrackingScenario(
            name: "an up and a new down on one slot in one frame end one touch and begin the next",
            steps: [
                frame(1000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                frame(
                    2000, up(0), down(0, 810, 310), expect: ["multi: #1 ended (10, 10), #2 began (310, 310)"]),
            ]),
        TrackingScenario(
            name: "a touch that begins and ends in one frame comes as two messages",
            steps: [
                frame(
                    1000, down(0, 510, 10), up(0),
                    expect: ["multi: #1 began (10, 10)", "multi: #1 ended (10, 10)"]),
                frame(
                    2000, down(0, 510, 10), down(1, 150, 150), cancel(0),
                    expect: [
                        "multi: #2 began (10, 10) tap2", "button: #3 began (50, 50)",
                        "multi: #2 cancelled/input-cancelled (10, 10) tap2",
                    ]),
            ]),
        TrackingScenario(
            name: "motion, up and cancel for an unknown slot are ignored and counted",
            steps: [frame(1000, move(3, 10, 10), up(4), cancel(5), expect: [])],
            counters: ["ignored-unknown-slot": 3]),
        TrackingScenario(
            name: "non-finite coordinates are dropped and counted",
            steps: [
                frame(1000, down(0, .nan, 10), expect: []),
                frame(2000, move(0, 510, 10), expect: []),
                frame(3000, up(0), expect: []),
                frame(4000, down(1, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                frame(5000, move(1, .infinity, 10), expect: []),
                frame(6000, move(1, 520, 20), expect: ["multi: #1 moved (20, 20)"]),
            ],
            counters: ["dropped-non-finite": 2, "ignored-unknown-slot": 0]),
        TrackingScenario(
            name: "touches over the cap are ignored and counted",
            configuration: TrackerConfiguration(maximumSimultaneousTouches: 2),
            steps: [
                frame(
                    1000, down(0, 510, 10), down(1, 520, 20), down(2, 530, 30),
                    expect: [
                        "multi: #1 began (10, 10), #2 began (20, 20)"
                    ]),
                frame(2000, move(2, 540, 40), expect: []),
                frame(
                    3000, up(0), down(3, 550, 50),
                    expect: [
                        "multi: #1 ended (10, 10), #2 stationary (20, 20), #3 began (50, 50)"
                    ]),
            ],
            counters: ["dropped-over-cap": 1, "ignored-unknown-slot": 1]),
        TrackingScenario(
            name: "a layout reload keeps touches whose view exists (new coordinates), cancels the others",
            steps: [
                frame(
                    1000, down(0, 150, 150), down(1, 510, 10),
                    expect: [
                        "button: #1 began (50, 50)", "multi: #2 began (10, 10)",
                    ]),
                replaceLayout(
                    TrackingFixtures.reloaded, at: 2000,
                    expect: [
                        "multi: #2 cancelled/view-removed (10, 10)"
                    ]),
                frame(3000, move(0, 160, 160), expect: ["button: #1 moved (-40, -40)"]),
                // New touches use the new layout at once: `multi` is gone, root takes it.
                frame(4000, down(1, 510, 10), expect: ["root: #3 began (510, 10)"]),
                frame(
                    5000, move(1, 511, 11), up(0),
                    expect: [
                        "button: #1 ended (-40, -40)", "root: #3 moved (511, 11)",
                    ]),
            ],
            counters: ["cancelled-view-removed": 1]),
        TrackingScenario(
            name: "a reload that removes the hit view but keeps the receiving ancestor keeps the touch",
            subscribed: ["root"],
            steps: [
                frame(1000, down(0, 510, 10), expect: ["root: #1 began (510, 10)"]),
                // `multi`, the hit view, is gone; `root`, the receiving view, stays.
                replaceLayout(TrackingFixtures.reloaded, at: 2000, expect: []),
                frame(3000, move(0, 520, 20), expect: ["root: #1 moved (520, 20)"]),
                // The same spot now hits root itself, another hit view: taken (root is multipleTouch).
                frame(
                    4000, down(1, 510, 10), expect: ["root: #1 stationary (520, 20), #2 began (510, 10)"]),
                frame(5000, up(0), up(1), expect: ["root: #1 ended (520, 20), #2 ended (510, 10)"]),
            ],
            counters: ["cancelled-view-removed": 0, "touches-ended": 2]),
        TrackingScenario(
            name: "cancelAll cancels every touch with its reason and forgets the slots",
            steps: [
                frame(
                    1000, down(0, 150, 150), down(1, 510, 10),
                    expect: [
                        "button: #1 began (50, 50)", "multi: #2 began (10, 10)",
                    ]),
                cancelAll(
                    .shutdown, at: 2000,
                    expect: [
                        "button: #1 cancelled/shutdown (50, 50)", "multi: #2 cancelled/shutdown (10, 10)",
                    ]),
                frame(3000, up(0), up(1), expect: []),
            ],
            counters: ["cancelled-shutdown": 2, "ignored-unknown-slot": 2]),
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
