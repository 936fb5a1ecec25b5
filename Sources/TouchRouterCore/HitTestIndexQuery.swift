import TouchRouterModel

// One query's descent through the index: the plain recursion's rules unrolled over the storage's
// buffers, and what a descent records of the way down (the full query's path, or nothing).

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
