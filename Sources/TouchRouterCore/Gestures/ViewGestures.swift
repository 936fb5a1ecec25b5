/// One view's recognisers and touches, and UIKit's arbitration between them: one recognises at a
/// time (pinch and rotate together), a tap waits for the view's taps with more taps to fail, a
/// non-`exclusive` recogniser neither blocks nor is blocked.
struct ViewGestures {
    private(set) var viewID: String
    var screen: String
    /// The view's slot in the stage (and in its output's tables, which its records name).
    var slot: Int
    /// In one block written in place (`PlainBlock`): made unique by each mutating entry point
    /// below (`step`, `fireDeadlines`, `cancelRecognisers`, `reuse`) before any write
    /// (`makeUnique()`; `adopt` makes a new one).
    var recognisers: PlainBlock<Recogniser>
    /// Which of the stage's distinct gesture lists `recognisers` were made from (`-1`: none the
    /// stage knows now): a released state reused for a view with the same list is reset in place.
    var templateID = -1
    /// Every recogniser is as the template made it (a state just made or reused): the first step
    /// need not look for ended ones to reset. Cleared by that step.
    private var isFresh = true
    /// The view's touches: every live one, plus those that ended in the step being processed.
    var touches: [GestureTouch] = []
    /// How many of `touches` a gesture took (`claimed`), kept as they are claimed and leave: a
    /// message of a view with none passes on without a look at its touches (`appendRaw`).
    private(set) var claimedCount = 0
    var physicalScale: PhysicalScale = .fallback
    /// Every state change, `failed` included, when the stage records them (tests).
    var recordsTransitions = false
    /// The devices of the touches (a touch keeps the id only), for messages a deadline builds.
    /// Kept from one sequence of touches to the next and when the state is reused (a kiosk's
    /// views see the same panel again and again: emptying and refilling the list per touch cost
    /// about 180 instructions), at most `deviceLimit` (`noteDevice`).
    var devices: [InputDevice] = []
    static let deviceLimit = 8

    init(viewID: String, screen: String, slot: Int, recognisers: [Recogniser]) {
        self.viewID = viewID
        self.screen = screen
        self.slot = slot
        self.recognisers = PlainBlock(recognisers)
    }

    /// The recognisers' block this state's own before it writes them (copy-on-write: a copied
    /// state shares it). Cost: one reference-count test.
    @inline(__always)
    private mutating func makeUnique() {
        PlainBlock.makeUnique(&recognisers)
    }

    /// This parked state's own view touched again: as `reuse` with the view's own list (each
    /// recogniser reset in place: its recognisers were made from the view's list, `templateID`,
    /// since the stage empties parked states into its pool when a reload renumbers the lists), the
    /// view's id as it is (a parked state stays in its view's slot), the screen read from the
    /// view's message in place (passing the ids retained and released both).
    mutating func restart(_ batches: [ViewTouches], at batch: Int, templateID: Int) {
        assert(templateID == self.templateID, "a parked state reused for another gesture list")
        if screen != batches[batch].screen { screen = batches[batch].screen }
        startAfresh()
        for index in recognisers.indices { recognisers[index].reset() }
    }

    /// No touch, nothing claimed, every recogniser to be reset: what `reuse` and `restart` share.
    @inline(__always)
    private mutating func startAfresh() {
        makeUnique()
        // Released idle, so normally empty already (removing nothing still costs a call each).
        if !touches.isEmpty { touches.removeAll(keepingCapacity: true) }
        claimedCount = 0
        physicalScale = .fallback
        isFresh = true
    }

