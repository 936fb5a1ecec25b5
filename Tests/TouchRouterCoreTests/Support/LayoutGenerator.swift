import Foundation
import TouchRouterCore

/// Seeded random layouts and probe points for tests that need many layouts (hit-testing, tracking).
///
///     var generator = LayoutGenerator(seed: 42)
///     let screen = generator.screen(viewCount: 200)          // one random 1080×1920 screen
///     let points = generator.points(on: screen, count: 500)  // probes, many right on edges
///
/// The same seed always gives the same screen and points. Trees mix deep chains, wide containers,
/// overlapping siblings, transforms (quarter turns, odd angles, negative and zero scales), touch
/// margins reaching past the parent, every shape (polygons may self-intersect), and hidden,
/// transparent (alpha 0.0099 / 0.01 / 0) and non-interactive views. Ids are `v0`, `v1`, … in
/// creation order, unique per screen.
struct LayoutGenerator {
    var random: SeededRandom
    /// Views nest at most this deep (the root is depth 0).
    var maximumDepth = 40
    private var nextID = 0

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    /// A random screen of exactly `viewCount` views (at least 1).
    mutating func screen(viewCount: Int, width: Double = 1080, height: Double = 1920) -> Screen {
        nextID = 0
        var root = makeView(
            parentWidth: width, parentHeight: height, depth: 0, subtreeSize: max(1, viewCount))
        // The root's frame is the screen, sometimes offset.
        root.frame = Rect(x: 0, y: 0, width: width, height: height)
        if chance(0.1) { root.frame.x = pick([-0.5, 3, 10.25]) }
        return Screen(name: "generated", width: width, height: height, root: root)
    }

    /// `count` probe points in screen space: about a third uniform over the screen (and a little
    /// past it), the rest on or next to some view's edges, corners, margin edges, polygon vertices
    /// and curve extremes, mapped to the screen through every ancestor's frame and transform, then
    /// nudged by nothing, one ulp, or a small step either way.
    mutating func points(on screen: Screen, count: Int) -> [Point] {
        var indexPaths: [[Int]] = []
        collectIndexPaths(screen.root, prefix: [], into: &indexPaths)
        var points: [Point] = []
        points.reserveCapacity(count)
        for _ in 0..<count {
            if chance(0.33) {
                points.append(
                    Point(
                        uniform(-0.05 * screen.width, 1.05 * screen.width),
                        uniform(-0.05 * screen.height, 1.05 * screen.height)))
                continue
            }
            let indexPath = indexPaths[Int(random.next() % UInt64(indexPaths.count))]
            var chain: [View] = [screen.root]
            for index in indexPath { chain.append(chain[chain.count - 1].children[index]) }
            var point = interestingLocalPoint(of: chain[chain.count - 1])
            for view in chain.reversed() { point = Self.toParent(view, point) }
            points.append(Point(nudge(point.x), nudge(point.y)))
        }
        return points
    }

    /// A view's own point mapped into its parent's space (the inverse of `convertFromParent`, up to
    /// rounding): frame origin, then the transform about the centre.
    static func toParent(_ view: View, _ localPoint: Point) -> Point {
        let frame = view.frame
        if view.transform.isIdentity { return Point(localPoint.x + frame.x, localPoint.y + frame.y) }
        let m = view.transform.matrix
        let halfWidth = frame.width / 2, halfHeight = frame.height / 2
        let dx = localPoint.x - halfWidth, dy = localPoint.y - halfHeight
        return Point(
            frame.x + halfWidth + m.a * dx + m.c * dy, frame.y + halfHeight + m.b * dx + m.d * dy)
    }

    // MARK: - Views

