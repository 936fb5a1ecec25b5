/// A rotate (UIRotationGestureRecognizer): the first two fingers down (`FingerPair`) turn by
/// `angle`. Continuous: `began` then, `changed` whenever the scale or angle changes, `ended` when
/// either finger lifts. Recognises together with a pinch (they are partners, not rivals). Fails
/// when every finger lifts before it begins. No deadline. Payload: `rotation` (radians, clockwise
/// on screen positive) and `rotationVelocity`.
struct RotateRule: GestureRule {
    let angleDegrees: Double
    var pair = FingerPair()

    init(_ spec: GestureSpec) {
        angleDegrees = spec.angleDegrees
    }

    var followed: Followed { pair.followed }

    mutating func observe(
        _ touches: [GestureTouch], state: GestureState, _ physical: PhysicalScale, now: UInt64
    ) -> RecogniserRequest {
        switch pair.observe(touches, state: state, physical, now: now) {
        case .request(let request): request
        case .measured: abs(pair.rotation) >= angleDegrees * .pi / 180 ? .begin : .none
        }
    }

    func describe(_ event: inout GestureEvent, now: UInt64) {
        event.rotation = pair.rotation
        event.rotationVelocity = pair.rotationVelocity
    }
}
