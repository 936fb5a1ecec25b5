/// What one step of recognition produced: the raw touches to deliver (the tracker's, minus what
/// recognised gestures took, plus their `gesture` cancellations) and the gesture events.
public struct GestureOutput: Sendable {
    /// Raw per-view touches, in the tracker's order.
    public var touches: [ViewTouches] = []
    /// Gesture events, in the order they happened.
    public internal(set) var records: [GestureEvent] = []

    /// Nothing to deliver.
    public var isEmpty: Bool { touches.isEmpty && records.isEmpty }

    /// Every gesture event, in order.
    public var gestures: [GestureEvent] { records }

    /// The view an event's recogniser belongs to.
    public func viewID(of record: GestureEvent) -> String { record.viewID }

    /// An event as delivered (the events are delivered as they are).
    public func event(_ record: GestureEvent) -> GestureEvent { record }
}
