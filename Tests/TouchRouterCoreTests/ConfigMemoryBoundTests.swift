import Foundation
import Testing

@testable import TouchRouterCore

/// Issue 26, item 7: a small broken file must not cost hundreds of times its size. Whatever a file
/// repeats, the reader and the walk keep at most `maxReportedErrors` problems each and count the
/// rest, so the errors' memory stays the same when the file grows tenfold.
@Suite("Config reading: bounded by the file, not by its errors")
struct ConfigMemoryBoundTests {
    /// `{screens: [{}, {}, …]}`: four problems per empty screen (no name, width, height, root).
    static func emptyScreens(_ count: Int) -> String {
        "{screens:[" + Array(repeating: "{}", count: count).joined(separator: ",") + "]}"
    }

    @Test("empty screens: 1,000 errors listed and one line counting the rest, at any size", arguments: [2_000, 20_000])
    func emptyScreensListedAndCounted(screens: Int) {
        let errors = configErrors(Self.emptyScreens(screens))
        #expect(errors.count == ConfigLimits.standard.maxReportedErrors + 1)
        #expect(errors.last?.code == .tooManyErrors)
        #expect(errors.last?.message == "\(4 * screens - 1000) more errors not listed")
        // The ones listed are the file's first, in file order.
        #expect(errors.first?.description == "test.json5:1:11: screen \"#0\": missing \"name\"")
        let lines = errors.dropLast().compactMap(\.column)
        #expect(lines == lines.sorted())
    }

    @Test("the reader lists its first 1,000 problems and counts the rest", arguments: [5_000, 50_000])
    func readerProblemsBounded(count: Int) {
        let text = "[" + Array(repeating: "NaN", count: count).joined(separator: ",") + "]"
        let read = JSONReader.read(Array(text.utf8), syntax: .json5)
        #expect(read.failure == nil)
        #expect(read.problems.count == JSONReader.maxListedProblems)
        #expect(read.unlistedProblemCount == count - JSONReader.maxListedProblems)
        #expect(read.problems.first?.position == SourcePosition(line: 1, column: 2))
    }

    @Test("duplicate keys: the reader's list is bounded and the config says how many more")
    func duplicateKeysBounded() {
        let keys = Array(repeating: "a: 0", count: 30_000).joined(separator: ",")
        let text = "{screens: [{name: \"a\", width: 10, height: 10, root: {id: \"r\", x: {\(keys)}}}]}"
        let read = JSONReader.read(Array(text.utf8), syntax: .json5)
        #expect(read.problems.count == JSONReader.maxListedProblems)
        #expect(read.unlistedProblemCount == 30_000 - 1 - JSONReader.maxListedProblems)
        let errors = configErrors(text)
        #expect(errors.count == ConfigLimits.standard.maxReportedErrors + 1)
        // 29,999 duplicates and the unknown key "x".
        #expect(errors.last?.message == "\(30_000 - 1000) more errors not listed")
    }

    @Test("views with many errors each: the list stops at the limit, the count goes on")
    func brokenViewsCounted() {
        let view = "{id: \"v\", frame: [0, 0, -1, -1], alpa: 2, shape: \"elipse\"}"
        let children = Array(repeating: view, count: 3_000).joined(separator: ",")
        let errors = configErrors(fileWithChildren(children))
        #expect(errors.count == ConfigLimits.standard.maxReportedErrors + 1)
        // Per view: width, height, unknown key, unknown shape, and (after the first) its duplicate id.
        #expect(errors.last?.message == "\(3_000 * 5 - 1 - 1000) more errors not listed")
    }

    @Test("past a small list, the count of the rest is exact")
    func countPastASmallList() {
        let limits = ConfigLimits(maxReportedErrors: 3)
        let text = """
            {screens: [{name: "a", width: 10, height: 10, bogus1: 1, bogus2: 2, bogus3: 3,
              root: {id: "r", access: {users: ["9bad"]}}}]}
            """
        let errors = configErrors(text, limits: limits)
        #expect(errors.map(\.code) == [.unknownKey, .unknownKey, .unknownKey, .tooManyErrors])
        #expect(errors.last?.message == "1 more errors not listed")
    }

    @Test("a syntax error after many problems: the list stops at the limit, the syntax error is in it")
    func syntaxErrorAfterManyProblems() {
        let keys = Array(repeating: "a: 0", count: 5_000).joined(separator: ",")
        let errors = configErrors("{screens: [], x: {\(keys)}, ")
        #expect(errors.count == ConfigLimits.standard.maxReportedErrors + 1)
        #expect(errors.dropLast().last?.code == .syntax)
        #expect(errors.last?.message == "\(4_999 + 1 - 1000) more errors not listed")
    }

    @Test("fuzz finding: a syntax error after more duplicate keys than a small list holds")
    func fuzzFindingSyntaxAfterDuplicates() throws {
        let input = try Data(
            contentsOf: RepositoryPaths.root.appendingPathComponent(
                "Tests/Fixtures/fuzz/config-errors-past-the-list-before-a-syntax-error.json5"))
        let limits = ConfigLimits(maxReportedErrors: 50)
        let errors = configErrors(input, limits: limits)
        #expect(errors.count == 51)
        #expect(errors.last?.code == .tooManyErrors)
        #expect(errors.dropLast().last?.code == .syntax)
    }
}
