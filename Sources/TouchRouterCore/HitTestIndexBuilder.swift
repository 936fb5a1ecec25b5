/// Building a `HitTestIndex`: flattening the view tree and gridding wide containers.

/// Flattens a view tree into a `HitTestIndexStorage`.
struct HitTestIndexBuilder {
    let gridThreshold: Int
    private var nodes = ContiguousArray<IndexedNode>()
    private var ids = ContiguousArray<String>()
    private var polygons = ContiguousArray<[Point]>()
    private var children = ContiguousArray<Int32>()
    private var grids = ContiguousArray<ChildGrid>()
    private var cellOffsets = ContiguousArray<Int32>()
    private var entries = ContiguousArray<Int32>()
    /// Scratch for the counting sort of a grid's cells.
    private var cellFill = [Int32]()

    /// Relative tolerance by which every pruning box is grown: far above the few ulps of rounding
    /// that `convertFromParent` can differ from the exact inverse mapping.
    static let relativeTolerance = 1e-9
    /// Transforms this ill-conditioned get no box (they are always tried).
    static let maximumCondition = 1e6
    /// A child whose box covers more cells than this goes to the grid's large list.
    static let maximumCellsPerChild = 16

    init(gridThreshold: Int) {
        self.gridThreshold = gridThreshold
    }

    consuming func build(_ root: View) -> HitTestIndexStorage {
        _ = add(root, parent: -1, indexInParent: 0)
        return HitTestIndexStorage(
            nodes: nodes, ids: ids, polygons: polygons, children: children, grids: grids,
            cellOffsets: cellOffsets, entries: entries)
    }

    /// Adds a view and its touchable subtree; nil when the view can never be hit (it ignores touches,
    /// or its touch area is empty, or its transform is singular), so neither can its subtree.
    private mutating func add(_ view: View, parent: Int32, indexInParent: Int) -> Int32? {
        if view.ignoresTouches { return nil }
        guard var node = makeNode(view) else { return nil }
        let index = Int32(nodes.count)
        node.parent = parent
        node.indexInParent = Int32(indexInParent)
        let childStart = children.count
        let childViews = view.children
        children.append(contentsOf: repeatElement(-1, count: childViews.count))
        nodes.append(node)
        ids.append(view.id)
        var liveCount = 0
        for childIndex in childViews.indices {
            if let child = add(childViews[childIndex], parent: index, indexInParent: childIndex) {
                children[childStart + liveCount] = child
                liveCount += 1
            }
        }
        nodes[Int(index)].childStart = Int32(childStart)
        nodes[Int(index)].childCount = Int32(liveCount)
        if liveCount >= gridThreshold {
            nodes[Int(index)].grid = Int32(grids.count)
            grids.append(makeGrid(childStart: childStart, count: liveCount))
        }
        return index
    }

