/// Views changed at run time by their owners: the changes (`setView`), the mounted subtrees
/// (`mount`, `unmount`) and the layout they make with the config. Pure: requests in, a new state
/// (or every reason it was refused) out. The daemon applies requests on its layout worker and
/// swaps the result in like a reload (docs/operations.md, "Run-time changes").

/// One view's run-time changes: each field nil when the request leaves it as it is.
public struct ViewChange: Hashable, Sendable {
    public var hidden: Bool?
    public var alpha: Double?
    public var interactive: Bool?
    public var frame: Rect?
    public var touchMargin: EdgeMargin?
    public var shape: Shape?
    public var transform: ViewTransform?
    public var multipleTouch: Bool?
    public var exclusiveTouch: Bool?

    /// Changes; every field left out is left as it is.
    public init(
        hidden: Bool? = nil, alpha: Double? = nil, interactive: Bool? = nil, frame: Rect? = nil,
        touchMargin: EdgeMargin? = nil, shape: Shape? = nil, transform: ViewTransform? = nil,
        multipleTouch: Bool? = nil, exclusiveTouch: Bool? = nil
    ) {
        self.hidden = hidden
        self.alpha = alpha
        self.interactive = interactive
        self.frame = frame
        self.touchMargin = touchMargin
        self.shape = shape
        self.transform = transform
        self.multipleTouch = multipleTouch
        self.exclusiveTouch = exclusiveTouch
    }

    /// Changes nothing.
    public var isEmpty: Bool { self == ViewChange() }

    /// `view` with these changes made (its children untouched).
    public func applied(to view: View) -> View {
        var view = view
        if let hidden { view.hidden = hidden }
        if let alpha { view.alpha = alpha }
        if let interactive { view.interactive = interactive }
        if let frame { view.frame = frame }
        if let touchMargin { view.touchMargin = touchMargin }
        if let shape { view.shape = shape }
        if let transform { view.transform = transform }
        if let multipleTouch { view.multipleTouch = multipleTouch }
        if let exclusiveTouch { view.exclusiveTouch = exclusiveTouch }
        return view
    }

    /// These changes without the fields `other` sets (a later change of the same field replaces
    /// the earlier one).
    func removingFields(of other: ViewChange) -> ViewChange {
        var change = self
        if other.hidden != nil { change.hidden = nil }
        if other.alpha != nil { change.alpha = nil }
        if other.interactive != nil { change.interactive = nil }
        if other.frame != nil { change.frame = nil }
        if other.touchMargin != nil { change.touchMargin = nil }
        if other.shape != nil { change.shape = nil }
        if other.transform != nil { change.transform = nil }
        if other.multipleTouch != nil { change.multipleTouch = nil }
        if other.exclusiveTouch != nil { change.exclusiveTouch = nil }
        return change
    }
}

/// Why a run-time request was refused, for one view and field.
public struct RuntimeFailure: Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Hashable, Sendable {
        /// A value the config would refuse too, with the config's code (`alphaOutOfRange`,
        /// `duplicateID` for an id already in the layout, …).
        case config(ConfigErrorCode)
        /// No view has this id.
        case unknownView
        /// The client is outside an owner list on the view's path, or the view has no owner.
        case permissionDenied
        /// `mount`/`unmount` on a view without `mount: true`.
        case notMountPoint
        /// More views in one mount than `RuntimeLimits.viewsPerMount`.
        case mountTooLarge
        /// The client would have more mounted views than `RuntimeLimits.viewsMountedPerClient`.
        case tooManyMountedViews
    }

    public var code: Code
    /// The view's path (ids from its screen's root, `/`-joined), when the view is known.
    public var viewPath: String?
    /// The request's field the failure is about (`alpha`, `frame`, …), when there is one.
    public var field: String?
    /// What is wrong, in words.
    public var message: String

    /// A failure.
    public init(code: Code, viewPath: String?, field: String? = nil, message: String) {
        self.code = code
        self.viewPath = viewPath
        self.field = field
        self.message = message
    }

    public var description: String {
        (viewPath.map { "view \"\($0)\": " } ?? "") + (field.map { "\($0): " } ?? "") + message
    }
}

/// Every reason one request was refused; nothing of it was applied.
public struct RuntimeFailures: Error, Hashable, Sendable {
    public var failures: [RuntimeFailure]

    /// Failures.
    public init(_ failures: [RuntimeFailure]) { self.failures = failures }
}

/// The limits on mounted subtrees (changes per second are the daemon's: they need a clock).
public struct RuntimeLimits: Hashable, Sendable {
    /// Most views one `mount` may bring (its children and their subtrees).
    public var viewsPerMount: Int
    /// Most views one client may have mounted at once, all its mounts together.
    public var viewsMountedPerClient: Int

    /// Limits; the defaults are the daemon's (`standard`).
    public init(viewsPerMount: Int = 1_500, viewsMountedPerClient: Int = 10_000) {
        self.viewsPerMount = viewsPerMount
        self.viewsMountedPerClient = viewsMountedPerClient
    }

    /// 1,500 views per mount (a mount line of that many small views fits the 64 KiB line limit),
    /// 10,000 per client.
    public static let standard = RuntimeLimits()
}

