/// Gesture recognition per view, between the tracker and dispatch. Pure and deterministic: time
/// comes only from the input (frame times) and from `advance(to:)`; docs/gestures.md states the rules.

/// Recognises the gestures views declare, from the tracker's per-view messages.
///
/// Feed it every tracker output in order with `process(_:scale:timestampMicros:)` (frames,
/// device removals, reloads, shutdown: every cancellation the tracker makes reaches the recognisers
/// that way), and call `advance(to:)` when `nextDeadlineMicros` is due, so a long press begins and a
/// single tap waiting for a double tap is decided without any touch moving.
///
/// A view holds recognition state while it has touches down or a recogniser waits for a deadline;
/// then its state is set aside (`idle`, at most `idleViewLimit` views), and its next touch starts
/// its recognisers over. So the cost of a frame is bounded by its messages (a dictionary lookup or
/// two each) and the touched views' recognisers and touches; the deadline look-ups by the views
/// holding state. Neither grows with the layout's size. With no gestures configured at all, the
/// daemon does not call it.
public struct GestureStage: Sendable {
    /// Each view's recognisers with nothing seen, by view id, made when the gestures are loaded
    /// (`Config.viewGestures`): a view's first touch copies them instead of making each recogniser
    /// and working out its arbitration links again. (Why kept: making them on the touch was about
    /// 10 k instructions a view with every kind, a third of the recognition cost of the frame where
    /// ten fingers land, one of the frames that set the gesture rows' p99 in
    /// `touchrouter-bench latency`.)
    private var freshByView: [String: [Recogniser]]
    /// The views holding state: touched, or with a recogniser waiting.
    private var views: [String: ViewGestures] = [:]
    /// Views that went idle, kept for their next touch, which starts their recognisers over in
    /// place: the recognisers' storage is made when a view is first touched, not at every touch,
    /// and not freed at every lift. (Why kept: making and freeing it was about a third of the
    /// gesture stage's cost in the frames where ten fingers land or lift, the frames that set the
    /// gesture rows' 100 Hz p99 in `touchrouter-bench latency`, callgrind.) At most
    /// `idleViewLimit`; beyond that one goes, so memory stays bounded whatever the layout's size.
    private var idle: [String: ViewGestures] = [:]
    /// How many idle views are kept: more than a panel's fingers, so a kiosk's busy views stay.
    static let idleViewLimit = 64
    /// Tests: also report `failed` transitions as events (never sent to clients).
    public var recordsFailures = false

    /// A stage for these views' gestures.
    public init(viewGestures: [String: [GestureSpec]]) {
        freshByView = viewGestures.mapValues(ViewGestures.recognisers(for:))
    }

    /// No view has gestures.
    public var isEmpty: Bool { freshByView.isEmpty }

    /// Views with recognition state now (touches down, or a tap or long press waiting).
    public var activeViewCount: Int { views.count }

    /// The same count (tests: it goes back to 0 when nothing is down or pending).
    public var viewsWithState: Int { views.count }

    /// Idle views whose state is kept for their next touch (tests: never above `idleViewLimit`).
    var idleViewCount: Int { idle.count }

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
                guard message.touches.contains(where: { $0.phase == .began }), let view = startView(message) else {
                    output.touches.append(message)
                    continue
                }
                views[message.viewID] = view
                index = views.index(forKey: message.viewID)
            }
            guard let index else { continue }
            views.values[index].step(message, scale: scale, into: &output)
            if views.values[index].isIdle { setAside(views.remove(at: index).value) }
        }
        return output
    }

    /// The state for a view's first touch of a sequence: its idle state started over, or fresh
    /// recognisers; nil for a view without gestures.
    private mutating func startView(_ message: ViewTouches) -> ViewGestures? {
        if var view = idle.removeValue(forKey: message.viewID) {
            view.startOver()
            return view
        }
        guard let fresh = freshByView[message.viewID] else { return nil }
        return ViewGestures(
            viewID: message.viewID, screen: message.screen, fresh: fresh, recordsTransitions: recordsFailures)
    }

    /// Keeps an idle view's state for its next touch; at the limit, another idle view's goes. A
    /// view whose gestures a reload removed while it was touched is not kept: its next touches
    /// pass through.
    private mutating func setAside(_ view: ViewGestures) {
        guard !view.recognisers.isEmpty else { return }
        if idle.count >= Self.idleViewLimit { idle.remove(at: idle.startIndex) }
        idle[view.viewID] = view
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
            if views[viewID]!.isIdle { setAside(views.removeValue(forKey: viewID)!) }
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
        let fresh = viewGestures.mapValues(ViewGestures.recognisers(for:))
        for viewID in views.keys.sorted() where viewGestures[viewID] != freshByView[viewID]?.map(\.spec) {
            views[viewID]!.cancelRecognisers(timestampMicros: timestampMicros, into: &output)
            views[viewID]!.adopt(fresh[viewID] ?? [])
        }
        freshByView = fresh
        views = views.filter { !$0.value.isIdle }
        idle = [:]
        return output
    }
}
