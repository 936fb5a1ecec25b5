/// One view's recognisers and touches, and UIKit's arbitration between them: one recognises at a
/// time (pinch and rotate together), a tap waits for the view's taps with more taps to fail, a
/// non-`exclusive` recogniser neither blocks nor is blocked.
struct ViewGestures {
    private(set) var viewID: String
    var screen: String
    var recognisers: [Recogniser]
    /// The view's touches: every live one, plus those that ended in the step being processed.
    var touches: [GestureTouch] = []
    var physicalScale: PhysicalScale = .fallback
    /// Every state change, `failed` included, when the stage records them (tests).
    var recordsTransitions = false
    /// The devices of the touches (a touch keeps the id only), for messages a deadline builds.
    var devices: [InputDevice] = []
    /// Per recogniser, the touch ids its last event carried: the next event shares the array
    /// while they are the same, and refills it in place otherwise (no allocation once the event
    /// that held it was delivered).
    private var eventTouchIDs: [[UInt64]] = []
    /// Per recogniser, `membership` when its `eventTouchIDs` were computed.
    private var eventTouchIDsMembership: [UInt64] = []
    /// Bumped whenever `touches` gains or loses one (never reset, not even on reuse): while it
    /// and a recogniser's participants are unchanged, so are the ids its events name.
    private var membership: UInt64 = 0

    init(viewID: String, screen: String, recognisers: [Recogniser]) {
        self.viewID = viewID
        self.screen = screen
        self.recognisers = recognisers
    }

    /// This released state made another view's (or the same one's again): `recognisers` as
    /// fresh as the template, every array's storage kept, so a touch down allocates nothing.
    /// Cost: the recognisers copied (plain bytes: a recogniser holds no reference).
    mutating func reuse(viewID: String, screen: String, recognisers template: [Recogniser]) {
        self.viewID = viewID
        self.screen = screen
        touches.removeAll(keepingCapacity: true)
        membership &+= 1
        devices.removeAll(keepingCapacity: true)
        physicalScale = .fallback
        recognisers.removeAll(keepingCapacity: true)
        recognisers.append(contentsOf: template)
    }

    /// A view's recognisers for `specs`, the automatic require(toFail:) links made: built once
    /// per config, copied into a view's state when its first touch begins.
    static func recognisers(for specs: [GestureSpec]) -> [Recogniser] {
        var recognisers = specs.enumerated().map { Recogniser(spec: $1, index: $0) }
        for index in recognisers.indices where specs[index].kind == .tap && specs[index].exclusive {
            let spec = specs[index]
            recognisers[index].blockers = RecogniserMask(
                specs.indices.filter {
                    specs[$0].kind == .tap && specs[$0].exclusive && specs[$0].fingers == spec.fingers
                        && specs[$0].taps > spec.taps
                })
        }
        return recognisers
    }

    /// Nothing down, nothing waiting: the state can be dropped.
    var isIdle: Bool {
        guard touches.isEmpty else { return false }
        for index in recognisers.indices where !recognisers[index].isIdle { return false }
        return true
    }

    /// The earliest deadline of any recogniser.
    var nextDeadlineMicros: UInt64? {
        // By index: iterating would copy each recogniser (and retain its arrays).
        var earliest: UInt64?
        for index in recognisers.indices {
            if let deadline = recognisers[index].deadlineMicros, deadline < (earliest ?? .max) { earliest = deadline }
        }
        return earliest
    }

    // MARK: - Steps

    /// How a step left the view: idle (its state can go), else its earliest deadline (`.max`: none).
    struct StepEnd {
        var isIdle: Bool
        var deadlineMicros: UInt64
    }

    /// Where the view stands now. Cost: one pass over the recognisers.
    /// (`mutating get`: `self` by reference; a plain getter called from a mutating method copies
    /// the state, retaining its arrays. The same for `excludes` and `earliestDeadline`.)
    var end: StepEnd {
        mutating get {
            var idle = touches.isEmpty
            var earliest = UInt64.max
            for index in recognisers.indices {
                if !recognisers[index].isIdle { idle = false }
                if let deadline = recognisers[index].deadlineMicros, deadline < earliest { earliest = deadline }
            }
            return StepEnd(isIdle: idle, deadlineMicros: idle ? .max : earliest)
        }
    }

