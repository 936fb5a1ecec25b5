#if canImport(Glibc)
    import Glibc
#endif

/// A swipe (UISwipeGestureRecognizer): exactly `fingers` fingers whose centroid moves `distance`
/// within `maximumDuration` of the first finger down, along one of `direction` (within
/// `GestureDefaults.swipeAngleToleranceDegrees` of an axis). Discrete: `recognized` at that
/// distance. It fails with more fingers, another direction, every finger up before the distance,
/// or the deadline (`maximumDuration`) passing. Payload: `direction`, `translation`, `velocity`,
/// `durationMicros`.
struct SwipeRule: GestureRule {
    let fingers: Int
    let distanceMM: Double
    let maximumDurationMicros: UInt64
    let directions: SwipeDirections
    var followed = Followed()
    var movement = Movement()
    var deadlineMicros: UInt64?
    /// The most followed fingers seen in one step.
    var mostFingers = 0
    var direction: SwipeDirection?

    init(_ spec: GestureSpec) {
        fingers = spec.fingers
        distanceMM = spec.distanceMM
        maximumDurationMicros = spec.maximumDurationMicros
        directions = spec.directions
    }

    mutating func observe(
        _ touches: [GestureTouch], state: GestureState, _ physical: PhysicalScale, now: UInt64
    ) -> RecogniserRequest {
        defer { movement.lastMicros = now }
        _ = movement.accumulate(touches, followed, now: now)
        let wasEmpty = followed.isEmpty
        followed.join(touches, now: now)
        if wasEmpty && !followed.isEmpty { deadlineMicros = now + maximumDurationMicros }
        let seen = followed.survey(touches, physical)
        mostFingers = max(mostFingers, seen.present)
        if mostFingers > fingers { return .fail }
        followed.setCentroid(seen)
        let distance = physical.millimetres(dx: movement.screenTranslation.x, dy: movement.screenTranslation.y)
        if mostFingers == fingers && distance >= distanceMM {
            guard let direction = Self.direction(of: movement.screenTranslation, physical),
                directions.contains(direction)
            else { return .fail }
            self.direction = direction
            return .recognize
        }
        return seen.down == 0 ? .fail : .none
    }

    /// Too slow: the distance did not come within `maximumDuration`.
    mutating func deadlinePassed(_ touches: [GestureTouch]) -> RecogniserRequest {
        deadlineMicros = nil
        return .fail
    }

    /// The direction a movement is within `swipeAngleToleranceDegrees` of, measured in mm.
    static func direction(of movement: Point, _ physical: PhysicalScale) -> SwipeDirection? {
        let dx = movement.x * physical.millimetresPerUnitX
        let dy = movement.y * physical.millimetresPerUnitY
        let tolerance = tan(GestureDefaults.swipeAngleToleranceDegrees * .pi / 180)
        if abs(dy) <= abs(dx) * tolerance { return dx < 0 ? .left : .right }
        if abs(dx) <= abs(dy) * tolerance { return dy < 0 ? .up : .down }
        return nil
    }

    func describe(_ event: inout GestureEvent, now: UInt64) {
        event.direction = direction
        event.translation = movement.translation
        event.velocity = movement.velocity
        event.durationMicros = now - min(now, followed.startMicros)
    }
}
