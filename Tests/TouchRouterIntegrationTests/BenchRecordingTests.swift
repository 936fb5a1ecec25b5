import Testing
import TouchRouterCore
import TouchRouterInput

@testable import touchrouter_bench

/// Under each gesture row, `touchrouter-bench latency` names the frames at or above the row's p99
/// from the phases its recording is generated from (`GestureLatencyRows.frameLabel`). Here the
/// generated recording is decoded and scheduled as the daemon replays it (`Expected.events`), and
/// every frame's name is checked against what its contacts do.
@Suite("touchrouter-bench: the gesture rows' frame names match their recording")
struct BenchRecordingTests {
    /// The phases in the order the recording plays them: the nth landing, lift, and the moves after
    /// the nth landing.
    static let landings = ["held fingers land", "dragged fingers land", "first tap lands", "second tap lands"]
    static let lifts = ["held fingers lift", "dragged fingers lift", "first tap lifts", "second tap lifts"]
    static let moves = ["held fingers move", "fingers drag"]

    @Test(
        "each frame of a loop, at 100 Hz and at 1 kHz, is named for what its ten contacts do",
        arguments: [10_000, 1_000])
    func frameNames(frameMicros: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("fingers.events", GestureLatencyRows.recording(frameMicros: frameMicros))
        try directory.write("fingers.desc", GestureLatencyRows.deviceDescription())
        try directory.write("off.json5", GestureLatencyRows.config(gestures: false))
        let events = try Expected.events(
            recording: directory.file("fingers.events"), config: loadConfig(path: directory.file("off.json5")))
        var landed = 0
        var lifted = 0
        var named = 0
        // Frames are numbered from 1 in the order the replay plays them (ReplaySchedule.Entry.frameNumber).
        for (index, event) in events.enumerated() {
            guard case .frame(let frame) = event else {
                Issue.record("not a frame: \(event)")
                continue
            }
            let number = index + 1
            let kinds = frame.contacts.map(\.kind)
            let name = GestureLatencyRows.frameLabel(number, frameMicros: frameMicros)
            #expect(kinds.count == GestureLatencyRows.fingers, "frame \(number): \(kinds)")
            let expected: String
            switch Set(kinds) {
            case [.down]:
                expected = Self.landings[min(landed, 3)]
                landed += 1
            case [.up]:
                expected = Self.lifts[min(lifted, 3)]
                lifted += 1
            case [.motion]:
                expected = landed == 1 || landed == 2 ? Self.moves[landed - 1] : "a move after landing \(landed)"
            default:
                expected = "contacts \(kinds)"
            }
            #expect(name == expected, "frame \(number) of \(frameMicros) µs")
            named += 1
        }
        // One loop: 0.7 s held, 0.3 s dragged, two taps.
        #expect(landed == 4 && lifted == 4)
        #expect(
            named == 2 + GestureLatencyRows.frameCount(700, frameMicros: frameMicros)
                + GestureLatencyRows.frameCount(300, frameMicros: frameMicros) + 4)
    }
}
