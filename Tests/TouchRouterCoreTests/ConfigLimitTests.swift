import Foundation
import Testing

@testable import TouchRouterCore

@Suite("Config limits")
struct ConfigLimitTests {
    @Test("the daemon's limits")
    func standardLimits() {
        #expect(ConfigLimits.standard.maxViews == 1_000_000)
        #expect(ConfigLimits.standard.maxDepth == 256)
        #expect(ConfigLimits.standard.maxFileBytes == 64 * 1024 * 1024)
    }

    @Test("views: the limit is allowed, one more is rejected")
    func viewLimit() {
        let limits = ConfigLimits(maxViews: 50)
        #expect(configErrors(wideLayout(views: 50), limits: limits).isEmpty)
        let errors = configErrors(wideLayout(views: 51), limits: limits)
        #expect(errors.map(\.code) == [.tooManyViews])
        #expect(errors.first?.message == "more than 50 views")
    }

    @Test("views are counted over every screen")
    func viewLimitAcrossScreens() {
        let text = """
            { screens: [
              { name: "a", width: 1, height: 1, root: { id: "a", children: [{ id: "a1", frame: [0, 0, 1, 1] }] } },
              { name: "b", width: 1, height: 1, root: { id: "b", children: [{ id: "b1", frame: [0, 0, 1, 1] }] } },
            ] }
            """
        #expect(configErrors(text, limits: ConfigLimits(maxViews: 4)).isEmpty)
        #expect(configErrors(text, limits: ConfigLimits(maxViews: 3)).map(\.code) == [.tooManyViews])
    }

    @Test("depth: the limit is allowed, one more is rejected")
    func depthLimit() throws {
        let limits = ConfigLimits(maxDepth: 20)
        #expect(configErrors(deepChain(depth: 20), limits: limits).isEmpty)
        let errors = configErrors(deepChain(depth: 21), limits: limits)
        #expect(errors.map(\.code) == [.treeTooDeep])
        let path = try #require(errors.first?.viewPath)
        #expect(path == (1...21).map { "v\($0)" }.joined(separator: "/"))
    }

    @Test("the deepest view tree the parser takes (254 levels) loads")
    func deepestAccepted() throws {
        let config = try Config.parse(Data(deepChain(depth: 254).utf8), fileName: "deep.json5")
        #expect(config.layout.viewCount == 254)
    }

    @Test("100,000 nested views: rejected with a position, no stack overflow")
    func maliciousViewNesting() throws {
        let depth = 100_000
        let text =
            "{screens:[{name:\"s\",width:1,height:1,root:"
            + String(repeating: #"{"children":["#, count: depth) + String(repeating: "]}", count: depth)
            + "}]}"
        let errors = configErrors(text)
        #expect(errors.map(\.code) == [.nestingTooDeep])
        #expect(errors.first?.line == 1)
    }

    @Test("100,000 nested arrays: rejected with a position, no stack overflow")
    func maliciousArrayNesting() {
        let depth = 100_000
        let errors = configErrors(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        #expect(errors.map(\.code) == [.nestingTooDeep])
        #expect(errors.first?.column == 513)
    }

    @Test("nesting of exactly 512 levels is parsed (and then judged by the schema), 513 is not")
    func nestingBoundary() {
        let nested512 = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(configErrors(nested512).map(\.code) == [.wrongType])
        let inView = fileWithChildren(
            #"{ id: "k", frame: [0, 0, 5, 5], hidden: "# + String(repeating: "[", count: 505)
                + String(repeating: "]", count: 505) + " }")
        #expect(configErrors(inView).map(\.code) == [.wrongType])
        let nested513 = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(configErrors(nested513).map(\.code) == [.nestingTooDeep])
    }

    @Test("file size: the limit is allowed, one byte more is rejected before parsing")
    func sizeLimit() throws {
        let text = wideLayout(views: 3)
        let exact = ConfigLimits(maxFileBytes: text.utf8.count)
        #expect(configErrors(text, limits: exact).isEmpty)
        // Invalid UTF-8 past the limit proves the size check comes first.
        var tooLarge = Data(text.utf8)
        tooLarge.append(0xFF)
        #expect(configErrors(tooLarge, limits: exact).map(\.code) == [.fileTooLarge])
    }
}
