import TouchRouterModel

/// Daemon → client messages: their types, encoding (daemon side) and decoding (client side).
/// `touches` lines are written by `TouchesEncoder` straight from `ViewTouches`; `TouchesMessage`
/// is their decoded form.

/// A screen as `welcome` describes it.
public struct ScreenInfo: Hashable, Sendable {
    public var name: String
    /// Layout units.
    public var width: Double
    public var height: Double

    /// Makes a screen description.
    public init(name: String, width: Double, height: Double) {
        self.name = name
        self.width = width
        self.height = height
    }
}

/// The reply to `hello`.
public struct Welcome: Hashable, Sendable {
    /// The protocol version the daemon will speak (1).
    public var version: Int64
    /// The daemon's own version, e.g. `0.1.0`.
    public var daemonVersion: String
    /// The layout generation: starts at 1, grows by one with every reload that changed the layout.
    public var generation: UInt64
    public var screens: [ScreenInfo]
    public var seq: Int64?

    /// Makes a welcome.
    public init(
        version: Int64 = Int64(ProtocolVersion.current), daemonVersion: String, generation: UInt64,
        screens: [ScreenInfo], seq: Int64? = nil
    ) {
        self.version = version
        self.daemonVersion = daemonVersion
        self.generation = generation
        self.screens = screens
        self.seq = seq
    }
}

/// One touch of a decoded `touches` message (RoutedTouch as the wire carries it: the device by
/// name only).
///
/// The one place that stays a copy of `RoutedTouch`, on purpose: a client cannot rebuild what the
/// wire leaves out (device ids are the daemon's own), and it must keep a reason a newer daemon
/// sends as text. `init(_: RoutedTouch)` and `ViewTouches(wire:)` are the only bridges, and the
/// bytes come from one encoder (`TouchesEncoder`) either way.
public struct WireTouch: Hashable, Sendable {
    public var id: UInt64
    public var phase: TouchPhase
    /// `location`: in the view's own coordinates.
    public var localPoint: Point
    /// `screenLocation`: in the screen's layout space.
    public var screenPoint: Point
    /// `previousLocation`: the local point of the previous delivery.
    public var previousLocalPoint: Point
    /// `timestamp`, µs.
    public var timestampMicros: UInt64
    public var tapCount: Int
    /// `device`: the input device's name.
    public var deviceName: String
    /// `reason`, for `cancelled` only. Kept as text so a newer daemon's reasons still decode;
    /// `cancelReason` maps it to the enum.
    public var reason: String?

    /// Makes a wire touch.
    public init(
        id: UInt64, phase: TouchPhase, localPoint: Point, screenPoint: Point, previousLocalPoint: Point,
        timestampMicros: UInt64, tapCount: Int, deviceName: String, reason: String? = nil
    ) {
        self.id = id
        self.phase = phase
        self.localPoint = localPoint
        self.screenPoint = screenPoint
        self.previousLocalPoint = previousLocalPoint
        self.timestampMicros = timestampMicros
        self.tapCount = tapCount
        self.deviceName = deviceName
        self.reason = reason
    }

    /// The wire form of a routed touch.
    public init(_ touch: RoutedTouch) {
        self.init(
            id: touch.id, phase: touch.phase, localPoint: touch.localPoint, screenPoint: touch.screenPoint,
            previousLocalPoint: touch.previousLocalPoint, timestampMicros: touch.timestampMicros,
            tapCount: touch.tapCount, deviceName: touch.device.name,
            reason: touch.phase == .cancelled ? (touch.cancelReason ?? .inputCancelled).rawValue : nil)
    }

    /// `reason` as a known cancel reason.
    public var cancelReason: CancelReason? { reason.flatMap(CancelReason.init(rawValue:)) }
}

/// A decoded `touches` message: one view's touches in one input frame (`ViewTouches` as the wire
/// carries it; see `WireTouch`).
public struct TouchesMessage: Hashable, Sendable {
    /// `view`.
    public var viewID: String
    public var screen: String
    /// `time`: the input frame's time, µs.
    public var timestampMicros: UInt64
    public var touches: [WireTouch]

    /// Makes a touches message.
    public init(viewID: String, screen: String, timestampMicros: UInt64, touches: [WireTouch]) {
        self.viewID = viewID
        self.screen = screen
        self.timestampMicros = timestampMicros
        self.touches = touches
    }

