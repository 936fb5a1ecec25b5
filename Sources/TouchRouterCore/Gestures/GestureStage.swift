/// Gesture recognition per view, between the tracker and dispatch. Pure and deterministic: time
/// comes only from the input (frame times) and from `advance(to:)`; docs/gestures.md states the rules.

/// Recognises the gestures views declare, from the tracker's per-view messages.
///
/// Feed it every tracker output in order with `process(_:scale:timestampMicros:)` (frames,
/// device removals, reloads, shutdown: every cancellation the tracker makes reaches the recognisers
/// that way), and call `advance(to:)` when `nextDeadlineMicros` is due, so a long press begins and a
/// single tap waiting for a double tap is decided without any touch moving. A view without
/// gestures costs one dictionary lookup per message; with none configured at all, the daemon does
/// not call it (raw delivery is then exactly the tracker's). A view holds live recognition state
/// only while it has touches or something pending; then the state is parked in the view's slot for
/// its next touch (or, past the bound, dropped), at most `poolLimit` idle states kept in all.
public struct GestureStage: Sendable {
    /// The gestures by view id (`Config.viewGestures`).
    public private(set) var specsByView: [String: [GestureSpec]]
    /// Every view with gestures (and one whose gestures a reload removed while touched) → its slot
    /// in `templates`, `states` and `deadlines`.
    private var slotByView: [String: Int] = [:]
    /// The same for the hot path's look-ups, hashed more cheaply (ASCII ids; others go to the
    /// dictionary).
    private var slotIndex = ViewSlotIndex(capacity: 0)
    /// Per slot, the view's recognisers as configured (built once per config).
    private var templates: [[Recogniser]] = []
    /// Per slot, which distinct gesture list the view has (views with equal lists share one
    /// template): a released state reused for a view of the same list is reset in place, not
    /// refilled (`ViewGestures.reuse`).
    private var templateIDs: [Int] = []
    /// The distinct gesture lists of this config, each numbered by the first slot that has it.
    private var templateIDBySpecs: [[GestureSpec]: Int] = [:]
    /// Per slot, the view's state while it has touches or something pending (in an array so a
    /// step mutates it in place), or its idle state parked there for its next touch; nil
    /// otherwise. Idle states, parked and pooled, are at most `poolLimit`: a kiosk touching
    /// thousands of views over a day holds state only for the few touched now and a few idle ones.
    private var states: [ViewGestures?] = []
    /// Per slot, what `states` holds: `Self.live` (-1) a live state, 0 none, and a parked state
    /// the ticket of its entry in `parkedOrder` (> 0). What the hot path tests (testing the
    /// optional itself copies the state out first); one array, so that parking and reusing a
    /// parked state each write one integer.
    private var slotStatus: [Int] = []
    static let live = -1
    /// The parked slots in the order they were parked, each with its ticket, from `parkedHead`
    /// on: the oldest is evicted first when a view without state needs one and the pool is empty.
    /// An entry whose ticket its slot no longer holds (the view was touched again, or parked anew
    /// with a newer ticket) is stale and skipped; the list is compacted when it reaches
    /// `2 × poolLimit` entries (at most `poolLimit` valid), so it stays bounded and a park costs an
    /// append (amortised).
    private var parkedOrder: [(slot: Int, ticket: Int)] = []
    private var parkedHead = 0
    private var nextTicket = 1
    /// Slots whose idle state is parked (valid entries of `parkedOrder`).
    private var parkedCount = 0
    /// Slots whose live state a reload gave new recognisers while touched (`ViewGestures.adopt`:
    /// not made from the slot's template): idle, such a state goes to the pool, not parked, so
    /// that every parked state is reset in place as its view's list. Empty but after such a
    /// reload (a release tests its count).
    private var adoptedSlots: [Int] = []
    /// Per slot, the earliest deadline of the view's state (`.max`: none, as for a parked one),
    /// kept by each step, so looking for the next deadline reads one integer per listed view.
    private var deadlines: [UInt64] = []
    /// Idle states not parked in a slot (a reload emptied the parked ones into it; a view that
    /// lost its slot gives its state here), their arrays' storage kept: a view touched without a
    /// state of its own takes one from here, else the oldest parked one, else a new one; so a
    /// touch down allocates nothing once as many states were made as views were ever touched at
    /// once. Pooled and parked together are at most `poolLimit`.
    private var pool: [ViewGestures] = []
    static let poolLimit = 32
    /// The slots holding a state, live or parked, in the order they got it, and their view ids at
    /// the same positions. The tracker sends a frame's messages in the same order frame after
    /// frame, so each message is first compared with the one after the previous message's (no
    /// hashing when it matches): a parked view stays listed where it was, so the same fingers
    /// coming down again find their views there. At most the live views plus `poolLimit`.
    private var activeSlots: [Int] = []
    private var activeViewIDs: [String] = []
    /// While deadlines fire: the due views in the order they fire (`fireDeadlines`); empty
    /// otherwise, its storage kept.
    private var dueSlots: [Int] = []
    /// Off while deadlines fire: a view whose state went stays in the active list until one pass
    /// drops every such view at the end (if any did: `leftWhileFiring`; views that park stay).
    private var releasesLeaveActiveList = true
    private var leftWhileFiring = false
    private var output = GestureOutput()
    /// The output's own storage for its touches, set aside while `output.touches` is the
    /// tracker's array itself (every message of the frame passed on unchanged).
    private var ownTouches: [ViewTouches] = []
    private var sharesTrackerMessages = false
    /// Tests: also report `failed` transitions as events (never sent to clients).
    public var recordsFailures = false

