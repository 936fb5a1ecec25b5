import TouchRouterCore

/// A tracker and a gesture stage on one 2000×2000 screen whose view "pad" covers it
/// (multipleTouch), at 0.1 mm per layout unit, so 1 mm is 10 units and every threshold can be
/// hit exactly and missed by one unit. Times are ms from an arbitrary start.
struct GestureHarness {
    static let scale = PhysicalScale(millimetresPerUnitX: 0.1, millimetresPerUnitY: 0.1, source: .config)
    static let startMicros: UInt64 = 1_000_000
    static let device = InputDevice(id: 1, name: "test panel")

    var tracker: TouchTracker
    var stage: GestureStage
    var subscribed: Set<String> = ["pad"]
    /// Every gesture event so far (failures too when `recordsFailures`).
    var events: [GestureEvent] = []
    /// Every raw message delivered so far, after recognition.
    var raw: [ViewTouches] = []
    /// What the tracker alone delivered.
    var trackerRaw: [ViewTouches] = []
    var positions: [Int32: Point] = [:]

    /// `transform` turns or scales the pad about its centre (its units then differ from the glass's).
    init(_ specs: [GestureSpec], recordsFailures: Bool = false, transform: ViewTransform = ViewTransform()) {
        let pad = View(
            id: "pad", frame: Rect(x: 0, y: 0, width: 2000, height: 2000), transform: transform, multipleTouch: true)
        let root = View(id: "main", frame: Rect(x: 0, y: 0, width: 2000, height: 2000), children: [pad])
        tracker = TouchTracker(layout: Layout(screens: [Screen(name: "main", width: 2000, height: 2000, root: root)]))
        stage = GestureStage(viewGestures: specs.isEmpty ? [:] : ["pad": specs])
        stage.recordsFailures = recordsFailures
    }

    /// One gesture kind with its defaults, or changed by `configure`.
    init(_ kind: GestureKind, recordsFailures: Bool = false, _ configure: (inout GestureSpec) -> Void = { _ in }) {
        var spec = GestureSpec(kind)
        configure(&spec)
        self.init([spec], recordsFailures: recordsFailures)
    }

    static func micros(_ ms: Double) -> UInt64 { startMicros + UInt64((ms * 1000).rounded()) }

    mutating func frame(_ ms: Double, _ contacts: [ContactEvent]) {
        let time = Self.micros(ms)
        let frame = InputFrame(
            device: Self.device, screen: "main", timestampMicros: time, contacts: contacts,
            physicalScale: Self.scale)
        take(tracker.process(.frame(frame), subscribedViews: subscribed), time)
    }

    mutating func take(_ batches: [ViewTouches], _ time: UInt64) {
        trackerRaw += batches
        let output = stage.process(batches, scale: Self.scale, timestampMicros: time)
        raw += output.touches
        events += output.gestures
    }

    mutating func down(_ ms: Double, _ slot: Int32, _ x: Double, _ y: Double) {
        positions[slot] = Point(x, y)
        frame(ms, [ContactEvent(kind: .down, slot: slot, screenPoint: Point(x, y))])
    }

    mutating func move(_ ms: Double, _ slot: Int32, _ x: Double, _ y: Double) {
        positions[slot] = Point(x, y)
        frame(ms, [ContactEvent(kind: .motion, slot: slot, screenPoint: Point(x, y))])
    }

    /// Moves a finger by (dx, dy) in `steps` frames spread over `durationMs`.
    mutating func drag(
        from ms: Double, _ slot: Int32, by dx: Double, _ dy: Double, steps: Int = 5, durationMs: Double = 50
    ) {
        let start = positions[slot]!
        for step in 1...steps {
            let fraction = Double(step) / Double(steps)
            move(ms + durationMs * fraction, slot, start.x + dx * fraction, start.y + dy * fraction)
        }
    }

    mutating func up(_ ms: Double, _ slot: Int32) {
        positions[slot] = nil
        frame(ms, [ContactEvent(kind: .up, slot: slot)])
    }

    mutating func advance(_ ms: Double) {
        let output = stage.advance(to: Self.micros(ms))
        raw += output.touches
        events += output.gestures
    }

    mutating func removeDevice(_ ms: Double) {
        take(
            tracker.process(.deviceRemoved(Self.device, timestampMicros: Self.micros(ms)), subscribedViews: subscribed),
            Self.micros(ms))
    }

    /// The events as "kind state" strings, failures left out unless recorded.
    var summary: [String] { events.map { "\($0.kind.rawValue) \($0.state.rawValue)" } }

    /// The raw phases delivered for one touch id, with the reason of a cancellation.
    func rawPhases(of id: UInt64) -> [String] {
        raw.flatMap(\.touches).filter { $0.id == id }.map {
            $0.phase == .cancelled ? "cancelled \($0.cancelReason?.rawValue ?? "?")" : $0.phase.rawValue
        }
    }
}

/// A tracker and a gesture stage fed whole frames of one device at 0.1 mm per layout unit, times
/// in ms after the previous step: what the state lifetime and reuse tests drive. Collects the
/// gesture events and the raw messages the stage passes on.
struct TrackedStage {
    var tracker: TouchTracker
    var stage: GestureStage
    var subscribed: Set<String>
    var events: [GestureEvent] = []
    var raw: [ViewTouches] = []
    var now: UInt64 = 1_000_000
    let device: InputDevice
    let scale = PhysicalScale(millimetresPerUnitX: 0.1, millimetresPerUnitY: 0.1, source: .config)

    /// One screen "main" of `root`'s size, every view in `subscribed` subscribed to.
    init(root: View, viewGestures: [String: [GestureSpec]], subscribed: Set<String>, deviceName: String) {
        let screen = Screen(name: "main", width: root.frame.width, height: root.frame.height, root: root)
        tracker = TouchTracker(layout: Layout(screens: [screen]))
        stage = GestureStage(viewGestures: viewGestures)
        self.subscribed = subscribed
        device = InputDevice(id: 1, name: deviceName)
    }

    mutating func frame(after ms: UInt64, _ contacts: [ContactEvent]) {
        now += ms * 1000
        let frame = InputFrame(
            device: device, screen: "main", timestampMicros: now, contacts: contacts, physicalScale: scale)
        let output = stage.process(
            tracker.process(.frame(frame), subscribedViews: subscribed), scale: scale, timestampMicros: now)
        events += output.gestures
        raw += output.touches
    }

    /// The stage's timer `ms` later.
    mutating func advance(after ms: UInt64) {
        now += ms * 1000
        let output = stage.advance(to: now)
        events += output.gestures
        raw += output.touches
    }
}
