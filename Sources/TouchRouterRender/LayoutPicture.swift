/// An SVG picture of one screen's layout: effective touch regions, bounds, touch margins, views
/// that take no touches, labels, access-list marks, a legend, and optionally touches drawn over it.
/// Pure: builds a string; the caller writes it.
import Glibc
import TouchRouterCore

/// What to draw and how.
public struct RenderOptions: Sendable {
    /// Draw hidden views (dashed, grey); without it they are left out.
    public var showHidden = false
    /// The effective-region grid's cell, in layout units (see `EffectiveRegions`).
    public var cellSize: Double = 1
    /// Views that declare an access list (marked with a padlock).
    public var accessListViews: Set<String> = []
    /// The views' `passthrough` keys: the areas passed through are hatched, `passthrough: false`
    /// views marked (nothing is drawn for them when empty).
    public var passthrough: [String: PassthroughSettings] = [:]
    /// Views counted as subscribed when deciding what is passed through (offline nothing is known
    /// to be subscribed: a subscribed view ends the climb before a passthrough region).
    public var subscribedViews: Set<String> = []

    public init(
        showHidden: Bool = false, cellSize: Double = 1, accessListViews: Set<String> = [],
        passthrough: [String: PassthroughSettings] = [:], subscribedViews: Set<String> = []
    ) {
        self.showHidden = showHidden
        self.cellSize = cellSize
        self.accessListViews = accessListViews
        self.passthrough = passthrough
        self.subscribedViews = subscribedViews
    }
}

/// One screen drawn: call `svg()` for the document. The screen keeps its layout size (one layout
/// unit is one SVG unit); the legend is a panel to its right.
public struct LayoutPicture: Sendable {
    /// One view of the screen, flattened in pre-order (the hit-test index's view numbering).
    public struct DrawnView: Sendable {
        public var view: View
        public var depth: Int
        /// Screen-from-local transform (through every ancestor's frame and transform).
        public var toScreen: TouchRouterCore.AffineTransform
        /// Why the view takes no touches (its own or an ancestor's reason), or nil.
        public var inertReason: HitTestIgnoreReason?
        /// The view or an ancestor is hidden (drawn only with `showHidden`).
        public var hiddenInTree: Bool
        /// The view's colour when it takes touches.
        public var colour: RGB?
        /// The parent's index in `views` (nil for the root).
        public var parent: Int?
    }

    public let screen: Screen
    public let options: RenderOptions
    public let views: [DrawnView]
    public let regions: EffectiveRegions
    /// Touches drawn over the layout.
    public var traces: [TouchTrace] = []

    /// Width of the legend panel right of the screen.
    public static let legendWidth = 440.0

    /// Lays the screen out and computes its effective regions with `index` (the daemon's engine).
    public init(index: HitTestIndex, options: RenderOptions = RenderOptions()) {
        screen = index.screen
        self.options = options
        var views: [DrawnView] = []
        var colourIndex = 0
        func walk(
            _ view: View, depth: Int, parent: TouchRouterCore.AffineTransform,
            inherited: HitTestIgnoreReason?,
            hidden: Bool, parentIndex: Int?
        ) {
            let reason = inherited ?? view.ignoreReason
            let hiddenInTree = hidden || view.hidden
            let toScreen = Self.concat(parent, Self.localToParent(view))
            var drawn = DrawnView(
                view: view, depth: depth, toScreen: toScreen, inertReason: reason, hiddenInTree: hiddenInTree,
                colour: nil, parent: parentIndex)
            if reason == nil {
                drawn.colour = Palette.viewColour(colourIndex)
                colourIndex += 1
            }
            let index = views.count
            views.append(drawn)
            for child in view.children {
                walk(
                    child, depth: depth + 1, parent: toScreen, inherited: reason, hidden: hiddenInTree,
                    parentIndex: index)
            }
        }
        walk(screen.root, depth: 0, parent: .identity, inherited: nil, hidden: false, parentIndex: nil)
        self.views = views
        regions = EffectiveRegions(index: index, cellSize: options.cellSize)
    }