    /// A stage for these views' gestures.
    public init(viewGestures: [String: [GestureSpec]]) {
        specsByView = viewGestures
        slotIndex = ViewSlotIndex(capacity: viewGestures.count)
        for (viewID, specs) in viewGestures.sorted(by: { $0.key < $1.key }) {
            addSlot(viewID, specs: specs, state: nil)
        }
    }

    /// A slot for a view with these gestures; its template built only for a list not met before
    /// in this config (one hash of the list per view). Cost: the list hashed, and recognisers²
    /// for a new list.
    private mutating func addSlot(_ viewID: String, specs: [GestureSpec], state: ViewGestures?) {
        let slot = templates.count
        slotByView[viewID] = slot
        let templateID: Int
        if let known = templateIDBySpecs[specs] {
            templateID = known
            templates.append(templates[known])  // shares its storage
        } else {
            templateID = slot
            templateIDBySpecs[specs] = slot
            templates.append(ViewGestures.recognisers(for: specs))
        }
        templateIDs.append(templateID)
        var state = state
        state?.slot = slot  // a reload numbers the slots anew
        state?.templateID = templateID  // and the gesture lists
        states.append(state)
        slotStatus.append(state != nil ? Self.live : 0)
        deadlines.append(.max)
        output.viewIDs.append(viewID)
        slotIndex.insert(viewID, slot: slot, ids: output.viewIDs)
        output.screens.append(state?.screen ?? "")
    }

    /// No view has gestures.
    public var isEmpty: Bool { specsByView.isEmpty }

    /// Views with live recognition state now (touches down, or a tap or long press waiting): every
    /// other view's state is parked, pooled or dropped. Cost: linear in the views holding a state
    /// (live, or parked: at most `poolLimit` more).
    public var activeViewCount: Int { activeSlots.reduce(0) { $0 + (slotStatus[$1] == Self.live ? 1 : 0) } }

    /// Views holding live recognition state (a state not parked), counted slot by slot (tests: it
    /// equals `activeViewCount`, and goes back to 0 when nothing is down or pending). Cost: linear
    /// in the views with gestures.
    public var viewsWithState: Int {
        states.indices.reduce(0) { $0 + (states[$1] != nil && slotStatus[$1] <= 0 ? 1 : 0) }
    }

    /// Idle states kept for reuse, pooled and parked (at most `poolLimit`).
    var pooledStates: Int { pool.count + parkedCount }

    /// Idle states parked in their views' slots (tests).
    var parkedStates: Int { parkedCount }

    /// Every state held, live, parked or pooled, counted slot by slot (tests: at most
    /// `viewsWithState + poolLimit`, and never more than views had live state at once).
    var heldStates: Int { states.reduce(0) { $0 + ($1 == nil ? 0 : 1) } + pool.count }

    /// Views listed in the active list: live and parked ones (tests: no other).
    var listedViews: Int { activeSlots.count }

    /// The views whose idle states are parked, oldest first: the order of eviction (tests).
    var parkedViewIDs: [String] {
        parkedOrder[parkedHead...].filter { slotStatus[$0.slot] == $0.ticket }.map { output.viewIDs[$0.slot] }
    }

    /// The earliest time at which a recogniser changes state without new input (a long press's
    /// duration, a multi-tap's interval, a swipe's maximum duration), on the input's clock.
    /// Cost: one integer read per listed view (live, or parked: at most `poolLimit` more).
    public var nextDeadlineMicros: UInt64? {
        var earliest = UInt64.max
        for slot in activeSlots where deadlines[slot] < earliest { earliest = deadlines[slot] }
        return earliest == .max ? nil : earliest
    }