/// Who asks: an id (to whom changes and mounts belong) and how its credentials fare against an
/// owner list (the daemon resolves names; root passes every list).
public struct RuntimeClient: Sendable {
    /// The client's id; its mounts and changes are recorded under it.
    public var id: Int
    /// The client is admitted by this owner list.
    public var admits: @Sendable (AccessList) -> Bool

    /// A client.
    public init(id: Int, admits: @escaping @Sendable (AccessList) -> Bool) {
        self.id = id
        self.admits = admits
    }
}

/// One run-time request, with its JSON parts still unchecked (they are checked like config).
public enum RuntimeRequest: Sendable {
    /// `setView`: fields per view id, all applied or none.
    case setView([(viewID: String, fields: JSONNode)])
    /// `mount`: replace the mount point's children with these views.
    case mount(viewID: String, children: JSONNode)
    /// `unmount`: remove what is mounted there (the config's own children come back).
    case unmount(viewID: String)
}

/// What clients changed: per view, layers of changes (each by one client, a field in at most one
/// layer, the latest on top), and per mount point the subtree mounted there.
public struct RuntimeState: Hashable, Sendable {
    struct Layer: Hashable, Sendable {
        var client: Int
        var change: ViewChange
    }

    /// A mounted subtree and its client.
    public struct Mount: Hashable, Sendable {
        public var client: Int
        public var views: MountedViews
    }

    var changes: [String: [Layer]] = [:]
    /// Mounted subtrees by mount point id.
    public private(set) var mounts: [String: Mount] = [:]

    /// Nothing changed.
    public init() {}

    /// Nothing is changed or mounted.
    public var isEmpty: Bool { changes.isEmpty && mounts.isEmpty }

    /// The view's changes in effect, all layers together.
    public func change(of viewID: String) -> ViewChange? {
        guard let layers = changes[viewID] else { return nil }
        var merged = ViewChange()
        for layer in layers { merged = Self.layer(layer.change, over: merged) }
        return merged
    }

    /// `top`'s fields over `bottom`'s.
    static func layer(_ top: ViewChange, over bottom: ViewChange) -> ViewChange {
        var merged = bottom.removingFields(of: top)
        if let value = top.hidden { merged.hidden = value }
        if let value = top.alpha { merged.alpha = value }
        if let value = top.interactive { merged.interactive = value }
        if let value = top.frame { merged.frame = value }
        if let value = top.touchMargin { merged.touchMargin = value }
        if let value = top.shape { merged.shape = value }
        if let value = top.transform { merged.transform = value }
        if let value = top.multipleTouch { merged.multipleTouch = value }
        if let value = top.exclusiveTouch { merged.exclusiveTouch = value }
        return merged
    }

    /// Records `client`'s change of a view: it replaces whatever earlier layers set those fields.
    mutating func set(_ change: ViewChange, of viewID: String, by client: Int) {
        var layers = (changes[viewID] ?? []).map {
            Layer(client: $0.client, change: $0.change.removingFields(of: change))
        }
        layers.removeAll { $0.change.isEmpty }
        if let last = layers.last, last.client == client {
            layers[layers.count - 1].change = Self.layer(change, over: last.change)
        } else {
            layers.append(Layer(client: client, change: change))
        }
        changes[viewID] = layers
    }

    /// Mounts or (nil) unmounts at a mount point.
    mutating func setMount(_ mount: Mount?, at viewID: String) { mounts[viewID] = mount }

    /// Forgets `client`'s changes of these views; returns the views whose changes went.
    mutating func removeChanges(by client: Int, of viewIDs: Set<String>) -> [String] {
        var removed: [String] = []
        for viewID in viewIDs {
            guard var layers = changes[viewID] else { continue }
            let before = layers.count
            layers.removeAll { $0.client == client }
            guard layers.count != before else { continue }
            changes[viewID] = layers.isEmpty ? nil : layers
            removed.append(viewID)
        }
        return removed.sorted()
    }

    /// Forgets the changes of views the layout does not have (a view's state lives as long as it).
    mutating func keepChanges(where exists: (String) -> Bool) {
        changes = changes.filter { exists($0.key) }
    }

    /// The config's layout with the mounts hung in and the changes made, and the mounted views'
    /// access lists and gestures added. Cost: linear in the config's views (each visited once),
    /// plus the mounted views only while some view has changes (else a mount hangs in uncopied);
    /// nothing when the state is empty.
    public func effectiveConfig(_ base: Config) -> Config {
        guard !isEmpty else { return base }
        var config = base
        // A mounted view is never a mount point itself (the checks refuse it), so inside a mount
        // only changes are looked up, and nothing at all while no view has any.
        func build(_ view: View, inMount: Bool) -> View {
            var view = view
            var mounted = inMount
            if !inMount, let mount = mounts[view.id] {
                view.children = mount.views.children
                mounted = true
            }
            if !changes.isEmpty, let change = change(of: view.id) { view = change.applied(to: view) }
            // A mounted subtree without changes hangs in as it is (no copy of its views).
            if mounted && changes.isEmpty { return view }
            if !view.children.isEmpty { view.children = view.children.map { build($0, inMount: mounted) } }
            return view
        }
        config.layout.screens = base.layout.screens.map {
            Screen(name: $0.name, width: $0.width, height: $0.height, root: build($0.root, inMount: false))
        }
        for mount in mounts.values {
            config.viewAccess.merge(mount.views.access) { first, _ in first }
            config.viewGestures.merge(mount.views.gestures) { first, _ in first }
        }
        return config
    }
}
