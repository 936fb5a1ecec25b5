import Foundation
import Testing

@testable import TouchRouterCore

/// The view key `passthrough` (docs/passthrough.md): its forms, its defaults, its errors located
/// like every config error, and its refusal at run time.
@Suite("Passthrough config")
struct PassthroughConfigTests {
    static func settings(_ value: String) throws -> PassthroughSettings? {
        let config = try Config.parse(
            Data(fileWithChildren(#"{ id: "k", frame: [0, 0, 5, 5], passthrough: \#(value) }"#).utf8),
            fileName: "test.json5")
        return config.viewPassthrough["k"]
    }

    @Test func theFormsAndTheirDefaults() throws {
        #expect(try Self.settings("true") == PassthroughSettings(mode: .touch, maxTouches: 10))
        #expect(try Self.settings("false")?.passesThrough == false)
        #expect(try Self.settings("{}") == .touch)
        #expect(try Self.settings(#"{ mode: "touch", maxTouches: 1 }"#) == PassthroughSettings(maxTouches: 1))
        let pointer = try #require(try Self.settings(#"{ mode: "pointer" }"#))
        #expect(pointer.mode == .pointer && pointer.rightClickMicros == 800_000 && pointer.passesThrough)
        #expect(try Self.settings(#"{ mode: "pointer", rightClickMs: 200 }"#)?.rightClickMicros == 200_000)
        #expect(try Self.settings(#"{ mode: "pointer", rightClickMs: 5000 }"#)?.rightClickMicros == 5_000_000)
        #expect(try Self.settings(#"{ maxTouches: 10 }"#)?.maxTouches == 10)
    }

    /// config/browser-kiosk.json5, the recipe of docs/passthrough.md: what the recipe says of its
    /// regions is what the file sets.
    @Test func theRecipesConfig() throws {
        let config = try loadConfig(
            path: RepositoryPaths.root.appendingPathComponent("config/browser-kiosk.json5").path)
        #expect(config.viewPassthrough["browser"] == PassthroughSettings(mode: .touch, maxTouches: 1))
        #expect(config.viewPassthrough["pin-pad"] == nil)
        #expect(config.viewPassthrough["card-reader"]?.passesThrough == false)
        #expect(config.passthroughModes(forScreen: "main") == [.touch])
        let main = try #require(config.layout.screen(named: "main"))
        #expect(main.width == 1920 && main.height == 1080)
    }

    @Test func aConfigWithoutPassthroughHasNone() throws {
        let config = try Config.parse(Data(fileWithChildren(#"{ id: "k", frame: [0, 0, 5, 5] }"#).utf8), fileName: "t")
        #expect(config.viewPassthrough.isEmpty)
        #expect(config.passthroughModes(forScreen: "main").isEmpty)
    }

    @Test func aScreensModesAreThoseOfItsPassingViews() throws {
        let text = fileWithChildren(
            #"""
            { id: "a", frame: [0, 0, 5, 5], passthrough: true, children: [
                { id: "b", frame: [0, 0, 1, 1], passthrough: { mode: "pointer" } },
                { id: "c", frame: [0, 0, 1, 1], passthrough: false } ] }
            """#)
        let config = try Config.parse(Data(text.utf8), fileName: "t")
        #expect(config.passthroughModes(forScreen: "main") == [.touch, .pointer])
        #expect(config.passthroughModes(forScreen: "other").isEmpty)
        let stopOnly = try Config.parse(
            Data(fileWithChildren(#"{ id: "k", frame: [0, 0, 5, 5], passthrough: false }"#).utf8), fileName: "t")
        #expect(stopOnly.passthroughModes(forScreen: "main").isEmpty)
    }

    static let badCases: [BadConfigCase] = [
        .view(
            "passthrough a string", #"{ id: "k", frame: [0, 0, 5, 5], passthrough: "yes" }"#, .wrongType,
            path: "main/k", at: "passthrough", says: "must be true, false or an object"),
        .view(
            "passthrough mode unknown", #"{ id: "k", frame: [0, 0, 5, 5], passthrough: { mode: "mouse" } }"#,
            .invalidValue, path: "main/k", at: "mode", says: #"must be "touch" or "pointer", found "mouse""#),
        .view(
            "passthrough mode a number", #"{ id: "k", frame: [0, 0, 5, 5], passthrough: { mode: 1 } }"#,
            .wrongType, path: "main/k", at: "mode", says: "must be a string"),
        .view(
            "passthrough maxTouches 0", #"{ id: "k", frame: [0, 0, 5, 5], passthrough: { maxTouches: 0 } }"#,
            .invalidValue, path: "main/k", at: "maxTouches", says: "whole number in 1…10, found 0"),
        .view(
            "passthrough maxTouches 11", #"{ id: "k", frame: [0, 0, 5, 5], passthrough: { maxTouches: 11 } }"#,
            .invalidValue, path: "main/k", at: "maxTouches", says: "found 11"),
        .view(
            "passthrough maxTouches 1.5", #"{ id: "k", frame: [0, 0, 5, 5], passthrough: { maxTouches: 1.5 } }"#,
            .invalidValue, path: "main/k", at: "maxTouches", says: "found 1.5"),
        .view(
            "passthrough rightClickMs 199",
            #"{ id: "k", frame: [0, 0, 5, 5], passthrough: { mode: "pointer", rightClickMs: 199 } }"#,
            .invalidValue, path: "main/k", at: "rightClickMs", says: "whole number in 200…5000, found 199"),
        .view(
            "passthrough rightClickMs 5001",
            #"{ id: "k", frame: [0, 0, 5, 5], passthrough: { mode: "pointer", rightClickMs: 5001 } }"#,
            .invalidValue, path: "main/k", at: "rightClickMs", says: "found 5001"),
        .view(
            "passthrough rightClickMs in touch mode",
            #"{ id: "k", frame: [0, 0, 5, 5], passthrough: { rightClickMs: 900 } }"#, .invalidValue,
            path: "main/k", at: "rightClickMs", says: #"is for mode "pointer""#),
        .view(
            "passthrough maxTouches in pointer mode",
            #"{ id: "k", frame: [0, 0, 5, 5], passthrough: { mode: "pointer", maxTouches: 2 } }"#, .invalidValue,
            path: "main/k", at: "maxTouches", says: #"is for mode "touch""#),
        .view(
            "passthrough unknown key", #"{ id: "k", frame: [0, 0, 5, 5], passthrough: { maxTouch: 2 } }"#,
            .unknownKey, path: "main/k", at: "maxTouch", says: #"did you mean "maxTouches"?"#),
        .view(
            "passthrough key misspelt", #"{ id: "k", frame: [0, 0, 5, 5], passtrough: true }"#, .unknownKey,
            path: "main/k", at: "passtrough", says: #"did you mean "passthrough"?"#),
    ]

    @Test("a bad passthrough is rejected with the expected error and location", arguments: badCases)
    func badPassthrough(_ badCase: BadConfigCase) throws {
        try expectRejected(badCase)
    }

    static let runtimeConfig = """
        { screens: [{ name: "main", width: 1000, height: 1000, root: { id: "main", passthrough: true, children: [
            { id: "app", frame: [100, 100, 800, 800], owner: { users: [1000] }, children: [
                { id: "panel", frame: [200, 200, 400, 400], mount: true },
            ] },
        ] } }] }
        """

    static func node(_ json: String) -> JSONNode {
        JSONReader.read(Array(json.utf8), syntax: .strictJSON).root!
    }

    static let owner = RuntimeClient(id: 1) { list in list.users.contains(.id(1000)) }

    /// `passthrough` is the config file's alone: `setView` and `mount` refuse it clearly, and
    /// change nothing.
    @Test func runTimeChangesRefusePassthrough() throws {
        var layout = RuntimeLayout(base: try Config.parse(Data(Self.runtimeConfig.utf8), fileName: "t"))
        let set = layout.apply(.setView([("app", Self.node(#"{"passthrough":false}"#))]), by: Self.owner)
        guard case .failure(let setFailures) = set else {
            Issue.record("setView accepted passthrough")
            return
        }
        #expect(setFailures.failures.first?.code == .config(.unknownKey))
        #expect(
            setFailures.failures.contains { $0.description.contains("\"passthrough\" cannot be changed at run time") },
            "\(setFailures.failures)")
        let mount = layout.apply(
            .mount(viewID: "panel", children: Self.node(#"[{"id":"x","frame":[0,0,1,1],"passthrough":false}]"#)),
            by: Self.owner)
        guard case .failure(let mountFailures) = mount else {
            Issue.record("mount accepted passthrough")
            return
        }
        #expect(mountFailures.failures.first?.code == .config(.invalidValue))
        #expect(
            mountFailures.failures.contains { $0.description.contains("set in the config file only") },
            "\(mountFailures.failures)")
        #expect(layout.effective == layout.base)
        #expect(layout.effective.viewPassthrough == ["main": .touch])
    }
}