    /// One tracker output: deadlines up to `timestampMicros` fire first, then every message goes
    /// through its view's recognisers. Returns the raw messages to deliver (the tracker's, minus
    /// what recognised gestures took) and the gesture messages (as `GestureRecord`s, plain
    /// values: `GestureOutput.event(_:)` makes one public). `scale` is the input frame's.
    /// Cost: per message, one string comparison (or one lookup when the order changed), then the
    /// view's step (`ViewGestures.step`: recognisers × touches of that view).
    public mutating func process(
        _ batches: [ViewTouches], scale: PhysicalScale, timestampMicros: UInt64
    ) -> GestureOutput {
        clearOutput()
        fireDeadlines(upTo: timestampMicros)  // first: they fell due before this frame
        // Messages passed on as they came are appended only once one is not (`GestureOutput`).
        if output.touches.isEmpty { output.deferredMessages = 0 }
        var cursor = 0
        // By index: the messages are read in place, not copied.
        for position in batches.indices {
            guard let slot = slot(of: batches[position].viewID, cursor: &cursor) else {
                output.passUnchanged(batches, at: position)
                continue
            }
            if slotStatus[slot] != Self.live {
                // A view's state starts with a touch; an orphan update (a reload added gestures
                // mid-touch) passes through.
                guard Self.anyBegan(batches, at: position) else {
                    output.passUnchanged(batches, at: position)
                    continue
                }
                if slotStatus[slot] > 0 {
                    // Still listed, and `cursor` just past it (`slot(of:cursor:)`).
                    unpark(slot, batches, at: position)
                } else {
                    let viewID = batches[position].viewID
                    states[slot] = makeState(viewID, screen: batches[position].screen, slot: slot)
                    activeSlots.append(slot)
                    activeViewIDs.append(viewID)
                    cursor = activeSlots.count
                }
                slotStatus[slot] = Self.live  // a parked one's ticket gone with it
            }
            // The view is at `cursor - 1` in the active list; if it went idle it left it.
            let activeBefore = activeSlots.count
            settle(slot, states[slot]!.step(batches, at: position, scale: scale, into: &output))
            if activeSlots.count < activeBefore { cursor -= 1 }
        }
        finishDeferring(batches)
        return output
    }

    /// The caller delivered the last output and dropped its copy of it: the stage lets go of the
    /// raw messages it passed on (the tracker's, sharing the tracker's touch arrays), so that the
    /// tracker's next frame refills those arrays in place instead of allocating new ones while the
    /// stage still holds the old (which the next `process` would then free). Optional: the next
    /// `process` or `advance(to:)` lets go of them anyway. Cost: one release per message (and one
    /// allocation if the caller still holds the output).
    public mutating func endDelivery() {
        restoreOwnTouches()
        if !output.touches.isEmpty { output.touches.removeAll(keepingCapacity: true) }
    }

    /// The end of `process`: when every message passed unchanged, the output's touches are the
    /// tracker's array (one retain; its own storage set aside); else the deferred ones go in.
    private mutating func finishDeferring(_ batches: [ViewTouches]) {
        guard let deferred = output.deferredMessages else { return }
        guard deferred == batches.count, deferred > 0, output.touches.isEmpty else {
            return output.stopDeferring(batches)
        }
        output.deferredMessages = nil
        swap(&output.touches, &ownTouches)
        output.touches = batches
        sharesTrackerMessages = true
    }

    /// The output's own (empty) storage back in its touches, the tracker's array let go.
    @inline(__always)
    private mutating func restoreOwnTouches() {
        guard sharesTrackerMessages else { return }
        output.touches = []
        swap(&output.touches, &ownTouches)
        sharesTrackerMessages = false
    }

    /// Empties the output for the next call (`GestureOutput.clear`), its own storage back first.
    private mutating func clearOutput() {
        restoreOwnTouches()
        output.clear()
    }

