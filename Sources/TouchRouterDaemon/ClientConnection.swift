/// One connected client: its socket, inbound line framing and bounded outbound queue.
import Glibc
import TouchRouterCore
import TouchRouterProtocol

/// Why the daemon closes a client's connection (logged with the client's identity).
public enum DisconnectReason: Equatable, CustomStringConvertible {
    case closedByPeer
    case readFailed(SystemError)
    case writeFailed(SystemError)
    case lineTooLong
    case queueOverflow(queueBytes: Int)
    case daemonStopping

    public var description: String {
        switch self {
        case .closedByPeer: "closed by the client"
        case .readFailed(let error): "read failed (\(error))"
        case .writeFailed(let error): "write failed (\(error))"
        case .lineTooLong: "sent a line over 64 KiB"
        case .queueOverflow(let bytes): "too slow: its \(bytes)-byte queue overflowed even after coalescing"
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

    init(id: ClientID, fd: FileDescriptor, credentials: PeerCredentials?, queueCapacityBytes: Int) {
        self.id = id
        self.fd = fd
        self.credentials = credentials
        self.outbox = ClientOutbox(byteBudget: queueCapacityBytes)
    }

    /// "client 3 (name, pid=… uid=… gid=…)" for logs.
    var label: String {
        var parts: [String] = []
        if let name { parts.append("\"\(name)\"") }
        if let credentials { parts.append(credentials.description) }
        return "client \(id)" + (parts.isEmpty ? "" : " (\(parts.joined(separator: " ")))")
    }

    /// Reads what the socket has into the framer. Returns the reason to disconnect, if any.
    func readAvailable() -> DisconnectReason? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            do {
                let count = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
                guard let count else { return nil }
                if count == 0 { return .closedByPeer }
                framer.append(chunk[..<count])
                if count < chunk.count { return nil }
            } catch let error as SystemError {
                return error.errno == ECONNRESET ? .closedByPeer : .readFailed(error)
            } catch {
                return .readFailed(SystemError(call: "read", errno: EIO))
            }
        }
    }

    /// Writes as much of the queue as the socket takes in one `send`. Returns a failure, if any.
    func writePending() -> DisconnectReason? {
        let bytes = outbox.bytesToWrite()
        guard !bytes.isEmpty else { return nil }
        do {
            let written = try bytes.withUnsafeBytes { try fd.send($0) }
            if let written { outbox.didWrite(written) }
            return nil
        } catch let error as SystemError {
            return error.errno == EPIPE || error.errno == ECONNRESET ? .closedByPeer : .writeFailed(error)
        } catch {
            return .writeFailed(SystemError(call: "send", errno: EIO))
        }
    }

    /// Best effort: queues `line` as the connection's last message and writes once.
    func sendFinalLine(_ line: [UInt8]) {
        _ = outbox.enqueue(line: line)
        _ = writePending()
    }
}
