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

// MARK: - Storage

/// How a node decides point-inside.
enum IndexedShape: UInt8 {
    case rect, roundedRect, ellipse, polygon
}

/// One touchable view, flattened: the hot part a query reads at every level (64 bytes). The values
/// are the very sub-expressions `convertFromParent` and `containsLocal` compute, in the same order.
struct IndexedNode {
    /// `frame.x`, or the centre `frame.x + frame.width / 2` when the view has a transform.
    var originX: Double
    var originY: Double
    /// Rectangles: `bounds.grown(by: touchMargin)`'s min and max edges (min in, max out).
    var insideMinX: Double
    var insideMinY: Double
    var insideMaxX: Double
    var insideMaxY: Double
    /// The node's touchable children: `children[childStart ..< childStart + childCount]`.
    var childStart: Int32
    var childCount: Int32
    /// Index into `grids`, or -1.
    var grid: Int32
    /// Index into `details` for a transformed or shaped view; -1 for a plain rectangle.
    var detail: Int32
}

/// What a transformed or shaped view needs beyond `IndexedNode`.
struct IndexedDetail {
    var hasTransform: Bool
    var shape: IndexedShape
    /// `parentToLocal`'s linear part and the half size, as `convertFromParent` uses them.
    var a: Double, b: Double, c: Double, d: Double
    var halfWidth: Double
    var halfHeight: Double
    var width: Double
    var height: Double
    var radius: Double
    var marginTop: Double
    var polygon: Int32
    /// Conservative touch box in the parent's space: a point outside can never be inside.
    var boxMinX: Double
    var boxMinY: Double
    var boxMaxX: Double
    var boxMaxY: Double

    @inline(__always)
    func boxContains(_ p: Point) -> Bool {
        p.x >= boxMinX && p.x <= boxMaxX && p.y >= boxMinY && p.y <= boxMaxY
    }
}

/// One step of a chain: a plain, untransformed rectangle that is the topmost child of the previous
/// link, laid out contiguously so descending it costs two subtractions and four compares.
/// A run ends with a sentinel whose edges are NaN (no point is ever inside it).
struct ChainLink {
    var originX: Double
    var originY: Double
    var insideMinX: Double
    var insideMinY: Double
    var insideMaxX: Double
    var insideMaxY: Double

    /// Never contains a point: every comparison with NaN is false.
    static let sentinel = ChainLink(
        originX: 0, originY: 0, insideMinX: .nan, insideMinY: .nan, insideMaxX: .nan, insideMaxY: .nan)
}

/// A uniform grid over a container's children's boxes, in the container's own space.
struct ChildGrid {
    var minX: Double
    var minY: Double
    var maxX: Double
    var maxY: Double
    var cellsPerUnitX: Double
    var cellsPerUnitY: Double
    var columns: Int32
    var rows: Int32
    /// Start of this grid's `rows * columns + 1` offsets in `cellOffsets`.
    var offsetsStart: Int32
    /// Children too large for cells (or unbounded): checked for every point, in `entries`.
    var largeStart: Int32
    var largeCount: Int32
    /// The highest node index in any cell (-1 when the cells are empty): large children above it
    /// are tried before the cell is even looked up.
    var highestCellEntry: Int32

    /// The cell of a point, or nil when the point is outside the grid (NaN included).
    @inline(__always)
    func cell(of p: Point) -> Int? {
        guard p.x >= minX, p.x <= maxX, p.y >= minY, p.y <= maxY else { return nil }
        let column = min(Int((p.x - minX) * cellsPerUnitX), Int(columns) - 1)
        let row = min(Int((p.y - minY) * cellsPerUnitY), Int(rows) - 1)
        return row * Int(columns) + column
    }
}

