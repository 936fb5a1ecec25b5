#if canImport(Glibc)
    import Glibc
#endif

/// A routed touch's fields without its device (whose name is a string): recognition copies and
/// scans these every frame, and a struct with no reference in it costs no retains.
struct TouchSample {
    var id: UInt64
    var phase: TouchPhase
    var localPoint: Point
    var screenPoint: Point
    var previousLocalPoint: Point
    var timestampMicros: UInt64
    var tapCount: Int
    var deviceID: UInt32
    var cancelReason: CancelReason?

    @inline(__always)
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

/// One touch of a view with gestures, as recognition keeps it between steps.
struct GestureTouch {
    /// The touch as the tracker delivered it in this step (its phase is this step's).
    var touch: TouchSample
    /// Where it was before this step (screen and view space); its began point at first.
    var lastScreenPoint: Point
    var lastLocalPoint: Point
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

    @inline(__always)
    var isDown: Bool { !touch.phase.isTerminal }
}

/// A recogniser's settings: its `GestureSpec`'s, with the swipe directions as a bit mask, so that
/// a recogniser holds no reference at all and copying one is a plain copy of its bytes.
struct RecogniserSettings {
    var kind: GestureKind
    var taps: Int
    var fingers: Int
    var minimumFingers: Int
    var maximumFingers: Int
    var movementMM: Double
    var distanceMM: Double
    var angleDegrees: Double
    var intervalMicros: UInt64
    var durationMicros: UInt64
    var maximumDurationMicros: UInt64
    var directions: DirectionMask
    var cancelsTouches: Bool
    var exclusive: Bool
    /// A pan, pinch, rotate or long press that has not begun fails in a step after which no touch
    /// of its view is down, whatever the step holds, so the view fails it without running the
    /// rule: a pan, pinch or rotate needs a participant down to begin (its rule fails it when none
    /// is), and a long press follows every touch of its view while possible (it fails at its
    /// eleventh finger, before its list of 16 is full) and fails when one of them lifts. Not a
    /// swipe (the step that lifts its fingers can carry their last move, and recognise it) nor a
    /// tap (its last finger up is what recognises it).
    var failsWithNoTouchDown: Bool

    init(_ spec: GestureSpec) {
        kind = spec.kind
        taps = spec.taps
        fingers = spec.fingers
        minimumFingers = spec.minimumFingers
        maximumFingers = spec.maximumFingers
        movementMM = spec.movementMM
        distanceMM = spec.distanceMM
        angleDegrees = spec.angleDegrees
        intervalMicros = spec.intervalMicros
        durationMicros = spec.durationMicros
        maximumDurationMicros = spec.maximumDurationMicros
        directions = DirectionMask(spec.directions)
        cancelsTouches = spec.cancelsTouches
        exclusive = spec.exclusive
        failsWithNoTouchDown = [.pan, .pinch, .rotate, .longPress].contains(spec.kind)
    }
}

/// A set of swipe directions as four bits.
struct DirectionMask {
    private var bits: UInt8 = 0

    init(_ directions: Set<SwipeDirection>) {
        for direction in directions { bits |= Self.bit(direction) }
    }

    private static func bit(_ direction: SwipeDirection) -> UInt8 {
        switch direction {
        case .left: 1
        case .right: 2
        case .up: 4
        case .down: 8
        }
    }

    func contains(_ direction: SwipeDirection) -> Bool { bits & Self.bit(direction) != 0 }
}

/// A set of a view's recognisers by index (a view has at most
/// `GestureDefaults.recognisersPerView`, 16): what a tap waits for, without an array to retain.
struct RecogniserMask: Sequence {
    private(set) var bits: UInt32 = 0

    init() {}

    init(_ indices: [Int]) {
        for index in indices { insert(index) }
    }

    mutating func insert(_ index: Int) { bits |= 1 << UInt32(index) }

    func contains(_ index: Int) -> Bool { index >= 0 && index < 32 && bits & (1 << UInt32(index)) != 0 }

    var isEmpty: Bool { bits == 0 }

