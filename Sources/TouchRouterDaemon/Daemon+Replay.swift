/// Replay in the daemon: a recording's frames played on the replay timer (a timerfd) against
/// `ReplayClock`, each routed like a live frame; the end of a replay (`--exit-after-replay`).
import TouchRouterCore
import TouchRouterSystem

extension Daemon {
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
            input.noteLateness(now - due, busyMicros: loop.busyMicros(from: due, to: now))
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
            if input.stampToWritten != nil { input.stampToWritten!.record(monotonicMicros() - frame.timestampMicros) }
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
