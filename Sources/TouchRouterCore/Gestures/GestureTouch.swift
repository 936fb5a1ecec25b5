/// What recognition keeps of a view's touches between steps, and what every kind keeps of the
/// touches it follows.

/// A routed touch without its device (whose name is a string): what recognition keeps and scans.
/// With no reference in it, copying a touch (every rule's loop does, per touch) retains nothing.
struct TouchSample: Sendable {
    var id: UInt64
    var phase: TouchPhase
    var localPoint: Point
    var screenPoint: Point
    var previousLocalPoint: Point
    var timestampMicros: UInt64
    var tapCount: Int
    var deviceID: UInt32
    var cancelReason: CancelReason?

    init(_ touch: RoutedTouch) {
        id = touch.id
        phase = touch.phase
        localPoint = touch.localPoint
        screenPoint = touch.screenPoint
        previousLocalPoint = touch.previousLocalPoint
        timestampMicros = touch.timestampMicros
        tapCount = touch.tapCount
        deviceID = touch.device.id
        cancelReason = touch.cancelReason
    }

    /// The routed touch again, with its device.
    func routed(device: InputDevice) -> RoutedTouch {
        RoutedTouch(
            id: id, phase: phase, localPoint: localPoint, screenPoint: screenPoint,
            previousLocalPoint: previousLocalPoint, timestampMicros: timestampMicros, tapCount: tapCount,
            device: device, cancelReason: cancelReason)
    }
}

/// One touch of a view with gestures.
struct GestureTouch: Sendable {
    /// The touch as the tracker delivered it in this step (its phase is this step's).
    var touch: TouchSample
    /// Where it was before this step (screen and view space); its began point at first.
    var lastScreenPoint: Point
    var lastLocalPoint: Point
    /// Where it went down.
    let startScreenPoint: Point
    /// A recognised gesture took it (`cancelsTouches`): raw clients get one `cancelled`, then nothing.
    var claimed = false
    /// That `cancelled` (reason `gesture`) was delivered, or the touch was claimed before its began was.
    var cancellationSent = false

    init(_ touch: RoutedTouch) {
        self.touch = TouchSample(touch)
        lastScreenPoint = touch.screenPoint
        lastLocalPoint = touch.localPoint
        startScreenPoint = touch.screenPoint
    }

    var id: UInt64 { touch.id }
    var isDown: Bool { !touch.phase.isTerminal }

    /// The touch moves on to what the tracker delivered in this step.
    mutating func update(_ routed: RoutedTouch) {
        lastScreenPoint = touch.screenPoint
        lastLocalPoint = touch.localPoint
        touch = TouchSample(routed)
    }
}

/// The touches one recogniser follows, in began order, and their centroid when last seen (an
/// event that a deadline or a blocker's failure decides, after the fingers left, reports it).
struct Followed: Sendable {
    var ids: [UInt64] = []
    var localCentroid = Point(0, 0)
    var screenCentroid = Point(0, 0)
    /// When the first of them went down.
    var startMicros: UInt64 = 0

    var isEmpty: Bool { ids.isEmpty }

    func contains(_ id: UInt64) -> Bool { ids.contains(id) }

    /// Follows every touch that began in this step; the first one followed starts the clock.
    mutating func join(_ touches: [GestureTouch], now: UInt64) {
        for touch in touches where touch.touch.phase == .began && !contains(touch.id) {
            if ids.isEmpty { startMicros = now }
            ids.append(touch.id)
        }
    }

    /// What one pass over the view's touches finds about the followed ones: how many are down,
    /// how many were seen in this step (down or ended in it), whether one that did not begin in this
    /// step is farther than `movementMM` from where it went down (when asked), and their centroid.
    /// Cost: touches × followed.
    struct Survey {
        var down = 0
        var present = 0
        var moved = false
        var local = Point(0, 0)
        var screen = Point(0, 0)
    }

    func survey(_ touches: [GestureTouch], movementMM: Double? = nil, _ physical: PhysicalScale) -> Survey {
        var survey = Survey()
        for touch in touches where contains(touch.id) {
            survey.present += 1
            if touch.isDown { survey.down += 1 }
            survey.local = Point(survey.local.x + touch.touch.localPoint.x, survey.local.y + touch.touch.localPoint.y)
            survey.screen = Point(
                survey.screen.x + touch.touch.screenPoint.x, survey.screen.y + touch.touch.screenPoint.y)
            if let limit = movementMM, touch.touch.phase != .began,
                physical.distanceMillimetres(touch.startScreenPoint, touch.touch.screenPoint) > limit
            {
                survey.moved = true
            }
        }
        return survey
    }

    /// The centroid from a survey (unchanged when none of the touches was seen).
    mutating func setCentroid(_ survey: Survey) {
        guard survey.present > 0 else { return }
        let count = Double(survey.present)
        localCentroid = Point(survey.local.x / count, survey.local.y / count)
        screenCentroid = Point(survey.screen.x / count, survey.screen.y / count)
    }

    /// How many of the followed touches are down.
    func downCount(_ touches: [GestureTouch]) -> Int {
        touches.reduce(0) { $0 + ($1.isDown && contains($1.id) ? 1 : 0) }
    }
}

/// The followed touches' centroid movement, summed step by step (each step: the mean of their
/// moves), and its velocity: what a pan and a swipe measure.
struct Movement: Sendable {
    /// View units (reported) and screen units (measured in mm against the thresholds).
    var translation = Point(0, 0)
    var screenTranslation = Point(0, 0)
    /// View units per second, from the last step that moved.
    var velocity = Point(0, 0)
    /// When the recogniser last looked (0: never).
    var lastMicros: UInt64 = 0

    /// Adds the followed touches' mean move in this step; returns whether anything moved.
    mutating func accumulate(_ touches: [GestureTouch], _ followed: Followed, now: UInt64) -> Bool {
        var local = Point(0, 0)
        var screen = Point(0, 0)
        var count = 0.0
        for touch in touches where touch.touch.phase != .began && followed.contains(touch.id) {
            local = Point(
                local.x + touch.touch.localPoint.x - touch.lastLocalPoint.x,
                local.y + touch.touch.localPoint.y - touch.lastLocalPoint.y)
            screen = Point(
                screen.x + touch.touch.screenPoint.x - touch.lastScreenPoint.x,
                screen.y + touch.touch.screenPoint.y - touch.lastScreenPoint.y)
            count += 1
        }
        guard count > 0, local != Point(0, 0) || screen != Point(0, 0) else { return false }
        let step = Point(local.x / count, local.y / count)
        translation = Point(translation.x + step.x, translation.y + step.y)
        screenTranslation = Point(screenTranslation.x + screen.x / count, screenTranslation.y + screen.y / count)
        if now > lastMicros && lastMicros > 0 {
            let seconds = Double(now - lastMicros) / 1_000_000
            velocity = Point(step.x / seconds, step.y / seconds)
        }
        return true
    }
}
