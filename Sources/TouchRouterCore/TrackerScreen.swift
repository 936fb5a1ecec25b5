/// The tracker's per-screen tables, built once per layout: the screen's `HitTestIndex` for
/// touch-downs, and every view of the screen flattened (pre-order, hidden ones too), so a bound touch
/// is two integers (screen, view) and its local points are computed without copying `View` values.

/// One view, flattened: its parent, its children, the flags tracking reads, and
/// `View.convertFromParent`'s values, so local points are bit-identical to the plain walk.
struct TrackedView {
    /// Index of the parent in `TrackerScreen.views`; -1 for the root.
    var parent: Int32
    /// The children's indices are `TrackerScreen.childList[childStart ..< childStart + childCount]`.
    var childStart: Int32
    var childCount: Int32
    var multipleTouch: Bool
    var exclusiveTouch: Bool
    var hasTransform: Bool
    /// `frame.x`, or the centre `frame.x + frame.width / 2` when the view has a transform.
    var originX: Double
    var originY: Double
    /// `parentToLocal`'s linear part and the half size (transformed views only).
    var a: Double, b: Double, c: Double, d: Double
    var halfWidth: Double
    var halfHeight: Double

    /// `View.convertFromParent`, operation for operation.
    @inline(__always)
    func convertFromParent(_ p: Point) -> Point {
        if !hasTransform { return Point(p.x - originX, p.y - originY) }
        let dx = p.x - originX, dy = p.y - originY
        return Point(a * dx + c * dy + halfWidth, b * dx + d * dy + halfHeight)
    }
}

/// A screen as the tracker uses it. Immutable; shared by reference so copying a tracker is cheap.
final class TrackerScreen: Sendable {
    let name: String
    let hitIndex: HitTestIndex
    /// Every view of the screen in pre-order (the root is 0).
    let views: ContiguousArray<TrackedView>
    /// `views`' ids, same order (kept apart: the hot loops never touch them).
    let ids: ContiguousArray<String>
    let childList: ContiguousArray<Int32>
    /// View id → its index in `views` (ids are unique in a config; the first wins otherwise), so a
    /// reload finds a touch's view without a scan.
    let indexByID: [String: Int32]

    init(_ screen: Screen) {
        name = screen.name
        hitIndex = HitTestIndex(screen: screen)
        let count = screen.root.subtreeCount
        var views = ContiguousArray<TrackedView>()
        var ids = ContiguousArray<String>()
        var childList = ContiguousArray<Int32>()
        views.reserveCapacity(count)
        ids.reserveCapacity(count)
        childList.reserveCapacity(count)
        func add(_ view: UnsafePointer<View>, parent: Int32) -> Int32 {
            let index = Int32(views.count)
            let frame = view.pointee.frame
            let halfWidth = frame.width / 2, halfHeight = frame.height / 2
            var flat = TrackedView(
                parent: parent, childStart: Int32(childList.count), childCount: 0,
                multipleTouch: view.pointee.multipleTouch, exclusiveTouch: view.pointee.exclusiveTouch,
                hasTransform: false, originX: frame.x, originY: frame.y, a: 1, b: 0, c: 0, d: 1,
                halfWidth: halfWidth, halfHeight: halfHeight)
            if let m = view.pointee.parentToLocal {
                flat.hasTransform = true
                (flat.a, flat.b, flat.c, flat.d) = (m.a, m.b, m.c, m.d)
                flat.originX = frame.x + halfWidth
                flat.originY = frame.y + halfHeight
            }
            let childCount = view.pointee.children.count
            flat.childCount = Int32(childCount)
            views.append(flat)
            ids.append(view.pointee.id)
            let childStart = childList.count
            childList.append(contentsOf: repeatElement(-1, count: childCount))
            view.pointee.children.withUnsafeBufferPointer { children in
                for k in 0..<childCount {
                    let child = add(children.baseAddress! + k, parent: index)
                    childList[childStart + k] = child
                }
            }
            return index
        }
        withUnsafePointer(to: screen.root) { _ = add($0, parent: -1) }
        self.views = views
        self.ids = ids
        self.childList = childList
        var indexByID: [String: Int32] = [:]
        indexByID.reserveCapacity(ids.count)
        for (index, id) in ids.enumerated() where indexByID[id] == nil { indexByID[id] = Int32(index) }
        self.indexByID = indexByID
    }

    /// The view a touch-down at `screenPoint` hits (UIKit's rules, through the index's lean query,
    /// which builds no path), or nil. The index numbers views in the same pre-order as `views`.
    @inline(__always)
    func hitView(_ screenPoint: Point) -> Int32? {
        hitIndex.hit(screenPoint).map { Int32($0.viewIndex) }
    }

    /// UIKit's location(in:): the screen point converted from the root down to `view`, with the same
    /// operations as `View.convertFromParent` (so bit-identical to hit-testing and the plain walk).
    func localPoint(of view: Int32, screenPoint: Point) -> Point {
        views.withUnsafeBufferPointer { views in
            Self.localPoint(of: Int(view), screenPoint: screenPoint, views: views)
        }
    }

    private static func localPoint(
        of view: Int, screenPoint: Point, views: UnsafeBufferPointer<TrackedView>
    ) -> Point {
        let parent = Int(views[view].parent)
        let parentPoint =
            parent < 0 ? screenPoint : localPoint(of: parent, screenPoint: screenPoint, views: views)
        return views[view].convertFromParent(parentPoint)
    }

    /// The first view in pre-order (depth first, children back to front) with this id.
    func firstView(withID viewID: String) -> Int32? {
        indexByID[viewID]
    }

    /// The view's parent, or nil for the root.
    @inline(__always)
    func parent(of view: Int32) -> Int32? {
        let parent = views[Int(view)].parent
        return parent < 0 ? nil : parent
    }
}

/// A layout with everything the tracker builds for it (each screen's hit-test index and flattened
/// views) already built: made off the routing thread, so `TouchTracker.replaceLayout` only rebinds
/// the touches. Immutable and `Sendable`.
public struct PreparedLayout: Sendable {
    /// The layout itself.
    public let layout: Layout
    let screens: [TrackerScreen]

    /// Builds the tracker's tables for `layout`. Cost: linear in the number of views (the index
    /// build); meant for a worker thread.
    public init(_ layout: Layout) {
        self.init(layout: layout, screens: layout.screens.map(TrackerScreen.init))
    }

    init(layout: Layout, screens: [TrackerScreen]) {
        self.layout = layout
        self.screens = screens
    }
}
