import TouchRouterCore

/// Random layouts for the tracker's property test (the tracker's own small generator: hit-testing
/// has its own). Trees of up to ~40 views with every flag and transform the tracker must honour.
struct TrackingLayoutGenerator {
    var random: SeededRandom
    private var nextViewNumber = 0

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    /// One or two screens, each 800 × 600 with a random tree.
    mutating func layout() -> Layout {
        let screenCount = Int.random(in: 1...2, using: &random)
        return Layout(
            screens: (0..<screenCount).map { index in
                Screen(
                    name: "screen\(index)", width: 800, height: 600,
                    root: view(depth: 0, parentSize: (800, 600)))
            })
    }

    /// The same layout with some views (and their subtrees) removed and some frames moved.
    mutating func reloaded(_ layout: Layout) -> Layout {
        Layout(
            screens: layout.screens.map { screen in
                var screen = screen
                screen.root = mutated(screen.root)
                return screen
            })
    }

    private mutating func mutated(_ view: View) -> View {
        var view = view
        view.children = view.children.compactMap { child in
            Int.random(in: 0..<5, using: &random) == 0 ? nil : mutated(child)
        }
        if Bool.random(using: &random) {
            view = View(
                id: view.id,
                frame: Rect(
                    x: view.frame.x + Double.random(in: -20...20, using: &random), y: view.frame.y,
                    width: view.frame.width, height: view.frame.height),
                children: view.children, hidden: view.hidden, alpha: view.alpha,
                interactive: view.interactive,
                touchMargin: view.touchMargin, shape: view.shape, transform: view.transform,
                multipleTouch: view.multipleTouch, exclusiveTouch: view.exclusiveTouch)
        }
        return view
    }

    private mutating func view(depth: Int, parentSize: (Double, Double)) -> View {
        let id = "v\(nextViewNumber)"
        nextViewNumber += 1
        let width =
            depth == 0 ? parentSize.0 : Double.random(in: 20...max(21, parentSize.0 * 0.8), using: &random)
        let height =
            depth == 0 ? parentSize.1 : Double.random(in: 20...max(21, parentSize.1 * 0.8), using: &random)
        let x = depth == 0 ? 0 : Double.random(in: -10...max(-9, parentSize.0 - width + 10), using: &random)
        let y = depth == 0 ? 0 : Double.random(in: -10...max(-9, parentSize.1 - height + 10), using: &random)
        let childCount = depth >= 3 ? 0 : Int.random(in: 0...(depth == 0 ? 5 : 3), using: &random)
        let children = (0..<childCount).map { _ in view(depth: depth + 1, parentSize: (width, height)) }
        let roll = { (odds: Int, random: inout SeededRandom) in Int.random(in: 0..<odds, using: &random) == 0
        }
        let shapes: [Shape] = [.rect, .rect, .roundedRect(radius: 10), .ellipse]
        return View(
            id: id, frame: Rect(x: x, y: y, width: width, height: height), children: children,
            hidden: depth > 0 && roll(12, &random), alpha: roll(15, &random) ? 0 : 1,
            interactive: depth == 0 || !roll(12, &random),
            touchMargin: roll(4, &random) ? EdgeMargin(all: 8) : .zero,
            shape: shapes[Int.random(in: 0..<shapes.count, using: &random)],
            transform: roll(4, &random)
                ? ViewTransform(
                    rotationDegrees: Double(Int.random(in: 0..<24, using: &random) * 15),
                    scaleX: Double.random(in: 0.5...1.5, using: &random))
                : ViewTransform(),
            multipleTouch: Bool.random(using: &random), exclusiveTouch: roll(6, &random))
    }
}