    /// The slot of a message's view: the listed view after the previous message's if it is this
    /// one (one comparison, equal storage compares at once), else `slotIndex`'s, else (an id not
    /// all ASCII) the dictionary's; `cursor` then just past the view if it is listed (a search of
    /// the list: at most the live views plus `poolLimit`).
    @inline(__always)
    private func slot(of viewID: String, cursor: inout Int) -> Int? {
        if cursor < activeViewIDs.count && activeViewIDs[cursor] == viewID {
            cursor += 1
            return activeSlots[cursor - 1]
        }
        let slot: Int
        switch slotIndex.find(viewID, ids: output.viewIDs) {
        case .slot(let found): slot = found
        case .absent: return nil
        case .unknown:
            guard let found = slotByView[viewID] else { return nil }
            slot = found
        }
        if holdsState(slot), let position = activeSlots.firstIndex(of: slot) { cursor = position + 1 }
        return slot
    }

    /// Whether a message has a touch that began, read in place by index (`contains(where:)` on
    /// the message's touches retained and released the array). Cost: one read per touch.
    @inline(__always)
    private static func anyBegan(_ batches: [ViewTouches], at position: Int) -> Bool {
        for index in batches[position].touches.indices where batches[position].touches[index].phase == .began {
            return true
        }
        return false
    }

    /// Whether a slot holds a state, live or parked (then it is listed in `activeSlots`).
    @inline(__always)
    private func holdsState(_ slot: Int) -> Bool { slotStatus[slot] != 0 }

    /// After a view's state changed: its deadline noted, or (idle) its state released.
    private mutating func settle(_ slot: Int, _ end: ViewGestures.StepEnd) {
        guard end.isIdle else {
            deadlines[slot] = end.deadlineMicros
            return
        }
        release(slot)
    }

    /// A view's own parked state, touched again: reused where it is (its recognisers reset in
    /// place: the same gesture list), its entry in `parkedOrder` left stale. The output's screen
    /// for the slot is the state's (noted when it was made, kept by its steps): written only if
    /// the view's screen changed. Cost: the reset (no move of the state, no allocation, and the
    /// template not passed: a parked state's recognisers came from the view's list, see
    /// `adoptedSlots`; the view's id and the message's screen read in place, not passed: passing
    /// them retained and released both). Out of line: inlined, it grew the frame's loop, and
    /// moving frames paid.
    @inline(never)
    private mutating func unpark(_ slot: Int, _ batches: [ViewTouches], at position: Int) {
        parkedCount -= 1  // its status made live by the caller
        states[slot]!.restart(batches, at: position, templateID: templateIDs[slot])
        if output.screens[slot] != batches[position].screen { output.screens[slot] = batches[position].screen }
        states[slot]!.recordsTransitions = recordsFailures
    }

    /// A view's state at its first touch when it has none parked: a pooled one, else the oldest
    /// parked one (evicted from its slot), refilled from the view's template (no allocation), else
    /// a new one; the view's screen noted in the output's table. Cost: the view's recognisers
    /// copied (and the table once, if the caller still holds the last output), plus the stale
    /// entries skipped in `parkedOrder` (each skipped once).
    private mutating func makeState(_ viewID: String, screen: String, slot: Int) -> ViewGestures {
        guard var view = pool.popLast() ?? evictOldestParked() else {
            var view = ViewGestures(viewID: viewID, screen: screen, slot: slot, recognisers: templates[slot])
            view.templateID = templateIDs[slot]
            view.recordsTransitions = recordsFailures
            output.screens[slot] = screen
            return view
        }
        view.reuse(
            viewID: viewID, screen: screen, slot: slot, templateID: templateIDs[slot], recognisers: templates[slot])
        output.screens[slot] = screen
        view.recordsTransitions = recordsFailures
        return view
    }

    /// The oldest parked state, taken out of its slot (the view will get a state anew when
    /// touched), or nil when none is parked. Cost: the stale entries skipped, each once.
    private mutating func evictOldestParked() -> ViewGestures? {
        while parkedHead < parkedOrder.count {
            let (slot, ticket) = parkedOrder[parkedHead]
            parkedHead += 1
            guard slotStatus[slot] == ticket else { continue }
            slotStatus[slot] = 0
            parkedCount -= 1
            leaveActiveList(slot)
            return states[slot].take()
        }
        return nil
    }

