import Synchronization
import TouchRouterModel
import TouchRouterProtocol
import TouchRouterSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A connection to touchrouterd over its Unix socket: hello/welcome, requests answered by
/// `async` functions (replies matched by `seq`), and an `AsyncStream` of what the daemon sends on
/// its own (touches, layout changes, a final error).
///
/// One blocking socket and one reader thread: writes happen on the caller's task (short lines to
/// a local socket), every read on the reader thread.
public final class TouchRouterClient: Sendable {
    /// The daemon's answer to our `hello`.
    public let welcome: Welcome
    /// Touches of subscribed views, `layoutChanged`, and errors not tied to a request (e.g.
    /// `queue-overflow` just before the daemon cuts this client off). Finishes when the
    /// connection closes. Unbounded: read it, or don't subscribe.
    public let events: AsyncStream<ClientEvent>

    private let connection: Connection

    private init(connection: Connection, welcome: Welcome, events: AsyncStream<ClientEvent>) {
        self.connection = connection
        self.welcome = welcome
        self.events = events
    }

    deinit {
        connection.close()
    }

    /// The daemon's default socket path.
    public static let defaultSocketPath = "/run/touchrouter/touchrouter.sock"

    /// Connects to the daemon at `socketPath`, says hello as `clientName`, and returns once the
    /// daemon welcomed us. Throws `ClientError.connectFailed` when nothing listens there and
    /// `.daemon` when the daemon refuses (e.g. `too-many-clients`, `unsupported-version`).
    public static func connect(
        socketPath: String = defaultSocketPath, clientName: String? = nil
    ) async throws(ClientError) -> TouchRouterClient {
        let fd = try Connection.connectSocket(path: socketPath)
        let (events, eventSink) = AsyncStream<ClientEvent>.makeStream()
        let connection = Connection(fd: fd, events: eventSink)
        do {
            try connection.startReading()
        } catch {
            _ = Glibc.close(fd)  // no reader thread to close it
            throw error
        }
        let reply: DaemonMessage
        do {
            reply = try await connection.request(
                .hello(version: Int64(ProtocolVersion.current), client: clientName))
        } catch {
            connection.close()
            throw error
        }
        guard case .welcome(let welcome) = reply else {
            connection.close()
            throw ClientError.unexpectedReply(reply)
        }
        return TouchRouterClient(connection: connection, welcome: welcome, events: events)
    }

    /// Subscribes to views (with `subtree`, to every descendant too). Unknown ids and ids whose
    /// access list excludes this client are not an error here: the others are subscribed and
    /// those listed in the result (`unknown`, `denied`). When one request has both, the daemon's
    /// single `permission-denied` reply names only the denied ones, so unknown ids then show up in
    /// `subscribed`; `layout()` tells which exist.
    /// `gestures: true` also delivers the views' `gesture` messages (`ClientEvent.gesture`);
    /// `touches: false` stops raw `touches` messages; nil keeps the connection's setting.
    public func subscribe(
        _ viewIDs: [String], subtree: Bool = false, gestures: Bool? = nil, touches: Bool? = nil
    ) async throws(ClientError)
        -> SubscribeResult
    {
        do throws(ClientError) {
            let reply = try await connection.request(
                .subscribe(views: viewIDs, subtree: subtree, delivery: Delivery(touches: touches, gestures: gestures)))
            guard case .subscribed(let subscribed) = reply else { throw ClientError.unexpectedReply(reply) }
            return SubscribeResult(subscribed: subscribed.views, unknown: [])
        } catch {
            guard case .daemon(let daemonError) = error,
                daemonError.code == .unknownViews || daemonError.code == .permissionDenied
            else {
                throw error
            }
            let refused = Set(daemonError.views)
            let subscribed = viewIDs.filter { !refused.contains($0) }
            if daemonError.code == .permissionDenied {
                return SubscribeResult(subscribed: subscribed, unknown: [], denied: daemonError.views)
            }
            return SubscribeResult(subscribed: subscribed, unknown: daemonError.views)
        }
    }

    /// Stops receiving these views; returns the ids whose subscriptions were removed.
    @discardableResult
    public func unsubscribe(_ viewIDs: [String]) async throws(ClientError) -> [String] {
        try await unsubscribe(.views(viewIDs))
    }

    /// Stops receiving every view; returns the ids whose subscriptions were removed.
    @discardableResult
    public func unsubscribeAll() async throws(ClientError) -> [String] {
        try await unsubscribe(.all)
    }

    private func unsubscribe(_ target: UnsubscribeTarget) async throws(ClientError) -> [String] {
        let reply = try await connection.request(.unsubscribe(target))
        guard case .unsubscribed(let unsubscribed) = reply else { throw ClientError.unexpectedReply(reply) }
        return unsubscribed.views
    }

    /// Which view is under a screen point (nil screen: the layout's first screen).
    public func hitTest(_ screenPoint: Point, screen: String? = nil) async throws(ClientError) -> HitTestReply {
        let reply = try await connection.request(.hitTest(screen: screen, screenPoint: screenPoint))
        guard case .hitTestResult(let result) = reply else { throw ClientError.unexpectedReply(reply) }
        return result
    }