    /// The colour of a view that takes touches (what its touch paths and dots are drawn in).
    public func colour(ofView viewID: String) -> RGB? {
        views.first { $0.view.id == viewID }?.colour
    }

    // MARK: - Geometry

    /// Local → parent, as `View.convertFromParent` inverts it: the transform about the frame's
    /// centre, then the frame's origin.
    static func localToParent(_ view: View) -> TouchRouterCore.AffineTransform {
        let frame = view.frame
        guard !view.transform.isIdentity else {
            return TouchRouterCore.AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: frame.x, ty: frame.y)
        }
        let m = view.transform.matrix
        let halfWidth = frame.width / 2
        let halfHeight = frame.height / 2
        return TouchRouterCore.AffineTransform(
            a: m.a, b: m.b, c: m.c, d: m.d,
            tx: frame.x + halfWidth - (m.a * halfWidth + m.c * halfHeight),
            ty: frame.y + halfHeight - (m.b * halfWidth + m.d * halfHeight))
    }

    /// `outer ∘ inner`: apply `inner` first.
    static func concat(_ outer: TouchRouterCore.AffineTransform, _ inner: TouchRouterCore.AffineTransform)
        -> TouchRouterCore.AffineTransform
    {
        TouchRouterCore.AffineTransform(
            a: outer.a * inner.a + outer.c * inner.b, b: outer.b * inner.a + outer.d * inner.b,
            c: outer.a * inner.c + outer.c * inner.d, d: outer.b * inner.c + outer.d * inner.d,
            tx: outer.a * inner.tx + outer.c * inner.ty + outer.tx,
            ty: outer.b * inner.tx + outer.d * inner.ty + outer.ty)
    }

    /// The axis-aligned box around the view's bounds on screen.
    static func screenBox(_ drawn: DrawnView) -> Rect {
        let frame = drawn.view.frame
        let corners = [
            Point(0, 0), Point(frame.width, 0), Point(0, frame.height), Point(frame.width, frame.height),
        ]
        .map(drawn.toScreen.apply)
        let xs = corners.map(\.x)
        let ys = corners.map(\.y)
        return Rect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
    }

    // MARK: - SVG

    /// The SVG document.
    public func svg() -> String {
        var out = SVGText()
        let width = screen.width + Self.legendWidth
        let height = max(screen.height, legendHeight)
        out.open(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("width", n(width)), ("height", n(height)),
                ("viewBox", "0 0 \(n(width)) \(n(height))"),
                ("font-family", "DejaVu Sans, Verdana, sans-serif"),
            ])
        out.element(
            "title", [], text: "touchrouter: screen \(screen.name) (\(n(screen.width))×\(n(screen.height)))")
        out.element("rect", [("width", n(width)), ("height", n(height)), ("fill", "#f4f4f4")])
        out.element("rect", [("width", n(screen.width)), ("height", n(screen.height)), ("fill", "#ffffff")])
        drawRegions(&out)
        drawViews(&out)
        if !options.passthrough.isEmpty { drawPassthrough(&out) }
        if !traces.isEmpty { drawHeatmap(&out) }
        drawLabels(&out)
        drawAccessMarks(&out)
        if !options.passthrough.isEmpty { drawPassthroughStops(&out) }
        if !traces.isEmpty { drawTraces(&out) }
        out.element(
            "rect",
            [
                ("width", n(screen.width)), ("height", n(screen.height)), ("fill", "none"),
                ("stroke", "#000000"), ("stroke-width", "2"),
            ])
        drawLegend(&out)
        out.close("svg")
        return out.text
    }

    /// Filled effective regions, one path per view, crisp cell edges.
    private func drawRegions(_ out: inout SVGText) {
        out.open("g", [("id", "effective-regions"), ("shape-rendering", "crispEdges")])
        for (index, drawn) in views.enumerated() {
            guard let colour = drawn.colour, let rects = regions.rectangles[index] else { continue }
            var d = ""
            for rect in rects {
                d += "M\(n(rect.x)) \(n(rect.y))h\(n(rect.width))v\(n(rect.height))h\(n(-rect.width))z"
            }
            out.element(
                "path", [("data-view", drawn.view.id), ("fill", "\(Palette.regionColour(colour))"), ("d", d)])
        }
        out.close("g")
    }

    /// Bounds (solid), touch areas (dashed halo), inert views (grey, dashed).
    private func drawViews(_ out: inout SVGText) {
        out.open("g", [("id", "views"), ("fill", "none")])
        let unscaled = ("vector-effect", "non-scaling-stroke")
        for drawn in views {
            let view = drawn.view
            if drawn.hiddenInTree, !options.showHidden { continue }
            let m = drawn.toScreen
            guard m.a * m.d - m.b * m.c != 0, m.a.isFinite, m.b.isFinite else { continue }
            out.open(
                "g",
                [
                    ("data-view", view.id),
                    ("transform", "matrix(\(n(m.a)) \(n(m.b)) \(n(m.c)) \(n(m.d)) \(n(m.tx)) \(n(m.ty)))"),
                ])
            if let colour = drawn.colour {
                if let (name, attributes) = touchArea(view) {
                    out.element(
                        name,
                        attributes + [
                            ("stroke", "\(colour)"), ("stroke-width", "1.5"), ("stroke-dasharray", "7 4"),
                            unscaled,
                        ])
                } else if case .polygon(let vertices) = view.shape, view.touchMargin.top > 0 {
                    // A polygon's margin is its outline stroked 2 × margin wide, round joins.
                    out.element(
                        "polygon",
                        [
                            ("points", points(vertices)), ("stroke", "\(colour)"), ("stroke-opacity", "0.25"),
                            ("stroke-width", n(2 * view.touchMargin.top)), ("stroke-linejoin", "round"),
                        ])
                }
                let (name, attributes) = shapeElement(view, margin: 0)
                out.element(name, attributes + [("stroke", "\(colour)"), ("stroke-width", "2"), unscaled])
            } else {
                let hidden = drawn.hiddenInTree
                let (name, attributes) = shapeElement(view, margin: 0)
                out.element(
                    name,
                    attributes + [
                        ("fill", hidden ? "none" : "\(Palette.inert)"), ("fill-opacity", "0.22"),
                        ("stroke", "\(Palette.inert)"), ("stroke-width", "1.5"),
                        ("stroke-dasharray", hidden ? "2 4" : "5 4"), unscaled,
                    ])
            }
            out.close("g")
        }
        out.close("g")
    }

    /// The shape in local coordinates grown by `margin` (uniform): element name and attributes.
    private func shapeElement(_ view: View, margin: Double) -> (String, [(String, String)]) {
        let w = view.frame.width
        let h = view.frame.height
        let box = [
            ("x", n(-margin)), ("y", n(-margin)), ("width", n(w + 2 * margin)), ("height", n(h + 2 * margin)),
        ]
        switch view.shape {
        case .rect:
            return ("rect", box)
        case .roundedRect(let radius):
            return ("rect", box + [("rx", n(max(0, min(radius, w / 2, h / 2)) + margin))])
        case .ellipse:
            return (
                "ellipse",
                [("cx", n(w / 2)), ("cy", n(h / 2)), ("rx", n(w / 2 + margin)), ("ry", n(h / 2 + margin))]
            )
        case .polygon(let vertices):
            return ("polygon", [("points", points(vertices)), ("fill-rule", "evenodd")])
        }
    }

    /// The touch area's outline when the view has a margin and a shape whose grown outline is an
    /// SVG element (every shape but the polygon).
    private func touchArea(_ view: View) -> (String, [(String, String)])? {
        let margin = view.touchMargin
        guard margin != .zero else { return nil }
        switch view.shape {
        case .rect:
            let area = view.bounds.grown(by: margin)
            return (
                "rect",
                [("x", n(area.x)), ("y", n(area.y)), ("width", n(area.width)), ("height", n(area.height))]
            )
        case .roundedRect, .ellipse:
            return shapeElement(view, margin: margin.top)
        case .polygon:
            return nil
        }
    }

    /// Touch-down density: a soft disc per touch-down, stacking where people touch often.
    private func drawHeatmap(_ out: inout SVGText) {
        out.open("defs", [])
        out.open("radialGradient", [("id", "heat")])
        out.element("stop", [("offset", "0"), ("stop-color", "#ff7a00"), ("stop-opacity", "0.5")])
        out.element("stop", [("offset", "1"), ("stop-color", "#ff7a00"), ("stop-opacity", "0")])
        out.close("radialGradient")
        out.close("defs")
        out.open("g", [("id", "heatmap")])
        for trace in traces {
            let p = trace.points[0]
            out.element("circle", [("cx", n(p.x)), ("cy", n(p.y)), ("r", "48"), ("fill", "url(#heat)")])
        }
        out.close("g")
    }

    /// A padlock at the top-right corner of every view that declares an access list.
    private func drawAccessMarks(_ out: inout SVGText) {
        out.open("g", [("id", "access-lists")])
        for drawn in views where options.accessListViews.contains(drawn.view.id) {
            if drawn.hiddenInTree, !options.showHidden { continue }
            let box = Self.screenBox(drawn)
            padlock(&out, x: min(box.maxX, screen.width) - 22, y: max(box.y, 0) + 4)
        }
        out.close("g")
    }

    func padlock(_ out: inout SVGText, x: Double, y: Double) {
        out.open("g", [("class", "padlock"), ("transform", "translate(\(n(x)) \(n(y)))")])
        out.element(
            "path",
            [
                ("d", "M4 8v-3a5 5 0 0 1 10 0v3"), ("fill", "none"), ("stroke", "#000000"),
                ("stroke-width", "2.2"),
            ])
        out.element(
            "rect",
            [("x", "1"), ("y", "8"), ("width", "16"), ("height", "11"), ("rx", "2"), ("fill", "#000000")])
        out.element("circle", [("cx", "9"), ("cy", "13"), ("r", "2"), ("fill", "#ffffff")])
        out.close("g")
    }

    /// Paths coloured by where each touch went, a dot at each touch-down, a ring at each lift-off.
    private func drawTraces(_ out: inout SVGText) {
        out.open(
            "g",
            [("id", "touches"), ("fill", "none"), ("stroke-linecap", "round"), ("stroke-linejoin", "round")])
        var dots = SVGText(header: false)
        for trace in traces {
            let colour: RGB
            var marks: [(String, String)]
            var dash: [(String, String)] = []
            switch trace.outcome {
            case .delivered(let viewID):
                colour = self.colour(ofView: viewID) ?? Palette.dropped
                marks = [("data-view", viewID)]
            case .missed:
                colour = Palette.miss
                marks = [("data-outcome", "missed")]
            case .dropped(let hitViewID):
                colour = Palette.dropped
                marks = [("data-outcome", "dropped"), ("data-hit-view", hitViewID)]
                dash = [("stroke-dasharray", "6 5")]
            }
            if trace.points.count > 1 {
                out.element(
                    "polyline",
                    marks + [
                        ("points", points(trace.points)), ("stroke", "\(colour)"), ("stroke-width", "4"),
                    ] + dash)
                let end = trace.points[trace.points.count - 1]
                dots.element(
                    "circle",
                    [
                        ("cx", n(end.x)), ("cy", n(end.y)), ("r", "5"), ("fill", "#ffffff"),
                        ("stroke", "\(colour)"),
                        ("stroke-width", "2.5"),
                    ])
            }
            let start = trace.points[0]
            marks += [
                ("cx", n(start.x)), ("cy", n(start.y)), ("r", "10"), ("fill", "\(colour)"),
                ("stroke", "#ffffff"),
                ("stroke-width", "2"),
            ]
            dots.element("circle", marks)
        }
        out.text += dots.text
        out.close("g")
    }

    // MARK: - Text helpers

    func points(_ points: [Point]) -> String {
        points.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " ")
    }

    func n(_ value: Double) -> String { SVGText.number(value) }
}