    struct Iterator: IteratorProtocol {
        var rest: UInt32
        mutating func next() -> Int? {
            guard rest != 0 else { return nil }
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            return index
        }
    }

    func makeIterator() -> Iterator { Iterator(rest: bits) }
}

/// The touches a recogniser follows, in began order, in place (no array to retain or allocate):
/// at most `capacity`. Every kind's finger limit is 10 at most (`GestureDefaults.fingerLimit`),
/// so a recogniser that would need more has failed already; a 17th touch is not followed.
struct TouchIDList: Sequence {
    static let capacity = 16
    /// The first two ids in fields of their own, the others in an inline array: most gestures
    /// follow one or two fingers, and reading an element of the inline array copied all of it to
    /// the stack (in this compiler), at every test of every rule, per touch.
    private var first: UInt64 = 0
    private var second: UInt64 = 0
    private var others = InlineArray<14, UInt64>(repeating: 0)
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    func contains(_ id: UInt64) -> Bool {
        guard count > 0 else { return false }
        if first == id { return true }
        guard count > 1 else { return false }
        if second == id { return true }
        guard count > 2 else { return false }
        for index in 0..<count - 2 where others[index] == id { return true }
        return false
    }

    mutating func append(_ id: UInt64) {
        switch count {
        case 0: first = id
        case 1: second = id
        case Self.capacity...: return
        default: others[count - 2] = id
        }
        count += 1
    }

    mutating func removeAll() { count = 0 }

    /// Appends every id to `ids`, in order (each field read once, no subscript dispatch).
    func append(to ids: inout [UInt64]) {
        guard count > 0 else { return }
        ids.append(first)
        guard count > 1 else { return }
        ids.append(second)
        for index in 0..<count - 2 { ids.append(others[index]) }
    }

    subscript(index: Int) -> UInt64 {
        switch index {
        case 0: first
        case 1: second
        default: others[index - 2]
        }
    }

    struct Iterator: IteratorProtocol {
        let list: TouchIDList
        var index = 0
        mutating func next() -> UInt64? {
            guard index < list.count else { return nil }
            defer { index += 1 }
            return list[index]
        }
    }

    func makeIterator() -> Iterator { Iterator(list: self) }
}

/// What a recogniser asks for after looking at a step's touches (or at a deadline).
enum RecogniserRequest {
    case none, fail, begin, change, end, cancel, recognize
}

/// One recogniser of one view: the kind's rules (thresholds in mm and µs) and UIKit's state.
/// Arbitration between a view's recognisers is `ViewGestures`' job; this only says what it wants.
struct Recogniser {
    let spec: RecogniserSettings
    /// Position in the view's `gestures` list.
    let index: Int
    /// The recognisers that must fail before this one may recognise (require(toFail:)): a tap's
    /// are the view's taps with more taps and as many fingers.
    var blockers = RecogniserMask()
    /// The recognisers that wait for this one to fail (whose `blockers` hold it): what its failure
    /// looks at, instead of every recogniser of the view.
    var waiters = RecogniserMask()
    /// The view's other recognisers this one excludes and is excluded by (both exclusive, not
    /// pinch and rotate): what a grant checks and fails, instead of every recogniser of the view.
    var rivals = RecogniserMask()
    /// The view's `cancelsTouches` pans (the same in each of its recognisers): what a touch that
    /// begins looks at to learn whether an active pan takes it from the start.
    var claimingPans = RecogniserMask()
    var state: GestureState = .possible
    /// Would recognise, but a blocker has not failed yet: waits, ignoring touches.
    var pending = false
    /// The touches taking part (a tap's: the current tap's), in began order.
    var participants = TouchIDList()
    var sequenceStartMicros: UInt64 = 0
    var deadlineMicros: UInt64?
    var lastMicros: UInt64 = 0
    /// The participants' centroid when last seen: an event a deadline or a blocker's failure
    /// decides, after the fingers left, reports it.
    var localCentroid = Point(0, 0)
    var screenCentroid = Point(0, 0)
    // tap
    var tapsDone = 0
    var fingersThisTap = 0
    var touchesThisTap = 0
    var lastTapScreenPoint = Point(0, 0)
    // pan, swipe: the centroid's movement (mean of the participants' moves each step)
    var translation = Point(0, 0)
    var screenTranslation = Point(0, 0)
    var velocity = Point(0, 0)
    var mostFingers = 0
    var direction: SwipeDirection?
    // pinch, rotate: the first two fingers down
    var pair: (UInt64, UInt64)?
    var startSpanMM = 0.0
    var lastAngle = 0.0
    var scale = 1.0
    var scaleVelocity = 0.0
    var rotation = 0.0
    var rotationVelocity = 0.0

