import Testing
import TouchRouterCore

/// Random multi-finger streams through every kind of recogniser at once: states move only
/// legally, each recogniser ends once per sequence, raw touches stay well formed, and with no
/// recognisers the raw delivery is exactly the tracker's.
@Suite("Gesture properties")
struct GesturePropertyTests {
    static func allKinds() -> [GestureSpec] {
        var double = GestureSpec(.tap)
        double.taps = 2
        var twoFingerTap = GestureSpec(.tap)
        twoFingerTap.fingers = 2
        var loose = GestureSpec(.swipe)
        loose.exclusive = false
        return [
            GestureSpec(.tap), double, twoFingerTap, GestureSpec(.longPress), GestureSpec(.pan), loose,
            GestureSpec(.pinch), GestureSpec(.rotate),
        ]
    }

    @Test(arguments: 0..<40)
    func randomStreamsMoveLegally(seedIndex: Int) {
        let seed = 0x6E57_0000 + UInt64(seedIndex)
        var run = GestureHarness(Self.allKinds(), recordsFailures: true)
        Self.drive(&run, seed: seed, steps: 400)
        let failures = Self.check(run)
        #expect(failures.isEmpty, "seed \(seed): \(failures.prefix(5))")
        // Everything ended: no view holds recognition state any more.
        #expect(run.stage.viewsWithState == 0, "seed \(seed)")
        #expect(run.stage.activeViewCount == 0, "seed \(seed)")
    }

    @Test(arguments: 0..<20)
    func withoutRecognisersRawDeliveryIsTheTrackers(seedIndex: Int) {
        let seed = 0x0FF0_0000 + UInt64(seedIndex)
        var run = GestureHarness([])
        Self.drive(&run, seed: seed, steps: 300)
        #expect(run.raw == run.trackerRaw, "seed \(seed)")
        #expect(run.events.isEmpty)
    }

    @Test func randomStreamsReachEveryKind() {
        var seen: Set<String> = []
        for seed in 0..<UInt64(40) {
            var run = GestureHarness(Self.allKinds())
            Self.drive(&run, seed: 0x6E57_0000 + seed, steps: 400)
            for event in run.events { seen.insert("\(event.kind.rawValue) \(event.state.rawValue)") }
        }
        for expected in [
            "tap recognized", "longPress began", "longPress ended", "pan began", "pan changed", "pan ended",
            "swipe recognized", "pinch began", "rotate began",
        ] {
            #expect(seen.contains(expected), "never saw \(expected); saw \(seen.sorted())")
        }
    }

    static func drive(_ run: inout GestureHarness, seed: UInt64, steps: Int) {
        var random = SeededRandom(seed: seed)
        var now = 0.0
        for _ in 0..<steps {
            now += [1.0, 8, 16, 40, 120, 350, 600][Int(random.next() % 7)]
            let slot = Int32(random.next() % 3)
            switch random.next() % 10 {
            case 0, 1:
                if run.positions[slot] == nil {
                    run.down(now, slot, Double(random.next() % 1800) + 100, Double(random.next() % 1800) + 100)
                } else {
                    run.up(now, slot)
                }
            case 2:
                run.advance(now)
            case 3 where random.next() % 8 == 0:
                run.removeDevice(now)
                run.positions = [:]
            default:
                guard let position = run.positions[slot] else { continue }
                let reach = [3.0, 30, 60, 200][Int(random.next() % 4)]
                let dx = Double(Int(random.next() % 201) - 100) / 100 * reach
                let dy = Double(Int(random.next() % 201) - 100) / 100 * reach
                run.move(now, slot, position.x + dx, position.y + dy)
            }
        }
        // Everything ends: shutdown, then every deadline.
        let end = GestureHarness.micros(now + 1)
        run.take(run.tracker.cancelAll(reason: .shutdown, timestampMicros: end), end)
        run.positions = [:]
        run.advance(now + 10_000)
    }

    /// Every violation found in a run.
    static func check(_ run: GestureHarness) -> [String] {
        var failures: [String] = []
        // Legal state moves, one end per sequence: a recogniser's next end needs a touch to have
        // begun since its last one.
        var active: [Int: Bool] = [:]
        var endedAt: [Int: UInt64] = [:]
        var beganTimes = run.trackerRaw.flatMap(\.touches).filter { $0.phase == .began }.map(\.timestampMicros)
        beganTimes.sort()
        for event in run.events {
            let index = event.recogniserIndex
            let isActive = active[index] ?? false
            switch event.state {
            case .began:
                if isActive { failures.append("\(index) began twice at \(event.timestampMicros)") }
                active[index] = true
            case .changed:
                if !isActive { failures.append("\(index) changed without began") }
            case .ended, .cancelled:
                if !isActive { failures.append("\(index) \(event.state) without began") }
                active[index] = false
            case .recognized, .failed:
                if isActive { failures.append("\(index) \(event.state) while active") }
                if event.state == .recognized && !event.kind.isDiscrete {
                    failures.append("\(index) continuous recognized")
                }
            case .possible:
                failures.append("possible sent")
            }
            if event.state.isTerminal {
                if let last = endedAt[index], !beganTimes.contains(where: { $0 > last && $0 <= event.timestampMicros })
                {
                    failures.append("\(index) ended twice without a new touch (\(last), \(event.timestampMicros))")
                }
                endedAt[index] = event.timestampMicros
            }
        }
        for (index, isActive) in active where isActive { failures.append("\(index) never ended") }
        // Raw: began, then updates, then one end; nothing after a gesture's cancellation.
        var rawState: [UInt64: String] = [:]
        for touch in run.raw.flatMap(\.touches) {
            let state = rawState[touch.id]
            switch touch.phase {
            case .began:
                if state != nil { failures.append("raw \(touch.id) began twice") }
                rawState[touch.id] = "live"
            case .moved, .stationary:
                if state != "live" { failures.append("raw \(touch.id) \(touch.phase) when \(state ?? "unknown")") }
            case .ended, .cancelled:
                if state != "live" { failures.append("raw \(touch.id) \(touch.phase) when \(state ?? "unknown")") }
                rawState[touch.id] = "over"
            }
        }
        for (id, state) in rawState where state == "live" { failures.append("raw \(id) never ended") }
        return failures
    }
}
