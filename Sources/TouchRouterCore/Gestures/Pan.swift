/// A pan (UIPanGestureRecognizer): between `minimumFingers` and `maximumFingers` fingers whose
/// centroid moves `distance`. Continuous: `began` at that distance, `changed` whenever the
/// centroid moves, `ended` when fewer than `minimumFingers` stay down. Fingers join while there is
/// room: fewer than `maximumFingers` of its fingers down (UIKit counts the fingers touching, so one
/// that lifted makes room); more than `maximumFingers` before it begins, or every finger up, fails
/// it. No deadline.
/// Payload: `translation` and `velocity` of the centroid, view units.
struct PanRule: GestureRule {
    let minimumFingers: Int
    let maximumFingers: Int
    let distanceMM: Double
    var followed = Followed()
    var movement = Movement()

    init(_ spec: GestureSpec) {
        minimumFingers = spec.minimumFingers
        maximumFingers = spec.maximumFingers
        distanceMM = spec.distanceMM
    }

    mutating func observe(
        _ touches: [GestureTouch], state: GestureState, _ physical: PhysicalScale, now: UInt64
    ) -> RecogniserRequest {
        defer { movement.lastMicros = now }
        let moved = movement.accumulate(touches, followed, now: now)
        var down = followed.downCount(touches)
        for touch in touches where touch.touch.phase == .began && !followed.contains(touch.id) {
            if state == .possible || down < maximumFingers {
                if followed.isEmpty { followed.startMicros = now }
                // Fingers that lifted in an earlier step are gone from the view: forgetting them
                // keeps the list (and each step's cost) bounded by the fingers touching.
                followed.ids.removeAll { id in !touches.contains { $0.id == id } }
                followed.ids.append(touch.id)
                down += 1
            }
        }
        let seen = followed.survey(touches, physical)
        followed.setCentroid(seen)
        if state == .possible {
            if seen.down > maximumFingers || seen.down == 0 { return .fail }
            let distance = physical.millimetres(dx: movement.screenTranslation.x, dy: movement.screenTranslation.y)
            return seen.down >= minimumFingers && distance >= distanceMM ? .begin : .none
        }
        if seen.down < minimumFingers { return .end }
        return moved ? .change : .none
    }

    /// An active pan takes a finger that comes down while it has room for one: fewer than
    /// `maximumFingers` of its fingers among the view's `touches` are down.
    func hasRoom(among touches: [GestureTouch]) -> Bool { followed.downCount(touches) < maximumFingers }

    func describe(_ event: inout GestureEvent, now: UInt64) {
        event.translation = movement.translation
        event.velocity = movement.velocity
    }
}