    init(spec: GestureSpec, index: Int) {
        self.spec = RecogniserSettings(spec)
        self.index = index
    }

    /// Back to `possible` with nothing remembered (a new sequence of touches starts): every
    /// variable as `init` sets it; the settings, index and masks kept, and the participants' id
    /// storage left as it is (`count` 0: never read). Only the fields the recogniser's kind writes
    /// are stored (a kind never writes another kind's: the others are still as `init` set them,
    /// which debug builds check here). Cost: a store per field of the common ones and the kind's.
    mutating func reset() {
        state = .possible
        pending = false
        participants.removeAll()
        sequenceStartMicros = 0
        deadlineMicros = nil
        lastMicros = 0
        localCentroid = Point(0, 0)
        screenCentroid = Point(0, 0)
        switch spec.kind {
        case .tap:
            tapsDone = 0
            fingersThisTap = 0
            touchesThisTap = 0
            lastTapScreenPoint = Point(0, 0)
        case .pan, .swipe:
            translation = Point(0, 0)
            screenTranslation = Point(0, 0)
            velocity = Point(0, 0)
            mostFingers = 0
            direction = nil
        case .pinch, .rotate:
            pair = nil
            startSpanMM = 0
            lastAngle = 0
            scale = 1
            scaleVelocity = 0
            rotation = 0
            rotationVelocity = 0
        case .longPress: break
        }
        assert(isAsNew, "\(spec.kind) wrote a field its reset leaves alone")
    }

    /// Every variable as `init` sets it (the participants' storage aside): what `reset` makes.
    private var isAsNew: Bool {
        state == .possible && !pending && participants.isEmpty && sequenceStartMicros == 0
            && deadlineMicros == nil && lastMicros == 0 && localCentroid == Point(0, 0)
            && screenCentroid == Point(0, 0) && tapsDone == 0 && fingersThisTap == 0 && touchesThisTap == 0
            && lastTapScreenPoint == Point(0, 0) && translation == Point(0, 0) && screenTranslation == Point(0, 0)
            && velocity == Point(0, 0) && mostFingers == 0 && direction == nil && pair == nil && startSpanMM == 0
            && lastAngle == 0 && scale == 1 && scaleVelocity == 0 && rotation == 0 && rotationVelocity == 0
    }

    /// Waiting for more taps or a long press, with no touch that could bring news.
    @inline(__always)
    var isIdle: Bool { state == .possible && !pending && deadlineMicros == nil && tapsDone == 0 }

    /// Idle, or ended (with no touch down, what `reset()` will make idle when the next one comes).
    @inline(__always)
    var isIdleOrEnded: Bool { state.isTerminal || isIdle }

    @inline(__always)
    func takesPart(_ touch: GestureTouch) -> Bool { participants.contains(touch.touch.id) }

    /// Appends the touches an event of this recogniser names: its participants still among the
    /// view's `touches` (all of them when none is), in began order. Returns how many. Cost:
    /// participants × touches. (`mutating`, like the helpers below: `self` by reference.)
    mutating func appendEventIDs(present touches: [GestureTouch], to ids: inout [UInt64]) -> Int {
        var appended = 0
        if !touches.isEmpty {  // none is present when the view has no touch (a deadline's event)
            for position in 0..<participants.count {
                let id = participants[position]
                for i in touches.indices where touches[i].touch.id == id {
                    ids.append(id)
                    appended += 1
                    break
                }
            }
        }
        guard appended == 0 else { return appended }
        participants.append(to: &ids)
        return participants.count
    }

