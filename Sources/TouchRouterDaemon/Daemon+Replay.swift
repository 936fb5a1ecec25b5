/// Replay in the daemon: a recording's frames played on the replay timer (a timerfd) against
/// `ReplayClock`, each routed like a live frame; the end of a replay (`--exit-after-replay`).
import TouchRouterCore
import TouchRouterSystem

extension Daemon {
    func startReplay() {
        guard var clock = replay, !clock.hasStarted else { return }
        clock.start(atMonotonicMicros: monotonicMicros())
        replay = clock
        logger.info("replay started")
        if clock.isFinished { playDueFrames() } else { armReplayTimer() }
    }

    func armReplayTimer() {
        guard let due = replay?.nextDueMicros else {
            try? timer.disarm()
            return
        }
        do { try timer.arm(atMonotonicMicros: due) } catch { logger.error("replay timer: \(error)") }
    }

    /// Feeds the frames that are due, at most `ReplayClock.framesPerTurn` (one at speed 0), so
    /// clients are served between; the timer, re-armed for a frame already due, fires at once.
    func playDueFrames() {
        guard var clock = replay else { return }
        let now = monotonicMicros()
        if loop.measuresTurns, clock.speed != 0, let due = clock.nextDueMicros, due <= now {
            replayLongestLatenessMicros = max(replayLongestLatenessMicros, now - due)
            replayLongestBusyLatenessMicros = max(replayLongestBusyLatenessMicros, loop.busyMicros(from: due, to: now))
        }
        var played = 0
        while played < ReplayClock.framesPerTurn, var frame = clock.nextDueFrame(atMonotonicMicros: now) {
            played += 1
            replay = clock
            let takenMicros = monotonicMicros()
            if options.replayRestampsFrames { frame.timestampMicros = takenMicros }
            replayTargets.stamp(&frame)
            if calibrationReplayUndo != nil { uncalibrateForSession(&frame) }
            process(.frame(frame), stampMicros: takenMicros)
            if stampToWritten != nil { stampToWritten!.record(monotonicMicros() - frame.timestampMicros) }
            if clock.speed == 0 { break }
        }
        replay = clock
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
