/// Gesture recognition per view, between the tracker and dispatch. Pure and deterministic: time
/// comes only from the input (frame times) and from `advance(to:)`; docs/gestures.md states the rules.

/// Recognises the gestures views declare, from the tracker's per-view messages.
///
/// Feed it every tracker output in order with `process(_:scale:timestampMicros:)` (frames,
/// device removals, reloads, shutdown: every cancellation the tracker makes reaches the recognisers
/// that way), and call `advance(to:)` when `nextDeadlineMicros` is due, so a long press begins and a
/// single tap waiting for a double tap is decided without any touch moving. A view without
/// gestures costs one dictionary lookup per message; with none configured at all, the daemon does
/// not call it (raw delivery is then exactly the tracker's).
public struct GestureStage: Sendable {
    /// The gestures by view id (`Config.viewGestures`).
    public private(set) var specsByView: [String: [GestureSpec]]
    /// Every view with gestures (and one whose gestures a reload removed while touched) → its slot
    /// in `templates` and `states`: one lookup per tracker message.
    private var slotByView: [String: Int] = [:]
    /// Per slot, the view's recognisers as configured (built once per config).
    private var templates: [[Recogniser]] = []
    /// Per slot, the view's state while it has touches or something pending (in an array so a
    /// step mutates it in place); nil otherwise. A view that goes idle gives its state back to
    /// `pool`, so a kiosk touching thousands of views over a day holds state only for the few
    /// touched now.
    private var states: [ViewGestures?] = []
    /// Released states, their arrays' storage kept: the next view touched reuses one, so a touch
    /// down allocates nothing once the pool holds as many states as views were ever touched at
    /// once (at most `poolLimit` are kept).
    private var pool: [ViewGestures] = []
    static let poolLimit = 32
    /// The views with touches down or something pending: where deadlines are looked for.
    private var activeViews: [String] = []
    private var output = GestureOutput()
    /// Tests: also report `failed` transitions as events (never sent to clients).
    public var recordsFailures = false

    /// A stage for these views' gestures.
    public init(viewGestures: [String: [GestureSpec]]) {
        specsByView = viewGestures
        for (viewID, specs) in viewGestures.sorted(by: { $0.key < $1.key }) {
            addSlot(viewID, template: ViewGestures.recognisers(for: specs), state: nil)
        }
    }

    private mutating func addSlot(_ viewID: String, template: [Recogniser], state: ViewGestures?) {
        slotByView[viewID] = templates.count
        templates.append(template)
        states.append(state)
    }

    /// No view has gestures.
    public var isEmpty: Bool { specsByView.isEmpty }

    /// Views with recognition state now (touches down, or a tap or long press waiting): every
    /// other view's state was released.
    public var activeViewCount: Int { activeViews.count }

    /// Views holding recognition state, counted slot by slot (tests: it equals
    /// `activeViewCount`, and goes back to 0 when nothing is down or pending). Cost: linear in
    /// the views with gestures.
    public var viewsWithState: Int { states.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }

    /// Released states kept for reuse (at most `poolLimit`).
    var pooledStates: Int { pool.count }

    /// The earliest time at which a recogniser changes state without new input (a long press's
    /// duration, a multi-tap's interval, a swipe's maximum duration), on the input's clock.
    /// Cost: one lookup per active view.
    public var nextDeadlineMicros: UInt64? {
        var earliest: UInt64?
        for viewID in activeViews {
            guard let slot = slotByView[viewID], let deadline = states[slot]?.nextDeadlineMicros else { continue }
            if deadline < (earliest ?? .max) { earliest = deadline }
        }
        return earliest
    }

    /// One tracker output: deadlines up to `timestampMicros` fire first, then every message goes
    /// through its view's recognisers. Returns the raw messages to deliver (the tracker's, minus
    /// what recognised gestures took) and the gesture events. `scale` is the input frame's.
    /// Cost: per message, one lookup, then recognisers × touches of that view.
    public mutating func process(
        _ batches: [ViewTouches], scale: PhysicalScale, timestampMicros: UInt64
    ) -> GestureOutput {
        output.touches.removeAll(keepingCapacity: true)
        output.gestures.removeAll(keepingCapacity: true)
        fireDeadlines(upTo: timestampMicros)  // first: they fell due before this frame
        for batch in batches {
            guard let slot = slotByView[batch.viewID] else {
                output.touches.append(batch)
                continue
            }
            if states[slot] == nil {
                // A view's state starts with a touch; an orphan update (a reload added gestures
                // mid-touch) passes through.
                guard batch.touches.contains(where: { $0.phase == .began }) else {
                    output.touches.append(batch)
                    continue
                }
                states[slot] = makeState(batch.viewID, screen: batch.screen, slot: slot)
            }
            let isIdle = states[slot]!.step(batch, scale: scale, into: &output)
            noteActivity(batch.viewID, isIdle: isIdle)
            if isIdle { release(slot) }
        }
        return output
    }

