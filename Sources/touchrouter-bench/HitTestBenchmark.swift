import Foundation
import TouchRouterCommandLine
import TouchRouterCore

/// `touchrouter-bench hittest [--sizes 10,1000,…] [--shapes wide,deep,realistic] [--queries N]
/// [--no-plain] [--grid-threshold N]`:
/// the cost of one hit-test query against layout size and shape: the plain recursion, the index's
/// full query (`hitTest`, a `HitResult` with the path) and its lean query (`hit`, an `IndexHit`: view
/// and local point, no path), and the index's build time.
let hitTestBenchmark = Benchmark(
    spec: CommandSpec(
        name: "hittest",
        abstract: "hit-test cost per query, plain recursion vs index, 10 … 1M views; index build time",
        options: [
            HitTestOptions.sizes, HitTestOptions.shapes, HitTestOptions.queries, HitTestOptions.noPlain,
            HitTestOptions.gridThreshold,
        ]),
    run: runHitTestBenchmark)

/// The options of `touchrouter-bench hittest`, each declared once.
enum HitTestOptions {
    static let sizes = Option.integers(
        "sizes", help: "Layout sizes in views.", in: 1...Int.max, default: [10, 1_000, 10_000, 100_000, 1_000_000])
    static let shapes = Option<[BenchLayoutShape]>(
        "shapes", valueName: "S,...", help: "Layout shapes: wide, deep, realistic (default all).",
        default: BenchLayoutShape.allCases, expected: "shapes among wide, deep, realistic",
        convert: { text in
            let shapes = text.split(separator: ",").map { BenchLayoutShape(rawValue: String($0)) }
            return shapes.contains(nil) ? nil : shapes.compactMap { $0 }
        })
    static let queries = Option.integer("queries", help: "Index queries per layout.", in: 1...Int.max, default: 50_000)
    static let noPlain = Option.flag("no-plain", help: "Skip the plain recursion.")
    static let gridThreshold = Option<Int?>.integer(
        "grid-threshold", help: "Children above which the index builds a grid.", in: 1...Int.max)
}

/// The layouts measured, all on a 1080×1920 portrait screen.
enum BenchLayoutShape: String, CaseIterable {
    /// One container holding every other view as a tile of a regular grid (no overlap).
    case wide
    /// A chain of nested containers (depth min(256, n), each inset by one unit and on top of its
    /// siblings), the other views spread over the levels as tiles under the chain.
    case deep
    /// Panels subdivided into panels and buttons (4–16 children each): rounded, round and polygonal
    /// buttons, touch margins, a few rotated, hidden, transparent or disabled views.
    case realistic

    func screen(viewCount: Int) -> Screen {
        let root: View
        switch self {
        case .wide: root = BenchLayouts.wide(viewCount: viewCount)
        case .deep: root = BenchLayouts.deep(viewCount: viewCount)
        case .realistic: root = BenchLayouts.realistic(viewCount: viewCount)
        }
        return Screen(name: rawValue, width: BenchLayouts.width, height: BenchLayouts.height, root: root)
    }
}

enum BenchLayouts {
    static let width = 1080.0, height = 1920.0

    /// `count` tiles in a grid filling `frame`-sized space, 10% gaps, ids `prefix0…`.
    static func tiles(
        count: Int, width: Double, height: Double, prefix: String, margin: Double = 0
    ) -> [View] {
        guard count > 0 else { return [] }
        let columns = max(1, Int((Double(count) * width / height).squareRoot().rounded(.up)))
        let rows = (count + columns - 1) / columns
        let tileWidth = width / Double(columns), tileHeight = height / Double(rows)
        return (0..<count).map { k in
            let column = k % columns, row = k / columns
            return View(
                id: "\(prefix)\(k)",
                frame: Rect(
                    x: Double(column) * tileWidth + tileWidth * 0.05,
                    y: Double(row) * tileHeight + tileHeight * 0.05,
                    width: tileWidth * 0.9, height: tileHeight * 0.9),
                touchMargin: EdgeMargin(all: margin * min(tileWidth, tileHeight)))
        }
    }

    static func wide(viewCount: Int) -> View {
        View(
            id: "root", frame: Rect(x: 0, y: 0, width: width, height: height),
            children: tiles(count: viewCount - 1, width: width, height: height, prefix: "t", margin: 0.04))
    }

    static func deep(viewCount: Int) -> View {
        let depth = min(256, viewCount)
        let leaves = viewCount - depth
        // Leaves per level, the remainder to the outer levels.
        func leafCount(level: Int) -> Int { leaves / depth + (level < leaves % depth ? 1 : 0) }
        // Built from the innermost level out.
        var view: View? = nil
        for level in (0..<depth).reversed() {
            let inset = Double(level)
            let frame =
                level == 0
                ? Rect(x: 0, y: 0, width: width, height: height)
                : Rect(x: 1, y: 1, width: width - 2 * inset, height: height - 2 * inset)
            var children = tiles(
                count: leafCount(level: level), width: frame.width, height: frame.height,
                prefix: "l\(level)_")
            if let inner = view { children.append(inner) }
            view = View(id: level == 0 ? "root" : "level\(level)", frame: frame, children: children)
        }
        return view!
    }

