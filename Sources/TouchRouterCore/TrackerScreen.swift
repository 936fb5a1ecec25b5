import TouchRouterModel

/// The tracker's per-screen tables, built once per layout: the screen's `HitTestIndex`, whose
/// pre-order table of every view (hidden ones too: a touch bound to a view that a reload or a
/// run-time change hid keeps being delivered to it) is also what tracking reads. A bound touch is two
/// integers (screen, view), and its local points come from the index's stored conversion values,
/// the same operations as `View.convertFromParent`, so they are bit-identical to hit-testing.

/// A screen as the tracker uses it. Immutable; shared by reference so copying a tracker is cheap.
final class TrackerScreen: Sendable {
    let name: String
    let hitIndex: HitTestIndex
    /// View id → its index in the index's pre-order (ids are unique in a config; the first wins
    /// otherwise), so a reload finds a touch's view without a scan.
    let indexByID: [String: Int32]

    init(_ screen: Screen) {
        name = screen.name
        hitIndex = HitTestIndex(screen: screen)
        let ids = hitIndex.storage.ids
        var indexByID: [String: Int32] = [:]
        indexByID.reserveCapacity(ids.count)
        for (index, id) in ids.enumerated() {
            // One hash per id: a second lookup only for a duplicate, to keep the first.
            if let first = indexByID.updateValue(Int32(index), forKey: id) { indexByID[id] = first }
        }
        self.indexByID = indexByID
    }

    /// The views' ids in pre-order (the root is 0).
    @inline(__always)
    var ids: ContiguousArray<String> { hitIndex.storage.ids }

    /// The view a touch-down at `screenPoint` hits (UIKit's rules, through the index's lean query,
    /// which builds no path), or nil. The index numbers views in pre-order, every view included.
    @inline(__always)
    func hitView(_ screenPoint: Point) -> Int32? {
        hitIndex.hit(screenPoint).map { Int32($0.viewIndex) }
    }

    /// UIKit's location(in:): the screen point converted from the root down to `view`, one
    /// `convertFromParent` per level (bit-identical to hit-testing and the plain walk).
    func localPoint(of view: Int32, screenPoint: Point) -> Point {
        let storage = hitIndex.storage
        let parent = storage.parents[Int(view)]
        let parentPoint = parent < 0 ? screenPoint : localPoint(of: parent, screenPoint: screenPoint)
        return storage.convertFromParent(Int(view), parentPoint)
    }

    /// The first view in pre-order (depth first, children back to front) with this id.
    func firstView(withID viewID: String) -> Int32? {
        indexByID[viewID]
    }

    /// The view's parent, or nil for the root.
    @inline(__always)
    func parent(of view: Int32) -> Int32? {
        let parent = hitIndex.storage.parents[Int(view)]
        return parent < 0 ? nil : parent
    }

    /// The view says `multipleTouch`.
    @inline(__always)
    func allowsMultipleTouch(_ view: Int32) -> Bool { hitIndex.storage.flags[Int(view)].contains(.multipleTouch) }

    /// The view says `exclusiveTouch`.
    @inline(__always)
    func isExclusive(_ view: Int32) -> Bool { hitIndex.storage.flags[Int(view)].contains(.exclusiveTouch) }

    /// The view with this id exists and can take touches: neither it nor an ancestor is hidden,
    /// transparent (alpha below 0.01) or not interactive (what passthrough keeps a contact for).
    func isTouchable(viewID: String) -> Bool {
        guard let view = firstView(withID: viewID) else { return false }
        return hitIndex.storage.flags[Int(view)].contains(.touchable)
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
