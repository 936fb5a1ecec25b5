/// When each decoded frame of a replay is due, at a chosen speed, once or looped. Pure: the caller owns
/// the clock (the daemon arms a timerfd for `startTime + dueOffsetMicros`).
import TouchRouterCore

/// Yields a recording's frames in order with the offset (from the start of the replay) at which each is
/// due, and the timestamp it should carry.
///
/// - Recorded offset of a frame = its timestamp minus the first frame's; in loop `k` it is shifted by
///   `k × (span + loopGapMicros)`, where span is the last frame's recorded offset, so every loop starts
///   `loopGapMicros` after the previous one ended.
/// - `speed` 1.0 plays the recorded timing, 2.0 twice as fast (due offset = recorded offset / speed);
///   `speed` 0 plays as fast as possible: every due offset is 0.
/// - Timestamps: `startTimestampMicros` + the due offset when `speed` > 0 (the frames carry the time they
///   are played, so timing rules see the gesture at the speed it is shown), + the recorded offset when
///   `speed` is 0 (the recorded spacing survives). They never decrease, and they strictly increase from one
///   loop to the next until they reach `UInt64.max` µs (584,000 years), where they stay.
/// - Frames should end with no contact down (`MultitouchDecoder.decode` cancels leftovers by default), or a
///   loop would begin touches that are still down.
public struct ReplaySchedule: Sequence, IteratorProtocol, Sendable {
    /// One frame to deliver.
    public struct Entry: Hashable, Sendable {
        /// Microseconds after the start of the replay at which the frame is due.
        public var dueOffsetMicros: UInt64
        /// The frame, its timestamp rewritten as described on `ReplaySchedule`.
        public var frame: InputFrame
        /// Which pass over the recording this is (0 for the first).
        public var loopIndex: Int
        /// The frame's place in the recording, from 1, the same in every pass.
        public var frameNumber: Int
    }

    public let frames: [InputFrame]
    public let speed: Double
    public let loop: Bool
    public let loopGapMicros: UInt64
    public let startTimestampMicros: UInt64

    private let firstTimestamp: UInt64
    private let periodMicros: UInt64
    private var index = 0
    private var loopIndex = 0
    /// The largest recorded offset handed out in the current pass.
    private var lastOffsetInPass: UInt64 = 0

    /// A schedule over `frames` (in recorded order). `startTimestampMicros` defaults to the first frame's
    /// timestamp. Throws for a negative or non-finite speed, or a zero gap on a looped replay.
    public init(
        frames: [InputFrame], speed: Double = 1, loop: Bool = false, startTimestampMicros: UInt64? = nil,
        loopGapMicros: UInt64 = 250_000
    ) throws(ReplayScheduleError) {
        guard speed.isFinite, speed >= 0 else { throw .invalidSpeed(speed) }
        guard !loop || loopGapMicros > 0 else { throw .zeroLoopGap }
        self.frames = frames
        self.speed = speed
        self.loop = loop
        self.loopGapMicros = loopGapMicros
        let first = frames.first?.timestampMicros ?? 0
        firstTimestamp = first
        self.startTimestampMicros = startTimestampMicros ?? first
        let last = frames.map(\.timestampMicros).max() ?? first
        periodMicros = saturatingSum(last - first, loopGapMicros)
    }

    /// The next frame and when it is due, or nil when a single pass is over (never, when looping over
    /// at least one frame).
    public mutating func next() -> Entry? {
        guard !frames.isEmpty else { return nil }
        if index == frames.count {
            guard loop else { return nil }
            index = 0
            loopIndex += 1
            lastOffsetInPass = 0
        }
        var frame = frames[index]
        // A frame stamped earlier than the one before it (never from the decoder) takes that one's time.
        let ownOffset = frame.timestampMicros >= firstTimestamp ? frame.timestampMicros - firstTimestamp : 0
        lastOffsetInPass = Swift.max(lastOffsetInPass, ownOffset)
        let (passOffset, overflowed) = UInt64(loopIndex).multipliedReportingOverflow(by: periodMicros)
        let recordedOffset = overflowed ? .max : saturatingSum(lastOffsetInPass, passOffset)
        let dueOffset = speed > 0 ? saturatingMicros(Double(recordedOffset) / speed) : 0
        frame.timestampMicros = saturatingSum(startTimestampMicros, speed > 0 ? dueOffset : recordedOffset)
        index += 1
        return Entry(dueOffsetMicros: dueOffset, frame: frame, loopIndex: loopIndex, frameNumber: index)
    }
}

/// Why a replay schedule could not be made.
public enum ReplayScheduleError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidSpeed(Double)
    case zeroLoopGap

    public var description: String {
        switch self {
        case .invalidSpeed(let speed):
            "replay speed must be 0 (as fast as possible) or positive, not \(speed)"
        case .zeroLoopGap: "a looped replay needs a gap of at least 1 µs between passes"
        }
    }
}

/// `a + b`, or `UInt64.max` where that overflows: a recording spanning ages, looped at speed 0,
/// reaches it after thousands of passes, and then its times stay there instead of trapping.
private func saturatingSum(_ a: UInt64, _ b: UInt64) -> UInt64 {
    let (sum, overflowed) = a.addingReportingOverflow(b)
    return overflowed ? .max : sum
}

/// `value` rounded to whole microseconds, clamped to `UInt64`'s range (a tiny speed must never trap).
private func saturatingMicros(_ value: Double) -> UInt64 {
    let rounded = value.rounded()
    guard rounded < 18_446_744_073_709_549_568.0 else { return .max }  // the largest Double below 2^64
    return rounded > 0 ? UInt64(rounded) : 0
}