    /// The node's conversion and point-inside values, and its box; nil when nothing can be inside.
    private mutating func makeNode(_ view: View) -> IndexedNode? {
        let frame = view.frame
        let width = frame.width, height = frame.height
        var node = IndexedNode(
            frameX: frame.x, frameY: frame.y, hasTransform: false,
            halfWidth: width / 2, halfHeight: height / 2, centerX: 0, centerY: 0,
            a: 1, b: 0, c: 0, d: 1, shape: .rect,
            insideMinX: 0, insideMinY: 0, insideMaxX: 0, insideMaxY: 0,
            width: width, height: height, radius: 0, marginTop: view.touchMargin.top, polygon: -1,
            parent: -1, indexInParent: 0, childStart: 0, childCount: 0, grid: -1,
            boxMinX: -.infinity, boxMinY: -.infinity, boxMaxX: .infinity, boxMaxY: .infinity)
        node.centerX = frame.x + node.halfWidth
        node.centerY = frame.y + node.halfHeight
        if let m = view.parentToLocal {
            // A singular transform is all NaN: no point is ever inside.
            if m.a.isNaN && m.b.isNaN && m.c.isNaN && m.d.isNaN { return nil }
            node.hasTransform = true
            (node.a, node.b, node.c, node.d) = (m.a, m.b, m.c, m.d)
        }

        // The touch area's bounding box in local space (as containsLocal computes its edges).
        var box: (minX: Double, minY: Double, maxX: Double, maxY: Double)
        let margin = view.touchMargin
        switch view.shape {
        case .rect:
            // bounds.grown(by: touchMargin), then CGRect.contains: min edges in, max edges out.
            node.insideMinX = 0 - margin.left
            node.insideMinY = 0 - margin.top
            node.insideMaxX = node.insideMinX + (width + margin.left + margin.right)
            node.insideMaxY = node.insideMinY + (height + margin.top + margin.bottom)
            guard node.insideMinX < node.insideMaxX, node.insideMinY < node.insideMaxY else { return nil }
            box = (node.insideMinX, node.insideMinY, node.insideMaxX, node.insideMaxY)
        case .roundedRect(let radius):
            node.shape = .roundedRect
            node.radius = radius
            let m = margin.top
            let minX = -m, maxX = -m + (width + 2 * m)
            let minY = -m, maxY = -m + (height + 2 * m)
            guard minX < maxX, minY < maxY else { return nil }
            box = (minX, minY, maxX, maxY)
        case .ellipse:
            node.shape = .ellipse
            let rx = width / 2 + margin.top, ry = height / 2 + margin.top
            guard rx > 0, ry > 0 else { return nil }
            box = (width / 2 - rx, height / 2 - ry, width / 2 + rx, height / 2 + ry)
        case .polygon(let vertices):
            node.shape = .polygon
            guard vertices.count >= 3 else { return nil }
            node.polygon = Int32(polygons.count)
            polygons.append(vertices)
            // A non-finite vertex: no box can be trusted, so the view is always tried.
            guard vertices.allSatisfy(\.isFinite) else { return node }
            box = (.infinity, .infinity, -.infinity, -.infinity)
            for vertex in vertices {
                box.minX = min(box.minX, vertex.x)
                box.minY = min(box.minY, vertex.y)
                box.maxX = max(box.maxX, vertex.x)
                box.maxY = max(box.maxY, vertex.y)
            }
            let reach = max(margin.top, 0)
            box = (box.minX - reach, box.minY - reach, box.maxX + reach, box.maxY + reach)
        }
        guard box.minX.isFinite, box.minY.isFinite, box.maxX.isFinite, box.maxY.isFinite else {
            return node  // unbounded: always tried
        }
        let tolerance = Self.relativeTolerance
        let localSlack =
            tolerance * (1 + max(abs(box.minX), abs(box.minY), abs(box.maxX), abs(box.maxY)))
        box = (box.minX - localSlack, box.minY - localSlack, box.maxX + localSlack, box.maxY + localSlack)

        // Into the parent's space.
        var parentBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)
        var condition = 1.0
        var stretch = 1.0
        if node.hasTransform {
            let forward = view.transform.matrix
            stretch = (forward.a * forward.a + forward.b * forward.b + forward.c * forward.c
                + forward.d * forward.d).squareRoot()
            let inverseNorm = (node.a * node.a + node.b * node.b + node.c * node.c + node.d * node.d)
                .squareRoot()
            condition = stretch * inverseNorm
            guard condition.isFinite, condition <= Self.maximumCondition else { return node }
            parentBox = (.infinity, .infinity, -.infinity, -.infinity)
            for (localX, localY) in [
                (box.minX, box.minY), (box.maxX, box.minY), (box.minX, box.maxY), (box.maxX, box.maxY),
            ] {
                let dx = localX - node.halfWidth, dy = localY - node.halfHeight
                let x = node.centerX + forward.a * dx + forward.c * dy
                let y = node.centerY + forward.b * dx + forward.d * dy
                parentBox = (
                    min(parentBox.minX, x), min(parentBox.minY, y),
                    max(parentBox.maxX, x), max(parentBox.maxY, y)
                )
            }
        } else {
            parentBox = (box.minX + frame.x, box.minY + frame.y, box.maxX + frame.x, box.maxY + frame.y)
        }
        let magnitude = max(
            abs(parentBox.minX), abs(parentBox.minY), abs(parentBox.maxX), abs(parentBox.maxY),
            abs(node.centerX), abs(node.centerY), abs(frame.x), abs(frame.y))
        let slack = tolerance * max(condition, 1) * (1 + magnitude) + localSlack * stretch
        guard slack.isFinite, magnitude.isFinite else { return node }
        node.boxMinX = parentBox.minX - slack
        node.boxMinY = parentBox.minY - slack
        node.boxMaxX = parentBox.maxX + slack
        node.boxMaxY = parentBox.maxY + slack
        return node
    }

    /// A uniform grid over the boxes of `children[childStart ..< childStart + count]`, about one
    /// cell per child, shaped like the children's extent.
    private mutating func makeGrid(childStart: Int, count: Int) -> ChildGrid {
        var minX = Double.infinity, minY = Double.infinity
        var maxX = -Double.infinity, maxY = -Double.infinity
        var boundedCount = 0
        for k in childStart..<(childStart + count) {
            let node = nodes[Int(children[k])]
            guard node.boxMinX.isFinite, node.boxMaxX.isFinite, node.boxMinY.isFinite,
                node.boxMaxY.isFinite
            else { continue }
            boundedCount += 1
            minX = min(minX, node.boxMinX)
            minY = min(minY, node.boxMinY)
            maxX = max(maxX, node.boxMaxX)
            maxY = max(maxY, node.boxMaxY)
        }
        var columns = 1, rows = 1
        let extentX = maxX - minX, extentY = maxY - minY
        if boundedCount > 0 {
            let cells = Double(2 * boundedCount)
            if extentX > 0 && extentY > 0 {
                columns = Int(min(max((cells * extentX / extentY).squareRoot(), 1), cells))
                rows = Int(min(max(cells / Double(columns), 1), cells))
            } else if extentX > 0 {
                columns = Int(cells)
            } else if extentY > 0 {
                rows = Int(cells)
            }
        }
        var cellsPerUnitX = extentX > 0 ? Double(columns) / extentX : 0
        var cellsPerUnitY = extentY > 0 ? Double(rows) / extentY : 0
        if !cellsPerUnitX.isFinite {
            cellsPerUnitX = 0
            columns = 1
        }
        if !cellsPerUnitY.isFinite {
            cellsPerUnitY = 0
            rows = 1
        }
        var grid = ChildGrid(
            minX: minX, minY: minY, maxX: maxX, maxY: maxY,
            cellsPerUnitX: cellsPerUnitX, cellsPerUnitY: cellsPerUnitY,
            columns: Int32(columns), rows: Int32(rows), offsetsStart: Int32(cellOffsets.count),
            largeStart: 0, largeCount: 0)
        let cellCount = columns * rows

        // Cell ranges per child; nil for the large list.
        func cellRange(_ node: IndexedNode) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
            guard node.boxMinX.isFinite, node.boxMaxX.isFinite, node.boxMinY.isFinite,
                node.boxMaxY.isFinite
            else { return nil }
            let x0 = min(Int((node.boxMinX - minX) * cellsPerUnitX), columns - 1)
            let x1 = min(Int((node.boxMaxX - minX) * cellsPerUnitX), columns - 1)
            let y0 = min(Int((node.boxMinY - minY) * cellsPerUnitY), rows - 1)
            let y1 = min(Int((node.boxMaxY - minY) * cellsPerUnitY), rows - 1)
            if (x1 - x0 + 1) * (y1 - y0 + 1) > Self.maximumCellsPerChild { return nil }
            return (x0, y0, x1, y1)
        }

        // Counting sort: count, prefix sums, then fill from the topmost child down.
        cellFill.removeAll(keepingCapacity: true)
        cellFill.append(contentsOf: repeatElement(0, count: cellCount))
        var largeCount = 0
        for k in childStart..<(childStart + count) {
            guard let range = cellRange(nodes[Int(children[k])]) else {
                largeCount += 1
                continue
            }
            for y in range.y0...range.y1 {
                for x in range.x0...range.x1 { cellFill[y * columns + x] += 1 }
            }
        }
        var position = Int32(entries.count)
        for cell in 0..<cellCount {
            cellOffsets.append(position)
            let countInCell = cellFill[cell]
            cellFill[cell] = position
            position += countInCell
        }
        cellOffsets.append(position)
        grid.largeStart = position
        grid.largeCount = Int32(largeCount)
        let total = Int(position) + largeCount - entries.count
        entries.append(contentsOf: repeatElement(-1, count: total))
        var largeFill = Int(position)
        for k in (childStart..<(childStart + count)).reversed() {
            let child = children[k]
            guard let range = cellRange(nodes[Int(child)]) else {
                entries[largeFill] = child
                largeFill += 1
                continue
            }
            for y in range.y0...range.y1 {
                for x in range.x0...range.x1 {
                    entries[Int(cellFill[y * columns + x])] = child
                    cellFill[y * columns + x] += 1
                }
            }
        }
        return grid
    }
}
