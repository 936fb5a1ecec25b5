import Glibc
import TouchRouterSystem

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
        try? RegularFile.readAll(path: path)
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
