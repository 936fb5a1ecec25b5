/// The config with its run-time state: applies `setView`, `mount` and `unmount` requests
/// atomically (each checked in full first, then applied whole or not at all), undoes a departed
/// client's mounts and resettable changes, and keeps the state across a new config for every view
/// that still exists. Pure; meant for the daemon's layout worker, since rebuilding the effective
/// layout after a change is linear in the layout.
///
/// Ids: a mounted view's id must be new, used neither by the config file (any view, also the
/// children a mount point has in the file) nor by another mount; replacing a mount may reuse its
/// own ids (touches on a view that keeps its id go on). Collisions are refused as `duplicateID`.
public struct RuntimeLayout: Sendable {
    /// The config as the file says it.
    public private(set) var base: Config
    /// What clients changed.
    public private(set) var state: RuntimeState
    /// The config with the state applied: what the daemon routes with.
    public private(set) var effective: Config
    /// Every view of the config file by id (also those a mount hides): its place in the file's
    /// tree. Built once per config; a mount's views are found in its own table
    /// (`MountedViews.placement(of:)`), so a change costs nothing here.
    private var baseEntries: [String: BaseEntry] = [:]
    /// Per mount point of the config: how many views its children in the file bring (a mount there
    /// hides them).
    private var fileViewsUnder: [String: Int] = [:]
    /// Every id the config file uses.
    private var baseIDs: Set<String> = []
    /// The number of views in the effective layout (kept by `rebuild`, O(mounts) per change;
    /// `Layout.viewCount` walks the tree).
    public private(set) var viewCount = 0

    /// A view of the effective layout: its parent and depth (root 1). Not the view itself: copying
    /// views into an index cost more than finding the few views a `setView` names (`view(_:)`).
    struct Entry: Hashable, Sendable {
        var parent: String?
        var depth: Int
    }

    /// A view of the config file: its entry, and the nearest mount point above it (nil: none), whose
    /// mount, if any, hides it.
    struct BaseEntry: Sendable {
        var entry: Entry
        var mountPoint: String?
    }

    /// The config with `state` applied, as far as the config allows it: changes of views the
    /// config lacks are dropped, and so are mounts whose point is gone (or no longer says
    /// `mount: true`) or whose ids the config now uses. Cost: linear in the layout.
    public init(base: Config, state: RuntimeState = RuntimeState()) {
        self.base = base
        var kept = state
        var stack: [(view: View, parent: String?, depth: Int, mountPoint: String?)] = base.layout.screens.map {
            ($0.root, nil, 1, nil)
        }
        while let (view, parent, depth, mountPoint) = stack.popLast() {
            baseEntries[view.id] = BaseEntry(entry: Entry(parent: parent, depth: depth), mountPoint: mountPoint)
            var enclosing = mountPoint
            while let point = enclosing {
                fileViewsUnder[point, default: 0] += 1
                enclosing = baseEntries[point]?.mountPoint
            }
            let childrensMountPoint = base.runtime.mountPoints.contains(view.id) ? view.id : mountPoint
            for child in view.children { stack.append((child, view.id, depth + 1, childrensMountPoint)) }
        }
        baseIDs = Set(baseEntries.keys)
        for (point, mount) in state.mounts {
            if baseEntries[point] == nil || !base.runtime.mountPoints.contains(point)
                || mount.views.sharesID(with: baseIDs)
            {
                kept.setMount(nil, at: point)
            }
        }
        self.state = kept
        effective = base
        rebuild()
    }

    private static func collectIDs(_ root: View, into ids: inout Set<String>) {
        var stack = [root]
        while let view = stack.popLast() {
            ids.insert(view.id)
            stack.append(contentsOf: view.children)
        }
    }

    /// Rebuilds the effective config, counts its views, and forgets changes of views that are
    /// gone. Cost: the effective config (linear in the config's views), O(mounts) for the count,
    /// O(changes) lookups.
    private mutating func rebuild() {
        effective = state.effectiveConfig(base)
        var count = baseEntries.count
        for (point, mount) in state.mounts where contains(point) {
            count += mount.views.viewCount - fileViewsUnder[point, default: 0]
        }
        viewCount = count
        let gone = state.changes.keys.filter { !contains($0) }
        if !gone.isEmpty {
            let goneIDs = Set(gone)
            state.keepChanges { !goneIDs.contains($0) }
        }
    }

