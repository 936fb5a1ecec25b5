import Foundation
import TouchRouterCommandLine
import TouchRouterCore

/// The tracker's cost per input frame with 10 fingers down, each on its own button of a kiosk-sized
/// layout, every finger moving in every frame (the busiest steady state: 10 moved touches, grouped
/// into per-view messages). Prints median, p99 and p99.9 per frame, and the same for frames where
/// all 10 fingers go down (hit-test and binding included) and up.
///
///     touchrouter-bench tracker [MOVING_FRAMES [DOWN_UP_PAIRS]]     (defaults 200000 2000)
///
/// Then the same moving frames through the whole `Router`, with the panels subscribed and no
/// passthrough, and with the root passing every touch through (nobody subscribed).
///
/// Run it under `valgrind` with two frame counts and the same pair count to count allocations per
/// moving frame (see docs/tracking.md).
let trackerBenchmark = Benchmark(
    spec: CommandSpec(
        name: "tracker",
        abstract: "tracker cost per frame, 10 concurrent touches (moving, down, up); [FRAMES [PAIRS]]",
        arguments: [
            ArgumentSpec(.frames, help: "Frames with every finger moving (default 200000).", isOptional: true),
            ArgumentSpec(.pairs, help: "Frames where all fingers go down, then up (default 2000).", isOptional: true),
        ]),
    run: { arguments in
        runTrackerBenchmark(
            frameCount: arguments.argument(.frames).flatMap(Int.init) ?? 200_000,
            tapCount: arguments.argument(.pairs).flatMap(Int.init) ?? 2_000)
    })

func runTrackerBenchmark(frameCount: Int, tapCount: Int) {
    let layout = TrackerBenchmark.kioskLayout()
    var subscribed = Set<String>()
    for row in 0..<4 {
        for column in 0..<4 { subscribed.insert("panel-\(row)-\(column)") }
    }
    let device = InputDevice(id: 1, name: "bench touchscreen")
    // Finger n rests on button (n % 4) of panel n: every finger in a different view.
    let fingers = (0..<10).map { finger -> Point in
        let panel = TrackerBenchmark.panelOrigin(finger)
        return Point(panel.x + 20 + Double(finger % 4) * 50, panel.y + 20)
    }
    // A cycle of moving frames, built once so the loop measures the tracker only.
    let cycle = 1024
    let moveFrames: [InputEvent] = (0..<cycle).map { step in
        let angle = Double(step) * 2 * .pi / Double(cycle)
        let contacts = fingers.enumerated().map { finger, point in
            ContactEvent(
                kind: .motion, slot: Int32(finger),
                screenPoint: Point(point.x + 10 * cos(angle + Double(finger)), point.y + 10 * sin(angle)))
        }
        return .frame(InputFrame(device: device, screen: "kiosk", timestampMicros: 0, contacts: contacts))
    }
    let downFrame = InputEvent.frame(
        InputFrame(
            device: device, screen: "kiosk", timestampMicros: 0,
            contacts: fingers.enumerated().map { ContactEvent(kind: .down, slot: Int32($0), screenPoint: $1) }))
    let upFrame = InputEvent.frame(
        InputFrame(
            device: device, screen: "kiosk", timestampMicros: 0,
            contacts: (0..<10).map { ContactEvent(kind: .up, slot: Int32($0)) }))

    var tracker = TouchTracker(layout: layout)
    var checksum = 0
    var moveNanos: [UInt64] = []
    moveNanos.reserveCapacity(frameCount)
    var downNanos: [UInt64] = [], upNanos: [UInt64] = []
    // Sized up front, so that under valgrind every allocation left in the loops is the tracker's.
    downNanos.reserveCapacity(max(1, tapCount))
    upNanos.reserveCapacity(max(1, tapCount))
    _ = tracker.process(downFrame, subscribedViews: subscribed)
    for index in 0..<frameCount {
        let event = moveFrames[index % cycle]
        let start = monotonicNanoseconds()
        let messages = tracker.process(event, subscribedViews: subscribed)
        let end = monotonicNanoseconds()
        checksum &+= messages.count
        moveNanos.append(end - start)
    }
    _ = tracker.process(upFrame, subscribedViews: subscribed)
    for _ in 0..<max(1, tapCount) {
        var start = monotonicNanoseconds()
        checksum &+= tracker.process(downFrame, subscribedViews: subscribed).count
        var end = monotonicNanoseconds()
        downNanos.append(end - start)
        start = monotonicNanoseconds()
        checksum &+= tracker.process(upFrame, subscribedViews: subscribed).count
        end = monotonicNanoseconds()
        upNanos.append(end - start)
    }
    print(
        "tracker: \(layout.viewCount) views, 10 fingers on 10 views, \(frameCount) frames"
            + " (checksum \(checksum))")
    let overhead = timerOverheadNanoseconds()
    print(TrackerBenchmark.summary("frame, 10 touches moving", moveNanos, timerOverhead: overhead))
    print(
        TrackerBenchmark.summary(
            "frame, 10 touches down (hit-test, bind)", downNanos, timerOverhead: overhead))
    print(TrackerBenchmark.summary("frame, 10 touches up", upNanos, timerOverhead: overhead))
    let statistics = tracker.statistics
    print("tracker statistics: began \(statistics.touchesBegan), ended \(statistics.touchesEnded)")

    // The same moving frames through the whole Router: the panels subscribed and no passthrough,
    // then nobody subscribed and the root passing every touch through (docs/passthrough.md).
    func timeMoves(_ router: inout Router) -> [UInt64] {
        var nanos: [UInt64] = []
        nanos.reserveCapacity(frameCount)
        _ = router.route(downFrame, nowMicros: 0)
        for index in 0..<frameCount {
            let event = moveFrames[index % cycle]
            let start = monotonicNanoseconds()
            let routed = router.route(event, nowMicros: 0)
            let end = monotonicNanoseconds()
            checksum &+= routed.count
            nanos.append(end - start)
        }
        _ = router.route(upFrame, nowMicros: 0)
        return nanos
    }
    var config = Config(layout: layout, screenInputs: [])
    var subscribedRouter = Router(config: config, nowMicros: 0)
    var table = subscribedRouter.subscriptions
    _ = table.subscribe(1, to: subscribed.sorted(), subtree: false)
    subscribedRouter.replaceSubscriptions(table)
    let plain = timeMoves(&subscribedRouter)
    config.viewPassthrough = ["kiosk-root": .touch]
    var passingRouter = Router(config: config, nowMicros: 0)
    let passing = timeMoves(&passingRouter)
    print(TrackerBenchmark.summary("router frame, 10 touches moving, no passthrough", plain, timerOverhead: overhead))
    print(
        TrackerBenchmark.summary(
            "router frame, 10 touches moving, all passed through", passing, timerOverhead: overhead))
    let passed = passingRouter.passthroughStatistics.first?.statistics.touchesPassed ?? 0
    print("router: \(passed) touches passed through (checksum \(checksum))")
}

