/// What one step of recognition produced: the raw touches to deliver (the tracker's, minus what
/// recognised gestures took, plus their `gesture` cancellations) and the gesture messages.
///
/// The messages are kept as `GestureRecord`s (plain values: no string, no array, so recording
/// one retains and allocates nothing); `event(_:)` makes the public `GestureEvent` of one, which
/// the daemon does only for a view whose subscribers asked for gestures.
public struct GestureOutput: Sendable {
    /// Raw per-view touches, in the tracker's order.
    public var touches: [ViewTouches] = []
    /// Gesture messages, in the order they happened.
    public internal(set) var records: [GestureRecord] = []
    /// The touch ids the records name, one record's after another's.
    var recordTouchIDs: [UInt64] = []
    /// Per view slot of the stage, the view's id and screen: the stage's own tables, kept here so
    /// that an output it returns shares them (one retain) instead of naming views per record.
    var viewIDs: [String] = []
    var screens: [String] = []
    /// While `GestureStage.process` runs: how many of the tracker's messages, from the first,
    /// passed on unchanged and are not in `touches` yet (nil: not deferring). When every message
    /// passes, `touches` becomes the tracker's array itself (one retain) instead of a copy made
    /// message by message (three retains each, and as many releases when it is emptied).
    var deferredMessages: Int?

    /// Nothing to deliver.
    public var isEmpty: Bool { touches.isEmpty && records.isEmpty }

    /// The view a record's recogniser belongs to. Cost: one array read.
    public func viewID(of record: GestureRecord) -> String { viewIDs[Int(record.slot)] }

    /// A record as the public event (with its view's strings and its touch ids in an array of its
    /// own). Cost: one small allocation.
    public func event(_ record: GestureRecord) -> GestureEvent {
        let slot = Int(record.slot)
        let start = Int(record.touchStart)
        var event = GestureEvent(
            viewID: viewIDs[slot], screen: screens[slot], kind: record.kind,
            recogniserIndex: Int(record.recogniserIndex), state: record.state,
            timestampMicros: record.timestampMicros,
            touchIDs: Array(recordTouchIDs[start..<start + Int(record.touchCount)]),
            localPoint: record.localPoint, screenPoint: record.screenPoint)
        switch record.kind {
        case .tap: event.taps = Int(record.number)
        case .longPress: event.durationMicros = record.number
        case .pan:
            event.translation = record.measure
            event.velocity = record.velocity
        case .swipe:
            event.direction = record.direction
            event.translation = record.measure
            event.velocity = record.velocity
            event.durationMicros = record.number
        case .pinch:
            event.scale = record.measure.x
            event.scaleVelocity = record.measure.y
        case .rotate:
            event.rotation = record.measure.x
            event.rotationVelocity = record.measure.y
        }
        return event
    }

    /// Every record as its public event, in order (tests, a reload's few messages).
    public var gestures: [GestureEvent] { records.map(event) }

    /// A tracker message passed on as it came. Cost: one increment while deferring, else one append.
    @inline(__always)
    mutating func passUnchanged(_ batches: [ViewTouches], at position: Int) {
        if let deferred = deferredMessages, deferred == position {
            deferredMessages = deferred + 1
        } else {
            stopDeferring(batches)
            touches.append(batches[position])
        }
    }

    /// Before a message that is not the tracker's as it came goes into `touches`, or instead of
    /// one that is dropped: the messages deferred so far go in first, so the order is kept.
    /// Cost: one test once deferring stopped.
    @inline(__always)
    mutating func stopDeferring(_ batches: [ViewTouches]) {
        guard let deferred = deferredMessages else { return }
        deferredMessages = nil
        if deferred > 0 { touches.append(contentsOf: batches[0..<deferred]) }
    }

    /// Empties the touches and records for the next step, their storage kept (not the tables).
    /// Cost: one test per array, and a call for each that holds something (removing nothing still
    /// cost a call each: most frames of a tap record nothing).
    mutating func clear() {
        if !touches.isEmpty { touches.removeAll(keepingCapacity: true) }
        if !records.isEmpty { records.removeAll(keepingCapacity: true) }
        if !recordTouchIDs.isEmpty { recordTouchIDs.removeAll(keepingCapacity: true) }
    }
}

/// One gesture message as recognition records it: a view's recogniser moved to `state` (never
/// `possible`; `failed` only when the stage records failures). Plain values only, so appending
/// one is a copy of its bytes; `GestureOutput.event(_:)` turns it into a `GestureEvent`.
public struct GestureRecord: Sendable {
    /// The view's slot in the output's tables.
    let slot: Int32
    /// The position of the recogniser's touch ids in `GestureOutput.recordTouchIDs`.
    let touchStart: Int32
    let touchCount: UInt8
    let recogniserIndex: UInt8
    public let kind: GestureKind
    public let state: GestureState
    /// swipe: its direction.
    let direction: SwipeDirection?
    public let timestampMicros: UInt64
    let localPoint: Point
    let screenPoint: Point
    /// pan, swipe: the translation; pinch: scale and its velocity; rotate: rotation and its velocity.
    let measure: Point
    /// pan, swipe: the velocity.
    let velocity: Point
    /// tap: the taps counted; longPress, swipe: the duration, µs.
    let number: UInt64

    init(
        slot: Int, touchStart: Int, touchCount: Int, recogniserIndex: Int, kind: GestureKind,
        state: GestureState, timestampMicros: UInt64, localPoint: Point, screenPoint: Point,
        measure: Point = Point(0, 0), velocity: Point = Point(0, 0), number: UInt64 = 0,
        direction: SwipeDirection? = nil
    ) {
        self.slot = Int32(truncatingIfNeeded: slot)
        self.touchStart = Int32(truncatingIfNeeded: touchStart)
        self.touchCount = UInt8(truncatingIfNeeded: touchCount)
        self.recogniserIndex = UInt8(truncatingIfNeeded: recogniserIndex)
        self.kind = kind
        self.state = state
        self.direction = direction
        self.timestampMicros = timestampMicros
        self.localPoint = localPoint
        self.screenPoint = screenPoint
        self.measure = measure
        self.velocity = velocity
        self.number = number
    }
}
