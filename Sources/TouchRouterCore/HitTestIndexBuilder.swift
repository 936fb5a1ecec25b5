import TouchRouterModel

/// Building a `HitTestIndex`: flattening the view tree and gridding wide containers.

/// Flattens a view tree into a `HitTestIndexStorage`.
struct HitTestIndexBuilder {
    let gridThreshold: Int
    // Internal, not private: the grids' construction (`makeGrid`, HitTestIndexGrid.swift) reads the
    // nodes and children and appends to the cells.
    var nodes = ContiguousArray<IndexedNode>()
    var details = ContiguousArray<IndexedDetail>()
    private var indexInParent = ContiguousArray<Int32>()
    private var parents = ContiguousArray<Int32>()
    private var viewIndices = ContiguousArray<Int32>()
    /// Per node: `ViewFlags` (touchable, multipleTouch, exclusiveTouch).
    private var flags = ContiguousArray<ViewFlags>()
    private var touchableCount = 0
    /// The next view's position in the whole tree's pre-order.
    private var preorderCursor = 0
    /// The node whose children are being added (-1 at the root).
    private var currentParent: Int32 = -1
    private var ids = ContiguousArray<String>()
    private var polygons = ContiguousArray<[Point]>()
    var children = ContiguousArray<Int32>()
    private var childCursor = 0
    private var grids = ContiguousArray<ChildGrid>()
    var cellOffsets = ContiguousArray<Int32>()
    var entries = ContiguousArray<Int32>()
    private var depth = 0
    private var maximumDepth = 0

    /// Relative tolerance by which every pruning box is grown: far above the few ulps of rounding
    /// that `convertFromParent` can differ from the exact inverse mapping.
    static let relativeTolerance = 1e-9
    /// Transforms this ill-conditioned get no box (they are always tried).
    static let maximumCondition = 1e6

    init(gridThreshold: Int) {
        self.gridThreshold = gridThreshold
    }

    consuming func build(_ root: View) -> HitTestIndexStorage {
        // Sizing the arrays once saves the copies and page faults of growing them.
        let viewCount = withUnsafePointer(to: root) { Self.count($0) }
        nodes.reserveCapacity(viewCount)
        indexInParent.reserveCapacity(viewCount)
        parents.reserveCapacity(viewCount)
        viewIndices.reserveCapacity(viewCount)
        flags.reserveCapacity(viewCount)
        ids.reserveCapacity(viewCount)
        // Every view is some view's child at most once: one slot per view, filled from a cursor.
        children = ContiguousArray(repeating: -1, count: viewCount)
        withUnsafePointer(to: root) { _ = add($0, indexInParent: 0, parentTouchable: true) }
        let chains = makeChains()
        return HitTestIndexStorage(
            nodes: nodes, details: details, indexInParent: indexInParent, parents: parents,
            viewIndices: viewIndices, flags: flags, touchableCount: touchableCount, ids: ids,
            polygons: polygons, children: children, grids: grids, cellOffsets: cellOffsets,
            entries: entries, maximumDepth: maximumDepth, chainPosition: chains.position,
            chainLinks: chains.links, chainNodes: chains.nodes)
    }

    /// The chains: every node whose topmost touchable child is a plain rectangle links to it; these
    /// links form disjoint paths (a node has one topmost child and one parent), each stored
    /// contiguously from its head and closed by a sentinel.
    private func makeChains() -> (
        position: ContiguousArray<Int32>, links: ContiguousArray<ChainLink>, nodes: ContiguousArray<Int32>
    ) {
        let count = nodes.count
        var position = ContiguousArray<Int32>(repeating: -1, count: count)
        var links = ContiguousArray<ChainLink>()
        var linkNodes = ContiguousArray<Int32>()
        nodes.withUnsafeBufferPointer { nodes in
            children.withUnsafeBufferPointer { children in
                // The plain topmost child of each node, or -1.
                func plainTop(_ index: Int) -> Int {
                    let node = nodes[index]
                    guard node.childCount > 0 else { return -1 }
                    let top = Int(children[Int(node.childStart + node.childCount - 1)])
                    return nodes[top].detail < 0 ? top : -1
                }
                // A node that is some node's plain topmost child is stored in its parent's run.
                var isLink = [Bool](repeating: false, count: count)
                var linkCount = 0
                for index in 0..<count {
                    let top = plainTop(index)
                    if top >= 0 {
                        isLink[top] = true
                        linkCount += 1
                    }
                }
                links.reserveCapacity(2 * linkCount)
                linkNodes.reserveCapacity(2 * linkCount)
                for head in 0..<count where !isLink[head] && plainTop(head) >= 0 {
                    var current = head
                    while current >= 0 {
                        let node = nodes[current]
                        position[current] = Int32(links.count)
                        links.append(
                            ChainLink(
                                originX: node.originX, originY: node.originY,
                                insideMinX: node.insideMinX, insideMinY: node.insideMinY,
                                insideMaxX: node.insideMaxX, insideMaxY: node.insideMaxY))
                        linkNodes.append(Int32(current))
                        current = plainTop(current)
                    }
                    // The last node of the run has no plain topmost child: no position of its own.
                    position[Int(linkNodes[linkNodes.count - 1])] = -1
                    links.append(.sentinel)
                    linkNodes.append(-1)
                }
            }
        }
        return (position, links, linkNodes)
    }