enum TrackerBenchmark {
    /// 4 × 4 panels of 240 × 180 on a 1000 × 760 screen, each with 4 buttons holding a label and an
    /// icon (every third panel turned 5°): 209 views, 4 deep.
    static func kioskLayout() -> Layout {
        var panels: [View] = []
        for row in 0..<4 {
            for column in 0..<4 {
                let number = row * 4 + column
                let buttons = (0..<4).map { index in
                    View(
                        id: "button-\(row)-\(column)-\(index)",
                        frame: Rect(x: 10 + Double(index) * 50, y: 10, width: 45, height: 120),
                        children: [
                            View(
                                id: "label-\(row)-\(column)-\(index)",
                                frame: Rect(x: 0, y: 80, width: 45, height: 40), interactive: false),
                            View(
                                id: "icon-\(row)-\(column)-\(index)",
                                frame: Rect(x: 5, y: 5, width: 35, height: 35)),
                        ])
                }
                let origin = panelOrigin(number)
                panels.append(
                    View(
                        id: "panel-\(row)-\(column)",
                        frame: Rect(x: origin.x, y: origin.y, width: 240, height: 180),
                        children: buttons,
                        transform: number % 3 == 0 ? ViewTransform(rotationDegrees: 5) : ViewTransform(),
                        multipleTouch: true))
            }
        }
        let root = View(id: "kiosk-root", frame: Rect(x: 0, y: 0, width: 1000, height: 760), children: panels)
        return Layout(screens: [Screen(name: "kiosk", width: 1000, height: 760, root: root)])
    }

    static func panelOrigin(_ number: Int) -> Point {
        Point(Double(number % 4) * 250, Double(number / 4) * 190)
    }

    /// Median, p99 and p99.9 of single-frame timings, the timer pair's own cost subtracted.
    static func summary(_ label: String, _ nanos: [UInt64], timerOverhead: Double) -> String {
        let samples = nanos.map { max(0, Double($0) - timerOverhead) }
        let figures = [0.5, 0.99, 0.999].map { formatNanoseconds(percentile(samples, $0)) }
        return "\(label): median \(figures[0]), p99 \(figures[1]), p99.9 \(figures[2])"
            + " (\(samples.count) frames)"
    }
}
