/// A tap (UITapGestureRecognizer): `fingers` fingers down and up without moving more than
/// `movement`, `taps` times, each tap beginning within `interval` of the last one's up and within
/// `GestureDefaults.tapSpacingMM` of it. Discrete: `recognized` at the last finger up of the last
/// tap. Payload: `taps`. Deadline: the next tap's `interval`; it passing fails the tap.
struct TapRule: GestureRule {
    let taps: Int
    let fingers: Int
    let movementMM: Double
    let intervalMicros: UInt64
    /// The current tap's touches (a new tap follows its own).
    var followed = Followed()
    var deadlineMicros: UInt64?
    var tapsDone = 0
    /// The current tap: the most of its fingers seen at once, and how many went down.
    var fingersThisTap = 0
    var touchesThisTap = 0
    var lastTapScreenPoint = Point(0, 0)

    init(_ spec: GestureSpec) {
        taps = spec.taps
        fingers = spec.fingers
        movementMM = spec.movementMM
        intervalMicros = spec.intervalMicros
    }

    /// Waiting for nothing: no tap counted and no deadline.
    var isIdle: Bool { deadlineMicros == nil && tapsDone == 0 }

    mutating func observe(
        _ touches: [GestureTouch], state: GestureState, _ physical: PhysicalScale, now: UInt64
    ) -> RecogniserRequest {
        for touch in touches where touch.touch.phase == .began && !followed.contains(touch.id) {
            if touchesThisTap == 0 {
                // A new tap: the run goes on only near the previous one (its deadline checked the time).
                if tapsDone > 0
                    && physical.distanceMillimetres(lastTapScreenPoint, touch.startScreenPoint)
                        > GestureDefaults.tapSpacingMM
                {
                    return .fail
                }
                followed.ids.removeAll()
                deadlineMicros = nil
            }
            followed.ids.append(touch.id)
            touchesThisTap += 1
        }
        let seen = followed.survey(touches, movementMM: movementMM, physical)
        fingersThisTap = max(fingersThisTap, seen.present)
        if fingersThisTap > fingers || seen.moved { return .fail }
        followed.setCentroid(seen)
        guard seen.down == 0, touchesThisTap > 0 else { return .none }
        // Every finger of this tap is up.
        guard fingersThisTap == fingers else { return .fail }
        tapsDone += 1
        lastTapScreenPoint = followed.screenCentroid
        touchesThisTap = 0
        fingersThisTap = 0
        if tapsDone == taps { return .recognize }
        deadlineMicros = now + intervalMicros
        return .none
    }

    /// The next tap did not come in time.
    mutating func deadlinePassed(_ touches: [GestureTouch]) -> RecogniserRequest {
        deadlineMicros = nil
        return .fail
    }

    func describe(_ event: inout GestureEvent, now: UInt64) {
        event.taps = tapsDone
    }
}
