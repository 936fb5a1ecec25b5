import Foundation
import TouchRouterCommandLine
import TouchRouterCore

/// Recognition's cost per input frame: the tracker benchmark's 10 fingers, one on each of 10
/// panels, every finger moving in every frame, with every kind of recogniser on every panel (tap,
/// double tap, long press, pan, a non-exclusive swipe, pinch, rotate) against the tracker alone.
/// The fingers circle within 10 units on each axis (at most 3.7 mm at the fallback density) of
/// where they went down: never far enough for a tap or a long press to fail or a pan to begin, so
/// each panel's long press begins at 500 ms and then changes in every frame (10 gesture events and
/// 10 raw touches taken per frame: the busiest state), the others failed by it or, the swipe, by
/// its deadline. Then pairs of frames where all 10 fingers go down and up, 1 s apart (10 single
/// taps, recognised when their double tap's window closes): first with those deadlines firing in
/// the next down frame, then with `advance(to:)` firing them before it, as the daemon's timer
/// does (timed apart).
///
///     touchrouter-bench gestures [MOVING_FRAMES [DOWN_UP_PAIRS]]     (defaults 200000 2000)
let gestureBenchmark = Benchmark(
    spec: CommandSpec(
        name: "gestures",
        abstract: "tracker + gesture recognition per frame vs the tracker alone, 10 touches; [FRAMES [PAIRS]]",
        arguments: [
            ArgumentSpec(.frames, help: "Frames with every finger moving (default 200000).", isOptional: true),
            ArgumentSpec(.pairs, help: "Frames where all fingers go down, then up (default 2000).", isOptional: true),
        ]),
    run: { arguments in
        runGestureBenchmark(
            frameCount: arguments.argument(.frames).flatMap(Int.init) ?? 200_000,
            tapCount: arguments.argument(.pairs).flatMap(Int.init) ?? 2_000)
    })

