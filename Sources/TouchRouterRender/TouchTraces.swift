/// Touches to draw: each contact's path and where it went, from input frames routed through the
/// real tracker, or from the `touches` a running daemon delivered.
import TouchRouterCore

/// One contact, from touch-down to lift-off, in screen space.
public struct TouchTrace: Hashable, Sendable {
    /// Where the touch-down went.
    public enum Outcome: Hashable, Sendable {
        /// Delivered to this view (the tracker's target: the hit view or its nearest subscribed
        /// ancestor).
        case delivered(viewID: String)
        /// No view takes the point (the tracker's `dropped-hit-nothing`).
        case missed
        /// The hit view was found, but a rule dropped the touch (multipleTouch, exclusiveTouch, no
        /// subscriber on the chain, too many fingers).
        case dropped(hitViewID: String)
    }

    public var outcome: Outcome
    /// Touch-down first, then every position the contact moved to.
    public var points: [Point]

    public init(outcome: Outcome, points: [Point]) {
        self.outcome = outcome
        self.points = points
    }
}

/// Routes input frames through a `TouchTracker` (the daemon's, with the same hit-test index) and
/// records each contact of one screen as a trace.
public enum TraceRecorder {
    /// The traces of `screen`'s contacts, in touch-down order. `subscribedViews` stands in for the
    /// daemon's subscriptions (every view: each touch goes to its hit view).
    public static func traces(
        of frames: [InputFrame], layout: Layout, screen: String, subscribedViews: some SubscribedViews
    ) -> [TouchTrace] {
        var tracker = TouchTracker(layout: layout)
        var traces: [TouchTrace] = []
        var live: [ContactKey: Int] = [:]
        for frame in frames {
            let delivered = tracker.process(.frame(frame), subscribedViews: subscribedViews)
            guard frame.screen == screen else { continue }
            // The began touches of this frame, by screen point, in order.
            var began: [(point: Point, viewID: String)] = []
            for message in delivered {
                for touch in message.touches where touch.phase == .began {
                    began.append((touch.screenPoint, message.viewID))
                }
            }
            for contact in frame.contacts {
                let key = ContactKey(device: frame.device.id, slot: contact.slot)
                switch contact.kind {
                case .down:
                    let outcome: TouchTrace.Outcome
                    if let match = began.firstIndex(where: { $0.point == contact.screenPoint }) {
                        outcome = .delivered(viewID: began[match].viewID)
                        began.remove(at: match)
                    } else if let hit = tracker.hitTest(screen: screen, contact.screenPoint) {
                        outcome = .dropped(hitViewID: hit.viewID)
                    } else {
                        outcome = .missed
                    }
                    live[key] = traces.count
                    traces.append(TouchTrace(outcome: outcome, points: [contact.screenPoint]))
                case .motion:
                    if let index = live[key], contact.screenPoint.isFinite {
                        traces[index].points.append(contact.screenPoint)
                    }
                case .up, .cancel:
                    live[key] = nil
                }
            }
        }
        return traces
    }

    private struct ContactKey: Hashable {
        var device: UInt32
        var slot: Int32
    }
}

/// Builds traces from delivered touches (a running daemon's `touches` messages): every touch id
/// becomes one trace, delivered to the message's view. A daemon sends no misses.
public struct DeliveredTraceBuilder: Sendable {
    private var traces: [TouchTrace] = []
    private var indexByTouch: [UInt64: Int] = [:]

    public init() {}

    /// Adds one touch of a `touches` message for `viewID` on the screen being drawn.
    public mutating func add(viewID: String, touchID: UInt64, phase: TouchPhase, screenPoint: Point) {
        if let index = indexByTouch[touchID] {
            if traces[index].points.last != screenPoint { traces[index].points.append(screenPoint) }
        } else {
            indexByTouch[touchID] = traces.count
            traces.append(TouchTrace(outcome: .delivered(viewID: viewID), points: [screenPoint]))
        }
        if phase.isTerminal { indexByTouch[touchID] = nil }
    }

    /// Every trace so far, in touch-down order.
    public var result: [TouchTrace] { traces }
}
