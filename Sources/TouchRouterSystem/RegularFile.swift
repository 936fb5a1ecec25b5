import Glibc

/// What a path names when it is not a regular file.
public enum FileKind: Sendable, Equatable {
    case directory, fifo, socket, characterDevice, blockDevice, other

    /// `a directory`, `a FIFO (named pipe)`, … for messages.
    public var description: String {
        switch self {
        case .directory: "a directory"
        case .fifo: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .other: "not a regular file"
        }
    }
}

/// Why `RegularFile.read` returned no bytes.
public enum RegularFileError: Error, Equatable {
    /// `open`, `fstat` or `read` failed.
    case system(SystemError)
    /// The path names something other than a regular file; nothing was read.
    case notRegular(FileKind)
    /// `fstat` said the file is `size` bytes, more than the caller's limit; nothing was read.
    case tooLarge(size: Int)
}

/// Reading a whole file that must not block the caller or be read without bound (the config).
public enum RegularFile {
    /// The bytes of the regular file at `path`: `open(O_RDONLY | O_NONBLOCK | O_CLOEXEC)`, then `fstat`
    /// on the open descriptor, so only a regular file is ever read (a FIFO opened this way returns at
    /// once instead of waiting for a writer). A size above `maxBytes` is refused before reading; at
    /// most `maxBytes + 1` bytes are read, so the caller can tell a file that grew since the `fstat`.
    public static func read(path: String, maxBytes: Int) throws(RegularFileError) -> [UInt8] {
        let fd: FileDescriptor
        do {
            fd = FileDescriptor(rawValue: try checked("open") { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) })
        } catch {
            throw .system(error)
        }
        defer { fd.close() }
        var status = stat()
        guard fstat(fd.rawValue, &status) == 0 else { throw .system(SystemError(call: "fstat", errno: errno)) }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG else {
            switch kind {
            case S_IFDIR: throw .notRegular(.directory)
            case S_IFIFO: throw .notRegular(.fifo)
            case S_IFSOCK: throw .notRegular(.socket)
            case S_IFCHR: throw .notRegular(.characterDevice)
            case S_IFBLK: throw .notRegular(.blockDevice)
            default: throw .notRegular(.other)
            }
        }
        let size = Int(status.st_size)
        if size > maxBytes { throw .tooLarge(size: size) }
        let readLimit = maxBytes + 1
        var bytes = [UInt8](repeating: 0, count: min(size + 1, readLimit))
        var filled = 0
        while filled < readLimit {
            if filled == bytes.count { bytes += [UInt8](repeating: 0, count: min(bytes.count, readLimit - filled)) }
            let read = bytes.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in
                    try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
                }
            }
            let count: Int?
            do { count = try read.get() } catch { throw .system(error) }
            guard let count, count > 0 else { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// The bytes of the file at `path` up to its end, whatever its size (a recording, a transcript);
    /// a blocking read, so a FIFO is read until its writer closes it.
    public static func readAll(path: String) throws(SystemError) -> [UInt8] {
        let fd = FileDescriptor(rawValue: try checked("open") { open(path, O_RDONLY | O_CLOEXEC) })
        defer { fd.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let read = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try fd.read(into: raw) }
            }
            let count = try read.get() ?? 0
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }
}
