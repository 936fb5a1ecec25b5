import Foundation
import Testing

@testable import TouchRouterCore

/// Paths into the repository, found from this file's location (no working-directory assumptions).
enum RepositoryPaths {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let exampleConfig = root.appendingPathComponent("config/kiosk.json5")
    static let utf8TrapFixture = root.appendingPathComponent(
        "Tests/Fixtures/fuzz/json5-invalid-utf8-trap.bin")
}

/// A config file parsed by Core: the engine does no I/O, so the test reads the file (the daemon's
/// reader, `TouchRouterInput`'s `loadConfig`, is tested in TouchRouterInputTests).
func loadConfig(path: String) throws -> Config {
    try Config.parse(Data(contentsOf: URL(fileURLWithPath: path)), fileName: path)
}

/// Parses config text, returning the errors (empty when the file is valid).
func configErrors(_ text: String, limits: ConfigLimits = .standard) -> [ConfigError] {
    configErrors(Data(text.utf8), limits: limits)
}

func configErrors(_ data: Data, limits: ConfigLimits = .standard) -> [ConfigError] {
    do {
        _ = try Config.parse(data, fileName: "test.json5", limits: limits)
        return []
    } catch {
        return error.errors
    }
}

/// 1-based line and column (in Unicode scalars) of the first occurrence of `marker` in `text`.
func position(of marker: String, in text: String) -> (line: Int, column: Int)? {
    guard let range = text.range(of: marker) else { return nil }
    let before = text[..<range.lowerBound]
    let line = before.filter { $0 == "\n" }.count + 1
    let lineStart = before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex
    return (line, text[lineStart..<range.lowerBound].unicodeScalars.count + 1)
}

/// A file with one screen "main" whose root "main" has the given children (text spliced in on line 7).
func fileWithChildren(_ children: String) -> String {
    """
    {
      screens: [{
        name: "main", width: 100, height: 100,
        root: {
          id: "main",
          children: [
            \(children)
          ],
        },
      }],
    }
    """
}

/// A file with one screen whose extra screen-level keys are spliced in on line 3.
func fileWithScreenKeys(_ keys: String) -> String {
    """
    {
      screens: [{
        name: "main", width: 100, height: 100, \(keys)
        root: { id: "main" },
      }],
    }
    """
}

/// A chain of views `depth` deep (the root counts as 1).
func deepChain(depth: Int) -> String {
    var text = ""
    for level in 1...depth {
        text += level == 1 ? "{id:\"v1\"" : "{id:\"v\(level)\",frame:[0,0,1,1]"
        if level < depth { text += ",children:[" }
    }
    text += String(repeating: "}]", count: depth - 1) + "}"
    return "{screens:[{name:\"s\",width:1,height:1,root:\(text)}]}"
}

/// A root with `count - 1` children: `count` views in all.
func wideLayout(views count: Int) -> String {
    let children = (1..<max(count, 1)).map { "{id:\"c\($0)\",frame:[0,0,1,1]}" }.joined(separator: ",")
    return "{screens:[{name:\"s\",width:10,height:10,root:{id:\"r\",children:[\(children)]}}]}"
}

/// Checks that a bad config gives exactly its one expected error, at its place, with its words.
func expectRejected(_ badCase: BadConfigCase) throws {
    let errors = configErrors(badCase.text)
    let error = try #require(errors.first { $0.code == badCase.code }, "got \(errors.map(\.description))")
    #expect(error.file == "test.json5")
    #expect(error.viewPath == badCase.viewPath)
    if let screenName = badCase.screenName {
        #expect(error.screenName == screenName)
    }
    if let marker = badCase.marker {
        let expected = try #require(position(of: marker, in: badCase.text))
        #expect(error.line == expected.line, "\(error)")
        #expect(error.column == expected.column, "\(error)")
    }
    if !badCase.messageContains.isEmpty {
        #expect(error.message.contains(badCase.messageContains), "\(error.message)")
    }
    // A case exercises exactly one rule.
    #expect(errors.count == 1, "\(errors.map(\.description))")
}