    /// The number of views in the subtree. Views are read in place through pointers: copying a
    /// `View` (retains and a 200-byte copy) would cost more than everything else the build does.
    private static func count(_ view: UnsafePointer<View>) -> Int {
        view.pointee.children.withUnsafeBufferPointer { children in
            var total = 1
            for k in children.indices { total += count(children.baseAddress! + k) }
            return total
        }
    }

    /// Adds a view and its whole subtree as nodes (the tracker converts points for every view,
    /// hidden ones too). Returns the node when it is touchable, nil when it can never be hit (it or
    /// an ancestor ignores touches, or its touch area is empty, or its transform is singular): only
    /// touchable nodes are linked into their parent's children, so queries never meet the others.
    private mutating func add(
        _ view: UnsafePointer<View>, indexInParent childIndex: Int, parentTouchable: Bool
    ) -> Int32? {
        let viewIndex = preorderCursor
        preorderCursor += 1
        let index = Int32(nodes.count)
        let made = makeNode(view)
        let touchable = parentTouchable && !view.pointee.ignoresTouches && made.touchable
        let childCount = view.pointee.children.count
        let childStart = childCursor
        childCursor += childCount
        nodes.append(made.node)
        indexInParent.append(Int32(childIndex))
        parents.append(currentParent)
        viewIndices.append(Int32(viewIndex))
        var viewFlags: ViewFlags = touchable ? [.touchable] : []
        if view.pointee.multipleTouch { viewFlags.insert(.multipleTouch) }
        if view.pointee.exclusiveTouch { viewFlags.insert(.exclusiveTouch) }
        flags.append(viewFlags)
        if touchable { touchableCount += 1 }
        ids.append(view.pointee.id)
        let outerParent = currentParent
        currentParent = index
        defer { currentParent = outerParent }
        var liveCount = 0
        maximumDepth = max(maximumDepth, depth)
        depth += 1
        defer { depth -= 1 }
        view.pointee.children.withUnsafeBufferPointer { childViews in
            for k in 0..<childCount {
                if let child = add(childViews.baseAddress! + k, indexInParent: k, parentTouchable: touchable) {
                    children[childStart + liveCount] = child
                    liveCount += 1
                }
            }
        }
        nodes[Int(index)].childStart = Int32(childStart)
        nodes[Int(index)].childCount = Int32(liveCount)
        if liveCount >= gridThreshold {
            nodes[Int(index)].grid = Int32(grids.count)
            grids.append(makeGrid(childStart: childStart, count: liveCount))
        }
        return touchable ? index : nil
    }

    /// The node's conversion and point-inside values (and, for transformed or shaped views, a detail
    /// record with the box); `touchable` false when nothing can be inside. The conversion values
    /// (origin, and a transform's detail) are complete either way: the tracker reads them.
    private mutating func makeNode(_ view: UnsafePointer<View>) -> (node: IndexedNode, touchable: Bool) {
        var node = IndexedNode(
            originX: 0, originY: 0, insideMinX: 0, insideMinY: 0, insideMaxX: 0, insideMaxY: 0,
            childStart: 0, childCount: 0, grid: -1, detail: -1)
        let touchable = makeNode(view, into: &node)
        return (node, touchable)
    }

