/// One recogniser of one view: its kind's rule (`TapRule`, `LongPressRule`, `PanRule`,
/// `SwipeRule`, `PinchRule`, `RotateRule`, one file each) and UIKit's state. The rule says what it
/// wants after each step or deadline; whether it gets it is arbitration's (GestureArbitration.swift).

/// What a rule asks for after looking at a step's touches (or at its deadline).
enum RecogniserRequest {
    case none, fail, begin, change, end, cancel, recognize
}

/// A gesture kind's state and rule: what it observes, when it begins, changes, ends or fails, its
/// deadline and its payload. A fresh value (`init`) is a recogniser with nothing seen yet.
protocol GestureRule: Sendable {
    init(_ spec: GestureSpec)
    /// The touches it follows, in began order, and their centroid when last seen.
    var followed: Followed { get }
    /// When it changes state without new input, if it waits for that.
    var deadlineMicros: UInt64? { get }
    /// Waiting for nothing (a tap: no tap counted either).
    var isIdle: Bool { get }
    /// Looks at one step's touches of the view (every live one, plus those that ended in it),
    /// `state` being the recogniser's (`possible`, or `began`/`changed` once recognised).
    /// Cost: the view's touches × the touches it follows.
    mutating func observe(
        _ touches: [GestureTouch], state: GestureState, _ physical: PhysicalScale, now: UInt64
    ) -> RecogniserRequest
    /// Its deadline passed while it is possible and not waiting for a blocker.
    mutating func deadlinePassed(_ touches: [GestureTouch]) -> RecogniserRequest
    /// Sets the kind's fields of an event it sends at `now`.
    func describe(_ event: inout GestureEvent, now: UInt64)
}

extension GestureRule {
    var deadlineMicros: UInt64? { nil }
    var isIdle: Bool { deadlineMicros == nil }
    mutating func deadlinePassed(_ touches: [GestureTouch]) -> RecogniserRequest { .none }
}

/// A recogniser: a rule, its place among the view's recognisers, and its state.
struct Recogniser: Sendable {
    let spec: GestureSpec
    /// Position in the view's `gestures` list.
    let index: Int
    /// Who it waits for and whom it excludes (`GestureArbitration.links`).
    let links: RecogniserLinks
    var state: GestureState = .possible
    /// Would recognise, but a blocker has not failed yet: waits, ignoring touches.
    var pending = false
    var rule: any GestureRule
    /// The rule's deadline as of its last call, stored: the view reads it every step, and reading
    /// it through the existential copied the whole recogniser, retains included (perf: most of the
    /// daemon's retains with every kind on; reading it stored took the 1 kHz gesture rows of
    /// `touchrouter-bench latency` from 1.8× to 1.5× the stamp-to-written p50 without gestures).
    private(set) var ruleDeadlineMicros: UInt64?

    init(spec: GestureSpec, index: Int, links: RecogniserLinks) {
        self.spec = spec
        self.index = index
        self.links = links
        rule =
            switch spec.kind {
            case .tap: TapRule(spec)
            case .longPress: LongPressRule(spec)
            case .pan: PanRule(spec)
            case .swipe: SwipeRule(spec)
            case .pinch: PinchRule(spec)
            case .rotate: RotateRule(spec)
            }
    }

    /// The same recogniser with nothing seen (a new sequence of touches after it ended).
    mutating func startOver() {
        self = Recogniser(spec: spec, index: index, links: links)
    }

    /// The rule's deadline while it counts: possible and not waiting for a blocker.
    var deadlineMicros: UInt64? { state == .possible && !pending ? ruleDeadlineMicros : nil }

    /// Waiting for nothing, or ended: with no touch down, nothing can change it.
    var isIdleOrEnded: Bool { state.isTerminal || (state == .possible && !pending && rule.isIdle) }

    /// Follows touches or waits for something: what a rival's grant fails.
    var hasStarted: Bool { pending || !rule.isIdle || !rule.followed.isEmpty }

    var isActive: Bool { state == .began || state == .changed }

    /// One step: a cancelled touch it follows fails or cancels it; else its rule decides.
    mutating func observe(_ touches: [GestureTouch], _ physical: PhysicalScale, now: UInt64) -> RecogniserRequest {
        for touch in touches where touch.touch.phase == .cancelled && rule.followed.contains(touch.id) {
            return state == .possible ? .fail : .cancel
        }
        let request = rule.observe(touches, state: state, physical, now: now)
        ruleDeadlineMicros = rule.deadlineMicros
        return request
    }

    /// Its deadline passed (only while it counts: `deadlineMicros`).
    mutating func deadlinePassed(_ touches: [GestureTouch]) -> RecogniserRequest {
        let request = rule.deadlinePassed(touches)
        ruleDeadlineMicros = rule.deadlineMicros
        return request
    }

    /// Its event at `now`: the touches it follows that are still among the view's (all of them
    /// when none is), their centroid, and its kind's fields.
    /// (`mutating` only so that `self` is passed by reference: called on an array element, a
    /// non-mutating call copied the recogniser first, retains included.)
    mutating func event(_ state: GestureState, now: UInt64, viewID: String, screen: String, touches: [GestureTouch])
        -> GestureEvent
    {
        let followed = rule.followed
        var ids = followed.ids
        // Filtered only when one has gone: otherwise the event shares the rule's list.
        if ids.contains(where: { id in !touches.contains { $0.id == id } }) {
            ids.removeAll { id in !touches.contains { $0.id == id } }
            if ids.isEmpty { ids = followed.ids }
        }
        var event = GestureEvent(
            viewID: viewID, screen: screen, kind: spec.kind, recogniserIndex: index, state: state,
            timestampMicros: now, touchIDs: ids, localPoint: followed.localCentroid,
            screenPoint: followed.screenCentroid)
        rule.describe(&event, now: now)
        return event
    }
}
