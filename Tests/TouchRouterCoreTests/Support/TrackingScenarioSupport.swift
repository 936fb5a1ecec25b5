import TouchRouterCore

/// A small language for tracker scenarios: frames in, each view's message rendered as one line out.
///
/// A line reads `view: #id phase (localX, localY)[ tapN], …` with touches in began order;
/// a cancelled touch reads `#id cancelled/reason (x, y)`; `tapN` appears only when N > 1.

/// What one scenario step feeds the tracker.
enum TrackerInput: Sendable {
    case frame(InputFrame)
    case removeDevice(InputDevice, timestampMicros: UInt64)
    case replaceLayout(Layout, timestampMicros: UInt64)
    case cancelAll(CancelReason, timestampMicros: UInt64)
    /// Not fed to the tracker: changes the set of subscribed views for the following steps.
    case setSubscribed(Set<String>)
}

/// One input and the messages it must produce, rendered.
struct ScenarioStep: Sendable {
    var input: TrackerInput
    var expected: [String]
}

/// A named, table-driven tracker scenario.
struct TrackingScenario: Sendable, CustomStringConvertible {
    var name: String
    var layout: Layout = TrackingFixtures.layout
    var subscribed: Set<String> = TrackingFixtures.allViewIDs
    var configuration = TrackerConfiguration()
    var steps: [ScenarioStep]
    /// Counters that must have exactly these values at the end (by `namedCounters` name).
    var counters: [String: UInt64] = [:]

    var description: String { name }
}

func device(_ id: UInt32) -> InputDevice { InputDevice(id: id, name: "touch-\(id)") }

func frame(
    _ timestampMicros: UInt64, device deviceID: UInt32 = 1, screen: String = "main",
    _ contacts: ContactEvent..., expect expected: [String]
) -> ScenarioStep {
    ScenarioStep(
        input: .frame(
            InputFrame(
                device: device(deviceID), screen: screen, timestampMicros: timestampMicros,
                contacts: contacts)),
        expected: expected)
}

func removeDevice(_ deviceID: UInt32, at timestampMicros: UInt64, expect expected: [String]) -> ScenarioStep {
    ScenarioStep(input: .removeDevice(device(deviceID), timestampMicros: timestampMicros), expected: expected)
}

func replaceLayout(_ layout: Layout, at timestampMicros: UInt64, expect expected: [String]) -> ScenarioStep {
    ScenarioStep(input: .replaceLayout(layout, timestampMicros: timestampMicros), expected: expected)
}

func cancelAll(_ reason: CancelReason, at timestampMicros: UInt64, expect expected: [String]) -> ScenarioStep {
    ScenarioStep(input: .cancelAll(reason, timestampMicros: timestampMicros), expected: expected)
}

func subscribe(_ viewIDs: Set<String>) -> ScenarioStep {
    ScenarioStep(input: .setSubscribed(viewIDs), expected: [])
}

func down(_ slot: Int32, _ x: Double, _ y: Double) -> ContactEvent {
    ContactEvent(kind: .down, slot: slot, screenPoint: Point(x, y))
}

func move(_ slot: Int32, _ x: Double, _ y: Double) -> ContactEvent {
    ContactEvent(kind: .motion, slot: slot, screenPoint: Point(x, y))
}

func up(_ slot: Int32) -> ContactEvent { ContactEvent(kind: .up, slot: slot) }

func cancel(_ slot: Int32) -> ContactEvent { ContactEvent(kind: .cancel, slot: slot) }

extension TouchTracker {
    /// Feeds one scenario input.
    mutating func feed(_ input: TrackerInput, subscribed: Set<String>) -> [ViewTouches] {
        switch input {
        case .frame(let frame): process(.frame(frame), subscribedViews: subscribed)
        case .removeDevice(let device, let time):
            process(.deviceRemoved(device, timestampMicros: time), subscribedViews: subscribed)
        case .replaceLayout(let layout, let time): replaceLayout(layout, timestampMicros: time)
        case .cancelAll(let reason, let time): cancelAll(reason: reason, timestampMicros: time)
        case .setSubscribed: []
        }
    }
}

