import Foundation
import Testing

@testable import TouchRouterCore

/// Run-time changes (`setView`, `mount`, `unmount`): owner checks, atomic validation with the
/// config's codes, id collisions, limits, a departing client, a new config under the state.
@Suite("Run-time layout")
struct RuntimeLayoutTests {
    static let configText = """
        { screens: [{ name: "main", width: 1000, height: 1000, root: { id: "main", children: [
            { id: "static", frame: [0, 0, 100, 100] },
            { id: "app", frame: [100, 100, 800, 800], owner: { users: [1000], groups: ["kiosk"] }, children: [
                { id: "ok", frame: [0, 0, 100, 100], resetOnDisconnect: true },
                { id: "list", frame: [0, 100, 100, 100] },
                { id: "panel", frame: [200, 200, 400, 400], mount: true, children: [
                    { id: "placeholder", frame: [0, 0, 10, 10] },
                ] },
                { id: "pin", frame: [600, 0, 100, 100], owner: { users: [2000] } },
            ] },
        ] } }] }
        """

    static func config(_ text: String = configText) throws -> Config {
        try Config.parse(Data(text.utf8), fileName: "runtime.json5")
    }

    /// A client with this uid, admitted by lists naming the uid (root: by every list).
    static func client(_ uid: UInt32, id: Int? = nil) -> RuntimeClient {
        RuntimeClient(id: id ?? Int(uid)) { list in uid == 0 || list.users.contains(.id(uid)) }
    }

    static func node(_ json: String) -> JSONNode {
        let bytes = Array(json.utf8)
        return JSONReader.read(bytes, syntax: .strictJSON).root!
    }

    static func setView(_ views: [(String, String)]) -> RuntimeRequest {
        .setView(views.map { ($0.0, node($0.1)) })
    }

    static func view(_ id: String, in layout: RuntimeLayout) -> View? {
        var stack = layout.effective.layout.screens.map(\.root)
        while let view = stack.popLast() {
            if view.id == id { return view }
            stack.append(contentsOf: view.children)
        }
        return nil
    }

    @Test func theConfigReadsOwnersMountPointsAndResets() throws {
        let config = try Self.config()
        #expect(config.runtime.owners["app"] == AccessList(users: [.id(1000)], groups: [.name("kiosk")]))
        #expect(config.runtime.owners["pin"] == AccessList(users: [.id(2000)]))
        #expect(config.runtime.mountPoints == ["panel"])
        #expect(config.runtime.resetsOnDisconnect == ["ok"])
    }