    /// A view with a subtree of exactly `subtreeSize` views (itself included).
    private mutating func makeView(
        parentWidth: Double, parentHeight: Double, depth: Int, subtreeSize: Int
    ) -> View {
        let id = "v\(nextID)"
        nextID += 1
        let frame = randomFrame(parentWidth: parentWidth, parentHeight: parentHeight)
        var view = View(id: id, frame: frame)
        // Looks
        if chance(0.04) { view.hidden = true }
        if chance(0.08) { view.alpha = pick([0.0099, 0.01, 0, 0.5, 0.00999999, 0.010000001]) }
        if chance(0.04) { view.interactive = false }
        view.shape = randomShape(width: frame.width, height: frame.height)
        view.touchMargin = randomMargin(shape: view.shape)
        if chance(0.25) { view.transform = randomTransform() }
        // Children: chains make deep trees, wide containers get a grid.
        let descendants = subtreeSize - 1
        if descendants > 0 {
            var childCount: Int
            switch random.next() % 100 {
            case 0..<30: childCount = 1
            case 30..<75: childCount = Int(2 + random.next() % 5)
            default: childCount = Int(8 + random.next() % 40)
            }
            if depth + 1 >= maximumDepth { childCount = descendants }
            childCount = min(childCount, descendants)
            // Split the descendants among the children: one each, the rest at random.
            var sizes = [Int](repeating: 1, count: childCount)
            for _ in 0..<(descendants - childCount) {
                // Favour the first children so some subtrees grow deep.
                let pickIndex = Int(random.next() % UInt64(childCount))
                sizes[chance(0.5) ? pickIndex : pickIndex / 2] += 1
            }
            for size in sizes {
                view.children.append(
                    makeView(
                        parentWidth: frame.width, parentHeight: frame.height, depth: depth + 1,
                        subtreeSize: size))
            }
        }
        // Rebuild through init so parentToLocal follows the transform set above.
        return View(
            id: view.id, frame: view.frame, children: view.children, hidden: view.hidden,
            alpha: view.alpha, interactive: view.interactive, touchMargin: view.touchMargin,
            shape: view.shape, transform: view.transform)
    }

    private mutating func randomFrame(parentWidth: Double, parentHeight: Double) -> Rect {
        func size(_ parent: Double) -> Double {
            switch random.next() % 10 {
            case 0..<3: return Double(1 + random.next() % UInt64(max(1, parent)))
            case 3..<6: return uniform(0.5, max(1, parent))
            case 6..<8: return Double(1 + random.next() % 40) / 2
            case 8: return max(1, parent) * 1.5
            default: return pick([0.25, 1e-3, 7.3])
            }
        }
        func origin(_ parent: Double, _ extent: Double) -> Double {
            switch random.next() % 10 {
            case 0..<4: return Double(random.next() % UInt64(max(1, parent)))
            case 4..<7: return uniform(0, max(1, parent - extent))
            case 7: return 0
            case 8: return -extent / 2  // past the parent's min edge
            default: return parent - extent / 2  // past the max edge
            }
        }
        let width = size(parentWidth), height = size(parentHeight)
        return Rect(
            x: origin(parentWidth, width), y: origin(parentHeight, height), width: width, height: height)
    }

    private mutating func randomShape(width: Double, height: Double) -> Shape {
        switch random.next() % 20 {
        case 0..<11: return .rect
        case 11..<14: return .roundedRect(radius: pick([0, 4, min(width, height) / 2, width, uniform(0, 30)]))
        case 14..<17: return .ellipse
        default:
            if chance(0.3) {
                // A five-pointed star drawn in one stroke: self-intersecting, with an even-odd hole.
                let cx = width / 2, cy = height / 2, r = min(width, height) / 2
                return .polygon(
                    (0..<5).map { k in
                        let angle = Double(k * 2) * 2 * .pi / 5 - .pi / 2
                        return Point(cx + r * cos(angle), cy + r * sin(angle))
                    })
            }
            let vertexCount = Int(3 + random.next() % 6)
            return .polygon(
                (0..<vertexCount).map { _ in
                    Point(
                        chance(0.3) ? pick([0, width, width / 2]) : uniform(-0.2 * width, 1.2 * width),
                        chance(0.3) ? pick([0, height, height / 2]) : uniform(-0.2 * height, 1.2 * height))
                })
        }
    }

