import Foundation
import Testing

@testable import TouchRouterCore

/// The run-time layout's kept index (the config's views indexed once, each mount's views found
/// in its own table) against the index walked from scratch over the effective layout, after every
/// step of random mounts (nested mount points too), unmounts, setViews, departures and reloads.
@Suite("Run-time index properties")
struct RuntimeIndexPropertyTests {
    static let configText = """
        { screens: [{ name: "main", width: 1000, height: 1000, root: { id: "main", children: [
            { id: "app", frame: [0, 0, 800, 800], owner: { users: [0] }, children: [
                { id: "outer", frame: [0, 0, 400, 400], mount: true, children: [
                    { id: "inner", frame: [0, 0, 100, 100], mount: true, children: [
                        { id: "deep", frame: [0, 0, 10, 10] },
                    ] },
                    { id: "side", frame: [100, 0, 100, 100] },
                ] },
                { id: "other", frame: [400, 0, 400, 400], mount: true },
            ] },
        ] } }] }
        """
    /// The same without the `other` mount point (a reload drops what was mounted there).
    static let smallerConfigText = configText.replacingOccurrences(
        of: #"{ id: "other", frame: [400, 0, 400, 400], mount: true },"#, with: "")
    static let points = ["outer", "inner", "other", "side"]
    static let pool = (0..<24).map { "v\($0)" } + ["deep"]

    struct Model {
        var random: SeededRandom
        var runtime: RuntimeLayout
        let configs: [Config]

        init(seed: UInt64) throws {
            random = SeededRandom(seed: seed)
            configs = [
                try Config.parse(Data(RuntimeIndexPropertyTests.configText.utf8), fileName: "index.json5"),
                try Config.parse(Data(RuntimeIndexPropertyTests.smallerConfigText.utf8), fileName: "index.json5"),
            ]
            runtime = RuntimeLayout(base: configs[0])
        }

        func client(_ id: Int) -> RuntimeClient { RuntimeClient(id: id) { _ in true } }

        /// A random subtree of ids from the pool (each at most once), up to two levels deep.
        mutating func subtree(depth: Int, used: inout Set<String>) -> String {
            var views: [String] = []
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                guard let id = RuntimeIndexPropertyTests.pool.randomElement(using: &random), used.insert(id).inserted
                else { continue }
                let children = depth < 2 ? subtree(depth: depth + 1, used: &used) : "[]"
                views.append(#"{"id":"\#(id)","frame":[0,0,5,5],"children":\#(children)}"#)
            }
            return "[" + views.joined(separator: ",") + "]"
        }

        mutating func step() {
            let point = RuntimeIndexPropertyTests.points.randomElement(using: &random)!
            let clientID = Int.random(in: 1...2, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3:
                var used: Set<String> = []
                let children = subtree(depth: 0, used: &used)
                _ = runtime.apply(
                    .mount(viewID: point, children: RuntimeLayoutTests.node(children)), by: client(clientID))
            case 4, 5:
                _ = runtime.apply(.unmount(viewID: point), by: client(clientID))
            case 6:
                let id = (RuntimeIndexPropertyTests.pool + RuntimeIndexPropertyTests.points).randomElement(
                    using: &random)!
                _ = runtime.apply(RuntimeLayoutTests.setView([(id, #"{"alpha":0.5}"#)]), by: client(clientID))
            case 7:
                _ = runtime.clientLeft(clientID)
            default:
                runtime = RuntimeLayout(base: configs.randomElement(using: &random)!, state: runtime.state)
            }
        }

        func check() {
            let scratch = runtime.entriesFromScratch()
            #expect(runtime.indexedEntries() == scratch)
            #expect(runtime.viewCount == scratch.count)
            for id in RuntimeIndexPropertyTests.pool + RuntimeIndexPropertyTests.points + ["app", "main"] {
                #expect(runtime.contains(id) == (scratch[id] != nil), "\(id)")
                #expect(runtime.path(of: id).count == (scratch[id]?.depth ?? 0), "\(id)")
            }
        }
    }

    @Test(arguments: 0..<40)
    func theKeptIndexEqualsTheOneWalkedFromScratch(seed: UInt64) throws {
        var model = try Model(seed: seed + 1)
        model.check()
        for _ in 0..<120 {
            model.step()
            model.check()
        }
    }

    @Test func aMountUnderAMountedMountPointIsHiddenAndComesBackWithIt() throws {
        var model = try Model(seed: 1)
        let root = model.client(1)
        _ = try model.runtime.apply(
            .mount(viewID: "inner", children: RuntimeLayoutTests.node(#"[{"id":"v1","frame":[0,0,5,5]}]"#)), by: root
        ).get()
        #expect(model.runtime.contains("v1") && !model.runtime.contains("deep"))
        _ = try model.runtime.apply(
            .mount(viewID: "outer", children: RuntimeLayoutTests.node(#"[{"id":"v2","frame":[0,0,5,5]}]"#)), by: root
        ).get()
        #expect(!model.runtime.contains("v1") && !model.runtime.contains("inner") && model.runtime.contains("v2"))
        #expect(model.runtime.path(of: "v2") == ["main", "app", "outer", "v2"])
        model.check()
        _ = try model.runtime.apply(.unmount(viewID: "outer"), by: root).get()
        #expect(model.runtime.path(of: "v1") == ["main", "app", "outer", "inner", "v1"])
        model.check()
    }
}
