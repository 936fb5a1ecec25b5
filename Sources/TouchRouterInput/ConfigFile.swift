/// Reading the config file: the only file I/O of the config, kept out of the engine (TouchRouterCore
/// parses bytes and does no I/O) and written so that nothing at the config path can block the caller
/// (a FIFO, a device node, a socket) or read without bound.
import Glibc
import TouchRouterCore
import TouchRouterSystem

/// Reads and parses the config file at `path` (`RegularFile.read`: only a regular file is read; a
/// FIFO, socket, device or directory is an `unreadable` error naming what it is; the size is checked
/// before reading and at most one byte past the limit is read). Every failure names the real errno.
/// Messages name the file as `path` is written.
public func loadConfig(path: String, limits: ConfigLimits = .standard) throws(ConfigErrors) -> Config {
    let data = try readConfigFile(path: path, limits: limits)
    return try Config.parse(data, fileName: path, limits: limits)
}

/// The bytes of the config file at `path`, read as `loadConfig` describes.
public func readConfigFile(path: String, limits: ConfigLimits = .standard) throws(ConfigErrors) -> [UInt8] {
    func failure(_ code: ConfigErrorCode, _ message: String, errno: Int32? = nil) -> ConfigErrors {
        ConfigErrors([ConfigError(code: code, file: path, message: message, systemErrno: errno)])
    }
    guard !path.isEmpty else { throw failure(.unreadable, "no such file") }
    do {
        return try RegularFile.read(path: path, maxBytes: limits.maxFileBytes)
    } catch {
        switch error {
        case .system(let system):
            let reason: String
            switch system.errno {
            case ENOENT: reason = "no such file"
            case ELOOP: reason = "symbolic link loop (\(String(cString: strerror(system.errno))))"
            default: reason = "cannot be read: \(system)"
            }
            throw failure(.unreadable, reason, errno: system.errno)
        case .notRegular(let kind):
            throw failure(.unreadable, "is \(kind.description), not a config file; only a regular file is read")
        case .tooLarge(let size):
            throw ConfigErrors([.fileTooLarge(size, file: path, limits: limits)])
        }
    }
}
