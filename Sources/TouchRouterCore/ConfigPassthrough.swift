import TouchRouterModel

/// A view's `passthrough` key (docs/passthrough.md): `true`, `false`, or `{mode, maxTouches,
/// rightClickMs}`. Read by the config walk; the Router's passthrough stage follows it.

/// How a passthrough region hands its touches to the compositor.
public enum PassthroughMode: String, Hashable, Sendable, CaseIterable {
    /// A virtual touchscreen: each finger is a contact with its own slot.
    case touch
    /// A virtual absolute pointer: one finger moves it and presses the left button; a finger held
    /// still for `rightClickMicros` clicks the right one.
    case pointer
}

/// What a view's `passthrough` key says.
public struct PassthroughSettings: Hashable, Sendable {
    /// `maxTouches` when not given: 10, the most any region takes.
    public static let defaultMaxTouches = 10
    /// The values `maxTouches` may take: 1 (no pinch) to 10 fingers.
    public static let maxTouchesRange = 1...10
    /// `rightClickMs` when not given: 800 ms, a deliberate hold (a tap is far shorter).
    public static let defaultRightClickMs = 800
    /// The values `rightClickMs` may take, in milliseconds.
    public static let rightClickMsRange = 200...5000

    /// false for `passthrough: false`: the view ends the climb and passes nothing through (a
    /// native region inside a passthrough one).
    public var passesThrough: Bool
    /// Touch or pointer.
    public var mode: PassthroughMode
    /// Touch mode: how many fingers of the region are passed on at once; later ones go nowhere.
    public var maxTouches: Int
    /// Pointer mode: how long a finger held still waits before it is a right click, in µs.
    public var rightClickMicros: UInt64

    /// Settings; the defaults are `passthrough: true`'s.
    public init(
        passesThrough: Bool = true, mode: PassthroughMode = .touch, maxTouches: Int = Self.defaultMaxTouches,
        rightClickMs: Int = Self.defaultRightClickMs
    ) {
        self.passesThrough = passesThrough
        self.mode = mode
        self.maxTouches = maxTouches
        self.rightClickMicros = UInt64(max(0, rightClickMs)) * 1000
    }

    /// `passthrough: true`.
    public static let touch = PassthroughSettings()
    /// `passthrough: false`.
    public static let stop = PassthroughSettings(passesThrough: false)
}

extension Config {
    /// The passthrough modes the views of the named screen use (empty: the screen passes nothing
    /// through): which virtual devices the screen needs. Cost: linear in the screen's views, for a
    /// reload worker, not the routing loop.
    public func passthroughModes(forScreen name: String) -> Set<PassthroughMode> {
        guard !viewPassthrough.isEmpty, let screen = layout.screen(named: name) else { return [] }
        var modes: Set<PassthroughMode> = []
        var stack = [screen.root]
        while let view = stack.popLast() {
            if let settings = viewPassthrough[view.id], settings.passesThrough { modes.insert(settings.mode) }
            stack.append(contentsOf: view.children)
        }
        return modes
    }
}

/// Where a touch-down's climb ends and whether it is passed through (docs/passthrough.md): from the
/// hit view towards the root, the climb stops at the first view that has a subscriber, an access
/// list or a `passthrough` key; the touch is passed through when that view's key passes through.
/// The Router's routing targets (`Router.routingStops`) and `touchrouterctl render`'s passthrough
/// marks both follow this rule, so the picture shows what the daemon does.
public struct PassthroughRule: Sendable {
    /// Views with an access list: a climb stops there and never reaches the browser.
    public let accessListViews: Set<String>
    /// The views' `passthrough` keys, by view id.
    public let passthrough: [String: PassthroughSettings]
    /// The views a climb stops at besides subscribed ones: access lists and `passthrough` keys
    /// (`true` or `false`). The Router's routing targets are these plus the subscribed views.
    public let routingStops: Set<String>

