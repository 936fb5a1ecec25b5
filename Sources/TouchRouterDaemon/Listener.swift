/// The listening Unix socket: bound by the daemon (stale socket replaced, live one refused, mode
/// and group applied) or inherited from systemd socket activation.
import Glibc
import TouchRouterSystem

/// Why the listening socket could not be set up.
public enum ListenerError: Error, Equatable, CustomStringConvertible {
    /// Another process accepts connections on the path.
    case alreadyInUse(path: String)
    /// Something that is not a socket sits at the path; it is not ours to delete.
    case notASocket(path: String)
    /// The path does not fit in `sockaddr_un.sun_path`.
    case pathTooLong(path: String)
    /// `--socket-group` names no group.
    case unknownGroup(String)
    case system(path: String, SystemError)

    public var description: String {
        switch self {
        case .alreadyInUse(let path):
            "\(path): another touchrouterd is already listening on this socket (stop it first, "
                + "or pass --socket with another path)"
        case .notASocket(let path): "\(path): exists and is not a socket; refusing to replace it"
        case .pathTooLong(let path): "\(path): socket path too long (max 107 bytes)"
        case .unknownGroup(let group): "--socket-group \(group): no such group"
        case .system(let path, let error): "\(path): \(error)"
        }
    }
}

/// How to create the listening socket.
public struct ListenerOptions: Equatable, Sendable {
    /// The socket file's path.
    public var path: String
    /// Permission bits for the socket file (default 0660).
    public var mode: mode_t = 0o660
    /// Group name or number owning the socket file; nil keeps the daemon's group.
    public var group: String?

    /// Options for a socket at `path`.
    public init(path: String, mode: mode_t = 0o660, group: String? = nil) {
        self.path = path
        self.mode = mode
        self.group = group
    }
}

/// A listening, nonblocking Unix stream socket.
public final class Listener {
    /// The listening socket (nonblocking).
    public let fd: FileDescriptor
    /// The path clients connect to.
    public let path: String
    /// The socket came from systemd (LISTEN_FDS); systemd owns the file, we never unlink it.
    public let isSocketActivated: Bool
    /// The device and inode of the socket file this process bound; nil when systemd owns it.
    private let boundFile: FileIdentity?

    private init(fd: FileDescriptor, path: String, boundFile: FileIdentity?) {
        self.fd = fd
        self.path = path
        self.isSocketActivated = boundFile == nil
        self.boundFile = boundFile
    }

    /// Uses the socket systemd passed (fd 3, when LISTEN_PID is this process and LISTEN_FDS ≥ 1),
    /// else binds `options.path`.
    public static func open(_ options: ListenerOptions) throws -> Listener {
        if let inherited = try socketFromSystemd() {
            // The socket systemd bound, not `--socket`'s path (ignored under activation).
            return Listener(
                fd: inherited, path: UnixSocketAddress.boundPath(of: inherited) ?? "(systemd's socket)", boundFile: nil)
        }
        let (fd, identity) = try bind(options)
        return Listener(fd: fd, path: options.path, boundFile: identity)
    }

    /// `accept4`-equivalent: the next pending connection, nonblocking and close-on-exec, or nil.
    public func accept() throws -> FileDescriptor? {
        guard
            let raw = try systemCall("accept", wouldBlockIsNil: true, { Glibc.accept(fd.rawValue, nil, nil) })
        else { return nil }
        let client = FileDescriptor(rawValue: raw)
        do {
            try client.setNonblockingAndCloseOnExec()
        } catch {
            client.close()
            throw error
        }
        return client
    }

    /// Closes the socket and removes the file, but only while the path is still the file this
    /// process bound: if someone deleted it and another daemon bound the same path since, that
    /// daemon's socket stays. systemd's socket is never removed.
    public func close() {
        fd.close()
        if let boundFile, FileIdentity(path: path) == boundFile { unlink(path) }
    }

    private static func socketFromSystemd() throws -> FileDescriptor? {
        guard let pidText = getenv("LISTEN_PID"), let countText = getenv("LISTEN_FDS"),
            Int32(String(cString: pidText)) == getpid(), let count = Int(String(cString: countText)),
            count >= 1
        else { return nil }
        // sd_listen_fds(unset_environment=1): children must not think the fds are theirs.
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        let fd = FileDescriptor(rawValue: 3)
        try fd.setNonblockingAndCloseOnExec()
        return fd
    }

