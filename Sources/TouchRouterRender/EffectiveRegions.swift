/// Where each view actually wins the hit-test: computed by asking the daemon's own engine
/// (`HitTestIndex.hit`, the lean query the tracker binds touch-downs with) at the centre of every
/// cell of a grid over the screen, never by a second set of rules.
import TouchRouterCore

/// The screen cut into `cellSize`-unit cells, each given to the view the hit-test returns at its
/// centre, merged into rectangles per view. Exact wherever view edges lie on the grid (integer
/// frames and margins at the default one-unit cells); curves, slants and fractional edges are
/// right to within one cell.
public struct EffectiveRegions: Sendable {
    /// Cell rectangles (screen space) per view, by the view's pre-order index.
    public private(set) var rectangles: [Int: [Rect]] = [:]
    /// Cells per view, by pre-order index (the region's area is `cells × cellSize²`).
    public private(set) var cellCounts: [Int: Int] = [:]
    /// Cells where no view takes the point.
    public private(set) var missCells = 0
    public let cellSize: Double
    public let columns: Int
    public let rows: Int

    /// Samples `index` over its screen.
    public init(index: HitTestIndex, cellSize: Double = 1) {
        let screen = index.screen
        self.cellSize = cellSize
        columns = max(1, Int((screen.width / cellSize).rounded(.up)))
        rows = max(1, Int((screen.height / cellSize).rounded(.up)))
        // Runs of one view along a row: [start, end) in cells. Equal runs in consecutive rows merge.
        struct Run: Hashable {
            var start: Int
            var end: Int
            var view: Int
        }
        var open: [Run: Int] = [:]  // run → first row
        var runs: [Run] = []
        for row in 0...rows {
            runs.removeAll(keepingCapacity: true)
            if row < rows {
                let y = (Double(row) + 0.5) * cellSize
                var start = 0
                var current = -2
                for column in 0..<columns {
                    let view = index.hit(Point((Double(column) + 0.5) * cellSize, y))?.viewIndex ?? -1
                    if view != current {
                        if current >= -1 && column > start {
                            runs.append(Run(start: start, end: column, view: current))
                        }
                        start = column
                        current = view
                    }
                }
                runs.append(Run(start: start, end: columns, view: current))
            }
            let continuing = Set(runs)
            for (run, firstRow) in open where !continuing.contains(run) {
                open[run] = nil
                guard run.view >= 0 else { continue }
                rectangles[run.view, default: []].append(
                    Rect(
                        x: Double(run.start) * cellSize, y: Double(firstRow) * cellSize,
                        width: Double(run.end - run.start) * cellSize,
                        height: Double(row - firstRow) * cellSize))
            }
            for run in runs {
                if open[run] == nil { open[run] = row }
                if run.view >= 0 {
                    cellCounts[run.view, default: 0] += run.end - run.start
                } else {
                    missCells += run.end - run.start
                }
            }
        }
        for view in rectangles.keys { rectangles[view]!.sort { ($0.y, $0.x) < ($1.y, $1.x) } }
    }

    /// The share of the screen's cells a view wins (0…1).
    public func share(ofView viewIndex: Int) -> Double {
        Double(cellCounts[viewIndex] ?? 0) / Double(columns * rows)
    }
}