    /// The view's parent and depth in the effective layout, nil when it has no such view. Cost: for
    /// a config view O(mount points above it); for a mounted view one lookup per mount, then
    /// O(its depth).
    func entry(_ viewID: String) -> Entry? {
        if let found = baseEntries[viewID] {
            var above = found.mountPoint
            while let point = above {
                if state.mounts[point] != nil { return nil }  // hidden by what is mounted there
                above = baseEntries[point]?.mountPoint
            }
            return found.entry
        }
        // Mounted ids are unique across the config and every mount (the collision checks).
        for (point, mount) in state.mounts {
            guard let (parent, hops) = mount.views.placement(of: viewID) else { continue }
            guard let pointEntry = entry(point) else { return nil }  // its mount point is hidden
            return Entry(parent: parent ?? point, depth: pointEntry.depth + hops)
        }
        return nil
    }

    /// The index as the effective layout gives it, walked from scratch (what `entry(_:)` must
    /// answer for every id; for tests). Cost: linear in the effective layout.
    func entriesFromScratch() -> [String: Entry] {
        var entries: [String: Entry] = [:]
        var stack: [(view: View, parent: String?, depth: Int)] = effective.layout.screens.map { ($0.root, nil, 1) }
        while let (view, parent, depth) = stack.popLast() {
            entries[view.id] = Entry(parent: parent, depth: depth)
            for child in view.children { stack.append((child, view.id, depth + 1)) }
        }
        return entries
    }

    /// Every id the kept index answers for, with its entry (for tests, against
    /// `entriesFromScratch()`).
    func indexedEntries() -> [String: Entry] {
        var entries: [String: Entry] = [:]
        let ids = Array(baseEntries.keys) + state.mounts.values.flatMap { $0.views.ids.keys }
        for id in ids { entries[id] = entry(id) }
        return entries
    }

    /// Whose a view of the effective layout is: the config file's, or the client's that mounted it.
    public enum ViewOwner: Hashable, Sendable {
        case config
        case client(Int)
    }

    /// Whose the view is, nil when the effective layout has no such view (a subscription made to
    /// a view is bound to its owner, so another owner's view of the same id never takes it over).
    /// Cost: `entry(_:)`'s, plus one lookup per mount for a mounted view.
    public func owner(of viewID: String) -> ViewOwner? {
        guard contains(viewID) else { return nil }
        if baseEntries[viewID] != nil { return .config }
        for mount in state.mounts.values where mount.views.ids[viewID] != nil { return .client(mount.client) }
        return nil
    }

    /// The effective layout has a view with this id. Cost: `entry(_:)`'s.
    public func contains(_ viewID: String) -> Bool { entry(viewID) != nil }

    /// The effective layout's view with this id, found along its path. Cost: O(depth × siblings).
    func view(_ viewID: String) -> View? {
        let ids = path(of: viewID)
        guard let first = ids.first,
            var view = effective.layout.screens.first(where: { $0.root.id == first })?.root
        else { return nil }
        for id in ids.dropFirst() {
            guard let child = view.children.first(where: { $0.id == id }) else { return nil }
            view = child
        }
        return view
    }

    /// The product of the scales of the views along `path` (ids from a screen's root), every one
    /// included. Cost: O(depth × siblings), like `view(_:)`.
    func composedScale(down path: some Collection<String>) -> ComposedScale {
        guard let first = path.first,
            var view = effective.layout.screens.first(where: { $0.root.id == first })?.root
        else { return .identity }
        var composed = ComposedScale.identity.then(view.transform)
        for id in path.dropFirst() {
            guard let child = view.children.first(where: { $0.id == id }) else { break }
            view = child
            composed = composed.then(view.transform)
        }
        return composed
    }

    /// The view's path: ids from its screen's root, itself last.
    public func path(of viewID: String) -> [String] {
        var path: [String] = []
        var current: String? = viewID
        while let id = current, let entry = entry(id) {
            path.append(id)
            current = entry.parent
        }
        return path.reversed()
    }

    /// The owner lists on the view's path from the root (a mounted view inherits its mount point's).
    public func ownerLists(of viewID: String) -> [AccessList] {
        path(of: viewID).compactMap { base.runtime.owners[$0] }
    }

    /// Whether `client` may see the view: it passes every access list (the `access` key) on the
    /// view's path. A view a client may not see is, in every answer it gets, a view that does not
    /// exist. Cost: the view's depth.
    public func isVisible(_ viewID: String, to client: RuntimeClient) -> Bool {
        let lists = effective.viewAccess
        guard !lists.isEmpty else { return true }
        return path(of: viewID).allSatisfy { lists[$0].map(client.admits) ?? true }
    }

