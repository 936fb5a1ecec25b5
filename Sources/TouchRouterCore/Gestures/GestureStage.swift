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
    /// The views with touches down or something pending, by id.
    private var views: [String: ViewGestures] = [:]
    private var output = GestureOutput()
    /// Tests: also report `failed` transitions as events (never sent to clients).
    public var recordsFailures = false

    /// A stage for these views' gestures.
    public init(viewGestures: [String: [GestureSpec]]) {
        specsByView = viewGestures
    }

    /// No view has gestures.
    public var isEmpty: Bool { specsByView.isEmpty }

    /// Views with recognition state now (touches down, or a tap or long press waiting).
    public var activeViewCount: Int { views.count }

    /// The earliest time at which a recogniser changes state without new input (a long press's
    /// duration, a multi-tap's interval, a swipe's maximum duration), on the input's clock.
    /// Cost: one pass over the active views.
    public var nextDeadlineMicros: UInt64? {
        var earliest: UInt64?
        for view in views.values {
            if let deadline = view.nextDeadlineMicros, deadline < (earliest ?? .max) { earliest = deadline }
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
        fireDeadlines(upTo: timestampMicros)
        for batch in batches {
            if views[batch.viewID] == nil {
                // A view's state starts with a touch; an orphan update (a reload added gestures
                // mid-touch) passes through.
                guard let specs = specsByView[batch.viewID], batch.touches.contains(where: { $0.phase == .began })
                else {
                    output.touches.append(batch)
                    continue
                }
                var view = ViewGestures(viewID: batch.viewID, screen: batch.screen, specs: specs)
                view.recordsTransitions = recordsFailures
                views[batch.viewID] = view
            }
            views[batch.viewID]!.step(batch, scale: scale, into: &output)
            if views[batch.viewID]!.isIdle { views[batch.viewID] = nil }
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

    private mutating func fireDeadlines(upTo now: UInt64) {
        guard let first = nextDeadlineMicros, first <= now else { return }
        // In time order across views, so messages keep the order things happened in.
        while let (viewID, deadline) = earliestView(), deadline <= now {
            views[viewID]!.fireDeadlines(upTo: deadline, into: &output)
            if views[viewID]!.isIdle { views[viewID] = nil }
        }
    }

    private func earliestView() -> (String, UInt64)? {
        var best: (String, UInt64)?
        for (viewID, view) in views {
            if let deadline = view.nextDeadlineMicros,
                deadline < (best?.1 ?? .max) || (deadline == best?.1 && viewID < best!.0)
            {
                best = (viewID, deadline)
            }
        }
        return best
    }

    /// Takes a reloaded config's gestures: a view whose gestures changed or went has its active
    /// recognisers cancelled (the others fail) at `timestampMicros`; its touches carry on (ones a
    /// gesture took stay taken) and new recognisers start with the next touches. Cost: one
    /// comparison per active view.
    public mutating func replaceGestures(
        _ viewGestures: [String: [GestureSpec]], timestampMicros: UInt64
    ) -> GestureOutput {
        output.touches.removeAll(keepingCapacity: true)
        output.gestures.removeAll(keepingCapacity: true)
        for viewID in views.keys.sorted() where viewGestures[viewID] != specsByView[viewID] {
            views[viewID]!.cancelRecognisers(timestampMicros: timestampMicros, into: &output)
            views[viewID]!.adopt(viewGestures[viewID] ?? [])
            if views[viewID]!.isIdle { views[viewID] = nil }
        }
        specsByView = viewGestures
        return output
    }
}
