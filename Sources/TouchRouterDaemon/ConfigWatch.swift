/// Watches the config file's directory with inotify, so a save by rename (what most editors do)
/// is seen as well as a write in place.
import Glibc

/// An inotify descriptor watching one file's directory for that file's changes.
final class ConfigWatch {
    let fd: FileDescriptor
    private let fileName: String

    /// `inotify_init1` and `inotify_add_watch` on the directory of `configPath`.
    init(configPath: String) throws {
        let slash = configPath.lastIndex(of: "/")
        let directory = slash.map { String(configPath[..<$0]) } ?? "."
        fileName = slash.map { String(configPath[configPath.index(after: $0)...]) } ?? configPath
        fd = FileDescriptor(
            rawValue: try checked("inotify_init1") {
                inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            })
        // Not IN_CREATE: a file being created is still empty; its IN_CLOSE_WRITE follows.
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO)
        do {
            try checked("inotify_add_watch") {
                inotify_add_watch(fd.rawValue, directory.isEmpty ? "/" : directory, mask)
            }
        } catch {
            fd.close()
            throw error
        }
    }

    /// Drains the pending events; true if any of them is about the config file.
    func configChanged() -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            guard let count = try? buffer.withUnsafeMutableBytes({ try fd.read(into: $0) }), count > 0 else {
                return changed
            }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                let headerSize = MemoryLayout<inotify_event>.size
                while offset + headerSize <= count {
                    let nameLength = Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + headerSize
                    let nameBytes = raw[nameStart..<min(nameStart + nameLength, count)].prefix { $0 != 0 }
                    if String(decoding: nameBytes, as: UTF8.self) == fileName { changed = true }
                    offset = nameStart + nameLength
                }
            }
        }
    }

    func close() { fd.close() }
}