final class HitTestIndexStorage: Sendable {
    let nodes: ContiguousArray<IndexedNode>
    let details: ContiguousArray<IndexedDetail>
    /// Per node: its index among its view's children.
    let indexInParent: ContiguousArray<Int32>
    /// Per node: its parent node (-1 for the root), to rebuild a hit's way down on demand.
    let parents: ContiguousArray<Int32>
    /// Per node: its view's position in the whole tree's pre-order (hidden views included). Every
    /// view is a node, so this is the node's own index; kept to say so where answers leave the index.
    let viewIndices: ContiguousArray<Int32>
    /// Per node: touchable (reachable by queries), multipleTouch, exclusiveTouch.
    let flags: ContiguousArray<ViewFlags>
    /// How many nodes are touchable.
    let touchableCount: Int
    let ids: ContiguousArray<String>
    let polygons: ContiguousArray<[Point]>
    /// Node indices of each node's touchable children, in child order (back to front).
    let children: ContiguousArray<Int32>
    let grids: ContiguousArray<ChildGrid>
    let cellOffsets: ContiguousArray<Int32>
    /// Node indices per cell and per large list, each run in descending order (topmost first).
    let entries: ContiguousArray<Int32>
    /// The deepest node's depth (the root is 0).
    let maximumDepth: Int
    /// Per node: its position in `chainLinks` (its topmost child is the next link), or -1 when its
    /// topmost child is not a plain rectangle.
    let chainPosition: ContiguousArray<Int32>
    let chainLinks: ContiguousArray<ChainLink>
    /// Per link: its node (-1 for a sentinel).
    let chainNodes: ContiguousArray<Int32>
    /// The number of runs (each has a head that is not itself a chained view).
    var chainRunCount: Int { chainNodes.count { $0 < 0 } }

    init(
        nodes: ContiguousArray<IndexedNode>, details: ContiguousArray<IndexedDetail>,
        indexInParent: ContiguousArray<Int32>, parents: ContiguousArray<Int32>,
        viewIndices: ContiguousArray<Int32>, flags: ContiguousArray<ViewFlags>, touchableCount: Int,
        ids: ContiguousArray<String>, polygons: ContiguousArray<[Point]>,
        children: ContiguousArray<Int32>, grids: ContiguousArray<ChildGrid>,
        cellOffsets: ContiguousArray<Int32>, entries: ContiguousArray<Int32>, maximumDepth: Int,
        chainPosition: ContiguousArray<Int32>, chainLinks: ContiguousArray<ChainLink>,
        chainNodes: ContiguousArray<Int32>
    ) {
        self.chainPosition = chainPosition
        self.chainLinks = chainLinks
        self.chainNodes = chainNodes
        self.maximumDepth = maximumDepth
        self.nodes = nodes
        self.details = details
        self.indexInParent = indexInParent
        self.parents = parents
        self.viewIndices = viewIndices
        self.flags = flags
        self.touchableCount = touchableCount
        self.ids = ids
        self.polygons = polygons
        self.children = children
        self.grids = grids
        self.cellOffsets = cellOffsets
        self.entries = entries
    }

    /// Paths up to this long are built with `append` (see `hitTest`).
    static let shortPathLength = 48

