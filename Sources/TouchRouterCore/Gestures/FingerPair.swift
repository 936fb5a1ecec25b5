#if canImport(Glibc)
    import Glibc
#endif

/// The first two fingers down, measured: what a pinch and a rotate follow. The pair forms when two
/// followed fingers are down (their distance and angle then are the start), and re-forms while the
/// gesture is possible if one of them lifts. Its scale is the fingers' distance over the start's,
/// its rotation the angle turned since (radians, in mm space, clockwise on screen positive).
struct FingerPair: Sendable {
    var followed = Followed()
    var ids: (UInt64, UInt64)?
    var startSpanMM = 0.0
    var lastAngle = 0.0
    var scale = 1.0
    var scaleVelocity = 0.0
    var rotation = 0.0
    var rotationVelocity = 0.0
    /// When the pair was last looked at (0: never).
    var lastMicros: UInt64 = 0

    /// What a step found.
    enum Step {
        /// A request for the gesture (a possible one failing or waiting, an active one moving or ending).
        case request(RecogniserRequest)
        /// Possible, and the pair, formed before this step, was measured anew: the kind decides.
        case measured(spanMM: Double)
    }

    mutating func observe(
        _ touches: [GestureTouch], state: GestureState, _ physical: PhysicalScale, now: UInt64
    ) -> Step {
        defer { lastMicros = now }
        followed.join(touches, now: now)
        if state == .possible {
            let down = followed.downCount(touches)
            if down == 0 { return .request(.fail) }
            if down < 2 {
                ids = nil
                return .request(.none)
            }
        }
        var first: GestureTouch?
        var second: GestureTouch?
        for touch in touches where followed.contains(touch.id) {
            if let ids, touch.id != ids.0 && touch.id != ids.1 { continue }
            if !touch.isDown && ids == nil { continue }
            if first == nil { first = touch } else if second == nil { second = touch }
        }
        if state != .possible {
            // Active: ends when either finger of the pair lifts.
            guard let first, let second, first.isDown, second.isDown else { return .request(.end) }
            return .request(update(first, second, physical, now) ? .change : .none)
        }
        guard let first, let second, first.isDown, second.isDown else {
            ids = nil
            return .request(.none)
        }
        guard ids != nil else {
            ids = (first.id, second.id)
            startSpanMM = physical.distanceMillimetres(first.touch.screenPoint, second.touch.screenPoint)
            lastAngle = Self.angle(first, second, physical)
            scale = 1
            rotation = 0
            followed.startMicros = now
            return .request(.none)
        }
        _ = update(first, second, physical, now)
        return .measured(spanMM: physical.distanceMillimetres(first.touch.screenPoint, second.touch.screenPoint))
    }

    /// New centroid, scale and rotation of the pair; whether the scale or the angle changed.
    private mutating func update(
        _ first: GestureTouch, _ second: GestureTouch, _ physical: PhysicalScale, _ now: UInt64
    ) -> Bool {
        followed.localCentroid = Point(
            (first.touch.localPoint.x + second.touch.localPoint.x) / 2,
            (first.touch.localPoint.y + second.touch.localPoint.y) / 2)
        followed.screenCentroid = Point(
            (first.touch.screenPoint.x + second.touch.screenPoint.x) / 2,
            (first.touch.screenPoint.y + second.touch.screenPoint.y) / 2)
        let span = physical.distanceMillimetres(first.touch.screenPoint, second.touch.screenPoint)
        let newScale = startSpanMM > 0 ? span / startSpanMM : 1
        var turn = Self.angle(first, second, physical) - lastAngle
        if turn > .pi { turn -= 2 * .pi } else if turn < -.pi { turn += 2 * .pi }
        lastAngle += turn
        guard newScale != scale || turn != 0 else { return false }
        if now > lastMicros && lastMicros > 0 {
            let seconds = Double(now - lastMicros) / 1_000_000
            scaleVelocity = (newScale - scale) / seconds
            rotationVelocity = turn / seconds
        }
        scale = newScale
        rotation += turn
        return true
    }

    /// The angle of the line from the first finger to the second, in mm space (y down: clockwise
    /// on screen is positive).
    static func angle(_ first: GestureTouch, _ second: GestureTouch, _ physical: PhysicalScale) -> Double {
        atan2(
            (second.touch.screenPoint.y - first.touch.screenPoint.y) * physical.millimetresPerUnitY,
            (second.touch.screenPoint.x - first.touch.screenPoint.x) * physical.millimetresPerUnitX)
    }
}