    private mutating func makeNode(_ view: UnsafePointer<View>, into result: inout IndexedNode) -> Bool {
        let frame = view.pointee.frame
        let width = frame.width, height = frame.height
        let margin = view.pointee.touchMargin
        result.originX = frame.x
        result.originY = frame.y
        // bounds.grown(by: touchMargin), then CGRect.contains: min edges in, max edges out.
        result.insideMinX = 0 - margin.left
        result.insideMinY = 0 - margin.top
        result.insideMaxX = result.insideMinX + (width + margin.left + margin.right)
        result.insideMaxY = result.insideMinY + (height + margin.top + margin.bottom)

        let parentToLocal = view.pointee.parentToLocal
        if parentToLocal == nil, case .rect = view.pointee.shape {
            // The common case: a plain rectangle, no detail, no box (its exact test is as cheap).
            return result.insideMinX < result.insideMaxX && result.insideMinY < result.insideMaxY
        }

        var detail = IndexedDetail(
            hasTransform: false, shape: .rect, a: 1, b: 0, c: 0, d: 1,
            halfWidth: width / 2, halfHeight: height / 2, width: width, height: height, radius: 0,
            marginTop: margin.top, polygon: -1,
            boxMinX: -.infinity, boxMinY: -.infinity, boxMaxX: .infinity, boxMaxY: .infinity)
        if let m = parentToLocal {
            detail.hasTransform = true
            (detail.a, detail.b, detail.c, detail.d) = (m.a, m.b, m.c, m.d)
            result.originX = frame.x + detail.halfWidth
            result.originY = frame.y + detail.halfHeight
            // A singular transform is all NaN: no point is ever inside.
            if m.a.isNaN && m.b.isNaN && m.c.isNaN && m.d.isNaN { return keepConversion(detail, &result) }
        }

        // The touch area's bounding box in local space (as containsLocal computes its edges).
        var box: (minX: Double, minY: Double, maxX: Double, maxY: Double)
        var bounded = true
        switch view.pointee.shape {
        case .rect:
            guard result.insideMinX < result.insideMaxX, result.insideMinY < result.insideMaxY else {
                return keepConversion(detail, &result)
            }
            box = (result.insideMinX, result.insideMinY, result.insideMaxX, result.insideMaxY)
        case .roundedRect(let radius):
            detail.shape = .roundedRect
            detail.radius = radius
            let m = margin.top
            let minX = -m, maxX = -m + (width + 2 * m)
            let minY = -m, maxY = -m + (height + 2 * m)
            guard minX < maxX, minY < maxY else { return keepConversion(detail, &result) }
            box = (minX, minY, maxX, maxY)
        case .ellipse:
            detail.shape = .ellipse
            let rx = width / 2 + margin.top, ry = height / 2 + margin.top
            guard rx > 0, ry > 0 else { return keepConversion(detail, &result) }
            box = (width / 2 - rx, height / 2 - ry, width / 2 + rx, height / 2 + ry)
        case .polygon(let vertices):
            detail.shape = .polygon
            guard vertices.count >= 3 else { return keepConversion(detail, &result) }
            detail.polygon = Int32(polygons.count)
            polygons.append(vertices)
            box = (.infinity, .infinity, -.infinity, -.infinity)
            for vertex in vertices {
                // A non-finite vertex: no box can be trusted, so the view is always tried.
                if !vertex.isFinite { bounded = false }
                box.minX = min(box.minX, vertex.x)
                box.minY = min(box.minY, vertex.y)
                box.maxX = max(box.maxX, vertex.x)
                box.maxY = max(box.maxY, vertex.y)
            }
            let reach = max(margin.top, 0)
            box = (box.minX - reach, box.minY - reach, box.maxX + reach, box.maxY + reach)
        }
        result.detail = Int32(details.count)
        if bounded,
            let parentBox = Self.parentBox(
                of: box, frame: frame, detail: detail, transform: view.pointee.transform)
        {
            (detail.boxMinX, detail.boxMinY, detail.boxMaxX, detail.boxMaxY) = parentBox
        }
        details.append(detail)
        return true
    }

