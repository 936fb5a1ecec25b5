/// Plays a recording's `ReplaySchedule` against CLOCK_MONOTONIC, for the daemon's timerfd.
import TouchRouterCore
import TouchRouterInput
import TouchRouterSystem

/// The schedule plus the moment the replay started: frame due at `start + dueOffset`.
struct ReplayClock {
    /// The most frames one loop turn plays (`speed` 0: one). More may be due at once — a recording
    /// of many frames with one timestamp, or a replay that fell behind — and the rest wait for the
    /// next turns (the timer is re-armed in the past, so it fires at once), clients, signals and
    /// requests being served between: 300,000 frames with one timestamp once held the loop 14 s.
    /// A frame's own cost is bounded by its contacts (`MultitouchDecoder.unframedContactLimit`).
    static let framesPerTurn = 16

    private var schedule: ReplaySchedule
    private var upcoming: ReplaySchedule.Entry?
    private var startMonotonicMicros: UInt64?
    /// Frames played so far (all passes), for `status`.
    private(set) var playedFrameCount = 0
    /// The place in the recording (from 1) of the frame `nextDueFrame` gave last; 0 before one.
    private(set) var playedFrameNumber = 0

    /// Frames as the decoder gives them; `speed` 0 = as fast as possible (one frame per loop turn).
    init(frames: [InputFrame], speed: Double, loops: Bool) throws {
        schedule = try ReplaySchedule(frames: frames, speed: speed, loop: loops)
        upcoming = schedule.next()
    }

    var speed: Double { schedule.speed }
    /// No frame is left (never, when looping a non-empty recording).
    var isFinished: Bool { upcoming == nil }
    var hasStarted: Bool { startMonotonicMicros != nil }

    mutating func start(atMonotonicMicros now: UInt64) { startMonotonicMicros = now }

    /// The CLOCK_MONOTONIC time a frame this clock played stands for: when it was due (at speed 0,
    /// the start plus its recorded offset, so timing rules see the recorded spacing however fast
    /// it plays). Nil before the start.
    func monotonicMicros(ofFrameStamped timestampMicros: UInt64) -> UInt64? {
        guard let start = startMonotonicMicros else { return nil }
        let offset =
            timestampMicros >= schedule.startTimestampMicros ? timestampMicros - schedule.startTimestampMicros : 0
        let (stamped, overflowed) = start.addingReportingOverflow(offset)
        return overflowed ? .max : stamped
    }

    /// When the next frame is due on CLOCK_MONOTONIC; nil when finished or not started.
    var nextDueMicros: UInt64? {
        guard let start = startMonotonicMicros, let upcoming else { return nil }
        let (due, overflowed) = start.addingReportingOverflow(upcoming.dueOffsetMicros)
        return overflowed ? .max : due
    }

    /// The next frame if it is due at `now`.
    mutating func nextDueFrame(atMonotonicMicros now: UInt64) -> InputFrame? {
        guard let due = nextDueMicros, due <= now, let entry = upcoming else { return nil }
        upcoming = schedule.next()
        playedFrameCount += 1
        playedFrameNumber = entry.frameNumber
        return entry.frame
    }
}
