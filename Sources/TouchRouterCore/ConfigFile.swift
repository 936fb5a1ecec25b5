/// Reading the config file: the only file I/O the config code does, written so that nothing at the
/// config path can block the caller (a FIFO, a device node, a socket) or read without bound.
import TouchRouterModel

#if canImport(Glibc)
    import Glibc
#endif

/// Reads and parses the config file at `path`: `open(O_RDONLY | O_NONBLOCK | O_CLOEXEC)`, then `fstat` on the open descriptor, so only a regular file is ever read (a FIFO
/// opened this way returns at once instead of waiting for a writer; a FIFO, socket, device or
/// directory is an `unreadable` error naming what it is); the size is checked before reading and
/// at most one byte past the limit is read. Every failure names the real errno. Messages name the
/// file as `path` is written.
public func loadConfig(path: String, limits: ConfigLimits = .standard) throws(ConfigErrors) -> Config {
    let data = try readConfigFile(path: path, limits: limits)
    return try Config.parse(data, fileName: path, limits: limits)
}

/// The bytes of the config file at `path`, read as `loadConfig` describes.
public func readConfigFile(path: String, limits: ConfigLimits = .standard) throws(ConfigErrors) -> [UInt8] {
    func failure(_ code: ConfigErrorCode, _ message: String, errno: Int32? = nil) -> ConfigErrors {
        ConfigErrors([ConfigError(code: code, file: path, message: message, systemErrno: errno)])
    }
    func systemFailure(_ call: String, _ code: Int32) -> ConfigErrors {
        let reason: String
        switch code {
        case ENOENT: reason = "no such file"
        case ELOOP: reason = "symbolic link loop (\(String(cString: strerror(code))))"
        default: reason = "cannot be read: \(call): \(String(cString: strerror(code)))"
        }
        return failure(.unreadable, reason, errno: code)
    }
    guard !path.isEmpty else { throw failure(.unreadable, "no such file") }
    var fd: Int32
    repeat { fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } while fd < 0 && errno == EINTR
    guard fd >= 0 else { throw systemFailure("open", errno) }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0 else { throw systemFailure("fstat", errno) }
    let kind = status.st_mode & S_IFMT
    guard kind == S_IFREG else {
        let what: String
        switch kind {
        case S_IFDIR: what = "a directory"
        case S_IFIFO: what = "a FIFO (named pipe)"
        case S_IFSOCK: what = "a socket"
        case S_IFCHR: what = "a character device"
        case S_IFBLK: what = "a block device"
        default: what = "not a regular file"
        }
        throw failure(.unreadable, "is \(what), not a config file; only a regular file is read")
    }
    let size = Int(status.st_size)
    if size > limits.maxFileBytes {
        throw failure(.fileTooLarge, ConfigParser.tooLargeMessage(size, limits: limits))
    }
    // Read up to one byte past the limit: that byte tells a file that grew since the fstat.
    let readLimit = limits.maxFileBytes + 1
    var bytes = [UInt8](repeating: 0, count: min(size + 1, readLimit))
    var filled = 0
    while filled < readLimit {
        if filled == bytes.count { bytes += [UInt8](repeating: 0, count: min(bytes.count, readLimit - filled)) }
        let count = bytes.withUnsafeMutableBytes { raw in
            read(fd, raw.baseAddress! + filled, raw.count - filled)
        }
        if count < 0 {
            if errno == EINTR { continue }
            throw systemFailure("read", errno)
        }
        if count == 0 { break }
        filled += count
    }
    bytes.removeSubrange(filled...)
    return bytes
}
