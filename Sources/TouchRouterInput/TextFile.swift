import Glibc

/// A recording or an injection file read as text: the one place the input readers check that a
/// file is there and is UTF-8 (each reader words the failure in its own error type), and
/// `touchrouterctl transcript-diff`'s reader.
public enum TextFile {
    /// Why a file gave no text.
    public enum Problem: Error {
        case unreadable
        case notUTF8
    }

    /// The whole file at `path` as text.
    public static func read(_ path: String) -> Result<String, Problem> {
        guard let bytes = contents(of: path) else { return .failure(.unreadable) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(.notUTF8) }
        return .success(text)
    }

    /// The bytes of the file at `path` up to its end; nil when it cannot be opened or read (a
    /// directory, say).
    private static func contents(of path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            bytes += chunk[..<count]
        }
    }

    /// The names in `directory` (`.` and `..` left out); empty when it cannot be read.
    static func names(inDirectory directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