    /// One tracker message of this view: records the touches, lets every recogniser look, and
    /// appends the gesture events and the view's raw message (minus what gestures took).
    /// Cost: recognisers × touches of the view.
    /// Returns whether the view is idle afterwards, and its next deadline.
    @discardableResult
    mutating func step(_ batch: ViewTouches, scale: PhysicalScale, into output: inout GestureOutput) -> StepEnd {
        screen = batch.screen
        physicalScale = scale
        let now = batch.timestampMicros
        // By index: iterating would copy each routed touch (and retain its device's name).
        for position in batch.touches.indices {
            if let index = touchIndex(of: batch.touches[position].id) {
                touches[index].lastScreenPoint = touches[index].touch.screenPoint
                touches[index].lastLocalPoint = touches[index].touch.localPoint
                touches[index].touch = TouchSample(batch.touches[position])
            } else if batch.touches[position].phase == .began {
                touches.append(GestureTouch(batch.touches[position]))
                membership &+= 1
                let device = batch.touches[position].device
                if !devices.contains(where: { $0.id == device.id }) { devices.append(device) }
                claimIfJoiningActive(touches.count - 1)
            }
        }
        for index in recognisers.indices {
            // One that ended or waits is skipped by a read: no mutable access, no uniqueness check.
            if recognisers[index].state.isTerminal || recognisers[index].pending { continue }
            let request = recognisers[index].observe(touches, scale: scale, now: now)
            apply(request, to: index, now: now, into: &output)
        }
        appendRaw(batch, into: &output)
        endStep()
        return end
    }

    /// The device of a touch of the view (registered at its began).
    private func device(_ id: UInt32) -> InputDevice {
        for device in devices where device.id == id { return device }
        return InputDevice(id: id, name: "")
    }

    @inline(__always)
    private func touchIndex(of id: UInt64) -> Int? {
        for index in touches.indices where touches[index].touch.id == id { return index }
        return nil
    }

    /// Fires every deadline up to `now`, earliest first, each at its own time; returns where the
    /// view stands then.
    @discardableResult
    mutating func fireDeadlines(upTo now: UInt64, into output: inout GestureOutput) -> StepEnd {
        while let (index, deadline) = earliestDeadline(), deadline <= now {
            let claimedBefore = claimedCount
            let request = recognisers[index].deadlinePassed(touches)
            apply(request, to: index, now: deadline, into: &output)
            if claimedCount != claimedBefore {
                appendClaimedCancellations(timestampMicros: deadline, into: &output)
            }
            endStep(keepingTouches: true)
        }
        return end
    }

    private var claimedCount: Int {
        var count = 0
        for index in touches.indices where touches[index].claimed { count += 1 }
        return count
    }

    private mutating func earliestDeadline() -> (Int, UInt64)? {
        var best: (Int, UInt64)?
        for index in recognisers.indices {
            if let deadline = recognisers[index].deadlineMicros, deadline < (best?.1 ?? .max) {
                best = (index, deadline)
            }
        }
        return best
    }

    /// Ends every recogniser of the view now (a reload changed or removed its gestures): active
    /// ones are `cancelled`, the others fail; the touches stay as they are (claimed ones stay taken).
    mutating func cancelRecognisers(timestampMicros: UInt64, into output: inout GestureOutput) {
        for index in recognisers.indices where !recognisers[index].state.isTerminal {
            let active = recognisers[index].state == .began || recognisers[index].state == .changed
            apply(active ? .cancel : .fail, to: index, now: timestampMicros, into: &output)
        }
    }

    /// New recognisers (a reload changed the view's gestures): they sit out the touches already
    /// down, and start with the next sequence.
    mutating func adopt(_ specs: [GestureSpec]) {
        recognisers = Self.recognisers(for: specs)
        guard !touches.isEmpty else { return }
        for index in recognisers.indices { recognisers[index].state = .failed }
    }

    /// A touch that begins while a `cancelsTouches` pan is active and joins it belongs to the pan
    /// from the start: raw clients never see it.
    private mutating func claimIfJoiningActive(_ touchIndex: Int) {
        // By index: iterating would copy each recogniser.
        for index in recognisers.indices
        where recognisers[index].spec.kind == .pan && recognisers[index].spec.cancelsTouches
            && (recognisers[index].state == .began || recognisers[index].state == .changed)
            && recognisers[index].participants.count < recognisers[index].spec.maximumFingers
        {
            touches[touchIndex].claimed = true
            touches[touchIndex].cancellationSent = true
            return
        }
    }

    private mutating func endStep(keepingTouches: Bool = false) {
        if !keepingTouches && touches.contains(where: { !$0.isDown }) {
            touches.removeAll { !$0.isDown }
            membership &+= 1
        }
        guard touches.isEmpty else { return }
        devices.removeAll(keepingCapacity: true)
        for index in recognisers.indices where recognisers[index].state.isTerminal {
            recognisers[index].reset()
        }
    }

