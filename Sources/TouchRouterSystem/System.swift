/// The one system layer under every touchrouter module that touches the OS: one handle type, one
/// error type (the call's name and its errno), EINTR retried in exactly one place (`systemCall`),
/// Unix socket addresses, the monotonic clock. Thin wrappers in the spirit of swift-system.
import Glibc

/// A failed system call: which C function failed and the errno it left.
public struct SystemError: Error, Equatable, CustomStringConvertible {
    /// The C function, e.g. `"bind"`.
    public var call: String
    /// The errno the call left.
    public var errno: Int32

    /// The failure of `call` with `errno`.
    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}

/// Calls `body` until it does not fail with EINTR. A negative result throws `SystemError` naming
/// `call`; `EAGAIN`/`EWOULDBLOCK` is reported as `nil` when `wouldBlockIsNil` is set. Inlinable so
/// every caller (other modules; every read and write of the loop) gets it specialized for its
/// integer type instead of calling it through witness tables.
@inlinable
@discardableResult
public func systemCall<Result: BinaryInteger>(
    _ call: String, wouldBlockIsNil: Bool = false, _ body: () -> Result
) throws(SystemError) -> Result? {
    while true {
        let result = body()
        if result >= 0 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        if wouldBlockIsNil && (code == EAGAIN || code == EWOULDBLOCK) { return nil }
        throw SystemError(call: call, errno: code)
    }
}

/// `systemCall` for calls that cannot report "would block".
@inlinable
@discardableResult
public func checked<Result: BinaryInteger>(_ call: String, _ body: () -> Result) throws(SystemError) -> Result {
    try systemCall(call, body)!
}

/// An open file descriptor. A plain value: closing is explicit, as with swift-system.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32

    /// Wraps an open descriptor number.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `read(2)`: the byte count (0 at end of file), or nil when a nonblocking fd has nothing.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        try systemCall("read", wouldBlockIsNil: true) {
            Glibc.read(rawValue, buffer.baseAddress, buffer.count)
        }
    }

    /// `write(2)`: the bytes written, or nil when a nonblocking fd cannot take any now.
    public func write(_ buffer: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        try systemCall("write", wouldBlockIsNil: true) {
            Glibc.write(rawValue, buffer.baseAddress, buffer.count)
        }
    }

    /// `send(2)` with MSG_NOSIGNAL, so a vanished peer is an EPIPE error, never a SIGPIPE.
    public func send(_ buffer: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        try systemCall("send", wouldBlockIsNil: true) {
            Glibc.send(rawValue, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
        }
    }

    /// `close(2)`. EINTR is not retried: on Linux the descriptor is gone either way.
    public func close() {
        _ = Glibc.close(rawValue)
    }

    /// `fcntl(F_SETFL, O_NONBLOCK)` and `fcntl(F_SETFD, FD_CLOEXEC)`.
    public func setNonblockingAndCloseOnExec() throws(SystemError) {
        let flags = try checked("fcntl") { fcntl(rawValue, F_GETFL) }
        try checked("fcntl") { fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
        let fdFlags = try checked("fcntl") { fcntl(rawValue, F_GETFD) }
        try checked("fcntl") { fcntl(rawValue, F_SETFD, fdFlags | FD_CLOEXEC) }
    }
}

/// The identity of a socket peer as the kernel saw it at connect time (SO_PEERCRED).
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    /// The peer's process, user and group at connect time.
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// Supplementary groups (SO_PEERGROUPS); empty when the kernel cannot tell.
    public var groups: [UInt32] = []

    public var description: String { "pid=\(pid) uid=\(uid) gid=\(gid)" }

    /// `getsockopt(SOL_SOCKET, SO_PEERCRED)` on a connected Unix socket.
    public init(socket: FileDescriptor) throws(SystemError) {
        // struct ucred is pid_t, uid_t, gid_t; Glibc hides it behind _GNU_SOURCE.
        var raw: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: raw))
        try checked("getsockopt") {
            getsockopt(socket.rawValue, SOL_SOCKET, SO_PEERCRED, &raw, &length)
        }
        pid = raw.0
        uid = raw.1
        gid = raw.2
        // SO_PEERGROUPS (Linux 4.13): the peer's supplementary groups at connect time.
        let soPeerGroups: Int32 = 59
        var capacity = 64
        while capacity <= 65536 {
            var buffer = [UInt32](repeating: 0, count: capacity)
            var size = socklen_t(capacity * MemoryLayout<UInt32>.size)
            if getsockopt(socket.rawValue, SOL_SOCKET, soPeerGroups, &buffer, &size) == 0 {
                groups = Array(buffer.prefix(Int(size) / MemoryLayout<UInt32>.size))
                break
            }
            guard errno == ERANGE else { break }
            capacity = max(capacity * 4, Int(size) / MemoryLayout<UInt32>.size)
        }
    }
}

