/// Replay in the daemon: a recording's frames played on the replay timer (a timerfd) against
/// `ReplayClock`, each routed like a live frame; the end of a replay (`--exit-after-replay`); the
/// benchmark counters of replayed frames.
import TouchRouterCore
import TouchRouterSystem

extension Daemon {
    /// Benchmarks only (`TOUCHROUTERD_MEASURE_LOOP`): how replayed frames fared, for admin `status`,
    /// which reads and resets them. Recorded in `playDueFrames`; untouched unless the loop measures.
    struct BenchmarkCounters {
        /// With `--replay-restamp`: per replayed frame, µs from its stamp until its writes are done.
        /// Nil, and never touched, otherwise.
        var stampToWritten: MicrosHistogram?
        /// With `stampToWritten`: the slowest of those frames, by their place in the recording.
        var slowestFrames: SlowestFrames?
        /// Finite `--speed` only: the longest a replayed frame waited past its due time since the
        /// last `status` (µs): how late the loop got to it.
        private(set) var longestLatenessMicros: UInt64 = 0
        /// With `longestLatenessMicros`: the longest part of a replayed frame's lateness that the loop
        /// spent busy in turns (`EventLoop.busyMicros`), the daemon's own share; the rest of a
        /// lateness is the thread not running.
        private(set) var longestBusyLatenessMicros: UInt64 = 0

        /// A replayed frame played `micros` late, `busyMicros` of it in the loop's own turns.
        mutating func noteLateness(_ micros: UInt64, busyMicros: UInt64) {
            longestLatenessMicros = max(longestLatenessMicros, micros)
            longestBusyLatenessMicros = max(longestBusyLatenessMicros, busyMicros)
        }

        /// The longest lateness and its busy share since the last call, which starts them from 0.
        mutating func takeLongestLateness() -> (micros: UInt64, busyMicros: UInt64) {
            defer { (longestLatenessMicros, longestBusyLatenessMicros) = (0, 0) }
            return (longestLatenessMicros, longestBusyLatenessMicros)
        }
    }

    func startReplay() {
        guard var clock = input.replay, !clock.hasStarted else { return }
        clock.start(atMonotonicMicros: monotonicMicros())
        input.replay = clock
        logger.info("replay started")
        if clock.isFinished { playDueFrames() } else { armReplayTimer() }
    }

    func armReplayTimer() {
        guard let due = input.replay?.nextDueMicros else {
            try? timer.disarm()
            return
        }
        do { try timer.arm(atMonotonicMicros: due) } catch { logger.error("replay timer: \(error)") }
    }

    /// Feeds the frames that are due, at most `ReplayClock.framesPerTurn` (one at speed 0), so
    /// clients are served between; the timer, re-armed for a frame already due, fires at once.
    func playDueFrames() {
        guard var clock = input.replay else { return }
        let now = monotonicMicros()
        if loop.measuresTurns, clock.speed != 0, let due = clock.nextDueMicros, due <= now {
            benchmark.noteLateness(now - due, busyMicros: loop.busyMicros(from: due, to: now))
        }
        var played = 0
        while played < ReplayClock.framesPerTurn, var frame = clock.nextDueFrame(atMonotonicMicros: now) {
            played += 1
            input.replay = clock
            let takenMicros = monotonicMicros()
            if options.replayRestampsFrames { frame.timestampMicros = takenMicros }
            input.replayTargets.stamp(&frame)
            if calibrating.replayUndo != nil { uncalibrateForSession(&frame) }
            process(.frame(frame), stampMicros: takenMicros)
            if benchmark.stampToWritten != nil {
                let micros = monotonicMicros() - frame.timestampMicros
                benchmark.stampToWritten!.record(micros)
                benchmark.slowestFrames?.note(frameNumber: clock.playedFrameNumber, micros: micros)
            }
            if clock.speed == 0 { break }
        }
        input.replay = clock
        if clock.isFinished {
            logger.info("replay finished")
            try? timer.disarm()
            if options.exitsAfterReplay {
                // The last touches' recognition is owed: a single tap waiting for a second one.
                deliver(router.settleGestures())
                beginStop(reason: "replay finished (--exit-after-replay)")
            }
            return
        }
        armReplayTimer()
    }
}
