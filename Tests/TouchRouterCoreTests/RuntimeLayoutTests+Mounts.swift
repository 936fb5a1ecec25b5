import Foundation
import Testing

@testable import TouchRouterCore

/// Mounts and unmounts at run time: children replaced and brought back, their access lists and
/// gestures, the config's codes for bad children, id collisions, who may mount, and the limits.
extension RuntimeLayoutTests {
    @Test func aMountReplacesTheChildrenAndUnmountBringsThemBack() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let children = #"[{"id":"popup","frame":[0,0,200,100],"children":[{"id":"yes","frame":[0,0,50,50]}]}]"#
        #expect(
            try layout.apply(.mount(viewID: "panel", children: Self.node(children)), by: Self.client(1000)).get() == [
                "panel"
            ])
        #expect(Self.view("panel", in: layout)?.children.map(\.id) == ["popup"])
        #expect(layout.contains("yes") && !layout.contains("placeholder"))
        #expect(layout.path(of: "yes") == ["main", "app", "panel", "popup", "yes"])
        #expect(layout.mountedViewCount(of: 1000) == 2)
        #expect(try layout.apply(.unmount(viewID: "panel"), by: Self.client(1000)).get() == ["panel"])
        #expect(Self.view("panel", in: layout)?.children.map(\.id) == ["placeholder"])
        #expect(layout.effective == layout.base)
        // Unmounting again changes nothing.
        #expect(try layout.apply(.unmount(viewID: "panel"), by: Self.client(1000)).get() == [])
    }

    /// A mounted view may carry an access list: it is in force once the mount is live, and gone
    /// with the unmount.
    @Test func aMountedViewsAccessListApplies() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let children = #"[{"id":"secret","frame":[0,0,50,50],"access":{"users":[1000]}}]"#
        _ = try layout.apply(.mount(viewID: "panel", children: Self.node(children)), by: Self.client(1000)).get()
        #expect(layout.effective.viewAccess["secret"]?.users == [.id(1000)])
        _ = try layout.apply(.unmount(viewID: "panel"), by: Self.client(1000)).get()
        #expect(layout.effective.viewAccess["secret"] == nil)
    }

    /// A mounted view changed by `setView` is changed in the effective layout (a mount hangs in
    /// uncopied only while no view has changes), and a change of a config view beside it applies too.
    @Test func aMountedViewTakesChanges() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let children = #"[{"id":"popup","frame":[0,0,200,100],"children":[{"id":"yes","frame":[0,0,50,50]}]}]"#
        _ = try layout.apply(.mount(viewID: "panel", children: Self.node(children)), by: Self.client(1000)).get()
        #expect(Self.view("yes", in: layout)?.hidden == false)
        _ = try layout.apply(Self.setView([("yes", #"{"hidden":true}"#)]), by: Self.client(1000)).get()
        #expect(Self.view("yes", in: layout)?.hidden == true)
        #expect(Self.view("popup", in: layout)?.frame == Rect(x: 0, y: 0, width: 200, height: 100))
        _ = try layout.apply(Self.setView([("popup", #"{"alpha":0.5}"#)]), by: Self.client(1000)).get()
        #expect(Self.view("popup", in: layout)?.alpha == 0.5 && Self.view("yes", in: layout)?.hidden == true)
    }

    @Test func mountedViewsBringTheirGesturesAndTakeThemAway() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let children = #"[{"id":"popup","frame":[0,0,200,100],"gestures":["tap",{"type":"swipe","direction":"left"}]}]"#
        _ = try layout.apply(.mount(viewID: "panel", children: Self.node(children)), by: Self.client(1000)).get()
        #expect(layout.effective.viewGestures["popup"]?.map(\.kind) == [.tap, .swipe])
        _ = try layout.apply(.unmount(viewID: "panel"), by: Self.client(1000)).get()
        #expect(layout.effective.viewGestures["popup"] == nil)
        // A bad gesture in a mount is the config's error, and nothing is mounted.
        let bad = #"[{"id":"popup","frame":[0,0,200,100],"gestures":["wave"]}]"#
        guard
            case .failure(let failures) = layout.apply(
                .mount(viewID: "panel", children: Self.node(bad)), by: Self.client(1000))
        else {
            Issue.record("a mount with an unknown gesture kind was accepted")
            return
        }
        #expect(failures.failures.first?.code == .config(.invalidValue), "\(failures.failures)")
        #expect(layout.effective == layout.base)
    }

    @Test(arguments: [
        (
            #"[{"id":"ok","frame":[0,0,1,1]}]"#, RuntimeFailure.Code.config(.duplicateID),
            "already used by view \"main/app/ok\""
        ),
        (
            #"[{"id":"placeholder","frame":[0,0,1,1]}]"#, .config(.duplicateID),
            "already used by view \"main/app/panel/placeholder\""
        ),
        (#"[{"id":"a","frame":[0,0,1,1]},{"id":"a","frame":[0,0,1,1]}]"#, .config(.duplicateID), "main/app/panel/a"),
        (#"[{"id":"a","frame":[0,0,1,0]}]"#, .config(.nonPositiveSize), "height must be > 0"),
        (#"[{"id":"a","frame":[0,0,1,1],"owner":{"users":[1]}}]"#, .config(.invalidValue), "cannot carry \"owner\""),
        (#"[{"id":"a","frame":[0,0,1,1],"mount":true}]"#, .config(.invalidValue), "cannot be a mount point"),
        (#"{"id":"a"}"#, .config(.wrongType), "\"children\" must be an array of views"),
    ])
    func badMountsAreRefusedWithTheConfigsCodes(children: String, code: RuntimeFailure.Code, excerpt: String) throws {
        var layout = RuntimeLayout(base: try Self.config())
        let result = layout.apply(.mount(viewID: "panel", children: Self.node(children)), by: Self.client(1000))
        guard case .failure(let failures) = result else {
            Issue.record("accepted")
            return
        }
        #expect(failures.failures.first?.code == code)
        #expect(failures.failures.contains { $0.description.contains(excerpt) }, "\(failures.failures)")
        #expect(layout.effective == layout.base)
    }

    /// `count` views `prefix0`… in a row, as a mount's children (JSON).
    static func row(_ prefix: String, _ count: Int, plus extra: String? = nil) -> String {
        let ids = (0..<count).map { "\(prefix)\($0)" } + (extra.map { [$0] } ?? [])
        return "[" + ids.map { #"{"id":"\#($0)","frame":[0,0,1,1]}"# }.joined(separator: ",") + "]"
    }

    /// Collisions are found whichever id table is the smaller (the check looks ids up on the smaller
    /// side of each pair): a mount larger or smaller than the config, against another mount larger
    /// or smaller than it; a mount replacing itself may keep its ids.
    @Test func idCollisionsAreFoundWhicheverSideIsLarger() throws {
        let text = Self.configText.replacingOccurrences(
            of: #"{ id: "pin","#, with: #"{ id: "dock", frame: [0, 0, 10, 10], mount: true }, { id: "pin","#)
        var layout = RuntimeLayout(base: try Self.config(text))
        let owner = Self.client(1000)
        func refusal(_ point: String, _ children: String) -> String? {
            guard
                case .failure(let failures) = layout.apply(
                    .mount(viewID: point, children: Self.node(children)), by: owner)
            else { return nil }
            return failures.failures.filter { $0.code == .config(.duplicateID) }.map(\.message).first
        }
        // Larger than the config (20 views against 9 ids), then smaller, each with one config id.
        #expect(refusal("panel", Self.row("big", 20, plus: "list"))?.contains("view \"main/app/list\"") == true)
        #expect(refusal("panel", Self.row("small", 1, plus: "static"))?.contains("view \"main/static\"") == true)
        #expect(layout.effective == layout.base)
        // Another mount's ids: a large mount at "panel", then at "dock" a large and a small one
        // that reuse one of them.
        #expect(refusal("panel", Self.row("p", 30)) == nil)
        #expect(refusal("dock", Self.row("d", 40, plus: "p7"))?.contains("view \"main/app/panel/p7\"") == true)
        #expect(refusal("dock", Self.row("d", 2, plus: "p29"))?.contains("view \"main/app/panel/p29\"") == true)
        #expect(!layout.contains("d0"))
        // A mount replacing itself keeps its ids; the other point takes fresh ones.
        #expect(refusal("panel", Self.row("p", 31)) == nil)
        #expect(refusal("dock", Self.row("d", 3)) == nil)
        #expect(layout.contains("p30") && layout.contains("d2") && !layout.contains("placeholder"))
        #expect(layout.path(of: "d2") == ["main", "app", "dock", "d2"])
    }

    @Test func mountsAreOnlyForMountPointsAndTheirOwners() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let children = Self.node(#"[{"id":"a","frame":[0,0,1,1]}]"#)
        let cases: [(String, UInt32, RuntimeFailure.Code)] = [
            ("ok", 1000, .notMountPoint), ("panel", 2000, .permissionDenied), ("nope", 1000, .unknownView),
        ]
        for (viewID, uid, code) in cases {
            let result = layout.apply(.mount(viewID: viewID, children: children), by: Self.client(uid))
            guard case .failure(let failures) = result else {
                Issue.record("\(viewID) mounted")
                continue
            }
            #expect(failures.failures.map(\.code) == [code])
        }
    }

    @Test func theMountLimitsHaveTheirOwnCodes() throws {
        var layout = RuntimeLayout(base: try Self.config())
        let three = Self.node(
            #"[{"id":"a","frame":[0,0,1,1]},{"id":"b","frame":[0,0,1,1]},{"id":"c","frame":[0,0,1,1]}]"#)
        let tight = RuntimeLimits(viewsPerMount: 2, viewsMountedPerClient: 10)
        let tooLarge = layout.apply(.mount(viewID: "panel", children: three), by: Self.client(1000), limits: tight)
        #expect((try? tooLarge.get()) == nil)
        if case .failure(let failures) = tooLarge { #expect(failures.failures.map(\.code) == [.mountTooLarge]) }
        let perClient = RuntimeLimits(viewsPerMount: 10, viewsMountedPerClient: 2)
        let tooMany = layout.apply(.mount(viewID: "panel", children: three), by: Self.client(1000), limits: perClient)
        if case .failure(let failures) = tooMany {
            #expect(failures.failures.map(\.code) == [.tooManyMountedViews])
        } else {
            Issue.record("accepted")
        }
        // Replacing one's own mount counts the new views, not both.
        let two = Self.node(#"[{"id":"a","frame":[0,0,1,1]},{"id":"b","frame":[0,0,1,1]}]"#)
        _ = try layout.apply(.mount(viewID: "panel", children: two), by: Self.client(1000), limits: perClient).get()
        _ = try layout.apply(.mount(viewID: "panel", children: two), by: Self.client(1000), limits: perClient).get()
    }
}
