import TouchRouterModel

// The index's spatial grids: a container with many touchable children gets a uniform grid over
// their conservative boxes, so a query looks only at the children whose box can hold the point.
// The grid type, its cell lookup, and the builder's construction of one.

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

extension ChildGrid {
    /// A child whose box covers more cells than this goes to the grid's large list.
    static let maximumCellsPerChild = 16
}

extension HitTestIndexBuilder {
    /// A uniform grid over the boxes of `children[childStart ..< childStart + count]`, about one
    /// cell per child, shaped like the children's extent. The scratch space is unsafe buffers: the
    /// checked, uniqueness-tested subscripts of Swift arrays cost as much as the work itself.
    mutating func makeGrid(childStart: Int, count: Int) -> ChildGrid {
        // Boxes of the children (minX is NaN for an unbounded child), computed once; each child's
        // cell range (x0 = -1: the large list); the count, then the fill position, of each cell.
        let boxes = UnsafeMutableBufferPointer<(minX: Double, minY: Double, maxX: Double, maxY: Double)>
            .allocate(capacity: count)
        let ranges = UnsafeMutableBufferPointer<(x0: Int32, y0: Int32, x1: Int32, y1: Int32)>
            .allocate(capacity: count)
        defer {
            boxes.deallocate()
            ranges.deallocate()
        }
        var minX = Double.infinity, minY = Double.infinity
        var maxX = -Double.infinity, maxY = -Double.infinity
        var boundedCount = 0
        for k in 0..<count {
            guard let childBox = box(of: children[childStart + k]) else {
                boxes[k] = (.nan, 0, 0, 0)
                continue
            }
            boxes[k] = childBox
            boundedCount += 1
            minX = min(minX, childBox.minX)
            minY = min(minY, childBox.minY)
            maxX = max(maxX, childBox.maxX)
            maxY = max(maxY, childBox.maxY)
        }
        var columns = 1, rows = 1
        let extentX = maxX - minX, extentY = maxY - minY
        if boundedCount > 0 {
            let cells = Double(boundedCount)
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
            largeStart: 0, largeCount: 0, highestCellEntry: -1)
        let cellCount = columns * rows
        let cellCounts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: cellCount + 1)
        cellCounts.initialize(repeating: 0)
        defer { cellCounts.deallocate() }

        // Each child's cell range (the same arithmetic as `ChildGrid.cell(of:)`, which is monotonic,
        // so a point in the box lands in a cell of the range).
        var largeCount = 0
        var highestCellEntry: Int32 = -1
        for k in 0..<count {
            let childBox = boxes[k]
            ranges[k] = (-1, 0, 0, 0)
            if childBox.minX.isNaN {
                largeCount += 1
                continue
            }
            let x0 = min(Int((childBox.minX - minX) * cellsPerUnitX), columns - 1)
            let x1 = min(Int((childBox.maxX - minX) * cellsPerUnitX), columns - 1)
            let y0 = min(Int((childBox.minY - minY) * cellsPerUnitY), rows - 1)
            let y1 = min(Int((childBox.maxY - minY) * cellsPerUnitY), rows - 1)
            if (x1 - x0 + 1) * (y1 - y0 + 1) > ChildGrid.maximumCellsPerChild {
                largeCount += 1
                continue
            }
            ranges[k] = (Int32(x0), Int32(y0), Int32(x1), Int32(y1))
            highestCellEntry = max(highestCellEntry, children[childStart + k])
            for y in y0...y1 {
                for x in x0...x1 { cellCounts[y &* columns &+ x] &+= 1 }
            }
        }

        // Prefix sums: cell offsets into `entries`; `cellCounts` becomes each cell's fill position.
        var position = Int32(entries.count)
        let firstOffset = cellOffsets.count
        cellOffsets.append(contentsOf: repeatElement(0, count: cellCount + 1))
        cellOffsets.withUnsafeMutableBufferPointer { offsets in
            for cell in 0..<cellCount {
                offsets[firstOffset + cell] = position
                let countInCell = cellCounts[cell]
                cellCounts[cell] = position
                position &+= countInCell
            }
            offsets[firstOffset + cellCount] = position
        }
        grid.largeStart = position
        grid.largeCount = Int32(largeCount)
        grid.highestCellEntry = highestCellEntry
        entries.append(contentsOf: repeatElement(-1, count: Int(position) + largeCount - entries.count))

        // Fill from the topmost child down, so every run is descending.
        var largeFill = Int(position)
        children.withUnsafeBufferPointer { childList in
            entries.withUnsafeMutableBufferPointer { entries in
                for k in stride(from: count - 1, through: 0, by: -1) {
                    let child = childList[childStart + k]
                    let range = ranges[k]
                    if range.x0 < 0 {
                        entries[largeFill] = child
                        largeFill &+= 1
                        continue
                    }
                    for y in Int(range.y0)...Int(range.y1) {
                        for x in Int(range.x0)...Int(range.x1) {
                            let cell = y &* columns &+ x
                            entries[Int(cellCounts[cell])] = child
                            cellCounts[cell] &+= 1
                        }
                    }
                }
            }
        }
        return grid
    }
}
