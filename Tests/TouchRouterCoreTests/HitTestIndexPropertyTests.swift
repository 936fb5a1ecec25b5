import Foundation
import Testing
import TouchRouterCore

/// The accelerated index must answer exactly as the plain recursion: same path, same index path,
/// bit-identical local point, on random trees and edge-biased random points.
///
/// Re-run one failing tree with `TOUCHROUTER_HITTEST_SEED=<seed> swift test --filter HitTestIndexProperty`.
@Suite struct HitTestIndexPropertyTests {
    static let blocks = Array(0..<8)
    static let treesPerBlock = 150
    static let pointsPerTree = 1_000

    /// With TOUCHROUTER_HITTEST_SEED set, only that tree runs (with more points).
    @Test("index agrees with the plain recursion on random trees", arguments: blocks)
    func indexAgreesWithPlainRecursion(block: Int) {
        SeededTrees.run(
            block: block, treesPerBlock: Self.treesPerBlock, seedBase: 0x5EED_0000, points: Self.pointsPerTree,
            replay: "TOUCHROUTER_HITTEST_SEED", replayPoints: 20_000
        ) { checkTree(seed: $0, pointCount: $1) }
    }

    /// Checks one tree; false (with the seed recorded) on the first disagreement.
    @discardableResult
    func checkTree(seed: UInt64, pointCount: Int) -> Bool {
        var generator = LayoutGenerator(seed: seed)
        let viewCount = Int(1 + generator.random.next() % 400)
        let screen = generator.screen(viewCount: viewCount)
        let points = generator.points(on: screen, count: pointCount)
        // The default index, and one that puts a grid on every container with 2+ children.
        let indexes = [HitTestIndex(screen: screen), HitTestIndex(screen: screen, gridThreshold: 2)]
        for point in points {
            let expected = PlainHitTest.hitTest(screen.root, screenPoint: point)
            for index in indexes {
                let actual = index.hitTest(point)
                if !Self.identical(expected, actual) {
                    Issue.record(
                        """
                        seed \(seed) (replay: TOUCHROUTER_HITTEST_SEED=\(seed)), point \
                        (\(point.x.debugDescription), \(point.y.debugDescription)), \
                        gridCount \(index.gridCount): plain \(String(describing: expected)) \
                        index \(String(describing: actual))
                        """)
                    return false
                }
                let lean = index.hit(point)
                if let problem = Self.leanProblem(lean, expected: expected, index: index, root: screen.root) {
                    Issue.record(
                        """
                        seed \(seed) (replay: TOUCHROUTER_HITTEST_SEED=\(seed)), point \
                        (\(point.x.debugDescription), \(point.y.debugDescription)), \
                        gridCount \(index.gridCount): lean query: \(problem)
                        """)
                    return false
                }
                if let actual,
                    let local = index.localPoint(of: actual.indexPath, screenPoint: point),
                    !Self.bitIdentical(local, actual.localPoint)
                {
                    Issue.record("seed \(seed): localPoint(of:) \(local) ≠ hit's \(actual.localPoint)")
                    return false
                }
            }
        }
        return true
    }

    @Test("non-finite points hit nothing in either engine")
    func nonFinitePoints() {
        var generator = LayoutGenerator(seed: 7)
        for _ in 0..<50 {
            let screen = generator.screen(viewCount: 60)
            let index = HitTestIndex(screen: screen)
            let values: [Double] = [.nan, .infinity, -.infinity, 5]
            for x in values {
                for y in values where !(x == 5 && y == 5) {
                    let point = Point(x, y)
                    #expect(index.hitTest(point) == nil)
                    #expect(index.hit(point) == nil)
                    #expect(PlainHitTest.hitTest(screen.root, screenPoint: point) == nil)
                }
            }
        }
    }

    @Test("the generator is deterministic and makes the requested number of views")
    func generatorIsDeterministic() {
        for viewCount in [1, 2, 10, 500, 3_000] {
            var first = LayoutGenerator(seed: 99), second = LayoutGenerator(seed: 99)
            let screen = first.screen(viewCount: viewCount)
            // (String, not ==: a singular transform's NaN matrix never equals itself.)
            let same = "\(screen)" == "\(second.screen(viewCount: viewCount))"
            #expect(same)
            #expect(screen.root.subtreeCount == viewCount)
            #expect(first.points(on: screen, count: 100) == second.points(on: screen, count: 100))
        }
    }