    // The loops below go by index and read fields in place: iterating would copy each touch
    // (about 160 bytes) once per recogniser per step.

    // MARK: - A step

    /// Looks at one step's touches of the view (every live one, plus those that ended in it).
    /// Only for a recogniser that has not ended and is not waiting (`ViewGestures.step` skips those).
    /// `anyCancelled`: some touch of the step is cancelled (the view knows it from its one pass
    /// over the step's touches; without one, no recogniser needs to look for it).
    mutating func observe(_ touches: [GestureTouch], scale physical: PhysicalScale, now: UInt64, anyCancelled: Bool)
        -> RecogniserRequest
    {
        if anyCancelled {
            for i in touches.indices
            where touches[i].touch.phase == .cancelled && participants.contains(touches[i].touch.id) {
                return state == .possible ? .fail : .cancel
            }
        }
        let request: RecogniserRequest
        switch spec.kind {
        case .tap: request = observeTap(touches, physical, now)
        case .longPress: request = observeLongPress(touches, physical, now)
        case .pan: request = observePan(touches, physical, now)
        case .swipe: request = observeSwipe(touches, physical, now)
        case .pinch, .rotate: request = observePair(touches, physical, now)
        }
        lastMicros = now
        return request
    }

    /// A deadline of this recogniser passed (`deadlineMicros` ≤ now): what it means for its kind.
    mutating func deadlinePassed(_ touches: [GestureTouch]) -> RecogniserRequest {
        deadlineMicros = nil
        guard state == .possible, !pending else { return .none }
        switch spec.kind {
        case .longPress:
            let down = touches.reduce(0) { $0 + ($1.isDown && takesPart($1) ? 1 : 0) }
            return down == spec.fingers ? .begin : .fail
        default:
            // A tap's next tap or a swipe's distance did not come in time.
            return .fail
        }
    }

    @inline(__always)
    private mutating func join(_ touches: [GestureTouch], now: UInt64) {
        for i in touches.indices where touches[i].touch.phase == .began && !participants.contains(touches[i].touch.id) {
            if participants.isEmpty && tapsDone == 0 { sequenceStartMicros = now }
            participants.append(touches[i].touch.id)
        }
    }

    /// What one pass over the view's touches finds about this recogniser's participants: how
    /// many are down now and how many were seen in this step (down or ended in it), whether one
    /// that did not begin in this step moved beyond `movementMM` from where it went down (only
    /// when asked: it costs a square root per touch), and the sums for their centroid. One pass
    /// where each rule used to make three or four. Cost: touches × participants.
    struct Survey {
        var down = 0
        var present = 0
        var moved = false
        var local = Point(0, 0)
        var screen = Point(0, 0)
    }

    /// `mutating` only so that `self` is passed by reference: a non-mutating call from a mutating
    /// one copies the recogniser (about 500 bytes) first.
    @inline(__always)
    private mutating func survey(_ touches: [GestureTouch], movementMM: Double?, _ physical: PhysicalScale) -> Survey {
        var survey = Survey()
        for i in touches.indices where participants.contains(touches[i].touch.id) {
            survey.present += 1
            if touches[i].isDown { survey.down += 1 }
            survey.local = Point(
                survey.local.x + touches[i].touch.localPoint.x, survey.local.y + touches[i].touch.localPoint.y)
            survey.screen = Point(
                survey.screen.x + touches[i].touch.screenPoint.x, survey.screen.y + touches[i].touch.screenPoint.y)
            if let limit = movementMM, !survey.moved, touches[i].touch.phase != .began,
                physical.distanceMillimetres(touches[i].startScreenPoint, touches[i].touch.screenPoint) > limit
            {
                survey.moved = true
            }
        }
        return survey
    }

    /// The participants' centroid from a survey's sums (unchanged when none was seen).
    @inline(__always)
    private mutating func setCentroid(_ survey: Survey) {
        guard survey.present > 0 else { return }
        let count = Double(survey.present)
        localCentroid = Point(survey.local.x / count, survey.local.y / count)
        screenCentroid = Point(survey.screen.x / count, survey.screen.y / count)
    }

