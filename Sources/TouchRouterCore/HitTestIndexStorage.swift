import TouchRouterModel

// The index's storage: the flattened nodes (the hot 64 bytes a query reads per level), their
// details, the per-container grids and chains, and the entry points the queries start from.

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