    @Test(arguments: [
        (#"{ id: "a", frame: [0, 0, 1, 1], mount: true }"#, ConfigErrorCode.invalidValue, "needs an \"owner\""),
        (#"{ id: "a", frame: [0, 0, 1, 1], owner: {} }"#, .invalidValue, "an owner list must name"),
        (#"{ id: "a", frame: [0, 0, 1, 1], owner: { users: ["-x"] } }"#, .invalidValue, "not a user or group"),
        (#"{ id: "a", frame: [0, 0, 1, 1], owner: { user: [1] } }"#, .unknownKey, "did you mean \"users\""),
        (#"{ id: "a", frame: [0, 0, 1, 1], mount: 1, owner: { users: [1] } }"#, .wrongType, "\"mount\""),
        (#"{ id: "a", frame: [0, 0, 1, 1], resetOnDisconnect: "yes" }"#, .wrongType, "\"resetOnDisconnect\""),
    ])
    func badRunTimeKeysAreConfigErrors(view: String, code: ConfigErrorCode, excerpt: String) {
        let errors = configErrors(fileWithChildren(view))
        #expect(errors.count == 1)
        #expect(errors.first?.code == code)
        #expect(errors.first?.message.contains(excerpt) == true, "\(errors)")
    }

    @Test func aMountPointUnderAnOwnedAncestorIsValid() {
        let text = fileWithChildren(
            #"{ id: "a", frame: [0, 0, 9, 9], owner: { users: [1] }, children: [ { id: "b", frame: [0, 0, 1, 1], mount: true } ] }"#
        )
        #expect(configErrors(text).isEmpty)
    }

    @Test func anOwnerChangesViewsAtomically() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let result = layout.apply(
            Self.setView([("ok", #"{"hidden":true}"#), ("list", #"{"frame":[0,-240,100,2400],"alpha":0.5}"#)]),
            by: Self.client(1000))
        #expect(try result.get() == ["ok", "list"])
        #expect(Self.view("ok", in: layout)?.hidden == true)
        #expect(Self.view("list", in: layout)?.frame == Rect(x: 0, y: -240, width: 100, height: 2400))
        #expect(Self.view("list", in: layout)?.alpha == 0.5)
        #expect(layout.base.layout != layout.effective.layout)
    }

    /// `alpha` takes 0…1, both ends included (a view made fully opaque again, or fully
    /// transparent); just outside either end is refused.
    @Test func alphaTakesZeroToOneBothEndsIncluded() throws {
        var layout = RuntimeLayout(base: try Self.config())
        for alpha in ["0.5", "1", "0", "1.0"] {
            #expect(
                try layout.apply(Self.setView([("list", #"{"alpha":\#(alpha)}"#)]), by: Self.client(1000)).get() == [
                    "list"
                ])
            #expect(Self.view("list", in: layout)?.alpha == Double(alpha))
        }
        for alpha in ["1.0000001", "-0.0000001"] {
            guard
                case .failure(let failures) = layout.apply(
                    Self.setView([("list", #"{"alpha":\#(alpha)}"#)]), by: Self.client(1000))
            else {
                Issue.record("alpha \(alpha) accepted")
                continue
            }
            #expect(failures.failures.map(\.code) == [.config(.alphaOutOfRange)])
        }
    }

    @Test func oneBadFieldRefusesTheWholeRequestAndEveryFailureIsListed() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let before = layout.effective
        let result = layout.apply(
            Self.setView([
                ("ok", #"{"hidden":true}"#), ("list", #"{"alpha":2,"frame":[0,0,0,10],"shap":"rect"}"#),
                ("nope", #"{"hidden":true}"#),
            ]),
            by: Self.client(1000))
        guard case .failure(let failures) = result else {
            Issue.record("accepted")
            return
        }
        let found = failures.failures.map { "\($0.code) \($0.field ?? "-") \($0.viewPath ?? "-")" }
        #expect(
            found == [
                "config(TouchRouterCore.ConfigErrorCode.alphaOutOfRange) alpha main/app/list",
                "config(TouchRouterCore.ConfigErrorCode.nonPositiveSize) frame main/app/list",
                "config(TouchRouterCore.ConfigErrorCode.unknownKey) shap main/app/list",
                "unknownView - -",
            ])
        #expect(failures.failures[2].message.contains("did you mean \"shape\""))
        #expect(layout.effective == before)
    }

    @Test func ownersAreCheckedOnTheWholePathAndAViewWithoutOwnerIsFixed() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let denied: [(String, UInt32)] = [("static", 1000), ("static", 0), ("main", 0), ("pin", 1000), ("ok", 2000)]
        for (viewID, uid) in denied {
            let result = layout.apply(Self.setView([(viewID, #"{"hidden":true}"#)]), by: Self.client(uid))
            guard case .failure(let failures) = result else {
                Issue.record("\(viewID) changed by uid \(uid)")
                continue
            }
            #expect(failures.failures.map(\.code) == [.permissionDenied])
        }
        // Root passes every list; a client in both lists too.
        #expect((try? layout.apply(Self.setView([("pin", #"{"alpha":0.5}"#)]), by: Self.client(0)).get()) == ["pin"])
        let both = RuntimeClient(id: 7) { $0.users.contains(.id(1000)) || $0.users.contains(.id(2000)) }
        #expect((try? layout.apply(Self.setView([("pin", #"{"alpha":0.7}"#)]), by: both).get()) == ["pin"])
    }

    @Test func aPerEdgeMarginAndAShapeDoNotGoTogetherEvenAcrossRequests() throws {
        var layout = RuntimeLayout(base: try Self.config())
        _ = try layout.apply(Self.setView([("ok", #"{"touchMargin":{"top":5}}"#)]), by: Self.client(1000)).get()
        let result = layout.apply(Self.setView([("ok", #"{"shape":"ellipse"}"#)]), by: Self.client(1000))
        guard case .failure(let failures) = result else {
            Issue.record("accepted")
            return
        }
        #expect(failures.failures.map(\.code) == [.config(.perEdgeMarginOnShape)])
        #expect(failures.failures.first?.field == "shape")
    }

    /// The other order: a view already shaped (by an earlier request) refuses a per-edge margin.
    @Test func anAlreadyShapedViewRefusesAPerEdgeMargin() throws {
        var layout = RuntimeLayout(base: try Self.config())
        _ = try layout.apply(Self.setView([("ok", #"{"shape":"ellipse"}"#)]), by: Self.client(1000)).get()
        let result = layout.apply(Self.setView([("ok", #"{"touchMargin":{"top":5}}"#)]), by: Self.client(1000))
        guard case .failure(let failures) = result else {
            Issue.record("accepted")
            return
        }
        #expect(failures.failures.map(\.code) == [.config(.perEdgeMarginOnShape)])
        #expect(failures.failures.first?.field == "touchMargin")
        // A uniform margin is fine on a shape.
        #expect(
            (try? layout.apply(Self.setView([("ok", #"{"touchMargin":5}"#)]), by: Self.client(1000)).get()) == ["ok"])
    }

    /// A view's change must name a field: `{}` is refused with its own message, and nothing applies.
    @Test func anEmptyChangeIsRefused() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let result = layout.apply(Self.setView([("ok", "{}")]), by: Self.client(1000))
        guard case .failure(let failures) = result else {
            Issue.record("accepted")
            return
        }
        #expect(failures.failures.map(\.code) == [.config(.invalidValue)])
        #expect(failures.failures.first?.message.contains("no field to change") == true)
    }

    @Test func aDepartingClientTakesItsMountsAndItsResettableChanges() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let me = Self.client(1000)
        _ = try layout.apply(Self.setView([("ok", #"{"hidden":true}"#), ("list", #"{"alpha":0.5}"#)]), by: me).get()
        _ = try layout.apply(.mount(viewID: "panel", children: Self.node(#"[{"id":"a","frame":[0,0,1,1]}]"#)), by: me)
            .get()
        // Another client's change of "ok" outlives mine.
        let other = RuntimeClient(id: 99) { $0.users.contains(.id(1000)) }
        _ = try layout.apply(Self.setView([("ok", #"{"alpha":0.25}"#)]), by: other).get()
        #expect(layout.clientLeft(1000) == ["ok", "panel"])
        #expect(Self.view("ok", in: layout)?.hidden == false)
        #expect(Self.view("ok", in: layout)?.alpha == 0.25)
        #expect(Self.view("list", in: layout)?.alpha == 0.5)  // not resetOnDisconnect
        #expect(!layout.contains("a") && layout.contains("placeholder"))
        #expect(layout.clientLeft(1000) == [])
    }

    @Test func aFieldAnotherClientSetLaterIsThatClientsAndGoesWithIt() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let first = RuntimeClient(id: 1) { $0.users.contains(.id(1000)) }
        let second = RuntimeClient(id: 2) { $0.users.contains(.id(1000)) }
        _ = try layout.apply(Self.setView([("ok", #"{"alpha":0.5,"hidden":true}"#)]), by: first).get()
        _ = try layout.apply(Self.setView([("ok", #"{"alpha":0.25}"#)]), by: second).get()
        #expect(Self.view("ok", in: layout)?.alpha == 0.25)
        // The second client's alpha goes with it (resetOnDisconnect): the config's, not the first's.
        #expect(layout.clientLeft(2) == ["ok"])
        #expect(Self.view("ok", in: layout)?.alpha == 1)
        #expect(Self.view("ok", in: layout)?.hidden == true)
    }

    @Test func theStateOutlivesANewConfigWhileItsViewsExist() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let me = Self.client(1000)
        _ = try layout.apply(Self.setView([("ok", #"{"hidden":true}"#), ("list", #"{"alpha":0.5}"#)]), by: me).get()
        _ = try layout.apply(.mount(viewID: "panel", children: Self.node(#"[{"id":"a","frame":[0,0,1,1]}]"#)), by: me)
            .get()
        // The new file drops "list" and moves "ok": ok keeps hidden, list's change is gone, the mount stays.
        let newText = Self.configText.replacingOccurrences(of: #"{ id: "list", frame: [0, 100, 100, 100] },"#, with: "")
            .replacingOccurrences(
                of: #"{ id: "ok", frame: [0, 0, 100, 100]"#, with: #"{ id: "ok", frame: [5, 5, 100, 100]"#)
        let reloaded = RuntimeLayout(base: try Self.config(newText), state: layout.state)
        #expect(Self.view("ok", in: reloaded)?.hidden == true)
        #expect(Self.view("ok", in: reloaded)?.frame.x == 5)
        #expect(reloaded.state.change(of: "list") == nil)
        #expect(reloaded.contains("a"))
        // A file that uses the mounted id itself, or no longer has the mount point, drops the mount.
        let collides = Self.configText.replacingOccurrences(of: #"id: "static""#, with: #"id: "a""#)
        #expect(
            !RuntimeLayout(base: try Self.config(collides), state: layout.state).state.mounts.keys.contains("panel"))
        let noPoint = Self.configText.replacingOccurrences(of: "mount: true, ", with: "")
        let withoutPoint = RuntimeLayout(base: try Self.config(noPoint), state: layout.state)
        #expect(!withoutPoint.contains("a") && withoutPoint.contains("placeholder"))
    }

    /// A layout with views behind an access list (root only), next to the client's own app.
    static let restrictedText = """
        { screens: [{ name: "main", width: 1000, height: 1000, root: { id: "main", children: [
            { id: "app", frame: [0, 0, 500, 500], owner: { users: [1000] }, children: [
                { id: "panel", frame: [0, 0, 400, 400], mount: true },
            ] },
            { id: "pin", frame: [500, 0, 500, 500], access: { users: [0] }, owner: { users: [0, 1000] }, children: [
                { id: "pin-secret-key", frame: [0, 0, 100, 100] },
                { id: "vault", frame: [100, 0, 100, 100], mount: true },
            ] },
        ] } }] }
        """

    /// To a client outside a view's access list the view does not exist: naming it gets the very
    /// answer a made-up id gets (even where the client is on the view's owner list), and a
    /// colliding id is refused without saying where the other view is.
    @Test func aViewTheClientMayNotSeeIsAnsweredAsOneThatDoesNotExist() throws {
        var layout = RuntimeLayout(base: try Self.config(Self.restrictedText))
        let outsider = Self.client(1000)
        func refusal(_ request: RuntimeRequest) -> [String] {
            guard case .failure(let failures) = layout.apply(request, by: outsider) else { return ["applied"] }
            return failures.failures.map { "\($0.code) \($0.viewPath ?? "-") \($0.message)" }
        }
        for (hidden, missing) in [("pin-secret-key", "nope"), ("pin", "nope"), ("vault", "nope")] {
            let named = refusal(Self.setView([(hidden, #"{"alpha":0.5}"#)]))
            #expect(
                named
                    == refusal(Self.setView([(missing, #"{"alpha":0.5}"#)])).map {
                        $0.replacingOccurrences(of: missing, with: hidden)
                    })
            #expect(named.first?.hasPrefix("unknownView") == true, "\(named)")
            let children = Self.node(#"[{"id":"a","frame":[0,0,1,1]}]"#)
            #expect(
                refusal(.mount(viewID: hidden, children: children))
                    == refusal(.mount(viewID: missing, children: children)).map {
                        $0.replacingOccurrences(of: missing, with: hidden)
                    })
            #expect(
                refusal(.unmount(viewID: hidden))
                    == refusal(.unmount(viewID: missing)).map {
                        $0.replacingOccurrences(of: missing, with: hidden)
                    })
        }
        let collision = refusal(
            .mount(viewID: "panel", children: Self.node(#"[{"id":"pin-secret-key","frame":[0,0,1,1]}]"#)))
        #expect(collision.count == 1 && collision.allSatisfy { !$0.contains("main/pin") }, "\(collision)")
        #expect(collision.first?.contains("duplicate id \"pin-secret-key\": already used") == true, "\(collision)")
        // Root sees it all, and is told where the other view is.
        let root = Self.client(0)
        #expect(layout.isVisible("pin-secret-key", to: root) && !layout.isVisible("pin-secret-key", to: outsider))
        guard
            case .failure(let rootCollision) = layout.apply(
                .mount(viewID: "vault", children: Self.node(#"[{"id":"app","frame":[0,0,1,1]}]"#)), by: root)
        else {
            Issue.record("a duplicate id was mounted")
            return
        }
        #expect(rootCollision.failures.first?.message.contains(#"already used by view "main/app""#) == true)
        _ = try layout.apply(Self.setView([("pin-secret-key", #"{"alpha":0.5}"#)]), by: root).get()
    }

    /// A `setView` that names no view changes nothing and says so in its own words, for any client.
    @Test(arguments: [UInt32(1000), 0, 4242])
    func aSetViewNamingNoViewIsRefused(uid: UInt32) throws {
        var layout = RuntimeLayout(base: try Self.config())
        let before = layout.effective
        guard case .failure(let failures) = layout.apply(.setView([]), by: Self.client(uid)) else {
            Issue.record("an empty setView was applied")
            return
        }
        #expect(failures.failures.count == 1)
        #expect(failures.failures.first?.code == .config(.invalidValue))
        #expect(failures.failures.first?.message == "no view to change")
        #expect(failures.failures.first?.viewPath == nil)
        #expect(layout.effective == before)
    }
}
