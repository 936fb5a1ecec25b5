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

/// The socket, the reader thread and the table of requests waiting for replies.
private final class Connection: Sendable {
    private struct State {
        var nextSeq: Int64 = 0
        var pending: [Int64: CheckedContinuation<DaemonMessage, any Error>] = [:]
        /// Set once: why the connection ended.
        var closedReason: ClientError?
        /// The last error the daemon sent without a seq (it explains a disconnect).
        var finalError: ProtocolError?
        /// The reader thread closed the descriptor: its number may already belong to another file.
        var descriptorClosed = false
    }

    private let fd: Int32
    private let state = Mutex(State())
    /// Held for a whole line's write, and while the descriptor is closed. Taken before `state`.
    private let writeLock = Mutex(())
    private let events: AsyncStream<ClientEvent>.Continuation
    /// Daemon lines can be long (a big layout); the cap only bounds a broken peer.
    private static let maxLineBytes = 64 << 20

    init(fd: Int32, events: AsyncStream<ClientEvent>.Continuation) {
        self.fd = fd
        self.events = events
    }

    static func connectSocket(path: String) throws(ClientError) -> Int32 {
        guard let address = UnixSocketAddress(path: path) else { throw .pathTooLong(path) }
        do {
            return try address.connectStream().rawValue
        } catch {
            throw .connectFailed(path: path, call: error.call, errno: error.errno)
        }
    }

    /// Starts the reader thread, a detached pthread that holds the connection until the socket ends.
    func startReading() throws(ClientError) {
        var thread = pthread_t()
        let connection = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { argument in
                let connection = Unmanaged<Connection>.fromOpaque(argument!).takeRetainedValue()
                connection.readLoop()
                return nil
            }, connection)
        guard created == 0 else {
            Unmanaged<Connection>.fromOpaque(connection).release()
            throw .disconnected(reason: "cannot start the reader thread: \(String(cString: strerror(created)))")
        }
        pthread_detach(thread)
    }

    /// Sends a request with a fresh seq and waits for the line that echoes it.
    func request(_ message: RequestMessage) async throws(ClientError) -> DaemonMessage {
        let reply: DaemonMessage
        do {
            reply = try await withCheckedThrowingContinuation { continuation in
                let seqOrError: Result<Int64, ClientError> = state.withLock { state in
                    if let reason = state.closedReason { return .failure(reason) }
                    let seq = state.nextSeq
                    state.nextSeq += 1
                    state.pending[seq] = continuation
                    return .success(seq)
                }
                switch seqOrError {
                case .failure(let error):
                    continuation.resume(throwing: error)
                case .success(let seq):
                    // A failed write means the socket is broken: the reader thread will see the end
                    // and fail this request with the reason, including an error line the daemon
                    // sent before it closed (e.g. too-many-clients), which a write error would hide.
                    _ = write(ClientRequest(message, seq: seq).encodedLine())
                }
            }
        } catch let error as ClientError {
            throw error
        } catch {
            throw .disconnected(reason: "\(error)")
        }
        if case .error(let error) = reply { throw .daemon(error) }
        return reply
    }

    /// Writes a whole line; nil on success. MSG_NOSIGNAL: a closed peer is an error, not SIGPIPE.
    @discardableResult
    private func write(_ bytes: [UInt8]) -> ClientError? {
        writeLock.withLock { _ in
            if state.withLock({ $0.descriptorClosed }) {
                return .disconnected(reason: "the connection is closed")
            }
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes { raw in
                    Result { () throws(SystemError) in
                        try FileDescriptor(rawValue: fd).send(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                    }
                }
                switch sent {
                case .success(let count): offset += count ?? 0
                case .failure(let error): return .disconnected(reason: "\(error)")
                }
            }
            return nil
        }
    }

    /// Runs on the reader thread until the socket ends, then closes it.
    private func readLoop() {
        var framer = LineFramer(maxLineBytes: Self.maxLineBytes)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var endReason = "the daemon closed the connection"
        reading: while true {
            let read = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try FileDescriptor(rawValue: fd).read(into: raw) ?? 0 }
            }
            guard case .success(let count) = read else {
                if case .failure(let error) = read { endReason = "\(error)" }
                break
            }
            if count == 0 { break }
            framer.append(chunk[0..<count])
            while true {
                switch framer.nextLine() {
                case .needMoreData: continue reading
                case .lineTooLong(let limit):
                    endReason = "the daemon sent a line longer than \(limit) bytes"
                    break reading
                case .line(let line):
                    handle(line)
                }
            }
        }
        finish(reason: endReason)
        writeLock.withLock { _ in
            state.withLock { state in
                state.descriptorClosed = true
                Glibc.close(fd)
            }
        }
    }

    private func handle(_ line: ArraySlice<UInt8>) {
        guard case .success(let message) = DaemonMessageDecoder.decode(line: line) else {
            return  // an unknown message type from a newer daemon, or a line we cannot read: skip it
        }
        if let seq = message.seq, let waiting = state.withLock({ $0.pending.removeValue(forKey: seq) }) {
            waiting.resume(returning: message)
            return
        }
        switch message {
        case .touches(let touches): events.yield(.touches(touches))
        case .gesture(let gesture): events.yield(.gesture(gesture))
        case .layoutChanged(let generation): events.yield(.layoutChanged(generation: generation))
        case .viewsChanged(let generation, let views): events.yield(.viewsChanged(generation: generation, views: views))
        case .screenState(let change): events.yield(.screenState(change))
        case .subscriptionEnded(let views, let reason): events.yield(.subscriptionEnded(views: views, reason: reason))
        case .error(let error):
            state.withLock { $0.finalError = error }
            events.yield(.error(error))
        default: break  // a reply nobody waits for
        }
    }

    /// Fails every waiting request and ends the event stream, once.
    private func finish(reason: String) {
        let waiting = state.withLock { state in
            if state.closedReason == nil {
                state.closedReason = state.finalError.map(ClientError.daemon) ?? .disconnected(reason: reason)
            }
            let waiting = state.pending
            state.pending.removeAll()
            return (waiting.values, state.closedReason!)
        }
        for continuation in waiting.0 { continuation.resume(throwing: waiting.1) }
        events.finish()
    }

    /// Shuts the socket down; the reader thread then sees the end, fails what waits, and closes
    /// the descriptor (so it is never closed while a read still uses it).
    func close() {
        state.withLock { state in
            if state.closedReason == nil {
                state.closedReason = .disconnected(reason: "closed by the client")
            }
            if !state.descriptorClosed { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}
