/// When each frame of a recording is due, for replay through the daemon's timerfd.
import TouchRouterCore

/// Plays a decoded recording against CLOCK_MONOTONIC: frame `i` is due at
/// `start + (t_i - t_0) / speed`; speed 0 makes every frame due at once (one per loop turn, so
/// clients are served between frames). Looping shifts each pass's timestamps past the previous
/// pass's end (+1 s), so time only moves forward for the tracker and the clients.
struct ReplayClock {
    let events: [InputEvent]
    let speed: Double
    let loops: Bool
    private var index = 0
    private var passOffsetMicros: UInt64 = 0
    private var startMonotonicMicros: UInt64?
    private let firstMicros: UInt64
    private let durationMicros: UInt64

    init(events: [InputEvent], speed: Double, loops: Bool) {
        self.events = events
        self.speed = speed
        self.loops = loops
        let times = events.map(ReplayClock.timestamp)
        firstMicros = times.first ?? 0
        durationMicros = (times.last ?? 0) - firstMicros
    }

    /// Every frame of every non-final pass has been handed out and no loop follows.
    var isFinished: Bool { index >= events.count && !loops }
    var hasStarted: Bool { startMonotonicMicros != nil }

    mutating func start(atMonotonicMicros now: UInt64) { startMonotonicMicros = now }

    /// When the next frame is due on CLOCK_MONOTONIC, or nil when finished or not started.
    var nextDueMicros: UInt64? {
        guard let start = startMonotonicMicros, !isFinished, !events.isEmpty else { return nil }
        if speed == 0 { return start }
        let offset = index < events.count
            ? passOffsetMicros + ReplayClock.timestamp(events[index]) - firstMicros
            : passOffsetMicros + durationMicros + 1_000_000
        return start + UInt64(Double(offset) / speed)
    }

    /// The next frame, restamped for its pass, if it is due at `now`.
    mutating func nextDueEvent(atMonotonicMicros now: UInt64) -> InputEvent? {
        guard let due = nextDueMicros, due <= now else { return nil }
        if index >= events.count {
            index = 0
            passOffsetMicros += durationMicros + 1_000_000
        }
        defer { index += 1 }
        return ReplayClock.shifted(events[index], by: passOffsetMicros)
    }

    static func timestamp(_ event: InputEvent) -> UInt64 {
        switch event {
        case .frame(let frame): frame.timestampMicros
        case .deviceRemoved(_, let time): time
        }
    }

    static func shifted(_ event: InputEvent, by offset: UInt64) -> InputEvent {
        guard offset > 0 else { return event }
        switch event {
        case .frame(var frame):
            frame.timestampMicros += offset
            return .frame(frame)
        case .deviceRemoved(let device, let time):
            return .deviceRemoved(device, timestampMicros: time + offset)
        }
    }
}
