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
    /// One view with gestures: its recognisers as configured, and its state once touched (kept
    /// when idle, so touching the view again allocates nothing).
    struct Entry: Sendable {
        var template: [Recogniser]
        var state: ViewGestures?
    }

    /// The gestures by view id (`Config.viewGestures`).
    public private(set) var specsByView: [String: [GestureSpec]]
    /// Every view with gestures (and one whose gestures a reload removed while touched), by id:
    /// one lookup per tracker message.
    private var entries: [String: Entry] = [:]
    /// The views with touches down or something pending: where deadlines are looked for.
    private var activeViews: [String] = []
    private var output = GestureOutput()
    /// Tests: also report `failed` transitions as events (never sent to clients).
    public var recordsFailures = false

    /// A stage for these views' gestures.
    public init(viewGestures: [String: [GestureSpec]]) {
        specsByView = viewGestures
        for (viewID, specs) in viewGestures {
            entries[viewID] = Entry(template: ViewGestures.recognisers(for: specs), state: nil)
        }
    }

    /// No view has gestures.
    public var isEmpty: Bool { specsByView.isEmpty }

    /// Views with recognition state now (touches down, or a tap or long press waiting).
    public var activeViewCount: Int { activeViews.count }

    /// The earliest time at which a recogniser changes state without new input (a long press's
    /// duration, a multi-tap's interval, a swipe's maximum duration), on the input's clock.
    /// Cost: one lookup per active view.
    public var nextDeadlineMicros: UInt64? {
        var earliest: UInt64?
        for viewID in activeViews {
            guard let deadline = entries[viewID]?.state?.nextDeadlineMicros else { continue }
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
            guard let position = entries.index(forKey: batch.viewID) else {
                output.touches.append(batch)
                continue
            }
            if entries.values[position].state == nil {
                // A view's state starts with a touch; an orphan update (a reload added gestures
                // mid-touch) passes through.
                guard batch.touches.contains(where: { $0.phase == .began }) else {
                    output.touches.append(batch)
                    continue
                }
                var view = ViewGestures(
                    viewID: batch.viewID, screen: batch.screen, recognisers: entries.values[position].template)
                view.recordsTransitions = recordsFailures
                entries.values[position].state = view
            }
            entries.values[position].state!.step(batch, scale: scale, into: &output)
            noteActivity(batch.viewID, isIdle: entries.values[position].state!.isIdle)
        }
        return output
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
            entries[viewID]!.state!.fireDeadlines(upTo: deadline, into: &output)
            noteActivity(viewID, isIdle: entries[viewID]!.state!.isIdle)
        }
    }

    private func earliestView() -> (String, UInt64)? {
        var best: (String, UInt64)?
        for viewID in activeViews {
            guard let deadline = entries[viewID]?.state?.nextDeadlineMicros else { continue }
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
        var kept: [String: Entry] = [:]
        for (viewID, specs) in viewGestures {
            var entry = Entry(template: ViewGestures.recognisers(for: specs), state: nil)
            let unchanged: Bool = specsByView[viewID] == specs
            if unchanged { entry.state = entries[viewID]?.state }
            kept[viewID] = entry
        }
        // A touched view whose gestures changed keeps its state (and its taken touches) until idle.
        for viewID in activeViews.sorted() {
            let unchanged: Bool = viewGestures[viewID] == specsByView[viewID]
            guard !unchanged, var state = entries[viewID]?.state else { continue }
            state.cancelRecognisers(timestampMicros: timestampMicros, into: &output)
            state.adopt(viewGestures[viewID] ?? [])
            if kept[viewID] == nil {
                kept[viewID] = Entry(template: [], state: state)
            } else {
                kept[viewID]!.state = state
            }
        }
        entries = kept
        specsByView = viewGestures
        activeViews.removeAll { viewID in
            guard let state = entries[viewID]?.state else { return true }
            return state.isIdle
        }
        return output
    }
}
