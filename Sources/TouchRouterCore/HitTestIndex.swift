import TouchRouterModel

/// The accelerated hit-test engine: the same answers as `PlainHitTest`, fast on large layouts.
///
/// The layout is flattened once into arrays (pre-order) and every container with many children
/// gets a uniform grid over its children's conservative touch boxes. A query descends from the
/// root as the plain recursion does (children topmost first, the first that contains the point
/// is entered) but only looks at the children whose box can contain the point. The boxes and grid
/// only ever *skip* a child that the plain recursion would have rejected; every local point and
/// every point-inside decision is computed with the same floating-point operations as
/// `View.convertFromParent` and `View.containsLocal`, so the results are bit-identical (see
/// docs/performance.md).

/// A hit-test index over one screen, built once per layout and queried for every touch-down.
///
/// Immutable and `Sendable`: build it when a layout is loaded, swap it with the layout.
public struct HitTestIndex: Sendable {
    /// The screen the index was built from.
    public let screen: Screen
    /// Also the tracker's table of the screen's views (`TrackerScreen`): one flattening per layout.
    let storage: HitTestIndexStorage

    /// The default number of children from which a container gets a spatial grid. A threshold of 24
    /// saved a third of the realistic layout's build instructions but no measurable build time (the
    /// build is bound by memory) and cost queries instructions and cache lines (a scan touches one
    /// node per child): see docs/performance.md.
    public static let defaultGridThreshold = 8

    /// Builds the index for a screen.
    /// - Parameter gridThreshold: containers with at least this many touchable children get a grid;
    ///   the others are scanned child by child (tests lower it to exercise the grid everywhere).
    public init(screen: Screen, gridThreshold: Int = HitTestIndex.defaultGridThreshold) {
        self.screen = screen
        self.storage = HitTestIndexBuilder(gridThreshold: max(1, gridThreshold)).build(screen.root)
    }

    /// The number of views queries can reach: the touchable ones (views that ignore touches, their
    /// subtrees and views whose touch area is empty can never be hit; they are stored only for the
    /// tracker's conversions).
    public var indexedViewCount: Int { storage.touchableCount }

    /// The number of containers that got a spatial grid.
    public var gridCount: Int { storage.grids.count }

    /// The number of views reached by a chain walk: the topmost touchable child of their parent,
    /// and a plain untransformed rectangle (see docs/performance.md, "Chains").
    public var chainedViewCount: Int { storage.chainNodes.count { $0 >= 0 } - storage.chainRunCount }

    /// Exactly what `PlainHitTest.hitTest(screen.root, screenPoint:)` returns: the same path,
    /// index path and bit-identical local point. A non-finite point (NaN or infinite) returns nil,
    /// as the plain recursion does for every layout with finite geometry.
    public func hitTest(_ screenPoint: Point) -> HitResult? {
        guard screenPoint.isFinite else { return nil }
        return storage.hitTest(screenPoint)
    }

    /// The lean query: which view is hit and where, without building the way down (no arrays; the
    /// id is the string the index stores, retained, not copied). The same view and bit-identical
    /// local point as `hitTest(_:)` and `PlainHitTest`; `result(for:)` gives the full result on
    /// demand. A non-finite point returns nil.
    public func hit(_ screenPoint: Point) -> IndexHit? {
        guard screenPoint.isFinite else { return nil }
        return storage.hit(screenPoint)
    }

    /// The full result of a lean hit returned by *this* index (its path and index path rebuilt
    /// from parent links): exactly what `hitTest(_:)` returns for the same point.
    /// - Precondition: `hit` came from this index (traps when its node is out of range).
    public func result(for hit: IndexHit) -> HitResult {
        storage.result(for: hit)
    }

    /// The view ids from the root to a lean hit's view (`result(for: hit).path`).
    public func path(of hit: IndexHit) -> [String] {
        storage.result(for: hit).path
    }

    /// The point in the view at `indexPath` (child indices from the root, as in `HitResult`), for a
    /// point given in screen space: the same conversions as the hit-test, so a touch bound to a view
    /// keeps bit-identical local points as it moves. Nil when the index path names no view.
    /// Works for every view, hidden or not.
    public func localPoint(of indexPath: [Int], screenPoint: Point) -> Point? {
        screen.root.localPoint(ofDescendantAt: indexPath, parentPoint: screenPoint)
    }
}

/// A lean hit-test answer (`HitTestIndex.hit(_:)`): the hit view and the point in its space.
/// Meaningful only with the index that returned it.
public struct IndexHit: Hashable, Sendable {
    /// The hit view's node in the index (internal numbering: touchable views only).
    let node: Int32
    /// The hit view's position in its screen's pre-order (depth first, children in order, the
    /// root is 0, hidden and untouchable views counted too).
    public let viewIndex: Int
    /// The hit view's id.
    public let viewID: String
    /// The point in the hit view's own coordinates (UIKit's location(in:)).
    public let localPoint: Point
}

extension View {
    /// Converts a point from this view's parent space into the space of the descendant at
    /// `indexPath` (child indices; empty means this view), one `convertFromParent` per level.
    /// Nil when an index is out of range.
    public func localPoint(ofDescendantAt indexPath: [Int], parentPoint: Point) -> Point? {
        var point = convertFromParent(parentPoint)
        var view = self
        for index in indexPath {
            guard view.children.indices.contains(index) else { return nil }
            view = view.children[index]
            point = view.convertFromParent(point)
        }
        return point
    }
}

extension Screen {
    /// Builds the accelerated hit-test index for this screen.
    public func makeHitTestIndex() -> HitTestIndex {
        HitTestIndex(screen: self)
    }
}
