/// The protocol's error codes and the typed error every decoder returns instead of throwing.

/// Every `code` an `error` line can carry. The raw value is the wire spelling.
public enum ErrorCode: String, Hashable, Sendable, CaseIterable {
    /// The line is not JSON (or not UTF-8), or its top level is not an object.
    case malformedJSON = "malformed-json"
    /// Valid JSON, but a field is missing, has the wrong type or an impossible value.
    case invalidMessage = "invalid-message"
    /// The `type` field names no request of this protocol version.
    case unknownType = "unknown-type"
    /// `hello` asked for a protocol version this daemon does not speak.
    case unsupportedVersion = "unsupported-version"
    /// `subscribe` named view ids the layout does not have (the known ones were still applied).
    case unknownViews = "unknown-views"
    /// `hitTest` named a screen the layout does not have.
    case unknownScreen = "unknown-screen"
    /// A line exceeded the daemon's line limit (64 KiB by default); the daemon disconnects.
    case lineTooLong = "line-too-long"
    /// The client read too slowly: its queue overflowed even after coalescing; it is disconnected.
    case queueOverflow = "queue-overflow"
    /// The client sent lines (requests, blank lines or garbage) faster than its request budget
    /// allows; it is disconnected.
    case tooManyRequests = "too-many-requests"
    /// The daemon already serves its maximum number of clients; sent once, then the socket closes.
    case tooManyClients = "too-many-clients"
    /// The client's uid/gid may not do this (a view's access list, or an admin request).
    case permissionDenied = "permission-denied"
    /// A known request this daemon does not carry out (for example `reload` when it has no config
    /// file to re-read).
    case notSupported = "not-supported"
    /// The daemon is stopping; sent before it closes every connection.
    case shuttingDown = "shutting-down"
    /// The daemon failed in a way that is not the client's fault.
    case internalError = "internal"
    /// A `setView` or `mount` had values the config would refuse (`failures` lists each, with the
    /// config's error codes); nothing was applied.
    case invalidLayout = "invalid-layout"
    /// `mount`/`unmount` named a view that does not say `mount: true`.
    case notMountPoint = "not-mount-point"
    /// A `mount` brought more views than the per-mount limit.
    case mountTooLarge = "mount-too-large"
    /// A `mount` would give the client more mounted views than its limit.
    case tooManyMountedViews = "too-many-mounted-views"
    /// The client changed views faster than its change budget; the request was not applied.
    case tooManyChanges = "too-many-changes"
    /// A `subscribe` would give the client more subscriptions than its limit; nothing of it was
    /// applied.
    case tooManySubscriptions = "too-many-subscriptions"
    /// A `reload` found a config file that does not load (`failures` lists its errors, each with
    /// the config's code and place); the running layout stays.
    case invalidConfig = "invalid-config"
    /// `calibrationStart` while a calibration session is already running (on any screen, by any
    /// client): one session at a time, daemon-wide.
    case calibrationBusy = "calibration-busy"

    /// The daemon closes the connection after sending an error with this code.
    public var closesConnection: Bool {
        switch self {
        case .lineTooLong, .queueOverflow, .tooManyRequests, .tooManyClients, .shuttingDown: true
        default: false
        }
    }
}

/// An error as the protocol reports it: a code, a human-readable message, the request's `seq`
/// when it could be read, and for `unknown-views` the ids that were unknown.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    /// One sentence for a human; clients branch on `code`, never on this text.
    public var message: String
    /// The failing request's `seq`, echoed so the client can match the error to its request.
    public var seq: Int64?
    /// For `unknown-views`: the ids that are not in the layout. Empty otherwise.
    public var views: [String]
    /// For a refused `setView`/`mount`/`unmount`: every reason, with view path and field.
    public var failures: [ProtocolFailure] = []

    /// Makes an error.
    public init(code: ErrorCode, message: String, seq: Int64? = nil, views: [String] = []) {
        self.code = code
        self.message = message
        self.seq = seq
        self.views = views
    }

    public var description: String {
        "\(code.rawValue): \(message)" + (seq.map { " (seq \($0))" } ?? "")
    }
}