    /// Binds and listens under a temporary name in the socket's directory, then links the socket
    /// to its path (`link` never replaces: a live daemon's socket is refused, a stale one replaced),
    /// so the path appears only once the socket listens: a client that connects the moment the
    /// file exists is never refused. A path too long for a temporary name beside it is bound in
    /// place. Without hard links (a file system that has none), the socket is renamed into place.
    private static func bind(_ options: ListenerOptions) throws -> (FileDescriptor, FileIdentity) {
        let path = options.path
        func fail(_ error: SystemError) -> ListenerError { .system(path: path, error) }
        guard let address = UnixSocketAddress(path: path) else { throw ListenerError.pathTooLong(path: path) }
        try makeDirectory(containing: path)
        let gid = try options.group.map(groupID(named:))
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let temporary = UnixSocketAddress(path: (directory.isEmpty ? "." : directory) + "/.touchrouterd-\(getpid())")

        let fd: FileDescriptor
        do {
            fd = FileDescriptor(
                rawValue: try checked("socket") {
                    socket(
                        AF_UNIX,
                        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                            | Int32(SOCK_CLOEXEC.rawValue), 0)
                })
        } catch { throw fail(error) }

        var boundTemporary = false
        do {
            if let temporary {
                try removeLeftover(temporary.path)
                try bindAddress(fd, temporary)
                boundTemporary = true
            } else {
                do {
                    try bindAddress(fd, address)
                } catch let error as SystemError where error.errno == EADDRINUSE {
                    try replaceStaleSocket(at: address)
                    try bindAddress(fd, address)
                }
            }
            let boundPath = temporary?.path ?? path
            try checked("chmod") { chmod(boundPath, options.mode) }
            if let gid { try checked("chown") { chown(boundPath, uid_t.max, gid) } }
            try checked("listen") { listen(fd.rawValue, 64) }
            if let temporary {
                try moveIntoPlace(temporary.path, address)
                boundTemporary = false
            }
            guard let identity = FileIdentity(path: path) else {
                throw SystemError(call: "lstat", errno: errno)
            }
            return (fd, identity)
        } catch let error as SystemError {
            fd.close()
            if boundTemporary, let temporary { unlink(temporary.path) }
            throw fail(error)
        } catch {
            fd.close()
            if boundTemporary, let temporary { unlink(temporary.path) }
            throw error
        }
    }

    /// Gives the listening socket bound at `temporaryPath` its real name, then drops the temporary
    /// one.
    private static func moveIntoPlace(_ temporaryPath: String, _ address: UnixSocketAddress) throws {
        let path = address.path
        var linked = link(temporaryPath, path) == 0
        if !linked && errno == EEXIST {
            try replaceStaleSocket(at: address)
            linked = link(temporaryPath, path) == 0
        }
        if linked {
            unlink(temporaryPath)
        } else if errno == EEXIST {
            // Another daemon took the path between the probe and the link.
            throw ListenerError.alreadyInUse(path: path)
        } else {
            try checked("rename") { rename(temporaryPath, path) }
        }
    }

    /// A socket a crashed run left under this process's temporary name goes; anything else there
    /// is not ours.
    private static func removeLeftover(_ path: String) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard (status.st_mode & S_IFMT) == S_IFSOCK else { throw ListenerError.notASocket(path: path) }
        try checked("unlink") { unlink(path) }
    }

    /// A socket file left by a crashed run refuses connections: delete it. One that accepts is
    /// a live daemon: refuse.
    private static func replaceStaleSocket(at address: UnixSocketAddress) throws {
        let path = address.path
        var status = stat()
        if lstat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFSOCK {
            throw ListenerError.notASocket(path: path)
        }
        do {
            let probe = try address.connectStream()
            probe.close()
            throw ListenerError.alreadyInUse(path: path)
        } catch let error as SystemError {
            guard error.errno == ECONNREFUSED || error.errno == ENOENT else { throw error }
        }
        try checked("unlink") { unlink(path) }
    }

    private static func bindAddress(_ fd: FileDescriptor, _ address: UnixSocketAddress) throws {
        try checked("bind") { address.withSockaddr { Glibc.bind(fd.rawValue, $0, $1) } }
    }

    /// Creates the socket's directory (and its parents) with mode 0755 if missing.
    private static func makeDirectory(containing path: String) throws {
        var directories: [String] = []
        var directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        while !directory.isEmpty && access(directory, F_OK) != 0 {
            directories.append(directory)
            directory = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
        }
        for directory in directories.reversed() {
            if mkdir(directory, 0o755) != 0 && errno != EEXIST {
                throw ListenerError.system(path: directory, SystemError(call: "mkdir", errno: errno))
            }
        }
    }

    private static func groupID(named group: String) throws -> gid_t {
        if let number = gid_t(group) { return number }
        guard let entry = getgrnam(group) else { throw ListenerError.unknownGroup(group) }
        return entry.pointee.gr_gid
    }
}

/// Which file a path names: its device and inode (`lstat`), or nil when nothing is there.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64

    init?(path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