    // MARK: - Arbitration

    private static func arePartners(_ a: RecogniserSettings, _ b: RecogniserSettings) -> Bool {
        (a.kind == .pinch && b.kind == .rotate) || (a.kind == .rotate && b.kind == .pinch)
    }

    /// Whether `other` keeps `index` from recognising, or is kept by it: both exclusive, not pinch
    /// and rotate.
    private mutating func excludes(_ index: Int, _ other: Int) -> Bool {
        let a = recognisers[index].spec
        let b = recognisers[other].spec
        return other != index && a.exclusive && b.exclusive && !Self.arePartners(a, b)
    }

    private mutating func apply(
        _ request: RecogniserRequest, to index: Int, now: UInt64, into output: inout GestureOutput
    ) {
        switch request {
        case .none: return
        case .fail: fail(index, now: now, into: &output)
        case .change: move(index, to: .changed, now: now, into: &output)
        case .end: move(index, to: .ended, now: now, into: &output)
        case .cancel: move(index, to: .cancelled, now: now, into: &output)
        case .begin, .recognize:
            let target: GestureState = request == .begin ? .began : .recognized
            for other in recognisers.indices where excludes(index, other) {
                let state = recognisers[other].state
                if state != .possible && state != .failed {
                    // Another one already recognised in this sequence.
                    return fail(index, now: now, into: &output)
                }
            }
            var waits = false
            for blocker in recognisers[index].blockers {
                switch recognisers[blocker].state {
                case .failed: continue
                case .possible: waits = true
                default: return fail(index, now: now, into: &output)
                }
            }
            if waits {
                recognisers[index].pending = true
                recognisers[index].deadlineMicros = nil
                return
            }
            grant(index, target, now: now, into: &output)
        }
    }

    private mutating func grant(_ index: Int, _ state: GestureState, now: UInt64, into output: inout GestureOutput) {
        recognisers[index].pending = false
        recognisers[index].deadlineMicros = nil
        move(index, to: state, now: now, into: &output)
        if recognisers[index].spec.cancelsTouches {
            for touchIndex in touches.indices where recognisers[index].takesPart(touches[touchIndex]) {
                touches[touchIndex].claimed = true
            }
        }
        // The others that are following touches fail; one with nothing started has nothing to fail.
        for other in recognisers.indices
        where excludes(index, other) && recognisers[other].state == .possible
            && !(recognisers[other].isIdle && recognisers[other].participants.isEmpty)
        {
            fail(other, now: now, into: &output)
        }
    }

    private mutating func fail(_ index: Int, now: UInt64, into output: inout GestureOutput) {
        guard recognisers[index].state == .possible else { return }
        recognisers[index].pending = false
        recognisers[index].deadlineMicros = nil
        move(index, to: .failed, now: now, into: &output)
        // A tap waiting only on this one may recognise now.
        for waiter in recognisers.indices
        where recognisers[waiter].pending && recognisers[waiter].blockers.contains(index)
            && recognisers[waiter].blockers.allSatisfy({ recognisers[$0].state == .failed })
        {
            recognisers[waiter].pending = false
            apply(.recognize, to: waiter, now: now, into: &output)
        }
    }

    private mutating func move(_ index: Int, to state: GestureState, now: UInt64, into output: inout GestureOutput) {
        recognisers[index].state = state
        guard state != .failed || recordsTransitions else { return }
        appendEvent(index, state, now: now, into: &output)
    }

    /// The touches an event of recogniser `index` names: its participants still here (all of
    /// them when none is), in began order, in the array the recogniser's last event had.
    private mutating func eventIDs(_ index: Int) -> [UInt64] {
        // The touches and the participants as when the array was made: it still holds.
        if index < eventTouchIDs.count && eventTouchIDsMembership[index] == membership
            && Self.holds(eventTouchIDs[index], recognisers[index].participants)
        {
            return eventTouchIDs[index]
        }
        let participants = recognisers[index].participants
        var wanted = TouchIDList()
        for position in 0..<participants.count where touchIndex(of: participants[position]) != nil {
            wanted.append(participants[position])
        }
        if wanted.isEmpty { wanted = participants }
        while eventTouchIDs.count <= index {
            eventTouchIDs.append([])
            eventTouchIDsMembership.append(0)
        }
        eventTouchIDsMembership[index] = membership
        if Self.holds(eventTouchIDs[index], wanted) { return eventTouchIDs[index] }
        eventTouchIDs[index].removeAll(keepingCapacity: true)
        for position in 0..<wanted.count { eventTouchIDs[index].append(wanted[position]) }
        return eventTouchIDs[index]
    }