    private mutating func randomMargin(shape: Shape) -> EdgeMargin {
        switch random.next() % 20 {
        case 0..<12: return .zero
        case 12..<16: return EdgeMargin(all: pick([20, 5, 0.5, 44, 7.25]))
        case 16..<19:
            if case .rect = shape {
                return EdgeMargin(
                    top: pick([0, 10, 3.5]), left: pick([0, 20, 1]), bottom: pick([0, 15, 2.25]),
                    right: pick([0, 30, 60]))
            }
            return EdgeMargin(all: 12)
        default: return EdgeMargin(all: pick([-2, -0.5]))  // a shrunk touch area
        }
    }

    private mutating func randomTransform() -> ViewTransform {
        let rotation =
            chance(0.2) ? uniform(-360, 360) : pick([90, 180, 270, -90, 45, 30, 17.5, -120, 360, 0])
        let scale: (Double, Double) =
            chance(0.2)
            ? (uniform(-2, 2), uniform(-2, 2))
            : pick([(1, 1), (2, 2), (0.5, 0.5), (-1, 1), (1, -1), (-1.5, 0.75), (3, 1), (0, 1), (1, 1)])
        return ViewTransform(rotationDegrees: rotation, scaleX: scale.0, scaleY: scale.1)
    }

    // MARK: - Points

    private func collectIndexPaths(_ view: View, prefix: [Int], into paths: inout [[Int]]) {
        paths.append(prefix)
        for index in view.children.indices {
            collectIndexPaths(view.children[index], prefix: prefix + [index], into: &paths)
        }
    }

    /// A point on or near the view's touch area's outline, in its own space.
    private mutating func interestingLocalPoint(of view: View) -> Point {
        let width = view.frame.width, height = view.frame.height
        let m = view.touchMargin
        var candidates: [Point] = [
            Point(0, 0), Point(width, 0), Point(0, height), Point(width, height),
            Point(width / 2, 0), Point(0, height / 2), Point(width, height / 2), Point(width / 2, height),
            Point(-m.left, -m.top), Point(width + m.right, height + m.bottom),
            Point(-m.left, height / 2), Point(width + m.right, height / 2),
            Point(width / 2, -m.top), Point(width / 2, height + m.bottom),
            Point(width / 2, height / 2),
            Point(uniform(0, width), uniform(0, height)),
        ]
        switch view.shape {
        case .polygon(let vertices):
            candidates += vertices
            for k in vertices.indices {
                let a = vertices[k], b = vertices[(k + 1) % vertices.count]
                candidates.append(Point((a.x + b.x) / 2, (a.y + b.y) / 2))
            }
        case .roundedRect(let radius):
            let r = max(0, min(radius, width / 2, height / 2))
            let reach = (r + m.top) / 2.squareRoot()
            candidates += [Point(r - reach, r - reach), Point(width - r + reach, height - r + reach)]
        case .ellipse:
            let r = (width / 2 + m.top) / 2.squareRoot(), s = (height / 2 + m.top) / 2.squareRoot()
            candidates += [Point(width / 2 + r, height / 2 + s), Point(width / 2, -m.top)]
        case .rect:
            break
        }
        return pick(candidates)
    }

    private mutating func nudge(_ value: Double) -> Double {
        switch random.next() % 8 {
        case 0..<3: return value
        case 3: return value.nextUp
        case 4: return value.nextDown
        case 5: return value + 0.5
        case 6: return value - 0.5
        default: return value.rounded()
        }
    }

    // MARK: - Randomness

    private mutating func chance(_ probability: Double) -> Bool {
        uniform(0, 1) < probability
    }

    private mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(random.next() >> 11) / Double(1 << 53)
    }

    private mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int(random.next() % UInt64(choices.count))]
    }
}
