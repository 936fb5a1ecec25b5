/// Gesture recognition per view, between the tracker and dispatch. Pure and deterministic: time
/// comes only from the input (frame times) and from `advance(to:)`; docs/gestures.md states the rules.

/// Recognises the gestures views declare, from the tracker's per-view messages.
///
/// Feed it every tracker output in order with `process(_:scale:timestampMicros:)` (frames,
/// device removals, reloads, shutdown: every cancellation the tracker makes reaches the recognisers
/// that way), and call `advance(to:)` when `nextDeadlineMicros` is due, so a long press begins and a
/// single tap waiting for a double tap is decided without any touch moving.
///
/// A view holds recognition state only while it has touches down or a recogniser waits for a
/// deadline; then its state goes, and its next touch starts from fresh recognisers. So the cost of
/// a frame is bounded by its messages (one dictionary lookup each) and the touched views'
/// recognisers and touches; the deadline look-ups by the views holding state. Neither grows with
/// the layout's size. With no gestures configured at all, the daemon does not call it.
public struct GestureStage: Sendable {
    /// The gestures by view id (`Config.viewGestures`).
    public private(set) var specsByView: [String: [GestureSpec]]
    /// The views holding state: touched, or with a recogniser waiting.
    private var views: [String: ViewGestures] = [:]
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

    /// The same count (tests: it goes back to 0 when nothing is down or pending).
    public var viewsWithState: Int { views.count }

    /// The earliest time at which a recogniser changes state without new input (a long press's
    /// duration, a multi-tap's interval, a swipe's maximum duration), on the input's clock.
    /// Cost: the recognisers of the views holding state.
    public var nextDeadlineMicros: UInt64? {
        var earliest: UInt64?
        for index in views.values.indices {
            if let deadline = views.values[index].nextDeadlineMicros, deadline < earliest ?? .max {
                earliest = deadline
            }
        }
        return earliest
    }

    /// One tracker output: deadlines up to `timestampMicros` fire first, then every message goes
    /// through its view's recognisers. Returns the raw messages to deliver (the tracker's, minus
    /// what recognised gestures took) and the gesture events. `scale` is the input frame's.
    /// Cost: per message, one lookup, then the view's step (recognisers × touches of that view).
    public mutating func process(
        _ batches: [ViewTouches], scale: PhysicalScale, timestampMicros: UInt64
    ) -> GestureOutput {
        var output = GestureOutput()
        output.touches.reserveCapacity(batches.count)
        fireDeadlines(upTo: timestampMicros, into: &output)
        for message in batches {
            // By index, one hash of the view id and no copy of its state (reading `views[id]`
            // copies the whole value: two copies a message, measured with callgrind).
            var index = views.index(forKey: message.viewID)
            if index == nil {
                // A view's state starts with a touch; an orphan update (a reload added gestures
                // mid-touch) passes through.
                guard let specs = specsByView[message.viewID], message.touches.contains(where: { $0.phase == .began })
                else {
                    output.touches.append(message)
                    continue
                }
                views[message.viewID] = ViewGestures(
                    viewID: message.viewID, screen: message.screen, specs: specs, recordsTransitions: recordsFailures)
                index = views.index(forKey: message.viewID)
            }
            guard let index else { continue }
            views.values[index].step(message, scale: scale, into: &output)
            if views.values[index].isIdle { views.remove(at: index) }
        }
        return output
    }

    /// Fires every deadline up to `timestampMicros` (the input clock): what the daemon's timer
    /// calls. Cost: the views holding state, per deadline fired.
    public mutating func advance(to timestampMicros: UInt64) -> GestureOutput {
        var output = GestureOutput()
        fireDeadlines(upTo: timestampMicros, into: &output)
        return output
    }

    /// Fires the due deadlines in time order across views (ties: in view id order), so that
    /// events keep the order things happened in; a view that goes idle lets go of its state.
    private mutating func fireDeadlines(upTo now: UInt64, into output: inout GestureOutput) {
        while true {
            var due: (micros: UInt64, viewID: String)?
            for index in views.values.indices {
                guard let deadline = views.values[index].nextDeadlineMicros, deadline <= now else { continue }
                let viewID = views.keys[index]
                if let current = due, (current.micros, current.viewID) < (deadline, viewID) { continue }
                due = (deadline, viewID)
            }
            guard let (deadline, viewID) = due else { return }
            views[viewID]!.fireDeadlines(upTo: deadline, into: &output)
            if views[viewID]!.isIdle { views[viewID] = nil }
        }
    }

    /// Takes a reloaded config's gestures: a touched view whose gestures changed or went has its
    /// active recognisers cancelled (the others fail) at `timestampMicros`; its touches carry on
    /// (ones a gesture took stay taken) and new recognisers start with the next touches. Cost:
    /// the views holding state.
    public mutating func replaceGestures(
        _ viewGestures: [String: [GestureSpec]], timestampMicros: UInt64
    ) -> GestureOutput {
        var output = GestureOutput()
        for viewID in views.keys.sorted() where viewGestures[viewID] != specsByView[viewID] {
            views[viewID]!.cancelRecognisers(timestampMicros: timestampMicros, into: &output)
            views[viewID]!.adopt(viewGestures[viewID] ?? [])
        }
        specsByView = viewGestures
        views = views.filter { !$0.value.isIdle }
        return output
    }
}