    private mutating func observeTap(_ touches: [GestureTouch], _ physical: PhysicalScale, _ now: UInt64)
        -> RecogniserRequest
    {
        for i in touches.indices where touches[i].touch.phase == .began && !participants.contains(touches[i].touch.id) {
            if touchesThisTap == 0 {
                // A new tap: the run goes on only near the previous one (the deadline checked the time).
                if tapsDone > 0
                    && physical.distanceMillimetres(lastTapScreenPoint, touches[i].startScreenPoint)
                        > GestureDefaults.tapSpacingMM
                {
                    return .fail
                }
                if tapsDone == 0 { sequenceStartMicros = now }
                participants.removeAll()
                deadlineMicros = nil
            }
            participants.append(touches[i].touch.id)
            touchesThisTap += 1
        }
        let seen = survey(touches, movementMM: spec.movementMM, physical)
        fingersThisTap = max(fingersThisTap, seen.present)
        if fingersThisTap > spec.fingers || seen.moved { return .fail }
        setCentroid(seen)
        guard seen.down == 0, touchesThisTap > 0 else { return .none }
        // Every finger of this tap is up.
        guard fingersThisTap == spec.fingers else { return .fail }
        tapsDone += 1
        lastTapScreenPoint = screenCentroid
        touchesThisTap = 0
        fingersThisTap = 0
        if tapsDone == spec.taps { return .recognize }
        deadlineMicros = now + spec.intervalMicros
        return .none
    }

    private mutating func observeLongPress(_ touches: [GestureTouch], _ physical: PhysicalScale, _ now: UInt64)
        -> RecogniserRequest
    {
        if state == .possible {
            join(touches, now: now)
            let seen = survey(touches, movementMM: spec.movementMM, physical)
            setCentroid(seen)
            if seen.present > spec.fingers || seen.down < seen.present || seen.moved { return .fail }
            if seen.down == spec.fingers && deadlineMicros == nil { deadlineMicros = now + spec.durationMicros }
            return .none
        }
        // Active (in every frame while held): the centroid and the movement in one pass.
        var local = Point(0, 0)
        var screen = Point(0, 0)
        var count = 0.0
        var moved = false
        var ended = false
        for i in touches.indices where participants.contains(touches[i].touch.id) {
            local = Point(local.x + touches[i].touch.localPoint.x, local.y + touches[i].touch.localPoint.y)
            screen = Point(screen.x + touches[i].touch.screenPoint.x, screen.y + touches[i].touch.screenPoint.y)
            count += 1
            if !touches[i].isDown { ended = true }
            if touches[i].touch.screenPoint != touches[i].lastScreenPoint { moved = true }
        }
        if count > 0 {
            localCentroid = Point(local.x / count, local.y / count)
            screenCentroid = Point(screen.x / count, screen.y / count)
        }
        if ended { return .end }
        return moved ? .change : .none
    }