/// Renders messages in the scenario notation.
func render(_ messages: [ViewTouches]) -> [String] {
    messages.map { message in
        let touches = message.touches.map { touch in
            var phase = touch.phase.rawValue
            if let reason = touch.cancelReason { phase += "/\(reason.rawValue)" }
            let tap = touch.tapCount > 1 ? " tap\(touch.tapCount)" : ""
            return "#\(touch.id) \(phase) \(render(touch.localPoint))\(tap)"
        }
        return "\(message.viewID): " + touches.joined(separator: ", ")
    }
}

func render(_ point: Point) -> String {
    "(\(render(point.x)), \(render(point.y)))"
}

func render(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    if rounded == rounded.rounded() { return String(Int(rounded)) }
    return String(rounded)
}

/// The scenario layout (screen "main", 1000 × 1000, and screen "side", 500 × 500):
///
///     root (0,0 1000×1000)
///     ├─ panel (0,0 400×400) multipleTouch
///     │  └─ button (100,100 100×100)
///     ├─ multi (500,0 400×400) multipleTouch
///     ├─ single (500,500 400×200)
///     ├─ exclusive (0,500 400×400) exclusiveTouch, multipleTouch
///     │  └─ exclusiveChild (0,0 100×100)
///     └─ turned (600,800 200×100) rotated 90° about its centre (700,850)
///     sideRoot (0,0 500×500) on "side"
///     └─ sideButton (0,0 100×100)
enum TrackingFixtures {
    static let layout = Layout(screens: [
        Screen(
            name: "main", width: 1000, height: 1000,
            root: View(
                id: "root", frame: Rect(x: 0, y: 0, width: 1000, height: 1000),
                children: [
                    View(
                        id: "panel", frame: Rect(x: 0, y: 0, width: 400, height: 400),
                        children: [View(id: "button", frame: Rect(x: 100, y: 100, width: 100, height: 100))],
                        multipleTouch: true),
                    View(
                        id: "multi", frame: Rect(x: 500, y: 0, width: 400, height: 400), multipleTouch: true),
                    View(id: "single", frame: Rect(x: 500, y: 500, width: 400, height: 200)),
                    View(
                        id: "exclusive", frame: Rect(x: 0, y: 500, width: 400, height: 400),
                        children: [
                            View(id: "exclusiveChild", frame: Rect(x: 0, y: 0, width: 100, height: 100))
                        ],
                        multipleTouch: true, exclusiveTouch: true),
                    View(
                        id: "turned", frame: Rect(x: 600, y: 800, width: 200, height: 100),
                        transform: ViewTransform(rotationDegrees: 90)),
                ],
                multipleTouch: true)),
        Screen(
            name: "side", width: 500, height: 500,
            root: View(
                id: "sideRoot", frame: Rect(x: 0, y: 0, width: 500, height: 500),
                children: [View(id: "sideButton", frame: Rect(x: 0, y: 0, width: 100, height: 100))],
                multipleTouch: true)),
    ])

    /// The layout after a reload: `button` moved to (200,200) in `panel`; `multi`, `single` and
    /// `exclusive` gone.
    static let reloaded = Layout(screens: [
        Screen(
            name: "main", width: 1000, height: 1000,
            root: View(
                id: "root", frame: Rect(x: 0, y: 0, width: 1000, height: 1000),
                children: [
                    View(
                        id: "panel", frame: Rect(x: 0, y: 0, width: 400, height: 400),
                        children: [View(id: "button", frame: Rect(x: 200, y: 200, width: 100, height: 100))],
                        multipleTouch: true)
                ],
                multipleTouch: true))
    ])

    static let allViewIDs: Set<String> = [
        "root", "panel", "button", "multi", "single", "exclusive", "exclusiveChild", "turned", "sideRoot",
        "sideButton",
    ]
}