    /// The wire form of what the tracker produced.
    public init(_ viewTouches: ViewTouches) {
        self.init(
            viewID: viewTouches.viewID, screen: viewTouches.screen,
            timestampMicros: viewTouches.timestampMicros, touches: viewTouches.touches.map(WireTouch.init))
    }
}

/// The reply to a `subscribe` whose every id was known.
public struct Subscribed: Hashable, Sendable {
    /// The ids now subscribed by this request.
    public var views: [String]
    public var subtree: Bool
    public var seq: Int64?

    /// Makes the reply.
    public init(views: [String], subtree: Bool, seq: Int64? = nil) {
        self.views = views
        self.subtree = subtree
        self.seq = seq
    }
}

/// The reply to `unsubscribe`.
public struct Unsubscribed: Hashable, Sendable {
    /// The ids whose subscriptions were removed (for `all`, every id the client had).
    public var views: [String]
    public var seq: Int64?

    /// Makes the reply.
    public init(views: [String], seq: Int64? = nil) {
        self.views = views
        self.seq = seq
    }
}

/// The reply to `hitTest`.
public struct HitTestReply: Hashable, Sendable {
    public var screen: String
    /// The point asked about, in screen space (echoed).
    public var screenPoint: Point
    /// `view`: the hit view's id, or nil (JSON `null`) when nothing interactive is there.
    public var viewID: String?
    /// View ids from the root to the hit view; empty on a miss.
    public var path: [String]
    /// `local`: the point in the hit view's own coordinates; nil on a miss.
    public var localPoint: Point?
    public var seq: Int64?

    /// Makes the reply.
    public init(
        screen: String, screenPoint: Point, viewID: String?, path: [String], localPoint: Point?,
        seq: Int64? = nil
    ) {
        self.screen = screen
        self.screenPoint = screenPoint
        self.viewID = viewID
        self.path = path
        self.localPoint = localPoint
        self.seq = seq
    }

    /// The reply for a hit-test result (nil: a miss).
    public init(screen: String, screenPoint: Point, result: HitResult?, seq: Int64? = nil) {
        self.init(
            screen: screen, screenPoint: screenPoint, viewID: result?.viewID, path: result?.path ?? [],
            localPoint: result?.localPoint, seq: seq)
    }
}

/// The reply to `explain` (and what `touchrouterctl explain --json` prints offline): the
/// explanation, and the clients that would receive the touch where the daemon knows them.
public struct ExplainReply: Hashable, Sendable {
    public var explanation: HitTestExplanation
    /// `clients`: the names of the clients subscribed to the target view (admin only); nil: not
    /// given (offline, or a client that may not see them).
    public var clients: [String]?
    public var seq: Int64?

    /// Makes the reply.
    public init(explanation: HitTestExplanation, clients: [String]? = nil, seq: Int64? = nil) {
        self.explanation = explanation
        self.clients = clients
        self.seq = seq
    }
}

/// The reply to `layout`: the whole current layout.
public struct LayoutReply: Hashable, Sendable {
    public var generation: UInt64
    public var layout: Layout
    public var seq: Int64?

    /// Makes the reply.
    public init(generation: UInt64, layout: Layout, seq: Int64? = nil) {
        self.generation = generation
        self.layout = layout
        self.seq = seq
    }
}

/// The reply to `status`: whatever counters the daemon keeps, by name.
public struct StatusReply: Hashable, Sendable {
    public var counters: [String: JSONValue]
    public var seq: Int64?

    /// Makes the reply.
    public init(counters: [String: JSONValue], seq: Int64? = nil) {
        self.counters = counters
        self.seq = seq
    }
}