    /// This released state made another view's (or the same one's again): `recognisers` as
    /// fresh as the template, every array's storage kept, so a touch down allocates nothing.
    /// Cost: when the state's recognisers came from the same gesture list (`templateID`), each one
    /// reset in place (`Recogniser.reset`: a store per field); else the template copied (plain
    /// bytes: a recogniser holds no reference). The ids are stored only when they differ. (A view's
    /// own parked state is `restart`ed instead.)
    mutating func reuse(
        viewID: String, screen: String, slot: Int, templateID: Int, recognisers template: [Recogniser]
    ) {
        if self.viewID != viewID { self.viewID = viewID }
        if self.screen != screen { self.screen = screen }
        self.slot = slot
        startAfresh()
        if templateID == self.templateID && recognisers.count == template.count {
            for index in recognisers.indices { recognisers[index].reset() }
            return
        }
        self.templateID = templateID
        recognisers.refill(from: template)  // one block copy (element-wise costs more)
    }

    /// A view's recognisers for `specs`, the automatic require(toFail:) links made and each one's
    /// waiters and rivals noted (so arbitration reads masks, not every recogniser): built once
    /// per config, copied into a view's state when its first touch begins. Cost: recognisers².
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
        var claimingPans = RecogniserMask()
        for index in recognisers.indices where specs[index].kind == .pan && specs[index].cancelsTouches {
            claimingPans.insert(index)
        }
        for index in recognisers.indices {
            recognisers[index].claimingPans = claimingPans
            for other in recognisers.indices {
                if recognisers[other].blockers.contains(index) { recognisers[index].waiters.insert(other) }
                let a = recognisers[index].spec
                let b = recognisers[other].spec
                if other != index && a.exclusive && b.exclusive && !arePartners(a, b) {
                    recognisers[index].rivals.insert(other)
                }
            }
        }
        return recognisers
    }

    // MARK: - Steps

    /// How a step left the view: idle (its state can go), else its earliest deadline (`.max`: none).
    struct StepEnd {
        var isIdle: Bool
        var deadlineMicros: UInt64
    }

    /// Where the view stands now. Cost: one pass over the recognisers for the earliest deadline,
    /// and, with no touch down, one that stops at the first busy recogniser.
    /// (`mutating get`: `self` by reference; a plain getter called from a mutating method copies
    /// the state, retaining its arrays. The same for `earliestDeadline`.)
    var end: StepEnd {
        mutating get { end(earliest: earliestDeadline().micros) }
    }

    /// Where the view stands, its earliest deadline known.
    @inline(__always)
    private mutating func end(earliest: UInt64) -> StepEnd {
        idleNow() ? StepEnd(isIdle: true, deadlineMicros: .max) : StepEnd(isIdle: false, deadlineMicros: earliest)
    }

    /// Nothing down, nothing waiting: the state can be parked or dropped. No touch down (then no
    /// recogniser is asked), and each recogniser idle or ended (stopping at the first that is
    /// not: one that ended is reset only when the view's next touch comes, so with no touch down
    /// it counts as idle).
    private mutating func idleNow() -> Bool {
        guard touches.isEmpty else { return false }
        for index in recognisers.indices where !recognisers[index].isIdleOrEnded { return false }
        return true
    }

    /// The earliest deadline of any recogniser (`.max`: none), and whose it is (the first of
    /// equal ones; -1: none). Cost: one read per recogniser.
    private mutating func earliestDeadline() -> (micros: UInt64, index: Int) {
        var earliest = UInt64.max
        var earliestIndex = -1
        for index in recognisers.indices {
            if let deadline = recognisers[index].deadlineMicros, deadline < earliest {
                earliest = deadline
                earliestIndex = index
            }
        }
        return (earliest, earliestIndex)
    }

    /// One tracker message of this view (`batches[batch]`, read in place: passing the message
    /// itself retained its strings and touches for the call): records the touches, lets every
    /// recogniser look, and appends the gesture records and the view's raw message (minus what
    /// gestures took). Cost: recognisers × touches of the view.
    /// Returns whether the view is idle afterwards, and its next deadline.
    @discardableResult
    mutating func step(
        _ batches: [ViewTouches], at batch: Int, scale: PhysicalScale, into output: inout GestureOutput
    ) -> StepEnd {
        if screen != batches[batch].screen {
            // Not expected (a view id names one view of one screen); the records follow it.
            screen = batches[batch].screen
            output.screens[slot] = screen
        }
        physicalScale = scale
        makeUnique()
        let now = batches[batch].timestampMicros
        if touches.isEmpty {
            if isFresh { isFresh = false } else { resetEnded() }
        }
        // By index: iterating would copy each routed touch (and retain its device's name).
        // A touch of the view is cancelled only in the step that says so (`endStep` drops it).
        var anyCancelled = false
        var ended = 0  // the view's touches that ended in this step
        for position in batches[batch].touches.indices {
            if batches[batch].touches[position].phase == .cancelled { anyCancelled = true }
            if let index = touchIndex(of: batches[batch].touches[position].id) {
                touches[index].lastScreenPoint = touches[index].touch.screenPoint
                touches[index].lastLocalPoint = touches[index].touch.localPoint
                touches[index].touch = TouchSample(batches[batch].touches[position])
                if !touches[index].isDown { ended += 1 }
            } else if batches[batch].touches[position].phase == .began {
                touches.append(GestureTouch(batches[batch].touches[position]))
                noteDevice(batches[batch].touches[position].device)
                claimIfJoiningActive(touches.count - 1)
            }
        }
        // Every touch of the view ended in this step: a recogniser that can only fail then
        // (`RecogniserSettings.failsWithNoTouchDown`) fails without running its rule.
        let noneDown = ended > 0 && ended == touches.count
        for index in recognisers.indices {
            // One that ended or waits is skipped by a read.
            if recognisers[index].state.isTerminal || recognisers[index].pending { continue }
            if noneDown && recognisers[index].spec.failsWithNoTouchDown && recognisers[index].state == .possible {
                fail(index, now: now, into: &output)
                continue
            }
            let request = recognisers[index].observe(touches, scale: scale, now: now, anyCancelled: anyCancelled)
            // Most steps ask nothing of most recognisers: no call then.
            if request != .none { apply(request, to: index, now: now, into: &output) }
        }
        appendRaw(batches, at: batch, into: &output)
        endStep()
        return end
    }

    /// Keeps a touch's device for `device(_:)`: nothing to do when it is known (the usual case), an
    /// entry with its id and another name replaced (an id given again), and the list emptied first
    /// when it holds `deviceLimit`. Cost: one pass over the few devices kept.
    private mutating func noteDevice(_ device: InputDevice) {
        if let index = devices.firstIndex(where: { $0.id == device.id }) {
            if devices[index].name != device.name { devices[index] = device }
            return
        }
        if devices.count >= Self.deviceLimit { devices.removeAll(keepingCapacity: true) }
        devices.append(device)
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
        makeUnique()
        while true {
            let (deadline, index) = earliestDeadline()
            guard index >= 0, deadline <= now else { return end(earliest: deadline) }
            // Only a grant takes touches (a long press that begins).
            let claimedBefore = claimedCount
            let request = recognisers[index].deadlinePassed(touches)
            apply(request, to: index, now: deadline, into: &output)
            if claimedCount != claimedBefore {
                appendClaimedCancellations(timestampMicros: deadline, into: &output)
            }
        }
    }

    /// Touch `touchIndex` taken by a gesture (`claimedCount` kept).
    @inline(__always)
    private mutating func claim(_ touchIndex: Int) {
        guard !touches[touchIndex].claimed else { return }
        touches[touchIndex].claimed = true
        claimedCount += 1
    }

    /// Ends every recogniser of the view now (a reload changed or removed its gestures): active
    /// ones are `cancelled`, the others fail; the touches stay as they are (claimed ones stay taken).
    mutating func cancelRecognisers(timestampMicros: UInt64, into output: inout GestureOutput) {
        makeUnique()
        for index in recognisers.indices where !recognisers[index].state.isTerminal {
            let active = recognisers[index].state == .began || recognisers[index].state == .changed
            apply(active ? .cancel : .fail, to: index, now: timestampMicros, into: &output)
        }
    }

    /// New recognisers (a reload changed the view's gestures): they sit out the touches already
    /// down, and start with the next sequence.
    mutating func adopt(_ specs: [GestureSpec]) {
        recognisers = PlainBlock(Self.recognisers(for: specs))
        templateID = -1
        guard !touches.isEmpty else { return }
        for index in recognisers.indices { recognisers[index].state = .failed }
    }

    /// A touch that begins while a `cancelsTouches` pan is active and joins it belongs to the pan
    /// from the start: raw clients never see it.
    /// Cost: one read per such pan (`claimingPans`, noted with the template), none without one.
    private mutating func claimIfJoiningActive(_ touchIndex: Int) {
        guard !recognisers.isEmpty else { return }
        for index in recognisers[0].claimingPans  // read in place (`first` would copy the recogniser)
        where (recognisers[index].state == .began || recognisers[index].state == .changed)
            && recognisers[index].participants.count < recognisers[index].spec.maximumFingers
        {
            claim(touchIndex)
            touches[touchIndex].cancellationSent = true
            return
        }
    }

    private mutating func endStep() {
        if let firstEnded = firstEndedTouch() {
            // The touches that ended leave, the others keep their order: one pass by index from the
            // first that ended (`removeAll(where:)` and its closure cost more at this size).
            var kept = firstEnded
            if touches[firstEnded].claimed { claimedCount -= 1 }
            for index in firstEnded + 1..<touches.count {
                guard touches[index].isDown else {
                    if touches[index].claimed { claimedCount -= 1 }
                    continue
                }
                touches[kept] = touches[index]
                kept += 1
            }
            // One at a time: `removeLast(_:)` is a generic range replacement, dearer for the one
            // or few touches that end in a step.
            while touches.count > kept { touches.removeLast() }
        }
        // When the last touch left, the ended recognisers are reset by the next step's first touch
        // (`resetEnded`), not here: most views go idle now or after their taps' deadline, and a
        // released state is refilled from the template anyway. The devices stay (`devices`).
    }

    /// The first of the view's touches that ended, if any: a read-only scan (most steps end none).
    @inline(__always)
    private func firstEndedTouch() -> Int? {
        for index in touches.indices where !touches[index].isDown { return index }
        return nil
    }

    /// A new sequence of touches starts (none was down): the recognisers that ended in the last
    /// one go back to `possible`. Cost: one read per recogniser, a reset per ended one.
    private mutating func resetEnded() {
        for index in recognisers.indices where recognisers[index].state.isTerminal {
            recognisers[index].reset()
        }
    }

    // MARK: - Arbitration

    private static func arePartners(_ a: RecogniserSettings, _ b: RecogniserSettings) -> Bool {
        (a.kind == .pinch && b.kind == .rotate) || (a.kind == .rotate && b.kind == .pinch)
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
            for other in recognisers[index].rivals {
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
                claim(touchIndex)
            }
        }
        // The others that are following touches fail; one with nothing started has nothing to fail.
        for other in recognisers[index].rivals
        where recognisers[other].state == .possible
            && !(recognisers[other].isIdle && recognisers[other].participants.isEmpty)
        {
            fail(other, now: now, into: &output)
        }
    }

    /// Inlined where it is called (a step fails most of a view's recognisers, each a few stores);
    /// what a failure may set off, a waiting tap recognising, is out of line.
    @inline(__always)
    private mutating func fail(_ index: Int, now: UInt64, into output: inout GestureOutput) {
        guard recognisers[index].state == .possible else { return }
        recognisers[index].pending = false
        recognisers[index].deadlineMicros = nil
        move(index, to: .failed, now: now, into: &output)
        if !recognisers[index].waiters.isEmpty { releaseWaiters(of: index, now: now, into: &output) }
    }

    /// Recogniser `index` failed: a tap waiting only on it (and on others that failed) recognises.
    private mutating func releaseWaiters(of index: Int, now: UInt64, into output: inout GestureOutput) {
        for waiter in recognisers[index].waiters
        where recognisers[waiter].pending
            && recognisers[waiter].blockers.allSatisfy({ recognisers[$0].state == .failed })
        {
            recognisers[waiter].pending = false
            apply(.recognize, to: waiter, now: now, into: &output)
        }
    }

    /// A recogniser's new state, and its record (a failure's only when failures are recorded).
    /// Inlined: with `fail`'s constant state, the test is one of `recordsTransitions`.
    @inline(__always)
    private mutating func move(_ index: Int, to state: GestureState, now: UInt64, into output: inout GestureOutput) {
        recognisers[index].state = state
        guard state != .failed || recordsTransitions else { return }
        appendEvent(index, state, now: now, into: &output)
    }

    /// Appends recogniser `index`'s event as a record (plain values: no retain, no allocation;
    /// the public event is made at delivery, for subscribers that asked for gestures).
    private mutating func appendEvent(
        _ index: Int, _ state: GestureState, now: UInt64, into output: inout GestureOutput
    ) {
        let touchStart = output.recordTouchIDs.count
        let touchCount = recognisers[index].appendEventIDs(present: touches, to: &output.recordTouchIDs)
        let duration = now - min(now, recognisers[index].sequenceStartMicros)
        var measure = Point(0, 0)
        var velocity = Point(0, 0)
        var number: UInt64 = 0
        let kind = recognisers[index].spec.kind
        switch kind {
        case .tap: number = UInt64(recognisers[index].tapsDone)
        case .longPress: number = duration
        case .pan, .swipe:
            measure = recognisers[index].translation
            velocity = recognisers[index].velocity
            number = duration
        case .pinch: measure = Point(recognisers[index].scale, recognisers[index].scaleVelocity)
        case .rotate: measure = Point(recognisers[index].rotation, recognisers[index].rotationVelocity)
        }
        output.records.append(
            GestureRecord(
                slot: slot, touchStart: touchStart, touchCount: touchCount, recogniserIndex: index, kind: kind,
                state: state, timestampMicros: now, localPoint: recognisers[index].localCentroid,
                screenPoint: recognisers[index].screenCentroid, measure: measure, velocity: velocity,
                number: number, direction: kind == .swipe ? recognisers[index].direction : nil))
    }

    // MARK: - Raw touches

    /// The tracker's message of this view minus what gestures took: a claimed touch is delivered
    /// once more as `cancelled` (reason `gesture`), then never again. Nothing when nothing is left.
    private mutating func appendRaw(_ batches: [ViewTouches], at batch: Int, into output: inout GestureOutput) {
        // Most messages change nothing: pass them on as they are (no copy), at once when the view
        // has no claimed touch.
        assert(claimedCount == touches.reduce(0) { $0 + ($1.claimed ? 1 : 0) }, "claimed touches miscounted")
        if claimedCount == 0 { return output.passUnchanged(batches, at: batch) }
        var changes = 0
        var kept = 0
        for position in batches[batch].touches.indices {
            guard let index = touchIndex(of: batches[batch].touches[position].id), touches[index].claimed else {
                kept += 1
                continue
            }
            if !touches[index].cancellationSent { changes += 1 }
        }
        if kept == batches[batch].touches.count { return output.passUnchanged(batches, at: batch) }
        output.stopDeferring(batches)  // the messages before this one go in first
        if kept == 0 && changes == 0 { return }
        var filtered = ViewTouches(
            viewID: batches[batch].viewID, screen: batches[batch].screen,
            timestampMicros: batches[batch].timestampMicros, touches: [])
        filtered.touches.reserveCapacity(kept + changes)
        for routed in batches[batch].touches {
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