    /// Whether `client` may change the view: it has an owner on its path and the client passes
    /// every owner list there. Without an owner, nobody may (root included).
    public func mayChange(_ viewID: String, by client: RuntimeClient) -> Bool {
        let lists = ownerLists(of: viewID)
        return !lists.isEmpty && lists.allSatisfy(client.admits)
    }

    /// The view ids the client has mounted views under and how many views that is.
    public func mountedViewCount(of clientID: Int) -> Int {
        state.mounts.values.filter { $0.client == clientID }.reduce(0) { $0 + $1.views.viewCount }
    }

    /// Applies one request whole, or nothing of it. Returns the ids of the views it changed
    /// (for `layoutChanged`), or every reason it was refused.
    public mutating func apply(
        _ request: RuntimeRequest, by client: RuntimeClient, limits: RuntimeLimits = .standard
    ) -> Result<[String], RuntimeFailures> {
        switch request {
        case .setView(let views): return setView(views, by: client)
        case .mount(let viewID, let children): return mount(viewID, children: children, by: client, limits: limits)
        case .unmount(let viewID): return unmount(viewID, by: client)
        }
    }

    /// The checks every request makes of the view it names: it exists, the client may see it, and
    /// the client owns it. A view it may not see gets the very answer of one that does not exist.
    private func checkOwned(_ viewID: String, by client: RuntimeClient) -> RuntimeFailure? {
        guard contains(viewID), isVisible(viewID, to: client) else {
            return RuntimeFailure(code: .unknownView, viewPath: nil, message: "no view \"\(Excerpt.of(viewID))\"")
        }
        let viewPath = Self.joined(path(of: viewID))
        let lists = ownerLists(of: viewID)
        if lists.isEmpty {
            return RuntimeFailure(
                code: .permissionDenied, viewPath: viewPath,
                message: "no owner on the view's path: it cannot be changed at run time")
        }
        if !lists.allSatisfy(client.admits) {
            return RuntimeFailure(
                code: .permissionDenied, viewPath: viewPath, message: "an owner list on the view's path excludes you")
        }
        return nil
    }

    private static func joined(_ path: [String]) -> String { path.map { Excerpt.of($0) }.joined(separator: "/") }

    private mutating func setView(
        _ views: [(viewID: String, fields: JSONNode)], by client: RuntimeClient
    ) -> Result<[String], RuntimeFailures> {
        var failures: [RuntimeFailure] = []
        var changes: [(String, ViewChange)] = []
        for (viewID, fields) in views {
            if let failure = checkOwned(viewID, by: client) {
                failures.append(failure)
                continue
            }
            switch ConfigParser.viewChange(fields, viewPath: path(of: viewID)) {
            case .failure(let found): failures += found.failures
            case .success(let change):
                // The view as it would be: a shape and a per-edge margin do not go together.
                let merged = change.applied(to: view(viewID)!)
                let viewPath = path(of: viewID)
                let composed =
                    change.transform == nil
                    ? .identity
                    : composedScale(down: viewPath.dropLast()).then(merged.transform).then(
                        ComposedScale.extremes(below: merged))
                if !composed.isWithinBounds {
                    failures.append(
                        RuntimeFailure(
                            code: .config(.outOfRange), viewPath: Self.joined(viewPath), field: "transform",
                            message: "the scales from the screen's root down to this view or a view below it would"
                                + " multiply beyond \(GeometryBounds.composedScaleText)"))
                } else if merged.shape != .rect && !merged.touchMargin.isUniform {
                    failures.append(
                        RuntimeFailure(
                            code: .config(.perEdgeMarginOnShape), viewPath: Self.joined(path(of: viewID)),
                            field: change.touchMargin != nil ? "touchMargin" : "shape",
                            message: "a shaped view takes a single touchMargin number; {top, left, bottom, right}"
                                + " is for rectangles only"))
                } else {
                    changes.append((viewID, change))
                }
            }
        }
        if views.isEmpty {
            failures.append(RuntimeFailure(code: .config(.invalidValue), viewPath: nil, message: "no view to change"))
        }
        guard failures.isEmpty else { return .failure(RuntimeFailures(failures)) }  // nothing applied
        for (viewID, change) in changes { state.set(change, of: viewID, by: client.id) }
        rebuild()
        return .success(changes.map(\.0))
    }

