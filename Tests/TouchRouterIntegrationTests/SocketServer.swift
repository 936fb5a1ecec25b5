import Foundation
import Synchronization
import TouchRouterCore
import TouchRouterProtocol
import TouchRouterSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny real Unix-socket server for client tests: real socket, real bytes, scripted replies
/// written with the protocol's own encoders (so the client is tested without the daemon).
final class SocketServer: Sendable {
    let path: String
    private let listenFD: Int32

    init() throws {
        path = "/tmp/trc-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        unlink(path)
        listenFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listenFD >= 0 else { throw POSIXError(.init(rawValue: errno)!) }
        guard let address = UnixSocketAddress(path: path) else { throw POSIXError(.ENAMETOOLONG) }
        let bound = address.withSockaddr { bind(listenFD, $0, $1) }
        guard bound == 0, listen(listenFD, 8) == 0 else { throw POSIXError(.init(rawValue: errno)!) }
    }

    deinit {
        close(listenFD)
        unlink(path)
    }

    /// Accepts one connection on a new thread and runs `script` on it; the connection is closed
    /// when the script returns.
    func serveOne(_ script: @escaping @Sendable (ServerConnection) -> Void) {
        let listenFD = listenFD
        Thread {
            let fd = accept(listenFD, nil, nil)
            guard fd >= 0 else { return }
            let connection = ServerConnection(fd: fd)
            script(connection)
            connection.close()
        }.start()
    }
}

/// The server's side of one connection. Used from one thread only.
final class ServerConnection: @unchecked Sendable {
    private let fd: Int32
    private var framer = LineFramer()
    private var closed = false

    init(fd: Int32) {
        self.fd = fd
    }

    /// The next request, or nil when the client closed. Lines that do not decode come back as
    /// `.error`.
    func nextRequest() -> DecodedRequest? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            switch framer.nextLine() {
            case .line(let line): return RequestDecoder.decode(line: line)
            case .lineTooLong: return .error(ProtocolError(code: .lineTooLong, message: "too long"))
            case .needMoreData:
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if count <= 0 { return nil }
                framer.append(chunk[0..<count])
            }
        }
    }

    /// The next well-formed request, or nil at the end.
    func nextClientRequest() -> ClientRequest? {
        while let decoded = nextRequest() {
            if case .request(let request) = decoded { return request }
        }
        return nil
    }

    func send(_ message: DaemonMessage) {
        sendBytes(message.encodedLine())
    }

    func sendBytes(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return }
            offset += written
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }
}