    /// An idle view keeps its state parked in its slot for its next touch, and its place in the
    /// active list, while the idle states are fewer than `poolLimit`; else its state is dropped and
    /// it leaves the list (at once, or while deadlines fire at their end). A view that has no
    /// gestures any more (a reload removed them while it was touched) loses its slot too, its state
    /// to the pool if there is room. Cost: parked, the park's append (plus, once per `poolLimit`
    /// parks, the compaction of `parkedOrder`: ≤ 2 × poolLimit); else one pass over the listed
    /// views (none while deadlines fire).
    private mutating func release(_ slot: Int) {
        deadlines[slot] = .max
        guard slotStatus[slot] == Self.live else { return }
        let adopted = !adoptedSlots.isEmpty && forgetAdopted(slot)
        if adopted || templates[slot].isEmpty {
            slotStatus[slot] = 0
            leaveActiveList(slot)
            guard let state = states[slot].take() else { return }  // moved out, not copied
            if templates[slot].isEmpty, slotByView[state.viewID] == slot {
                slotByView[state.viewID] = nil
                slotIndex.remove(state.viewID, ids: output.viewIDs)
            }
            if pool.count + parkedCount < Self.poolLimit { pool.append(consume state) }
            return
        }
        guard pool.count + parkedCount < Self.poolLimit else {
            slotStatus[slot] = 0
            leaveActiveList(slot)
            states[slot] = nil
            return
        }
        park(slot)
    }

    /// Whether the slot's state was adopted (then no longer noted). Cost: the adopted slots once.
    private mutating func forgetAdopted(_ slot: Int) -> Bool {
        guard let position = adoptedSlots.firstIndex(of: slot) else { return false }
        adoptedSlots.remove(at: position)
        return true
    }

    /// A view without state any more leaves the active list: at once, or (while deadlines fire)
    /// in `dropReleasedFromActiveList`'s pass. Cost: one pass over the listed views.
    private mutating func leaveActiveList(_ slot: Int) {
        guard releasesLeaveActiveList else {
            leftWhileFiring = true
            return
        }
        guard let position = activeSlots.firstIndex(of: slot) else { return }
        activeSlots.remove(at: position)
        activeViewIDs.remove(at: position)
    }

    /// Parks a released view's state in its slot: a new ticket, noted in `parkedOrder`.
    @inline(__always)
    private mutating func park(_ slot: Int) {
        if parkedOrder.count >= 2 * Self.poolLimit { compactParkedOrder() }
        slotStatus[slot] = nextTicket
        parkedOrder.append((slot, nextTicket))
        nextTicket += 1
        parkedCount += 1
    }

    /// `parkedOrder` without its stale entries, in the same order. Cost: its entries once.
    private mutating func compactParkedOrder() {
        var kept = 0
        for position in parkedHead..<parkedOrder.count
        where slotStatus[parkedOrder[position].slot] == parkedOrder[position].ticket {
            parkedOrder[kept] = parkedOrder[position]
            kept += 1
        }
        parkedOrder.removeLast(parkedOrder.count - kept)
        parkedHead = 0
    }

    /// Every parked state to the pool, its list number forgotten (a reload renumbers slots and
    /// lists), its view off the active list. Cost: the parked entries and the listed views once.
    private mutating func unparkAllToPool() {
        for position in parkedHead..<parkedOrder.count {
            let (slot, ticket) = parkedOrder[position]
            guard slotStatus[slot] == ticket, let state = states[slot].take() else { continue }
            slotStatus[slot] = 0
            pool.append(state)
        }
        parkedOrder.removeAll(keepingCapacity: true)
        parkedHead = 0
        parkedCount = 0
        dropReleasedFromActiveList()
    }

    /// Fires every deadline up to `timestampMicros` (the input clock): what the daemon's timer
    /// calls. Cost: one pass over the active views, plus the due views' (`fireDeadlines`).
    public mutating func advance(to timestampMicros: UInt64) -> GestureOutput {
        clearOutput()
        fireDeadlines(upTo: timestampMicros)
        return output
    }

    /// Fires the due deadlines in time order across views (ties: the smaller slot, which is the
    /// view id order: slots are numbered in it, but for a view a reload removed while touched), so
    /// messages keep the order things happened in. The due views are found in one pass over the
    /// listed views and kept sorted in `dueSlots` (insertion: a handful fall due together); a view
    /// whose next deadline is due too goes back in at its place. The views that go idle are parked
    /// where they are listed; those whose states go (past the bound) leave the list in one pass at
    /// the end, not one removal each. Cost: the listed views once (twice when one is due), plus the
    /// due views' insertions (due², tiny), plus the events.
    private mutating func fireDeadlines(upTo now: UInt64) {
        guard let first = nextDeadlineMicros, first <= now else { return }  // most frames: the one pass
        for slot in activeSlots where isDue(slot, now) { insertDue(slot, after: 0) }
        releasesLeaveActiveList = false
        var next = 0
        while next < dueSlots.count {
            let slot = dueSlots[next]
            next += 1
            settle(slot, states[slot]!.fireDeadlines(upTo: deadlines[slot], into: &output))
            if slotStatus[slot] == Self.live && isDue(slot, now) { insertDue(slot, after: next) }
        }
        releasesLeaveActiveList = true
        dueSlots.removeAll(keepingCapacity: true)
        if leftWhileFiring { dropReleasedFromActiveList() }  // views that parked stay listed
    }

