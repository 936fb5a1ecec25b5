/// Watches the config file's directory with inotify, so a save by rename (what most editors do)
/// is seen as well as a write in place; notices when events were lost or the watch itself was.
import Glibc
import TouchRouterSystem

/// An inotify descriptor watching one file's directory for that file's changes.
final class ConfigWatch {
    /// What draining the inotify queue found.
    struct Changes: Equatable {
        /// An event named the config file.
        var configChanged = false
        /// The kernel's queue overflowed (IN_Q_OVERFLOW): events were lost, so the file must be
        /// read again whether or not an event named it.
        var overflowed = false
        /// The directory was deleted or moved away (IN_DELETE_SELF, IN_MOVE_SELF, IN_IGNORED): the
        /// watch no longer sees the config path; call `reestablish()`.
        var watchLost = false

        /// Whether the daemon must read the file again.
        var needsReload: Bool { configChanged || overflowed }
    }

    let fd: FileDescriptor
    let directory: String
    private let fileName: String
    /// The watch descriptor on `directory`, nil while it is lost.
    private var watch: Int32?

    /// `inotify_init1` and `inotify_add_watch` on the directory of `configPath`.
    init(configPath: String) throws {
        let slash = configPath.lastIndex(of: "/")
        let parent = slash.map { String(configPath[..<$0]) } ?? "."
        directory = parent.isEmpty ? "/" : parent
        fileName = slash.map { String(configPath[configPath.index(after: $0)...]) } ?? configPath
        fd = FileDescriptor(
            rawValue: try checked("inotify_init1") {
                inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            })
        do {
            try reestablish()
        } catch {
            fd.close()
            throw error
        }
    }

    /// Whether the directory is being watched (false after it was moved away or deleted, until
    /// `reestablish()` succeeds).
    var isWatching: Bool { watch != nil }

    /// `inotify_add_watch` on the directory path (again): after the directory was moved away and a
    /// new one made in its place, the watch follows the path, not the old inode.
    func reestablish() throws {
        if let watch { inotify_rm_watch(fd.rawValue, watch) }
        watch = nil
        // Not IN_CREATE: a file being created is still empty; its IN_CLOSE_WRITE follows.
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
        watch = try checked("inotify_add_watch") { inotify_add_watch(fd.rawValue, directory, mask) }
    }

    /// Drains the pending events. Cost: one `read` of at most 4 KiB per batch of queued events,
    /// and the queue is bounded by the kernel (`max_queued_events`).
    func drain() -> Changes {
        var changes = Changes()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            guard let count = try? buffer.withUnsafeMutableBytes({ try fd.read(into: $0) }), count > 0 else {
                return changes
            }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                let headerSize = MemoryLayout<inotify_event>.size
                while offset + headerSize <= count {
                    let descriptor = raw.load(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.load(fromByteOffset: offset + 4, as: UInt32.self)
                    let nameLength = Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + headerSize
                    offset = nameStart + nameLength
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        changes.overflowed = true
                        continue
                    }
                    // Events of a watch already replaced (the old directory's) are stale.
                    guard descriptor == watch else { continue }
                    if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                        changes.watchLost = true
                        continue
                    }
                    let nameBytes = raw[nameStart..<min(nameStart + nameLength, count)].prefix { $0 != 0 }
                    if nameBytes.elementsEqual(fileName.utf8) { changes.configChanged = true }
                }
            }
        }
    }

    func close() { fd.close() }
}