/// Sleeps until CLOCK_MONOTONIC reaches `monotonicNanos` (`clock_nanosleep` with TIMER_ABSTIME, so a
/// signal that interrupts it costs no drift: the retry sleeps to the same instant).
public func sleepUntil(monotonicNanos: UInt64) {
    var time = timespec(tv_sec: Int(monotonicNanos / 1_000_000_000), tv_nsec: Int(monotonicNanos % 1_000_000_000))
    // clock_nanosleep returns its error rather than setting errno: hand it to systemCall as errno.
    _ = try? systemCall("clock_nanosleep") { () -> Int32 in
        let code = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil)
        guard code == 0 else {
            Glibc.errno = code
            return -1
        }
        return 0
    }
}

/// CLOCK_MONOTONIC in microseconds, the clock libinput and the recordings' timeline use.
public func monotonicMicros() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}

/// A `sockaddr_un` for a Unix socket path, and the calls that take one.
public struct UnixSocketAddress: Sendable {
    /// The path, as given.
    public let path: String
    private let address: sockaddr_un
    private let length: socklen_t

    /// The longest path that fits `sun_path` (with its terminating NUL): 107 bytes on Linux.
    public static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// The address of `path`; nil when the path is empty or longer than `maximumPathBytes`. A path
    /// starting with `@` names the abstract namespace (as systemd's NOTIFY_SOCKET may): the `@`
    /// becomes a NUL and the length covers exactly the name.
    public init?(path: String) {
        guard !path.isEmpty, path.utf8.count <= Self.maximumPathBytes else { return nil }
        self.path = path
        var bytes = Array(path.utf8)
        let isAbstract = bytes[0] == UInt8(ascii: "@")
        if isAbstract { bytes[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        self.address = address
        length =
            isAbstract
            ? socklen_t(MemoryLayout<sa_family_t>.size + bytes.count) : socklen_t(MemoryLayout<sockaddr_un>.size)
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    public func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result) rethrows -> Result {
        try withUnsafePointer(to: address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                try body($0, length)
            }
        }
    }

    /// `socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)` then `connect(2)` (retried on EINTR): a
    /// blocking connected stream socket. The socket is closed if the connect fails.
    public func connectStream() throws(SystemError) -> FileDescriptor {
        let fd = FileDescriptor(
            rawValue: try checked("socket") {
                socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            })
        do {
            try checked("connect") { withSockaddr { Glibc.connect(fd.rawValue, $0, $1) } }
        } catch {
            fd.close()
            throw error
        }
        return fd
    }
}

extension UnixSocketAddress {
    /// The path a Unix socket is bound to (`getsockname(2)`): what a socket inherited from systemd
    /// really listens on. Nil for an unbound or unnamed socket, or one that is not AF_UNIX; an
    /// abstract name is given with a leading `@`.
    public static func boundPath(of fd: FileDescriptor) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd.rawValue, $0, &length) }
        }
        guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let nameLength = Int(length) - MemoryLayout<sa_family_t>.size
        guard nameLength > 0 else { return nil }
        var bytes = withUnsafeBytes(of: &address.sun_path) { Array($0.prefix(min(nameLength, $0.count))) }
        if bytes[0] == 0 {
            bytes[0] = UInt8(ascii: "@")
        } else if let end = bytes.firstIndex(of: 0) {
            bytes.removeSubrange(end...)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
