/// What one step of recognition produced: the raw touches to deliver (the tracker's, minus what
/// recognised gestures took, plus their `gesture` cancellations) and the gesture messages.
public struct GestureOutput: Sendable {
    /// Raw per-view touches, in the tracker's order.
    public var touches: [ViewTouches] = []
    /// Gesture messages, in the order they happened.
    public var gestures: [GestureEvent] = []

    /// Nothing to deliver.
    public var isEmpty: Bool { touches.isEmpty && gestures.isEmpty }
}