    func hitTest(_ screenPoint: Point) -> HitResult? {
        guard touchableCount > 0 else { return nil }
        // `way`: the nodes from the root down to the hit view, on the stack.
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: maximumDepth + 1) { way in
            var recorder = WayRecorder(way: way)
            guard let hit = descend(screenPoint, &recorder) else { return nil }
            return makeResult(way: way, wayCount: recorder.count, localPoint: hit.local)
        }
    }

    /// The lean query: the hit node, its id (a retain of the stored string) and local point.
    func hit(_ screenPoint: Point) -> IndexHit? {
        guard touchableCount > 0 else { return nil }
        // No way down is recorded: the descent keeps only the node it is at.
        var recorder = NoRecorder()
        guard let hit = descend(screenPoint, &recorder) else { return nil }
        return IndexHit(
            node: hit.node, viewIndex: Int(viewIndices[Int(hit.node)]), viewID: ids[Int(hit.node)],
            localPoint: hit.local)
    }

    /// A lean hit's full result: its way down rebuilt from the parent links.
    func result(for hit: IndexHit) -> HitResult {
        precondition(nodes.indices.contains(Int(hit.node)), "IndexHit from another HitTestIndex")
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: maximumDepth + 1) { way in
            parents.withUnsafeBufferPointer { parents in
                var wayCount = 0
                var node = hit.node
                while node >= 0 {
                    wayCount += 1
                    node = parents[Int(node)]
                }
                var k = wayCount
                node = hit.node
                while node >= 0 {
                    k -= 1
                    way[k] = node
                    node = parents[Int(node)]
                }
                return makeResult(way: way, wayCount: wayCount, localPoint: hit.localPoint)
            }
        }
    }

    /// The `HitResult` for the nodes `way[0 ..< wayCount]` (root first).
    private func makeResult(
        way: UnsafeMutableBufferPointer<Int32>, wayCount: Int, localPoint hitLocal: Point
    ) -> HitResult {
        // Through unsafe buffers: reading `self.ids[i]` in the loop retains and releases the
        // array's buffer at every level (a third of a deep query's instructions).
        // Two ways to the same arrays, chosen by measurement (callgrind): `reserveCapacity` and
        // `append` are specialized, while `init(unsafeUninitializedCapacity:)` calls the
        // generic library initializer, which looks the array's metadata up in the runtime's
        // cache (~900 instructions, half of a shallow query) but then fills without a check
        // per element (~20 instructions fewer per level: it wins from a few dozen levels).
        let path: [String]
        let indexPath: [Int]
        if wayCount <= Self.shortPathLength {
            var shortPath = [String]()
            shortPath.reserveCapacity(wayCount)
            var shortIndexPath = [Int]()
            shortIndexPath.reserveCapacity(wayCount - 1)
            ids.withUnsafeBufferPointer { ids in
                for k in 0..<wayCount { shortPath.append(ids[Int(way[k])]) }
            }
            indexInParent.withUnsafeBufferPointer { indexInParent in
                for k in 1..<wayCount { shortIndexPath.append(Int(indexInParent[Int(way[k])])) }
            }
            path = shortPath
            indexPath = shortIndexPath
        } else {
            path = ids.withUnsafeBufferPointer { ids in
                [String](unsafeUninitializedCapacity: wayCount) { buffer, initialized in
                    for k in 0..<wayCount {
                        (buffer.baseAddress! + k).initialize(to: ids[Int(way[k])])
                    }
                    initialized = wayCount
                }
            }
            indexPath = indexInParent.withUnsafeBufferPointer { indexInParent in
                [Int](unsafeUninitializedCapacity: wayCount - 1) { buffer, initialized in
                    for k in 1..<wayCount { buffer[k - 1] = Int(indexInParent[Int(way[k])]) }
                    initialized = wayCount - 1
                }
            }
        }
        return HitResult(path: path, indexPath: indexPath, localPoint: hitLocal)
    }

    private func descend<Recorder: DescentRecorder>(
        _ screenPoint: Point, _ recorder: inout Recorder
    ) -> (node: Int32, local: Point)? {
        nodes.withUnsafeBufferPointer { nodes in
            details.withUnsafeBufferPointer { details in
                children.withUnsafeBufferPointer { children in
                    grids.withUnsafeBufferPointer { grids in
                        cellOffsets.withUnsafeBufferPointer { cellOffsets in
                            entries.withUnsafeBufferPointer { entries in
                                polygons.withUnsafeBufferPointer { polygons in
                                    chainPosition.withUnsafeBufferPointer { chainPosition in
                                        chainLinks.withUnsafeBufferPointer { chainLinks in
                                            chainNodes.withUnsafeBufferPointer { chainNodes in
                                                Query(
                                                    nodes: nodes, details: details, children: children,
                                                    grids: grids, cellOffsets: cellOffsets, entries: entries,
                                                    polygons: polygons, chainPosition: chainPosition,
                                                    chainLinks: chainLinks, chainNodes: chainNodes
                                                ).hit(screenPoint, &recorder)
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

extension HitTestIndexStorage {
    /// `View.convertFromParent` for any node, touchable or not, from the node's stored values: the
    /// same operations as the queries' `localPointIfInside` (the tracker's local points).
    @inline(__always)
    func convertFromParent(_ node: Int, _ p: Point) -> Point {
        let origin = nodes[node]
        let detailIndex = Int(origin.detail)
        if detailIndex >= 0, details[detailIndex].hasTransform {
            let m = details[detailIndex]
            let dx = p.x - origin.originX, dy = p.y - origin.originY
            return Point(m.a * dx + m.c * dy + m.halfWidth, m.b * dx + m.d * dy + m.halfHeight)
        }
        return Point(p.x - origin.originX, p.y - origin.originY)
    }
}

/// A node's flags: whether queries can reach it, and the two tracking flags of its view.
struct ViewFlags: OptionSet {
    let rawValue: UInt8
    static let touchable = ViewFlags(rawValue: 1)
    static let multipleTouch = ViewFlags(rawValue: 2)
    static let exclusiveTouch = ViewFlags(rawValue: 4)
}

/// One query's view of the storage (unsafe buffers, valid for the query only).
struct Query {
    let nodes: UnsafeBufferPointer<IndexedNode>
    let details: UnsafeBufferPointer<IndexedDetail>
    let children: UnsafeBufferPointer<Int32>
    let grids: UnsafeBufferPointer<ChildGrid>
    let cellOffsets: UnsafeBufferPointer<Int32>
    let entries: UnsafeBufferPointer<Int32>
    let polygons: UnsafeBufferPointer<[Point]>
    let chainPosition: UnsafeBufferPointer<Int32>
    let chainLinks: UnsafeBufferPointer<ChainLink>
    let chainNodes: UnsafeBufferPointer<Int32>

    /// `View.convertFromParent` then `View.containsLocal`, operation for operation (the shaped cases
    /// call the same functions); nil when the point is not inside.
    @inline(__always)
    func localPointIfInside(_ index: Int, _ p: Point) -> Point? {
        let node = nodes.baseAddress! + index
        if node.pointee.detail < 0 {
            // A plain rectangle: frame origin, then CGRect.contains on the grown bounds.
            let local = Point(p.x - node.pointee.originX, p.y - node.pointee.originY)
            // One line per axis keeps each bound a one-line pattern for scripts/mutants.txt.
            // swift-format-ignore
            guard local.x >= node.pointee.insideMinX && local.x < node.pointee.insideMaxX
                && local.y >= node.pointee.insideMinY && local.y < node.pointee.insideMaxY
            else { return nil }
            return local
        }
        return detailedLocalPointIfInside(node, p)
    }

    /// `localPointIfInside` for a transformed or shaped view.
    @inline(never)
    func detailedLocalPointIfInside(_ node: UnsafePointer<IndexedNode>, _ p: Point) -> Point? {
        let detail = details.baseAddress! + Int(node.pointee.detail)
        let local: Point
        if detail.pointee.hasTransform {
            let dx = p.x - node.pointee.originX, dy = p.y - node.pointee.originY
            let m = detail.pointee
            local = Point(m.a * dx + m.c * dy + m.halfWidth, m.b * dx + m.d * dy + m.halfHeight)
        } else {
            local = Point(p.x - node.pointee.originX, p.y - node.pointee.originY)
        }
        let inside: Bool
        switch detail.pointee.shape {
        case .rect:
            inside =
                local.x >= node.pointee.insideMinX && local.x < node.pointee.insideMaxX
                && local.y >= node.pointee.insideMinY && local.y < node.pointee.insideMaxY
        case .roundedRect:
            inside = ShapeGeometry.roundedRectContains(
                local, width: detail.pointee.width, height: detail.pointee.height,
                radius: detail.pointee.radius, margin: detail.pointee.marginTop)
        case .ellipse:
            inside = ShapeGeometry.ellipseContains(
                local, width: detail.pointee.width, height: detail.pointee.height,
                margin: detail.pointee.marginTop)
        case .polygon:
            inside = ShapeGeometry.polygonContains(
                local, vertices: polygons[Int(detail.pointee.polygon)], margin: detail.pointee.marginTop)
        }
        return inside ? local : nil
    }

    /// Whether a child can be inside at all: its conservative box (plain rectangles skip this, their
    /// exact test is as cheap).
    @inline(__always)
    func mayContain(_ child: Int32, _ p: Point) -> Bool {
        let detailIndex = Int(nodes[Int(child)].detail)
        return detailIndex < 0 || details[detailIndex].boxContains(p)
    }

    /// The plain recursion, unrolled into a descent. A view that ignores touches was left out at
    /// build time (step 1), so `hit(child)` is nil exactly when the child does not contain the point
    /// (step 2): once a child contains it, the answer lies in that child's subtree, and the recursion
    /// never comes back up. So: start at the root; at each view, take the first child (topmost
    /// first, step 3) that contains the point and go down into it; when none does, that view is hit
    /// (step 4). Tells `recorder` every node from the root to the hit view; returns the hit view's
    /// node and local point; nil when the root misses.
    func hit<Recorder: DescentRecorder>(
        _ screenPoint: Point, _ recorder: inout Recorder
    ) -> (node: Int32, local: Point)? {
        guard var local = localPointIfInside(0, screenPoint) else { return nil }
        var index: Int32 = 0
        descent: while true {
            recorder.enter(index)
            // The topmost child is always the first candidate. While it is a plain rectangle and
            // contains the point, go down without looking at anything else: the same subtraction
            // and edges as `localPointIfInside`, read from consecutive links.
            let position = Int(chainPosition[Int(index)])
            if position >= 0 {
                let links = chainLinks.baseAddress!
                var next = position + 1
                var x = local.x, y = local.y
                while true {
                    let link = links + next
                    let linkX = x - link.pointee.originX, linkY = y - link.pointee.originY
                    // One line per axis (scripts/mutants.txt).
                    // swift-format-ignore
                    guard linkX >= link.pointee.insideMinX && linkX < link.pointee.insideMaxX
                        && linkY >= link.pointee.insideMinY && linkY < link.pointee.insideMaxY
                    else { break }
                    x = linkX
                    y = linkY
                    next += 1
                }
                if next > position + 1 {
                    recorder.enter(chainNodes, from: position + 1, to: next)
                    index = chainNodes[next - 1]
                    local = Point(x, y)
                }
            }
            let node = nodes.baseAddress! + Int(index)
            let gridIndex = Int(node.pointee.grid)
            if gridIndex < 0 {
                var k = Int(node.pointee.childStart + node.pointee.childCount)
                let start = Int(node.pointee.childStart)
                while k > start {
                    k -= 1
                    let child = children[k]
                    if mayContain(child, local), let childLocal = localPointIfInside(Int(child), local) {
                        index = child
                        local = childLocal
                        continue descent
                    }
                }
            } else {
                let grid = grids.baseAddress! + gridIndex
                var j = Int(grid.pointee.largeStart)
                let largeEnd = j + Int(grid.pointee.largeCount)
                // Large children on top of every cell's children (a container's topmost panel, the
                // next level of a deep chain) need no cell lookup.
                while j < largeEnd && entries[j] > grid.pointee.highestCellEntry {
                    let child = entries[j]
                    j += 1
                    if mayContain(child, local), let childLocal = localPointIfInside(Int(child), local) {
                        index = child
                        local = childLocal
                        continue descent
                    }
                }
                var i = 0, cellEnd = 0
                if let cell = grid.pointee.cell(of: local) {
                    i = Int(cellOffsets[Int(grid.pointee.offsetsStart) + cell])
                    cellEnd = Int(cellOffsets[Int(grid.pointee.offsetsStart) + cell + 1])
                }
                // Merge the cell's run and the large run, both descending: topmost child first.
                while true {
                    let child: Int32
                    if i < cellEnd {
                        if j < largeEnd && entries[j] > entries[i] {
                            child = entries[j]
                            j += 1
                        } else {
                            child = entries[i]
                            i += 1
                        }
                    } else if j < largeEnd {
                        child = entries[j]
                        j += 1
                    } else {
                        break
                    }
                    if mayContain(child, local), let childLocal = localPointIfInside(Int(child), local) {
                        index = child
                        local = childLocal
                        continue descent
                    }
                }
            }
            return (index, local)
        }
    }
}

/// What a descent records of the nodes it enters (a protocol so that each query gets its own
/// specialized descent: the lean query's records nothing at all).
protocol DescentRecorder {
    /// The descent entered `node`.
    mutating func enter(_ node: Int32)
    /// The descent walked a chain through `chainNodes[start ..< end]`.
    mutating func enter(_ chainNodes: UnsafeBufferPointer<Int32>, from start: Int, to end: Int)
}

/// Records the way down, root first, into a buffer with room for the maximum depth.
struct WayRecorder: DescentRecorder {
    let way: UnsafeMutableBufferPointer<Int32>
    var count = 0

    @inline(__always)
    mutating func enter(_ node: Int32) {
        way[count] = node
        count += 1
    }

    @inline(__always)
    mutating func enter(_ chainNodes: UnsafeBufferPointer<Int32>, from start: Int, to end: Int) {
        for entered in start..<end {
            way[count] = chainNodes[entered]
            count += 1
        }
    }
}

/// Records nothing (the lean query).
struct NoRecorder: DescentRecorder {
    @inline(__always)
    mutating func enter(_ node: Int32) {}
    @inline(__always)
    mutating func enter(_ chainNodes: UnsafeBufferPointer<Int32>, from start: Int, to end: Int) {}
}
