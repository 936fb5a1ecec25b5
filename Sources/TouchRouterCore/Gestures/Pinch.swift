/// A pinch (UIPinchGestureRecognizer): the first two fingers down (`FingerPair`) change their
/// distance by `distance`. Continuous: `began` then, `changed` whenever the scale or angle changes,
/// `ended` when either finger lifts. Recognises together with a rotate (they are partners, not
/// rivals). Fails when every finger lifts before it begins. No deadline. Payload: `scale` and
/// `scaleVelocity`.
struct PinchRule: GestureRule {
    let distanceMM: Double
    var pair = FingerPair()

    init(_ spec: GestureSpec) {
        distanceMM = spec.distanceMM
    }

    var followed: Followed { pair.followed }

    mutating func observe(
        _ touches: [GestureTouch], state: GestureState, _ physical: PhysicalScale, now: UInt64
    ) -> RecogniserRequest {
        switch pair.observe(touches, state: state, physical, now: now) {
        case .request(let request): request
        case .measured(let span): abs(span - pair.startSpanMM) >= distanceMM && pair.startSpanMM > 0 ? .begin : .none
        }
    }

    func describe(_ event: inout GestureEvent, now: UInt64) {
        event.scale = pair.scale
        event.scaleVelocity = pair.scaleVelocity
    }
}