    /// An untouchable view's node keeps what converting points needs (a transform's detail record);
    /// returns false (not touchable).
    private mutating func keepConversion(_ detail: IndexedDetail, _ node: inout IndexedNode) -> Bool {
        guard detail.hasTransform else { return false }
        node.detail = Int32(details.count)
        details.append(detail)
        return false
    }

    /// A local box mapped into the parent's space and grown by the tolerance; nil when it cannot be
    /// trusted (non-finite, or a transform too ill-conditioned), so the view is always tried.
    private static func parentBox(
        of localBox: (minX: Double, minY: Double, maxX: Double, maxY: Double), frame: Rect,
        detail: IndexedDetail, transform: ViewTransform
    ) -> (Double, Double, Double, Double)? {
        var box = localBox
        guard box.minX.isFinite, box.minY.isFinite, box.maxX.isFinite, box.maxY.isFinite else { return nil }
        let tolerance = relativeTolerance
        let localSlack =
            tolerance * (1 + max(max(abs(box.minX), abs(box.minY)), max(abs(box.maxX), abs(box.maxY))))
        box = (box.minX - localSlack, box.minY - localSlack, box.maxX + localSlack, box.maxY + localSlack)
        var parentBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)
        var condition = 1.0
        var stretch = 1.0
        var magnitude = max(abs(frame.x), abs(frame.y))
        if detail.hasTransform {
            let forward = transform.matrix
            stretch =
                (forward.a * forward.a + forward.b * forward.b + forward.c * forward.c
                + forward.d * forward.d).squareRoot()
            let inverseNorm =
                (detail.a * detail.a + detail.b * detail.b + detail.c * detail.c + detail.d * detail.d)
                .squareRoot()
            condition = stretch * inverseNorm
            guard condition.isFinite, condition <= maximumCondition else { return nil }
            let centerX = frame.x + detail.halfWidth, centerY = frame.y + detail.halfHeight
            magnitude = max(magnitude, max(abs(centerX), abs(centerY)))
            parentBox = (.infinity, .infinity, -.infinity, -.infinity)
            for corner in 0..<4 {
                let localX = corner & 1 == 0 ? box.minX : box.maxX
                let localY = corner & 2 == 0 ? box.minY : box.maxY
                let dx = localX - detail.halfWidth, dy = localY - detail.halfHeight
                let x = centerX + forward.a * dx + forward.c * dy
                let y = centerY + forward.b * dx + forward.d * dy
                parentBox = (
                    min(parentBox.minX, x), min(parentBox.minY, y),
                    max(parentBox.maxX, x), max(parentBox.maxY, y)
                )
            }
        } else {
            parentBox = (box.minX + frame.x, box.minY + frame.y, box.maxX + frame.x, box.maxY + frame.y)
        }
        magnitude = max(
            magnitude,
            max(max(abs(parentBox.minX), abs(parentBox.minY)), max(abs(parentBox.maxX), abs(parentBox.maxY))))
        let slack = tolerance * max(condition, 1) * (1 + magnitude) + localSlack * stretch
        guard slack.isFinite, magnitude.isFinite else { return nil }
        return (
            parentBox.minX - slack, parentBox.minY - slack, parentBox.maxX + slack, parentBox.maxY + slack
        )
    }

    /// The box of a node in its parent's space (for grid cells); nil when unbounded.
    func box(of nodeIndex: Int32) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        let node = nodes[Int(nodeIndex)]
        if node.detail >= 0 {
            let detail = details[Int(node.detail)]
            guard detail.boxMinX.isFinite, detail.boxMaxX.isFinite, detail.boxMinY.isFinite,
                detail.boxMaxY.isFinite
            else { return nil }
            return (detail.boxMinX, detail.boxMinY, detail.boxMaxX, detail.boxMaxY)
        }
        // A plain rectangle: its exact edges moved by the frame origin, grown by the tolerance.
        let minX = node.insideMinX + node.originX, maxX = node.insideMaxX + node.originX
        let minY = node.insideMinY + node.originY, maxY = node.insideMaxY + node.originY
        let magnitude = max(max(abs(minX), abs(maxX)), max(abs(minY), abs(maxY)))
        let slack = Self.relativeTolerance * (1 + magnitude)
        guard slack.isFinite else { return nil }
        return (minX - slack, minY - slack, maxX + slack, maxY + slack)
    }
}
