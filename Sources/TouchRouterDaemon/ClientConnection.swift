/// One connected client: its socket, inbound line framing and bounded outbound queue.
import Glibc
import TouchRouterCore
import TouchRouterProtocol
import TouchRouterSystem

/// Why the daemon closes a client's connection (logged with the client's identity).
public enum DisconnectReason: Equatable, CustomStringConvertible {
    case closedByPeer
    case readFailed(SystemError)
    case writeFailed(SystemError)
    case lineTooLong
    case queueOverflow(queueBytes: Int)
    case flooding(RequestBudget)
    case daemonStopping

    public var description: String {
        switch self {
        case .closedByPeer: "closed by the client"
        case .readFailed(let error): "read failed (\(error))"
        case .writeFailed(let error): "write failed (\(error))"
        case .lineTooLong: "sent a line over 64 KiB"
        case .queueOverflow(let bytes): "too slow: its \(bytes)-byte queue overflowed even after coalescing"
        case .flooding(let budget):
            "flooding: sent more than \(budget.capacity) lines at once "
                + "(budget \(budget.refillPerSecond) lines per second)"
        case .daemonStopping: "daemon stopping"
        }
    }
}

/// A client connection's state. The daemon owns it; it never touches the event loop itself.
final class ClientConnection {
    let id: ClientID
    let fd: FileDescriptor
    let credentials: PeerCredentials?
    /// The name from `hello`, for logs.
    var name: String?
    var framer = LineFramer()
    var outbox: ClientOutbox
    /// What the loop currently watches this socket for.
    var watchedEvents: IOEvents = .readable
    /// The client shut down its sending side (e.g. `socat` at the end of its input); it may still
    /// read, so the connection stays until it closes completely.
    var inputClosed = false
    /// Set once the connection is doomed; nothing more is queued or read.
    var closing: DisconnectReason?
    /// Every line the client sends takes a token; a client out of tokens is flooding.
    var requestBudget = RequestBudget.standard
    /// The framer may hold complete lines not handled yet (a turn handles a bounded number): the
    /// daemon finishes them in later turns before it reads more from this socket.
    var hasBacklog = false
    /// `touches` messages go to this client (a `subscribe` with `"touches":false` turns them off).
    var receivesTouches = true
    /// `gesture` messages go to this client (a `subscribe` with `"gestures":true`).
    var receivesGestures = false

    /// Whether this client takes messages of `kind` (its subscription's `touches`/`gestures`).
    func takes(_ kind: DeliveredKind) -> Bool {
        switch kind {
        case .touches: receivesTouches
        case .gestures: receivesGestures
        }
    }

    /// A run-time layout request or a query (`subscribe`, `layout`, …) of this client is on the
    /// worker: its later requests wait (not read) until the reply is sent, so replies stay in
    /// request order.
    var awaitsLayoutReply = false
    /// Its queue was coalesced at least once (logged once, at the first time).
    var wasBehind = false
    /// Every view a `setView` changes, and every `mount`/`unmount`, takes a token.
    var changeBudget = Daemon.changeBudget
    /// The client sent a `mount` (its disconnect may have a subtree to remove).
    var sentMount = false
    /// The client sent a `subscribe` (its disconnect has subscriptions to remove, on the worker).
    var hasSubscribed = false
    /// The views the client's `setView`s named that say `resetOnDisconnect` (all it named while a
    /// reload was on its way): its disconnect may have changes to undo there.
    var changedViewIDs: Set<String> = []

    /// Frees a large reply's buffer once written (set by the daemon: on its worker, so freeing
    /// megabytes never costs the loop); nil: freed where it is dropped.
    var retireLargeBuffer: (([UInt8]) -> Void)?

    /// Bytes one `readAvailable` takes from the socket at most: what one loop turn may read.
    static let readChunkBytes = 16 * 1024
    /// Lines one loop turn handles for one client at most.
    static let linesPerTurn = 64

    /// The client may be given more replies: its queue is at most half full. Above that the
    /// daemon stops reading its requests until the queue drains (backpressure), so a client that
    /// sends a burst of requests and reads the replies is answered in full, never cut off.
    var canTakeRequests: Bool { outbox.byteCount <= outbox.byteBudget / 2 && !awaitsLayoutReply }

    init(id: ClientID, fd: FileDescriptor, credentials: PeerCredentials?, queueCapacityBytes: Int) {
        self.id = id
        self.fd = fd
        self.credentials = credentials
        self.outbox = ClientOutbox(byteBudget: queueCapacityBytes)
    }

    /// "client 3 (name, pid=… uid=… gid=…)" for logs.
    var label: String {
        var parts: [String] = []
        if let name { parts.append("\"\(Excerpt.of(name))\"") }
        if let credentials { parts.append(credentials.description) }
        return "client \(id)" + (parts.isEmpty ? "" : " (\(parts.joined(separator: " ")))")
    }

    /// Reads at most `readChunkBytes` from the socket into the framer: one `read` per loop turn,
    /// so a client that writes without pause cannot keep the loop reading. Returns the reason to
    /// disconnect, if any.
    func readAvailable() -> DisconnectReason? {
        var chunk = [UInt8](repeating: 0, count: Self.readChunkBytes)
        do throws(SystemError) {
            // The buffer closures rethrow untyped errors: carry the typed one out in a Result.
            let count = try chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try fd.read(into: raw) }
            }.get()
            guard let count else { return nil }
            if count == 0 { return .closedByPeer }
            framer.append(chunk[..<count])
            return nil
        } catch {
            return error.errno == ECONNRESET ? .closedByPeer : .readFailed(error)
        }
    }

    /// Writes as much of the queue as the socket takes in one `send`. Returns a failure, if any.
    func writePending() -> DisconnectReason? {
        let bytes = outbox.bytesToWrite()
        if let retireLargeBuffer, let buffer = outbox.takeLargeBuffer() { retireLargeBuffer(buffer) }
        guard !bytes.isEmpty else { return nil }
        do throws(SystemError) {
            let written = try bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try fd.send(raw) } }
                .get()
            if let written { outbox.didWrite(written) }
            return nil
        } catch {
            return error.errno == EPIPE || error.errno == ECONNRESET ? .closedByPeer : .writeFailed(error)
        }
    }
}

/// The two kinds of routed message the fan-out hands subscribers. (A switch, not a key path: a key
/// path read costs about 2,000 instructions per frame in the fan-out, measured with callgrind.)
enum DeliveredKind {
    case touches
    case gestures
}