    static func realistic(viewCount: Int) -> View {
        var random = SeededRandom(seed: 2026)
        var nextID = 0
        func roll(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

        func make(frame: Rect, subtreeSize: Int) -> View {
            let id = "n\(nextID)"
            nextID += 1
            var shape = Shape.rect
            var margin = EdgeMargin.zero
            var transform = ViewTransform()
            var hidden = false, interactive = true, alpha = 1.0
            var children: [View] = []
            if subtreeSize == 1 {
                // A button.
                switch random.next() % 20 {
                case 0, 1: shape = .roundedRect(radius: min(frame.width, frame.height) / 4)
                case 2: shape = .ellipse
                case 3:
                    shape = .polygon([
                        Point(0, frame.height), Point(frame.width / 2, 0), Point(frame.width, frame.height),
                    ])
                default: break
                }
                if roll(15) { margin = EdgeMargin(all: min(frame.width, frame.height) * 0.05) }
                if roll(3) { transform = ViewTransform(rotationDegrees: roll(50) ? 90 : 12) }
            } else {
                let count = min(subtreeSize - 1, Int(4 + random.next() % 13))
                var sizes = [Int](repeating: (subtreeSize - 1) / count, count: count)
                for k in 0..<((subtreeSize - 1) % count) { sizes[k] += 1 }
                let columns = max(1, Int((Double(count) * frame.width / frame.height).squareRoot().rounded()))
                let rows = (count + columns - 1) / columns
                let cellWidth = frame.width / Double(columns), cellHeight = frame.height / Double(rows)
                for (k, size) in sizes.enumerated() {
                    let cell = Rect(
                        x: Double(k % columns) * cellWidth + cellWidth * 0.04,
                        y: Double(k / columns) * cellHeight + cellHeight * 0.04,
                        width: cellWidth * 0.92, height: cellHeight * 0.92)
                    children.append(make(frame: cell, subtreeSize: size))
                }
            }
            if roll(2) { hidden = true }
            if roll(1) { alpha = 0 }
            if roll(2) { interactive = false }
            return View(
                id: id, frame: frame, children: children, hidden: hidden, alpha: alpha,
                interactive: interactive, touchMargin: margin, shape: shape, transform: transform)
        }
        var root = make(frame: Rect(x: 0, y: 0, width: width, height: height), subtreeSize: viewCount)
        root.hidden = false
        root.alpha = 1
        root.interactive = true
        return root
    }
}

/// Per-query figures for one engine on one layout.
struct QueryFigures {
    var median: Double
    var p99: Double
    var mean: Double
    var queries: Int
}

func runHitTestBenchmark(_ arguments: ParsedArguments) {
    let sizes = arguments.value(HitTestOptions.sizes)
    let shapes = arguments.value(HitTestOptions.shapes)
    let indexQueries = arguments.value(HitTestOptions.queries)
    let measurePlain = !arguments.value(HitTestOptions.noPlain)
    let gridThreshold = arguments.value(HitTestOptions.gridThreshold) ?? HitTestIndex.defaultGridThreshold
    let overhead = timerOverheadNanoseconds()
    let load =
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
        .split(separator: " ").prefix(3)
        .joined(separator: " ") ?? "?"
    print("hittest: per-query cost, plain recursion vs HitTestIndex (release build)")
    print("  plain: PlainHitTest.hitTest; full: HitTestIndex.hitTest (HitResult, path and index path);")
    print("  lean: HitTestIndex.hit (IndexHit: view id, view index, local point; no path)")
    print("  p50/p99: single queries timed with CLOCK_MONOTONIC, minus the timer pair's own cost")
    print("  (\(formatNanoseconds(overhead))); mean: untimed back-to-back batch / count; build: median of")
    print("  several builds, wall and thread CPU time; queries: uniform random points; load \(load)")
    print(
        [
            column("shape", 9), column("views", 8), column("build", 10), column("build cpu", 10),
            column("grids", 6),
            column("plain p50", 10), column("plain p99", 10), column("plain mean", 11),
            column("full p50", 10), column("full p99", 10), column("full mean", 11),
            column("lean p50", 10), column("lean p99", 10), column("lean mean", 11),
            column("×p50", 7), column("×mean", 7), column("agree", 6),
        ].joined(separator: " "))
    for shape in shapes {
        for size in sizes {
            let screen = shape.screen(viewCount: size)
            // Build time: median of several builds.
            var buildTimes: [Double] = []
            var buildCPUTimes: [Double] = []
            var index = HitTestIndex(screen: screen, gridThreshold: gridThreshold)
            for _ in 0..<(size >= 1_000_000 ? 3 : 7) {
                let start = monotonicNanoseconds()
                let startCPU = threadCPUNanoseconds()
                index = HitTestIndex(screen: screen, gridThreshold: gridThreshold)
                buildCPUTimes.append(Double(threadCPUNanoseconds() - startCPU))
                buildTimes.append(Double(monotonicNanoseconds() - start))
            }
            var random = SeededRandom(seed: UInt64(size))
            let points = (0..<4_096).map { _ in
                Point(
                    Double(random.next() >> 11) / Double(1 << 53) * screen.width,
                    Double(random.next() >> 11) / Double(1 << 53) * screen.height)
            }
            let plain = measure(
                points: points, overhead: overhead, maximumQueries: measurePlain ? 20_000 : 0,
                budgetNanoseconds: measurePlain ? 1e9 : 0
            ) {
                PlainHitTest.hitTest(screen.root, screenPoint: $0)?.path.count ?? 0
            }
            let indexed = measure(
                points: points, overhead: overhead, maximumQueries: indexQueries, budgetNanoseconds: 2e9
            ) {
                index.hitTest($0)?.path.count ?? 0
            }
            let lean = measure(
                points: points, overhead: overhead, maximumQueries: indexQueries, budgetNanoseconds: 2e9
            ) {
                index.hit($0)?.viewIndex ?? 0
            }
            // Agreement on the points the plain recursion had time for.
            var agree = true
            for point in points.prefix(min(plain.queries, points.count)) {
                let expected = PlainHitTest.hitTest(screen.root, screenPoint: point)
                let leanHit = index.hit(point)
                if expected != index.hitTest(point) || expected?.viewID != leanHit?.viewID
                    || expected?.localPoint != leanHit?.localPoint
                    || expected != leanHit.map({ index.result(for: $0) })
                {
                    agree = false
                }
            }
            print(
                [
                    column(shape.rawValue, 9), column("\(size)", 8),
                    column(formatNanoseconds(percentile(buildTimes, 0.5)), 10),
                    column(formatNanoseconds(percentile(buildCPUTimes, 0.5)), 10),
                    column("\(index.gridCount)", 6),
                    column(formatNanoseconds(plain.median), 10), column(formatNanoseconds(plain.p99), 10),
                    column(formatNanoseconds(plain.mean), 11),
                    column(formatNanoseconds(indexed.median), 10), column(formatNanoseconds(indexed.p99), 10),
                    column(formatNanoseconds(indexed.mean), 11),
                    column(formatNanoseconds(lean.median), 10), column(formatNanoseconds(lean.p99), 10),
                    column(formatNanoseconds(lean.mean), 11),
                    column(String(format: "%.1f", plain.median / indexed.median), 7),
                    column(String(format: "%.1f", plain.mean / indexed.mean), 7),
                    column(agree ? "yes" : "NO", 6),
                ].joined(separator: " "))
        }
    }
}

/// Sink for results, so the optimizer cannot drop the queries.
nonisolated(unsafe) var benchmarkChecksum = 0

/// Times `query` over the points (cycled): a warm-up pass, then single timed queries until
/// `maximumQueries` or the time budget, then the same number of queries back to back for the mean.
func measure(
    points: [Point], overhead: Double, maximumQueries: Int, budgetNanoseconds: Double,
    _ query: (Point) -> Int
) -> QueryFigures {
    var checksum = 0
    let warmStart = monotonicNanoseconds()
    for point in points.prefix(maximumQueries == 0 ? 0 : 256) { checksum &+= query(point) }
    let warmCost = Double(monotonicNanoseconds() - warmStart) / Double(min(256, points.count))
    let queries =
        maximumQueries == 0
        ? 0 : max(50, min(maximumQueries, Int(budgetNanoseconds / max(warmCost, 1))))
    if queries == 0 { return QueryFigures(median: .nan, p99: .nan, mean: .nan, queries: 0) }
    var samples: [Double] = []
    samples.reserveCapacity(queries)
    for k in 0..<queries {
        let point = points[k % points.count]
        let start = monotonicNanoseconds()
        let result = query(point)
        let end = monotonicNanoseconds()
        checksum &+= result
        samples.append(max(0, Double(end - start) - overhead))
    }
    let batchStart = monotonicNanoseconds()
    for k in 0..<queries { checksum &+= query(points[k % points.count]) }
    let mean = Double(monotonicNanoseconds() - batchStart) / Double(queries)
    benchmarkChecksum &+= checksum
    return QueryFigures(
        median: percentile(samples, 0.5), p99: percentile(samples, 0.99), mean: mean, queries: queries)
}