    /// The whole hit-test walk for a screen point, with the responder chain under the daemon's
    /// current subscriptions (nil screen: the layout's first screen). docs/protocol.md, "explain".
    public func explain(_ screenPoint: Point, screen: String? = nil) async throws(ClientError) -> ExplainReply {
        let reply = try await connection.request(.explain(screen: screen, screenPoint: screenPoint))
        guard case .explanation(let result) = reply else { throw ClientError.unexpectedReply(reply) }
        return result
    }

    /// The daemon's current layout and its generation.
    public func layout() async throws(ClientError) -> LayoutReply {
        let reply = try await connection.request(.layout)
        guard case .layout(let layout) = reply else { throw ClientError.unexpectedReply(reply) }
        return layout
    }

    /// The daemon's counters.
    public func status() async throws(ClientError) -> StatusReply {
        let reply = try await connection.request(.status)
        guard case .status(let status) = reply else { throw ClientError.unexpectedReply(reply) }
        return status
    }

    /// Every counter the daemon keeps, as metrics text in `format` (docs/metrics.md).
    public func metrics(format: MetricsFormat = .openMetrics) async throws(ClientError) -> String {
        let reply = try await connection.request(.metrics(format: format))
        guard case .metrics(_, let text, _) = reply else { throw ClientError.unexpectedReply(reply) }
        return text
    }

    /// Asks the daemon to re-read its config (admin only); returns the generation now in effect.
    public func reload() async throws(ClientError) -> UInt64 {
        let reply = try await connection.request(.reload)
        guard case .reloaded(let generation, _) = reply else { throw ClientError.unexpectedReply(reply) }
        return generation
    }

    /// Tells the daemon the screen is off or on (an external blanker; admin only, docs/field.md).
    public func setScreenState(_ screen: String, off: Bool) async throws(ClientError) {
        let reply = try await connection.request(.setScreenState(screen: screen, off: off))
        guard case .screenStateSet = reply else { throw ClientError.unexpectedReply(reply) }
    }

    /// Sends any request and returns its reply (an `error` reply is thrown as `.daemon`).
    public func request(_ message: RequestMessage) async throws(ClientError) -> DaemonMessage {
        try await connection.request(message)
    }

    /// Closes the connection: pending requests fail with `.disconnected`, `events` finishes.
    /// Also done when the client is released.
    public func close() {
        connection.close()
    }
}

/// What `subscribe` did.
public struct SubscribeResult: Hashable, Sendable {
    /// The ids now subscribed.
    public var subscribed: [String]
    /// Ids the layout does not have (not subscribed).
    public var unknown: [String]
    /// Ids whose access list excludes this client (not subscribed).
    public var denied: [String]

    /// Makes a result.
    public init(subscribed: [String], unknown: [String], denied: [String] = []) {
        self.subscribed = subscribed
        self.unknown = unknown
        self.denied = denied
    }
}

/// What the daemon sends on its own.
public enum ClientEvent: Hashable, Sendable {
    /// One subscribed view's touches in one input frame.
    case touches(TouchesMessage)
    /// A subscribed view's gesture recogniser changed state (subscribe with `gestures: true`).
    case gesture(GestureMessage)
    /// The layout changed (a reload); subscriptions are kept by id.
    case layoutChanged(generation: UInt64)
    /// A run-time change (`setView`, `mount`, `unmount`) changed these views.
    case viewsChanged(generation: UInt64, views: [String])
    /// These subscriptions ended without being asked: their mounted views went (`unmounted`), the
    /// client that mounted them left (`ownerLeft`), or the id names another owner's view now
    /// (`replaced`). Subscribe again to follow a view of that id.
    case subscriptionEnded(views: [String], reason: String)
    /// A screen with a subscribed view went idle (or off) or became active (docs/field.md).
    case screenState(ScreenStateChange)
    /// The client's calibration session accepted a press (docs/calibration.md).
    case calibrationSample(CalibrationSample)
    /// The client's calibration session refused a press, with a sentence to show.
    case calibrationRefused(screen: String, reason: CalibrationRefusalReason, message: String)
    /// The daemon ended the client's calibration session (`timeout`, `reload`).
    case calibrationEnded(screen: String, reason: CalibrationEndReason)
    /// An error not answering a request, e.g. `queue-overflow` or `shutting-down` before the
    /// daemon closes the connection.
    case error(ProtocolError)
}

/// Why a client call failed.
public enum ClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// socket(2) or connect(2) failed (`errno`), e.g. ENOENT or ECONNREFUSED: no daemon there.
    case connectFailed(path: String, call: String, errno: Int32)
    /// The socket path does not fit a sockaddr_un (107 bytes).
    case pathTooLong(String)
    /// The daemon answered the request with an `error` line.
    case daemon(ProtocolError)
    /// The connection closed (or failed) before the reply came.
    case disconnected(reason: String)
    /// The daemon answered with a message of the wrong type.
    case unexpectedReply(DaemonMessage)

    public var description: String {
        switch self {
        case .connectFailed(let path, let call, let code):
            "cannot connect to \(path): \(call): \(String(cString: strerror(code)))"
        case .pathTooLong(let path): "socket path too long: \(path)"
        case .daemon(let error): "touchrouterd: \(error)"
        case .disconnected(let reason): "disconnected: \(reason)"
        case .unexpectedReply(let message): "unexpected reply of type \(message.typeName)"
        }
    }
}