    /// A view's state at its first touch: a pooled one refilled from the view's template (no
    /// allocation), else a new one. Cost: the view's recognisers copied.
    private mutating func makeState(_ viewID: String, screen: String, slot: Int) -> ViewGestures {
        guard var view = pool.popLast() else {
            var view = ViewGestures(viewID: viewID, screen: screen, recognisers: templates[slot])
            view.recordsTransitions = recordsFailures
            return view
        }
        view.reuse(viewID: viewID, screen: screen, recognisers: templates[slot])
        view.recordsTransitions = recordsFailures
        return view
    }

    /// An idle view gives its state back (to the pool while it has room); a view that has no
    /// gestures any more (a reload removed them while it was touched) loses its slot too.
    private mutating func release(_ slot: Int) {
        guard let state = states[slot] else { return }
        states[slot] = nil
        if pool.count < Self.poolLimit { pool.append(state) }
        if templates[slot].isEmpty, slotByView[state.viewID] == slot { slotByView[state.viewID] = nil }
    }

    /// Fires every deadline up to `timestampMicros` (the input clock): what the daemon's timer
    /// calls. Cost: one pass over the active views, plus the events.
    public mutating func advance(to timestampMicros: UInt64) -> GestureOutput {
        output.touches.removeAll(keepingCapacity: true)
        output.gestures.removeAll(keepingCapacity: true)
        fireDeadlines(upTo: timestampMicros)
        return output
    }

    /// Keeps `activeViews` in step with a view's state after it changed.
    private mutating func noteActivity(_ viewID: String, isIdle: Bool) {
        let position = activeViews.firstIndex(of: viewID)
        if isIdle, let position {
            activeViews.remove(at: position)
        } else if !isIdle && position == nil {
            activeViews.append(viewID)
        }
    }

    private mutating func fireDeadlines(upTo now: UInt64) {
        guard let first = nextDeadlineMicros, first <= now else { return }
        // In time order across views, so messages keep the order things happened in.
        while let (viewID, deadline) = earliestView(), deadline <= now {
            let slot = slotByView[viewID]!
            states[slot]!.fireDeadlines(upTo: deadline, into: &output)
            let isIdle = states[slot]!.isIdle
            noteActivity(viewID, isIdle: isIdle)
            if isIdle { release(slot) }
        }
    }

    private func earliestView() -> (String, UInt64)? {
        var best: (String, UInt64)?
        for viewID in activeViews {
            guard let slot = slotByView[viewID], let deadline = states[slot]?.nextDeadlineMicros else { continue }
            guard let current = best else {
                best = (viewID, deadline)
                continue
            }
            if deadline < current.1 || (deadline == current.1 && viewID < current.0) { best = (viewID, deadline) }
        }
        return best
    }

    /// Takes a reloaded config's gestures: a view whose gestures changed or went has its active
    /// recognisers cancelled (the others fail) at `timestampMicros`; its touches carry on (ones a
    /// gesture took stay taken) and new recognisers start with the next touches. Cost: linear in
    /// the views with gestures.
    public mutating func replaceGestures(
        _ viewGestures: [String: [GestureSpec]], timestampMicros: UInt64
    ) -> GestureOutput {
        output.touches.removeAll(keepingCapacity: true)
        output.gestures.removeAll(keepingCapacity: true)
        var old = (slotByView, states)
        slotByView = [:]
        templates = []
        states = []
        for (viewID, specs) in viewGestures.sorted(by: { $0.key < $1.key }) {
            let unchanged: Bool = specsByView[viewID] == specs
            let state = unchanged ? old.0[viewID].flatMap { old.1[$0] } : nil
            addSlot(viewID, template: ViewGestures.recognisers(for: specs), state: state)
        }
        // A touched view whose gestures changed keeps its state (and its taken touches) until idle.
        for viewID in activeViews.sorted() {
            let unchanged: Bool = viewGestures[viewID] == specsByView[viewID]
            guard !unchanged, let oldSlot = old.0[viewID], var state = old.1[oldSlot] else { continue }
            old.1[oldSlot] = nil
            state.cancelRecognisers(timestampMicros: timestampMicros, into: &output)
            state.adopt(viewGestures[viewID] ?? [])
            if let slot = slotByView[viewID] {
                states[slot] = state
            } else {
                addSlot(viewID, template: [], state: state)
            }
        }
        specsByView = viewGestures
        activeViews.removeAll { viewID in
            guard let slot = slotByView[viewID], let state = states[slot] else { return true }
            return state.isIdle
        }
        for slot in states.indices where states[slot]?.isIdle == true { release(slot) }
        return output
    }
}