func runGestureBenchmark(frameCount: Int, tapCount: Int) {
    let layout = TrackerBenchmark.kioskLayout()
    var subscribed = Set<String>()
    var viewGestures: [String: [GestureSpec]] = [:]
    var double = GestureSpec(.tap)
    double.taps = 2
    var swipe = GestureSpec(.swipe)
    swipe.exclusive = false
    let every = [
        GestureSpec(.tap), double, GestureSpec(.longPress), GestureSpec(.pan), swipe, GestureSpec(.pinch),
        GestureSpec(.rotate),
    ]
    for row in 0..<4 {
        for column in 0..<4 {
            subscribed.insert("panel-\(row)-\(column)")
            viewGestures["panel-\(row)-\(column)"] = every
        }
    }
    let device = InputDevice(id: 1, name: "bench touchscreen")
    let fingers = (0..<10).map { finger -> Point in
        let panel = TrackerBenchmark.panelOrigin(finger)
        return Point(panel.x + 20 + Double(finger % 4) * 50, panel.y + 20)
    }
    let cycle = 1024
    let moveFrames: [InputFrame] = (0..<cycle).map { step in
        let angle = Double(step) * 2 * .pi / Double(cycle)
        let contacts = fingers.enumerated().map { finger, point in
            ContactEvent(
                kind: .motion, slot: Int32(finger),
                screenPoint: Point(point.x + 10 * cos(angle + Double(finger)), point.y + 10 * sin(angle)))
        }
        return InputFrame(device: device, screen: "kiosk", timestampMicros: 0, contacts: contacts)
    }
    let downFrame = InputFrame(
        device: device, screen: "kiosk", timestampMicros: 0,
        contacts: fingers.enumerated().map { ContactEvent(kind: .down, slot: Int32($0), screenPoint: $1) })
    let upFrame = InputFrame(
        device: device, screen: "kiosk", timestampMicros: 0,
        contacts: (0..<10).map { ContactEvent(kind: .up, slot: Int32($0)) })

    /// One run's timings (ns per frame) and a checksum, with recognition or without.
    struct Run {
        var moving: [UInt64] = []
        var downs: [UInt64] = []
        var ups: [UInt64] = []
        /// The same pairs again, the taps' deadlines fired first by `advance(to:)` as the
        /// daemon's housekeeping timer does (timed apart in `timer`), so the down frame does
        /// only its own work.
        var timedDowns: [UInt64] = []
        var timedUps: [UInt64] = []
        var timer: [UInt64] = []
        var events = 0
    }

    /// One run, with recognition or without.
    func measure(recognising: Bool) -> Run {
        var tracker = TouchTracker(layout: layout)
        var stage = GestureStage(viewGestures: recognising ? viewGestures : [:])
        var now: UInt64 = 1_000_000
        var events = 0
        func step(_ template: InputFrame) -> UInt64 {
            var frame = template
            now += 8_000
            frame.timestampMicros = now
            let start = monotonicNanoseconds()
            if recognising {
                let messages = trackBeforeRecognition(&tracker, frame, subscribed)
                let output = stage.process(messages, scale: frame.physicalScale, timestampMicros: now)
                events &+= output.records.count &+ output.touches.count
                releaseRecognitionOutput(consume messages, consume output)
            } else {
                let messages = trackAlone(&tracker, frame, subscribed, counting: &events)
                releaseTrackerMessages(consume messages)
            }
            return monotonicNanoseconds() - start
        }
        var run = Run()
        run.moving.reserveCapacity(frameCount)
        _ = step(downFrame)
        for index in 0..<frameCount { run.moving.append(step(moveFrames[index % cycle])) }
        _ = step(upFrame)
        for _ in 0..<max(1, tapCount) {
            // Far enough apart that every tap is its own (no double taps pile up).
            now += 1_000_000
            run.downs.append(step(downFrame))
            run.ups.append(step(upFrame))
        }
        for _ in 0..<max(1, tapCount) {
            now += 1_000_000
            let start = monotonicNanoseconds()
            if recognising {
                events &+= stage.advance(to: now - 4_000).records.count
            }
            run.timer.append(monotonicNanoseconds() - start)
            run.timedDowns.append(step(downFrame))
            run.timedUps.append(step(upFrame))
        }
        run.events = events
        return run
    }

    let overhead = timerOverheadNanoseconds()
    let plain = measure(recognising: false)
    let recognised = measure(recognising: true)
    print(
        "gestures: \(layout.viewCount) views, 10 fingers on 10 views with 7 recognisers each, \(frameCount) frames"
            + " (checksums \(plain.events), \(recognised.events))")
    for (label, without, with) in [
        ("frame, 10 touches moving", plain.moving, recognised.moving),
        ("frame, 10 touches down (the taps' deadlines fire in it)", plain.downs, recognised.downs),
        ("frame, 10 touches up", plain.ups, recognised.ups),
        ("frame, 10 touches down (deadlines fired by the timer first)", plain.timedDowns, recognised.timedDowns),
        ("frame, 10 touches up (after those)", plain.timedUps, recognised.timedUps),
    ] {
        print(TrackerBenchmark.summary("\(label), tracker alone", without, timerOverhead: overhead))
        print(TrackerBenchmark.summary("\(label), with recognisers", with, timerOverhead: overhead))
        func median(_ nanos: [UInt64]) -> Double { percentile(nanos.map { max(0, Double($0) - overhead) }, 0.5) }
        let ratio = median(with) / max(1, median(without))
        print("\(label): median ratio \(String(format: "%.2f", ratio))×")
    }
    print(
        TrackerBenchmark.summary(
            "the timer's advance(to:) before each down (10 taps recognised)", recognised.timer,
            timerOverhead: overhead))
}

/// Drops a frame's tracker messages (their last reference): the end of a frame without
/// recognition. Freeing them is part of what a frame costs; with recognition the stage holds them
/// until its next `process` frees them there, so both sides of the comparison count it. Its own
/// function, left unoptimised (so that the release stays in it), for callgrind to count apart.
@inline(never) @_optimize(none)
func releaseTrackerMessages(_ messages: consuming [ViewTouches]) {
    _ = consume messages
}

/// Drops the caller's references to a frame's tracker messages and to the stage's output: the
/// end of a frame with recognition. The
/// counterpart of `releaseTrackerMessages`, counted the same way.
@inline(never) @_optimize(none)
func releaseRecognitionOutput(_ messages: consuming [ViewTouches], _ output: consuming GestureOutput) {
    _ = consume messages
    _ = consume output
}

/// The tracker's frame in the run without recognition (its messages counted into the checksum),
/// and below in the run with it: the same call, in two functions (not identical, or the linker
/// folds them into one) so that callgrind counts each run's tracker apart.
@inline(never)
func trackAlone(
    _ tracker: inout TouchTracker, _ frame: InputFrame, _ subscribed: Set<String>, counting events: inout Int
) -> [ViewTouches] {
    let messages = tracker.process(.frame(frame), subscribedViews: subscribed)
    events &+= messages.count
    return messages
}

/// See `trackAlone`.
@inline(never)
func trackBeforeRecognition(_ tracker: inout TouchTracker, _ frame: InputFrame, _ subscribed: Set<String>)
    -> [ViewTouches]
{
    tracker.process(.frame(frame), subscribedViews: subscribed)
}
