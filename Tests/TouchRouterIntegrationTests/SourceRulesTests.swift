import Foundation
import Testing

/// Claims ARCHITECTURE.md makes about the whole tree, checked on the sources.
@Suite("Source rules: the engine does no I/O, EINTR is retried in one place")
struct SourceRulesTests {
    /// The code lines (comments left out) of every Swift file under `Sources/<directory>`, by path.
    func codeLines(under directory: String) throws -> [(path: String, line: String)] {
        let root = Paths.packageRoot.appendingPathComponent("Sources/" + directory)
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return try files.filter { $0.hasSuffix(".swift") }.sorted().flatMap { file in
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            return text.split(separator: "\n").map { String($0) }
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                .map { (path: directory + "/" + file, line: $0) }
        }
    }

    func matches(_ line: String, _ pattern: String) -> Bool {
        line.range(of: pattern, options: .regularExpression) != nil
    }

    @Test("Core and Model open no file and read no errno: the config file is read in TouchRouterInput")
    func engineDoesNoIO() throws {
        let offending = try (codeLines(under: "TouchRouterCore") + codeLines(under: "TouchRouterModel"))
            .filter { matches($0.line, #"\b(errno|O_RDONLY|O_WRONLY|O_RDWR)\b"#) }
        #expect(offending.isEmpty, "\(offending.map(\.path))")
    }

    @Test("only systemCall (TouchRouterSystem/System.swift) compares with EINTR")
    func oneEINTRLoop() throws {
        let offending = try codeLines(under: "").filter {
            $0.path != "/TouchRouterSystem/System.swift" && matches($0.line, #"[=!]=\s*EINTR\b|\bEINTR\s*[=!]="#)
        }
        #expect(offending.isEmpty, "\(offending.map { "\($0.path): \($0.line)" })")
    }
}