    /// Whether a view's deadline has come (`.max`: it has none).
    @inline(__always)
    private func isDue(_ slot: Int, _ now: UInt64) -> Bool {
        deadlines[slot] != .max && deadlines[slot] <= now
    }

    /// Puts a due view into `dueSlots[start...]` at its place by (deadline, slot). Integers only:
    /// fingers lifted together fall due together, and comparing ids is dear. Cost: the entries
    /// after its place moved by one.
    @inline(__always)
    private mutating func insertDue(_ slot: Int, after start: Int) {
        dueSlots.append(slot)
        var position = dueSlots.count - 1
        while position > start {
            let current = dueSlots[position - 1]
            guard deadlines[slot] < deadlines[current] || (deadlines[slot] == deadlines[current] && slot < current)
            else { break }
            dueSlots[position] = current
            position -= 1
        }
        dueSlots[position] = slot
    }

    /// The views whose states went while `releasesLeaveActiveList` was off leave the active list,
    /// the others (live or parked) keeping their order. Cost: one pass over the listed views (the
    /// ids swapped, not copied).
    private mutating func dropReleasedFromActiveList() {
        leftWhileFiring = false
        var kept = 0
        for position in activeSlots.indices where holdsState(activeSlots[position]) {
            if kept != position {
                activeSlots[kept] = activeSlots[position]
                activeViewIDs.swapAt(kept, position)
            }
            kept += 1
        }
        guard kept < activeSlots.count else { return }
        activeSlots.removeLast(activeSlots.count - kept)
        activeViewIDs.removeLast(activeViewIDs.count - kept)
    }

    /// Takes a reloaded config's gestures: a view whose gestures changed or went has its active
    /// recognisers cancelled (the others fail) at `timestampMicros`; its touches carry on (ones a
    /// gesture took stay taken) and new recognisers start with the next touches. Cost: linear in
    /// the views with gestures.
    public mutating func replaceGestures(
        _ viewGestures: [String: [GestureSpec]], timestampMicros: UInt64
    ) -> GestureOutput {
        clearOutput()
        unparkAllToPool()  // before the old states are read: only live ones carry over
        let oldSlots = slotByView
        var oldStates = states
        let oldActive = activeViewIDs
        slotByView = [:]
        slotIndex = ViewSlotIndex(capacity: viewGestures.count + oldActive.count)
        templates = []
        templateIDs = []
        templateIDBySpecs = [:]
        // The pooled states' recognisers were numbered by the old lists: refilled when reused.
        for index in pool.indices { pool[index].templateID = -1 }
        states = []
        slotStatus = []
        adoptedSlots = []
        deadlines = []
        activeSlots = []
        activeViewIDs = []
        output.viewIDs = []
        output.screens = []
        for (viewID, specs) in viewGestures.sorted(by: { $0.key < $1.key }) {
            let unchanged: Bool = specsByView[viewID] == specs
            let state = unchanged ? oldSlots[viewID].flatMap { oldStates[$0] } : nil
            addSlot(viewID, specs: specs, state: state)
        }
        // A touched view whose gestures changed keeps its state (and its taken touches) until idle.
        for viewID in oldActive.sorted() {
            let unchanged: Bool = viewGestures[viewID] == specsByView[viewID]
            guard !unchanged, let oldSlot = oldSlots[viewID], var state = oldStates[oldSlot] else { continue }
            oldStates[oldSlot] = nil
            let slot = slotByView[viewID] ?? templates.count
            if slot == templates.count { addSlot(viewID, specs: [], state: nil) }
            state.slot = slot
            output.screens[slot] = state.screen
            state.cancelRecognisers(timestampMicros: timestampMicros, into: &output)
            state.adopt(viewGestures[viewID] ?? [])
            states[slot] = state
            slotStatus[slot] = Self.live
            adoptedSlots.append(slot)
        }
        specsByView = viewGestures
        // The views with state, in their old order; the idle ones give it back.
        for viewID in oldActive {
            guard let slot = slotByView[viewID], states[slot] != nil else { continue }
            activeSlots.append(slot)
            activeViewIDs.append(viewID)
            settle(slot, states[slot]!.end)
        }
        return output
    }
}