    @Test("chains are really walked on random trees")
    func chainsAreBuilt() {
        var generator = LayoutGenerator(seed: 3)
        let screen = generator.screen(viewCount: 2_000)
        #expect(HitTestIndex(screen: screen).chainedViewCount > 0)
    }

    /// A 200-deep chain of plain rectangles, each inset by one unit with a tile under it, broken
    /// every 37 levels by a rotated, a margined or a hidden topmost child: the walk must stop,
    /// hand over to the ordinary step and start again exactly where the recursion goes.
    @Test("a deep chain with breaks answers as the plain recursion")
    func deepChainWithBreaks() {
        var view: View? = nil
        for level in (0..<200).reversed() {
            let size = 400 - 2 * Double(level) * 0.9
            var children = [View(id: "tile\(level)", frame: Rect(x: 0, y: 0, width: size / 3, height: size))]
            if let inner = view { children.append(inner) }
            let breaker = level % 37
            view = View(
                id: "level\(level)", frame: Rect(x: level == 0 ? 0 : 0.9, y: 0.9, width: size, height: size),
                children: children, hidden: breaker == 23 && level > 100,
                touchMargin: EdgeMargin(all: breaker == 11 ? 0.45 : 0),
                transform: ViewTransform(rotationDegrees: breaker == 5 ? 90 : 0))
        }
        let screen = Screen(name: "s", width: 400, height: 400, root: view!)
        let index = HitTestIndex(screen: screen)
        #expect(index.chainedViewCount > 100)
        var random = SeededRandom(seed: 7)
        for _ in 0..<4_000 {
            let point = Point(Double(random.next() % 40_000) / 100, Double(random.next() % 40_000) / 100)
            let expected = PlainHitTest.hitTest(screen.root, screenPoint: point)
            let actual = index.hitTest(point)
            #expect(actual == expected, "point \(point)")
            let lean = index.hit(point)
            #expect(Self.leanProblem(lean, expected: expected, index: index, root: screen.root) == nil)
            #expect(actual?.localPoint.x.bitPattern == expected?.localPoint.x.bitPattern)
            #expect(actual?.localPoint.y.bitPattern == expected?.localPoint.y.bitPattern)
        }
    }

    @Test("a grid is really used on wide random trees")
    func gridsAreBuilt() {
        var generator = LayoutGenerator(seed: 3)
        let screen = generator.screen(viewCount: 2_000)
        #expect(HitTestIndex(screen: screen).gridCount > 0)
    }

    /// What is wrong with a lean hit against the plain recursion's result (nil when nothing): the
    /// same view, bit-identical local point, the view's pre-order position, and the on-demand
    /// materialisation (`result(for:)`, `path(of:)`) equal to the plain result.
    static func leanProblem(_ lean: IndexHit?, expected: HitResult?, index: HitTestIndex, root: View) -> String? {
        guard let lean, let expected else {
            if lean == nil && expected == nil { return nil }
            return "lean \(String(describing: lean)), plain \(String(describing: expected))"
        }
        if lean.viewID != expected.viewID { return "view \(lean.viewID), plain \(expected.viewID)" }
        if !bitIdentical(lean.localPoint, expected.localPoint) {
            return "local point \(lean.localPoint), plain \(expected.localPoint)"
        }
        let viewIndex = preorderIndex(of: expected.indexPath, in: root)
        if lean.viewIndex != viewIndex { return "viewIndex \(lean.viewIndex), expected \(viewIndex)" }
        let materialised = index.result(for: lean)
        if !identical(materialised, expected) { return "result(for:) \(materialised), plain \(expected)" }
        if index.path(of: lean) != expected.path { return "path(of:) \(index.path(of: lean))" }
        return nil
    }

    /// A view's position in the tree's pre-order (root 0, every view counted), from its index path.
    static func preorderIndex(of indexPath: [Int], in root: View) -> Int {
        var position = 0
        var view = root
        for childIndex in indexPath {
            position += 1
            for sibling in view.children[..<childIndex] { position += sibling.subtreeCount }
            view = view.children[childIndex]
        }
        return position
    }

    static func identical(_ a: HitResult?, _ b: HitResult?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.path == b.path && a.indexPath == b.indexPath && bitIdentical(a.localPoint, b.localPoint)
    }

    static func bitIdentical(_ a: Point, _ b: Point) -> Bool {
        a.x.bitPattern == b.x.bitPattern && a.y.bitPattern == b.y.bitPattern
    }
}