    /// The rule for explicit access-list views and `passthrough` keys.
    public init(accessListViews: Set<String>, passthrough: [String: PassthroughSettings]) {
        self.accessListViews = accessListViews
        self.passthrough = passthrough
        routingStops = accessListViews.union(passthrough.keys)
    }

    /// The rule of a config.
    public init(config: Config) {
        self.init(accessListViews: Set(config.viewAccess.keys), passthrough: config.viewPassthrough)
    }

    /// The view the climb along `chain` (the hit view's id, then each ancestor's up to the root)
    /// stops at, or nil when nothing on it takes the touch.
    public func climbEnd(_ chain: some Sequence<String>, subscribedViews: some SubscribedViews) -> String? {
        chain.first { subscribedViews.hasSubscribers($0) || routingStops.contains($0) }
    }

    /// The passthrough region a touch-down with this `chain` is passed through by (the view whose
    /// key passes it, with its settings), or nil when the climb ends anywhere else: a subscriber,
    /// an access list, `passthrough: false`, or nothing.
    public func region(_ chain: some Sequence<String>, subscribedViews: some SubscribedViews) -> (
        view: String, settings: PassthroughSettings
    )? {
        guard let end = climbEnd(chain, subscribedViews: subscribedViews), let settings = passthrough[end],
            settings.passesThrough
        else { return nil }
        return (end, settings)
    }
}

extension ConfigParser {
    static let passthroughKeys = ["mode", "maxTouches", "rightClickMs"]

    /// Reads `passthrough`; nil when anything in it is wrong (every problem reported).
    mutating func passthrough(_ node: JSONNode, _ subject: Subject) -> PassthroughSettings? {
        if parsesMountedSubtree {
            report(
                .invalidValue, node.position, subject,
                "\"passthrough\" is set in the config file only, not in a mounted subtree")
            return nil
        }
        switch node.value {
        case .bool(let flag):
            return flag ? .touch : .stop
        case .object(let object):
            let before = problemCount
            checkKeys(object, allowed: Self.passthroughKeys, subject)
            var mode = PassthroughMode.touch
            if let text = string(object, "mode", subject) {
                if let parsed = PassthroughMode(rawValue: text) {
                    mode = parsed
                } else {
                    report(
                        .invalidValue, object["mode"]?.position, subject,
                        "passthrough's \"mode\" must be \"touch\" or \"pointer\", found \"\(Excerpt.of(text))\"")
                }
            }
            let maxTouches = passthroughCount(object, "maxTouches", PassthroughSettings.maxTouchesRange, subject)
            let rightClickMs = passthroughCount(
                object, "rightClickMs", PassthroughSettings.rightClickMsRange, subject)
            if mode == .pointer, let node = object["maxTouches"] {
                report(
                    .invalidValue, node.position, subject,
                    "passthrough's \"maxTouches\" is for mode \"touch\" (a pointer takes one finger)")
            }
            if mode == .touch, let node = object["rightClickMs"] {
                report(
                    .invalidValue, node.position, subject, "passthrough's \"rightClickMs\" is for mode \"pointer\"")
            }
            guard problemCount == before else { return nil }
            return PassthroughSettings(
                mode: mode, maxTouches: maxTouches ?? PassthroughSettings.defaultMaxTouches,
                rightClickMs: rightClickMs ?? PassthroughSettings.defaultRightClickMs)
        default:
            wrongType(
                node, subject, "\"passthrough\"", "true, false or an object {mode, maxTouches, rightClickMs}")
            return nil
        }
    }

    /// A whole number in `range`.
    private mutating func passthroughCount(
        _ object: JSONObject, _ key: String, _ range: ClosedRange<Int>, _ subject: Subject
    ) -> Int? {
        guard let value = number(object, key, subject) else { return nil }
        guard value == value.rounded(), Double(range.lowerBound) <= value, value <= Double(range.upperBound) else {
            report(
                .invalidValue, object[key]?.position, subject,
                "passthrough's \"\(key)\" must be a whole number in \(range.lowerBound)…\(range.upperBound), "
                    + "found \(Self.format(value))")
            return nil
        }
        return Int(value)
    }
}