    private static func holds(_ ids: [UInt64], _ list: TouchIDList) -> Bool {
        guard ids.count == list.count else { return false }
        for position in 0..<list.count where ids[position] != list[position] { return false }
        return true
    }

    /// Appends recogniser `index`'s event, built in place in the output (the event is large:
    /// copying it around costs more than filling it).
    private mutating func appendEvent(
        _ index: Int, _ state: GestureState, now: UInt64, into output: inout GestureOutput
    ) {
        let ids = eventIDs(index)
        let kind = recognisers[index].spec.kind
        output.gestures.append(
            GestureEvent(
                viewID: viewID, screen: screen, kind: kind, recogniserIndex: index, state: state,
                timestampMicros: now, touchIDs: ids, localPoint: recognisers[index].localCentroid,
                screenPoint: recognisers[index].screenCentroid))
        let last = output.gestures.count - 1
        let duration = now - min(now, recognisers[index].sequenceStartMicros)
        switch kind {
        case .tap: output.gestures[last].taps = recognisers[index].tapsDone
        case .longPress: output.gestures[last].durationMicros = duration
        case .pan:
            output.gestures[last].translation = recognisers[index].translation
            output.gestures[last].velocity = recognisers[index].velocity
        case .swipe:
            output.gestures[last].direction = recognisers[index].direction
            output.gestures[last].translation = recognisers[index].translation
            output.gestures[last].velocity = recognisers[index].velocity
            output.gestures[last].durationMicros = duration
        case .pinch:
            output.gestures[last].scale = recognisers[index].scale
            output.gestures[last].scaleVelocity = recognisers[index].scaleVelocity
        case .rotate:
            output.gestures[last].rotation = recognisers[index].rotation
            output.gestures[last].rotationVelocity = recognisers[index].rotationVelocity
        }
    }

    // MARK: - Raw touches

    /// The tracker's message of this view minus what gestures took: a claimed touch is delivered
    /// once more as `cancelled` (reason `gesture`), then never again. Nothing when nothing is left.
    private mutating func appendRaw(_ batch: ViewTouches, into output: inout GestureOutput) {
        // Most messages change nothing: pass them on as they are (no copy).
        var changes = 0
        var kept = 0
        for position in batch.touches.indices {
            guard let index = touchIndex(of: batch.touches[position].id), touches[index].claimed else {
                kept += 1
                continue
            }
            if !touches[index].cancellationSent { changes += 1 }
        }
        if kept == batch.touches.count { return output.touches.append(batch) }
        if kept == 0 && changes == 0 { return }
        var filtered = ViewTouches(
            viewID: batch.viewID, screen: batch.screen, timestampMicros: batch.timestampMicros, touches: [])
        filtered.touches.reserveCapacity(kept + changes)
        for routed in batch.touches {
            guard let index = touchIndex(of: routed.id), touches[index].claimed else {
                filtered.touches.append(routed)
                continue
            }
            guard !touches[index].cancellationSent else { continue }
            touches[index].cancellationSent = true
            var cancelled = routed
            cancelled.phase = .cancelled
            cancelled.cancelReason = .gesture
            filtered.touches.append(cancelled)
        }
        output.touches.append(filtered)
    }

    /// A deadline made a gesture take touches (a long press began): their `cancelled` (reason
    /// `gesture`), with the view's other live touches as `stationary`, in one message.
    private mutating func appendClaimedCancellations(timestampMicros: UInt64, into output: inout GestureOutput) {
        var message = ViewTouches(viewID: viewID, screen: screen, timestampMicros: timestampMicros, touches: [])
        for index in touches.indices where touches[index].isDown {
            var routed = touches[index].touch.routed(device: device(touches[index].touch.deviceID))
            if touches[index].claimed {
                guard !touches[index].cancellationSent else { continue }
                touches[index].cancellationSent = true
                routed.phase = .cancelled
                routed.cancelReason = .gesture
                routed.timestampMicros = timestampMicros
            } else {
                routed.phase = .stationary
            }
            routed.previousLocalPoint = routed.localPoint
            message.touches.append(routed)
        }
        if message.touches.contains(where: { $0.phase == .cancelled }) { output.touches.append(message) }
    }
}
