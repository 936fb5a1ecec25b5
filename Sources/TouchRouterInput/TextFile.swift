import FoundationEssentials

/// A recording or an injection file read as text: the one place the input readers check that a
/// file is there and is UTF-8 (each reader words the failure in its own error type).
enum TextFile {
    /// Why a file gave no text.
    enum Problem: Error {
        case unreadable
        case notUTF8
    }

    /// The whole file at `path` as text.
    static func read(_ path: String) -> Result<String, Problem> {
        guard let data = FileManager.default.contents(atPath: path) else { return .failure(.unreadable) }
        guard let text = String(data: data, encoding: .utf8) else { return .failure(.notUTF8) }
        return .success(text)
    }
}