    /// Adds the participants' mean move in this step to `translation`, and sets `velocity`.
    /// Returns whether anything moved.
    @inline(__always)
    private mutating func accumulate(_ touches: [GestureTouch], now: UInt64) -> Bool {
        var local = Point(0, 0)
        var screen = Point(0, 0)
        var count = 0.0
        for i in touches.indices where touches[i].touch.phase != .began && participants.contains(touches[i].touch.id) {
            local = Point(
                local.x + touches[i].touch.localPoint.x - touches[i].lastLocalPoint.x,
                local.y + touches[i].touch.localPoint.y - touches[i].lastLocalPoint.y)
            screen = Point(
                screen.x + touches[i].touch.screenPoint.x - touches[i].lastScreenPoint.x,
                screen.y + touches[i].touch.screenPoint.y - touches[i].lastScreenPoint.y)
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

    private mutating func observePan(_ touches: [GestureTouch], _ physical: PhysicalScale, _ now: UInt64)
        -> RecogniserRequest
    {
        let moved = accumulate(touches, now: now)
        // Fingers join while there is room; more than the maximum before it begins fails it.
        for i in touches.indices where touches[i].touch.phase == .began && !participants.contains(touches[i].touch.id) {
            if state == .possible || participants.count < spec.maximumFingers {
                if participants.isEmpty { sequenceStartMicros = now }
                participants.append(touches[i].touch.id)
            }
        }
        let seen = survey(touches, movementMM: nil, physical)
        let down = seen.down
        setCentroid(seen)
        if state == .possible {
            if down > spec.maximumFingers || down == 0 { return .fail }
            if down >= spec.minimumFingers
                && physical.millimetres(dx: screenTranslation.x, dy: screenTranslation.y) >= spec.distanceMM
            {
                return .begin
            }
            return .none
        }
        if down < spec.minimumFingers { return .end }
        return moved ? .change : .none
    }

    private mutating func observeSwipe(_ touches: [GestureTouch], _ physical: PhysicalScale, _ now: UInt64)
        -> RecogniserRequest
    {
        _ = accumulate(touches, now: now)
        let wasEmpty = participants.isEmpty
        join(touches, now: now)
        if wasEmpty && !participants.isEmpty { deadlineMicros = now + spec.maximumDurationMicros }
        let seen = survey(touches, movementMM: nil, physical)
        mostFingers = max(mostFingers, seen.present)
        if mostFingers > spec.fingers { return .fail }
        setCentroid(seen)
        let distance = physical.millimetres(dx: screenTranslation.x, dy: screenTranslation.y)
        if mostFingers == spec.fingers && distance >= spec.distanceMM {
            guard let direction = Self.direction(of: screenTranslation, physical), spec.directions.contains(direction)
            else { return .fail }
            self.direction = direction
            return .recognize
        }
        return seen.down == 0 ? .fail : .none
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

    private mutating func observePair(_ touches: [GestureTouch], _ physical: PhysicalScale, _ now: UInt64)
        -> RecogniserRequest
    {
        join(touches, now: now)
        if state == .possible {
            // Fewer than two fingers down: no pair to measure (what the search below would find).
            var down = 0
            for i in touches.indices where touches[i].isDown && participants.contains(touches[i].touch.id) { down += 1 }
            if down == 0 { return .fail }
            if down < 2 {
                pair = nil
                return .none
            }
        }
        var first: GestureTouch?
        var second: GestureTouch?
        for touch in touches where takesPart(touch) {
            if let pair, touch.touch.id != pair.0 && touch.touch.id != pair.1 { continue }
            if !touch.isDown && pair == nil { continue }
            if first == nil { first = touch } else if second == nil { second = touch }
        }
        if state != .possible {
            // Active: ends when either finger of the pair lifts.
            guard let first, let second, first.isDown, second.isDown else { return .end }
            return updatePair(first, second, physical, now) ? .change : .none
        }
        guard let first, let second, first.isDown, second.isDown else {
            pair = nil
            return .none
        }
        if pair == nil {
            pair = (first.touch.id, second.touch.id)
            startSpanMM = physical.distanceMillimetres(first.touch.screenPoint, second.touch.screenPoint)
            lastAngle = Self.angle(first, second, physical)
            scale = 1
            rotation = 0
            sequenceStartMicros = now
            return .none
        }
        _ = updatePair(first, second, physical, now)
        if spec.kind == .pinch {
            let span = physical.distanceMillimetres(first.touch.screenPoint, second.touch.screenPoint)
            return abs(span - startSpanMM) >= spec.distanceMM && startSpanMM > 0 ? .begin : .none
        }
        return abs(rotation) >= spec.angleDegrees * .pi / 180 ? .begin : .none
    }

    /// New scale and rotation of the pair; whether either changed.
    private mutating func updatePair(
        _ first: GestureTouch, _ second: GestureTouch, _ physical: PhysicalScale, _ now: UInt64
    ) -> Bool {
        localCentroid = Point(
            (first.touch.localPoint.x + second.touch.localPoint.x) / 2,
            (first.touch.localPoint.y + second.touch.localPoint.y) / 2)
        screenCentroid = Point(
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
