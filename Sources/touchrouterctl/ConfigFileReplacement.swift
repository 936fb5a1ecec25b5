import Glibc
import TouchRouterSystem

/// `calibrate --apply`'s file I/O: a file's new content written atomically (a temporary file in
/// the same directory, fsync, rename over it, fsync the directory), so the daemon and its config
/// watch see the old file or the new one, never half of one. The new file keeps the old one's
/// mode, and its owner when run as root.
enum ConfigFileReplacement {
    /// Replaces the content of `path` with `bytes`; `like` names the file whose mode and owner the
    /// result takes (default: `path` itself; a new file gets 0644 when it does not exist).
    static func write(_ bytes: [UInt8], to path: String, like original: String? = nil) throws(SystemError) {
        var status = stat()
        let hasOriginal = stat(original ?? path, &status) == 0
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(directory == "/" ? "" : directory)/.\(name).calibrate-\(getpid()).tmp"
        let fd = try checked("open") { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        do throws(SystemError) {
            let failure = bytes.withUnsafeBytes { buffer -> SystemError? in
                var offset = 0
                while offset < buffer.count {
                    do throws(SystemError) {
                        offset +=
                            try FileDescriptor(rawValue: fd).write(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                            ?? 0
                    } catch {
                        return error
                    }
                }
                return nil
            }
            if let failure { throw failure }
            try checked("fchmod") { fchmod(fd, hasOriginal ? status.st_mode & 0o7777 : 0o644) }
            if hasOriginal && geteuid() == 0 { try checked("fchown") { fchown(fd, status.st_uid, status.st_gid) } }
            try checked("fsync") { fsync(fd) }
            try checked("close") { close(fd) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        do throws(SystemError) {
            try checked("rename") { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
        // The rename itself reaches the disk with the directory.
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }
}