    private mutating func mount(
        _ viewID: String, children: JSONNode, by client: RuntimeClient, limits: RuntimeLimits
    ) -> Result<[String], RuntimeFailures> {
        if let failure = checkMountPoint(viewID, by: client) { return .failure(RuntimeFailures([failure])) }
        let viewPath = path(of: viewID)
        let mounted: MountedViews
        do throws(ConfigErrors) {
            mounted = try ConfigParser.mountedViews(
                children, mountPath: viewPath, depth: entry(viewID)!.depth, above: composedScale(down: viewPath),
                limits: ConfigLimits(maxViews: limits.viewsPerMount))
        } catch {
            return .failure(
                RuntimeFailures(
                    error.errors.map {
                        RuntimeFailure(
                            code: $0.code == .tooManyViews ? .mountTooLarge : .config($0.code), viewPath: $0.viewPath,
                            field: "children", message: $0.message)
                    }))
        }
        var failures: [RuntimeFailure] = []
        // Whether any id collides, looked up on the smaller side of each pair of id tables (the
        // mount's own is the parser's); the other mounts' ids and the paths are collected only when
        // one does (they are for the messages).
        let others = state.mounts.filter { $0.key != viewID }.map(\.value.views)
        let collides = mounted.sharesID(with: baseIDs) || others.contains { mounted.sharesID(with: $0) }
        var otherMounts: Set<String> = []
        if collides {
            for views in others { for child in views.children { Self.collectIDs(child, into: &otherMounts) } }
        }
        var mountedIDs: [(String, [String])] = []
        var stack = collides ? mounted.children.map { ($0, viewPath) } : []
        while let (view, parentPath) = stack.popLast() {
            let ownPath = parentPath + [view.id]
            mountedIDs.append((view.id, ownPath))
            stack.append(contentsOf: view.children.map { ($0, ownPath) })
        }
        for (id, ownPath) in mountedIDs.sorted(by: { $0.0 < $1.0 })
        where baseIDs.contains(id) || otherMounts.contains(id) {
            // Where the other view is, only when the client may see it: ids are one namespace, so
            // a refusal says the id is taken, but never where nor by what.
            let user = contains(id) && isVisible(id, to: client) ? " by view \"\(Self.joined(path(of: id)))\"" : ""
            failures.append(
                RuntimeFailure(
                    code: .config(.duplicateID), viewPath: Self.joined(ownPath), field: "children",
                    message: "duplicate id \"\(Excerpt.of(id))\": already used\(user)"))
        }
        let replaced = state.mounts[viewID].flatMap { $0.client == client.id ? $0.views.viewCount : 0 } ?? 0
        let total = mountedViewCount(of: client.id) - replaced + mounted.viewCount
        if total > limits.viewsMountedPerClient {
            failures.append(
                RuntimeFailure(
                    code: .tooManyMountedViews, viewPath: Self.joined(viewPath), field: "children",
                    message: "you would have \(total) mounted views, more than the limit of"
                        + " \(limits.viewsMountedPerClient)"))
        }
        guard failures.isEmpty else { return .failure(RuntimeFailures(failures)) }
        state.setMount(RuntimeState.Mount(client: client.id, views: mounted), at: viewID)
        rebuild()
        return .success([viewID])
    }

    private func checkMountPoint(_ viewID: String, by client: RuntimeClient) -> RuntimeFailure? {
        if contains(viewID) && isVisible(viewID, to: client) && !base.runtime.mountPoints.contains(viewID) {
            return RuntimeFailure(
                code: .notMountPoint, viewPath: Self.joined(path(of: viewID)),
                message: "not a mount point (the config does not say \"mount: true\")")
        }
        return checkOwned(viewID, by: client)
    }

    private mutating func unmount(_ viewID: String, by client: RuntimeClient) -> Result<[String], RuntimeFailures> {
        if let failure = checkMountPoint(viewID, by: client) { return .failure(RuntimeFailures([failure])) }
        guard state.mounts[viewID] != nil else { return .success([]) }
        state.setMount(nil, at: viewID)
        rebuild()
        return .success([viewID])
    }

    /// A client left: its mounts are removed, and its changes of views that say
    /// `resetOnDisconnect: true` undone. Returns the views that changed (empty: nothing did).
    public mutating func clientLeft(_ clientID: Int) -> [String] {
        var changed = state.removeChanges(by: clientID, of: base.runtime.resetsOnDisconnect)
        for (point, mount) in state.mounts where mount.client == clientID {
            state.setMount(nil, at: point)
            changed.append(point)
        }
        if !changed.isEmpty { rebuild() }
        return changed.sorted()
    }
}
