/// A long press (UILongPressGestureRecognizer): exactly `fingers` fingers held for `duration`
/// without moving more than `movement`. Continuous: `began` when the duration passes (a
/// deadline), `changed` whenever a finger moves, `ended` when one lifts. It fails if more fingers
/// come, one moves too far, or one lifts before the duration. Payload: `durationMicros` since the
/// first finger went down.
struct LongPressRule: GestureRule {
    let fingers: Int
    let movementMM: Double
    let durationMicros: UInt64
    var followed = Followed()
    var deadlineMicros: UInt64?

    init(_ spec: GestureSpec) {
        fingers = spec.fingers
        movementMM = spec.movementMM
        durationMicros = spec.durationMicros
    }

    mutating func observe(
        _ touches: [GestureTouch], state: GestureState, _ physical: PhysicalScale, now: UInt64
    ) -> RecogniserRequest {
        if state == .possible {
            followed.join(touches, now: now)
            let seen = followed.survey(touches, movementMM: movementMM, physical)
            followed.setCentroid(seen)
            if seen.present > fingers || seen.down < seen.present || seen.moved { return .fail }
            if seen.down == fingers && deadlineMicros == nil { deadlineMicros = now + durationMicros }
            return .none
        }
        // Active: follows the fingers until one lifts.
        let seen = followed.survey(touches, physical)
        followed.setCentroid(seen)
        if seen.down < seen.present { return .end }
        let moved = touches.contains { followed.contains($0.id) && $0.touch.screenPoint != $0.lastScreenPoint }
        return moved ? .change : .none
    }

    /// Held long enough: begins if every finger is still down.
    mutating func deadlinePassed(_ touches: [GestureTouch]) -> RecogniserRequest {
        deadlineMicros = nil
        return followed.downCount(touches) == fingers ? .begin : .fail
    }

    func describe(_ event: inout GestureEvent, now: UInt64) {
        event.durationMicros = now - min(now, followed.startMicros)
    }
}
