import Foundation
import TouchRouterCommandLine

#if canImport(Glibc)
    import Glibc
#endif

/// The cost of recognition in the real daemon: one generated recording of 10 fingers, one on each
/// of 10 views that carry every recogniser kind (tap, double tap, long press, pan, a non-exclusive
/// swipe, pinch, rotate), replayed with and without the views' `gestures`, at a panel's rate
/// (100 Hz) and at 1 kHz (the same movements, a frame every ms); one client subscribed to
/// everything, gestures too. Each loop of the recording (1.6 s): the fingers go down and move 2
/// units to and fro each frame for 0.7 s (every long press begins at 0.5 s and changes each
/// frame), lift, go down and drag 1 unit per ms for 0.3 s (every pan begins and changes, every
/// swipe is recognised), lift, then tap twice (every double tap is recognised). The figure compared is the
/// daemon's stamp-to-written p50/p99; under each row, what happens in the frames that set its p99.
enum GestureLatencyRows {
    static let fingers = 10

    static func run(_ base: DaemonLatencyBenchmark.Settings) {
        var template = Array("/tmp/touchrouter-bench-gestures-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { DaemonLatencyBenchmark.fail("mkdtemp failed") }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            try recording(frameMicros: 10_000).write(
                toFile: directory + "/100hz.events", atomically: true, encoding: .utf8)
            try recording(frameMicros: 1_000).write(
                toFile: directory + "/1khz.events", atomically: true, encoding: .utf8)
            try deviceDescription().write(toFile: directory + "/fingers.desc", atomically: true, encoding: .utf8)
            try config(gestures: true).write(toFile: directory + "/on.json5", atomically: true, encoding: .utf8)
            try config(gestures: false).write(toFile: directory + "/off.json5", atomically: true, encoding: .utf8)
        } catch {
            DaemonLatencyBenchmark.fail("cannot write the gesture rows' files: \(error)")
        }
        print(
            "gestures: 10 fingers on 10 views with every recogniser kind (on) or none (off), 1 client"
                + " (touches and gestures), \(base.gestureSeconds) s per row")
        print("rate     gestures  messages   frames/s  daemon CPU/frame  written p50  written p99  cut-off")
        for rate in ["100 Hz", "1 kHz"] {
            let frameMicros = rate == "1 kHz" ? 1_000 : 10_000
            var figures: [Bool: (Int?, Int?)] = [:]
            for on in [false, true] {
                var settings = base
                settings.config = directory + (on ? "/on.json5" : "/off.json5")
                settings.recording = directory + (rate == "1 kHz" ? "/1khz.events" : "/100hz.events")
                settings.replayDevice = directory + "/fingers.desc"
                settings.view = "main"
                settings.receivesGestures = true
                let result = DaemonLatencyBenchmark.measure(
                    clients: 1, speed: 1, seconds: base.gestureSeconds, settings)
                figures[on] = result.stampToWrittenMicros
                print(
                    column(rate, 9) + column(on ? "on" : "off", 10)
                        + column("\(result.messagesReceived)", 11)
                        + column(String(format: "%.0f", result.framesPerSecond), 10)
                        + column(String(format: "%.1f µs", result.daemonCPUMicrosPerFrame), 18)
                        + column(result.stampToWrittenMicros.0.map { "\($0) µs" } ?? "-", 13)
                        + column(result.stampToWrittenMicros.1.map { "\($0) µs" } ?? "-", 13)
                        + column("\(result.cutOff + result.disconnectedClients)", 9))
                if let p99 = result.stampToWrittenMicros.1 {
                    print(
                        "  at or above the p99: " + slowest(result.slowestFrames, from: p99, frameMicros: frameMicros))
                }
            }
            if let off = figures[false], let on = figures[true], let off50 = off.0, let off99 = off.1,
                let on50 = on.0, let on99 = on.1, off50 > 0, off99 > 0
            {
                print(
                    "  \(rate): on/off written p50 "
                        + String(format: "%.2f×, p99 %.2f×", Double(on50) / Double(off50), Double(on99) / Double(off99))
                )
            }
        }
    }

    /// The frames of a row at or above its p99 (of the 64 slowest the daemon kept), by what happens
    /// in them, most frequent first: "second tap lifts ×6, first tap lands ×1".
    static func slowest(_ frames: [(frameNumber: Int, micros: Int)], from p99: Int, frameMicros: Int) -> String {
        var counts: [String: Int] = [:]
        for frame in frames where frame.micros >= p99 {
            counts[frameLabel(frame.frameNumber, frameMicros: frameMicros), default: 0] += 1
        }
        guard !counts.isEmpty else { return "-" }
        return counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) ×\($0.value)" }
            .joined(separator: ", ")
    }

    /// How many frames `milliseconds` of the recording take, a frame every `frameMicros`.
    static func frameCount(_ milliseconds: Int, frameMicros: Int) -> Int {
        Int((Double(milliseconds) * 1000 / Double(frameMicros)).rounded())
    }

    /// What happens in frame `number` (from 1) of one loop of `recording(frameMicros:)`.
    static func frameLabel(_ number: Int, frameMicros: Int) -> String {
        let hold = frameCount(700, frameMicros: frameMicros)  // the landing and the moves
        let drag = frameCount(300, frameMicros: frameMicros)
        let phases: [(last: Int, name: String)] = [
            (1, "held fingers land"), (hold, "held fingers move"), (hold + 1, "held fingers lift"),
            (hold + 2, "dragged fingers land"), (hold + drag + 1, "fingers drag"),
            (hold + drag + 2, "dragged fingers lift"), (hold + drag + 3, "first tap lands"),
            (hold + drag + 4, "first tap lifts"), (hold + drag + 5, "second tap lands"),
            (hold + drag + 6, "second tap lifts"),
        ]
        return phases.first { number <= $0.last }?.name ?? "frame \(number)"
    }

    /// The view each finger lands on, and where.
    static func start(_ finger: Int) -> (x: Int32, y: Int32) { (Int32(64 + 128 * finger), 200) }

    /// A 1280 × 768 screen, 10 views of 128 × 768 side by side, with every kind or none.
    static func config(gestures: Bool) -> String {
        let every =
            #"gestures: ["tap", {type: "tap", taps: 2}, "longPress", "pan", {type: "swipe", exclusive: false}, "#
            + #""pinch", "rotate"]"#
        let views = (0..<fingers).map {
            "{id: \"pad-\($0)\", frame: [\(128 * $0), 0, 128, 768]" + (gestures ? ", " + every : "") + "}"
        }
        return """
            {screens: [{name: "main", width: 1280, height: 768,
              root: {id: "main", children: [\(views.joined(separator: ",\n"))]}}]}
            """
    }

    /// EP0430M09's description (1280 × 768) with 10 slots.
    static func deviceDescription() -> String {
        """
        # EVEMU 1.3
        N: bench 10-finger panel
        I: 0018 0000 0000 0000
        P: 02 00 00 00 00 00 00 00
        B: 00 0b 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 04 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 02 00 00 00 00 00 00 00 00
        B: 03 03 00 00 00 00 80 60 02
        B: 04 00 00 00 00 00 00 00 00
        B: 05 00 00 00 00 00 00 00 00
        B: 11 00 00 00 00 00 00 00 00
        B: 12 00 00 00 00 00 00 00 00
        B: 14 00 00 00 00 00 00 00 00
        B: 15 00 00 00 00 00 00 00 00
        B: 15 00 00 00 00 00 00 00 00
        A: 00 0 1279 0 0 0
        A: 01 0 767 0 0 0
        A: 2f 0 9 0 0 0
        A: 35 0 1279 0 0 0
        A: 36 0 767 0 0 0
        A: 39 0 65535 0 0 0

        """
    }

    /// One loop of the 10 fingers as an evemu `.events` file, a frame every `frameMicros`: the same
    /// gestures at every rate (the phases last as long, the fingers move as fast).
    static func recording(frameMicros: Int) -> String {
        var lines = ["# EVEMU 1.3"]
        var micros = 0
        var trackingID: Int32 = 1
        let framesPerMillisecond = 1000.0 / Double(frameMicros)
        func frames(_ milliseconds: Int) -> Int { frameCount(milliseconds, frameMicros: frameMicros) }
        func event(_ type: Int, _ code: Int, _ value: Int32) {
            lines.append(
                String(format: "E: %d.%06d %04x %04x %d", micros / 1_000_000, micros % 1_000_000, type, code, value))
        }
        func sync() {
            event(0, 0, 0)
            micros += frameMicros
        }
        func down() {
            for finger in 0..<fingers {
                event(3, 0x2f, Int32(finger))
                event(3, 0x39, trackingID)
                trackingID += 1
                event(3, 0x35, start(finger).x)
                event(3, 0x36, start(finger).y)
            }
            event(1, 0x14a, 1)
            sync()
        }
        func move(_ offset: (x: Int32, y: Int32)) {
            for finger in 0..<fingers {
                event(3, 0x2f, Int32(finger))
                event(3, 0x35, start(finger).x + offset.x)
                event(3, 0x36, start(finger).y + offset.y)
            }
            sync()
        }
        func up() {
            for finger in 0..<fingers {
                event(3, 0x2f, Int32(finger))
                event(3, 0x39, -1)
            }
            event(1, 0x14a, 0)
            sync()
        }
        // Held 700 ms, each frame 2 units left or right of where they went down (every frame
        // changes something): every long press begins, then changes.
        down()
        for step in 1..<frames(700) { move((step % 2 == 0 ? 2 : -2, 0)) }
        up()
        // Dragged 1 unit per ms for 300 ms: every pan begins and changes, every swipe recognised.
        down()
        for step in 1..<frames(300) { move((0, Int32((Double(step) / framesPerMillisecond).rounded()))) }
        up()
        // Two taps 50 ms apart: every double tap recognised.
        for _ in 0..<2 {
            micros += 40_000
            down()
            micros += 40_000
            up()
        }
        micros += 400_000  // past the double tap's interval before the loop starts again
        event(0, 0, 0)
        return lines.joined(separator: "\n") + "\n"
    }
}