/// Every line the daemon sends.
public enum DaemonMessage: Hashable, Sendable {
    case welcome(Welcome)
    case touches(TouchesMessage)
    /// A view's gesture recogniser changed state (`subscribe` with `"gestures":true`).
    case gesture(GestureMessage)
    /// A reload changed the layout; subscriptions are kept by id.
    case layoutChanged(generation: UInt64)
    /// A run-time change (`setView`, `mount`, `unmount`, a client's mounts going with it) changed
    /// these views; on the wire a `layoutChanged` with `views`.
    case viewsChanged(generation: UInt64, views: [String])
    case subscribed(Subscribed)
    case unsubscribed(Unsubscribed)
    /// Subscriptions of this client that ended without its asking: their mounted views went
    /// (`reason` `unmounted`), the client that mounted them left (`ownerLeft`), or the id now names
    /// another owner's view (`replaced`). They are not re-bound when such an id comes back.
    case subscriptionEnded(views: [String], reason: String)
    case hitTestResult(HitTestReply)
    /// The reply to `explain`.
    case explanation(ExplainReply)
    case layout(LayoutReply)
    case status(StatusReply)
    /// The reply to `metrics`: the text in the format asked for.
    case metrics(format: MetricsFormat, text: String, seq: Int64?)
    /// The reply to `reload`: the generation now in effect.
    case reloaded(generation: UInt64, seq: Int64?)
    /// The reply to `setView`: the changes are live at this generation.
    case viewsSet(LayoutChangeReply)
    /// The reply to `mount`.
    case mounted(LayoutChangeReply)
    /// The reply to `unmount`.
    case unmounted(LayoutChangeReply)
    /// `idle` / `active`: a screen went idle (or off) or became active, to every client subscribed
    /// to a view of that screen (docs/field.md).
    case screenState(ScreenStateChange)
    /// `screenState`: the reply to `setScreenState`, the state now in effect.
    case screenStateSet(screen: String, off: Bool, seq: Int64?)
    /// The reply to `calibrationStart`: the session runs (docs/calibration.md).
    case calibrationStarted(CalibrationStarted)
    /// One accepted press of the session, to the session's client.
    case calibrationSample(CalibrationSample)
    /// A press of the session that gave no sample, with a sentence a person can read.
    case calibrationRefused(screen: String, reason: CalibrationRefusalReason, message: String)
    /// The session ended without a fit: the reply to `calibrationCancel` (with its `seq`), or the
    /// daemon's own (`timeout`, `reload`; no `seq`).
    case calibrationEnded(screen: String, reason: CalibrationEndReason, seq: Int64?)
    /// The reply to `calibrationFinish`: the fitted matrix.
    case calibrationResult(CalibrationResult)
    case error(ProtocolError)

    /// The `seq` of the request this message answers; nil for unsolicited messages.
    public var seq: Int64? {
        switch self {
        case .welcome(let message): message.seq
        case .touches, .gesture, .layoutChanged, .viewsChanged, .screenState, .subscriptionEnded: nil
        case .screenStateSet(_, _, let seq): seq
        case .calibrationSample, .calibrationRefused: nil
        case .calibrationStarted(let reply): reply.seq
        case .calibrationEnded(_, _, let seq): seq
        case .calibrationResult(let reply): reply.seq
        case .subscribed(let message): message.seq
        case .unsubscribed(let message): message.seq
        case .hitTestResult(let message): message.seq
        case .explanation(let message): message.seq
        case .layout(let message): message.seq
        case .status(let message): message.seq
        case .metrics(_, _, let seq): seq
        case .reloaded(_, let seq): seq
        case .viewsSet(let reply), .mounted(let reply), .unmounted(let reply): reply.seq
        case .error(let error): error.seq
        }
    }

    /// The wire `type`.
    public var typeName: String {
        switch self {
        case .welcome: "welcome"
        case .touches: "touches"
        case .gesture: "gesture"
        case .layoutChanged, .viewsChanged: "layoutChanged"
        case .subscribed: "subscribed"
        case .unsubscribed: "unsubscribed"
        case .subscriptionEnded: "subscriptionEnded"
        case .hitTestResult: "hitTestResult"
        case .explanation: "explanation"
        case .layout: "layout"
        case .status: "status"
        case .metrics: "metrics"
        case .reloaded: "reloaded"
        case .viewsSet: "viewsSet"
        case .mounted: "mounted"
        case .unmounted: "unmounted"
        case .screenState(let change): change.isActive ? "active" : "idle"
        case .screenStateSet: "screenState"
        case .calibrationStarted: "calibrationStarted"
        case .calibrationSample: "calibrationSample"
        case .calibrationRefused: "calibrationRefused"
        case .calibrationEnded: "calibrationEnded"
        case .calibrationResult: "calibrationResult"
        case .error: "error"
        }
    }
}
