import Testing
import TouchRouterCore

extension TrackingScenarios {
    /// A touch's life after touch-down: taps counted, cancels from libinput and vanished devices,
    /// slots reused, bad input and the cap counted, reloads, cancelAll.
    static let lifecycle: [TrackingScenario] = [
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
            name: "a slow drag in steps each within the slop is not a tap: the slop is from where it began",
            steps: [
                frame(1_000_000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                frame(1_050_000, move(0, 540, 10), expect: ["multi: #1 moved (40, 10)"]),
                frame(1_100_000, move(0, 570, 10), expect: ["multi: #1 moved (70, 10)"]),
                frame(1_150_000, up(0), expect: ["multi: #1 ended (70, 10)"]),
                frame(1_200_000, down(0, 570, 10), expect: ["multi: #2 began (70, 10)"]),
            ]),
        TrackingScenario(
            name: "a move then a lift of one contact in one frame is one message: ended where it moved to",
            steps: [
                frame(1_000_000, down(0, 510, 10), expect: ["multi: #1 began (10, 10)"]),
                frame(1_050_000, move(0, 530, 30), up(0), expect: ["multi: #1 ended (30, 30)"]),
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
