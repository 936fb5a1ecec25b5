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

    public init(showHidden: Bool = false, cellSize: Double = 1, accessListViews: Set<String> = []) {
        self.showHidden = showHidden
        self.cellSize = cellSize
        self.accessListViews = accessListViews
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
            hidden: Bool
        ) {
            let reason = inherited ?? view.ignoreReason
            let hiddenInTree = hidden || view.hidden
            let toScreen = Self.concat(parent, Self.localToParent(view))
            var drawn = DrawnView(
                view: view, depth: depth, toScreen: toScreen, inertReason: reason, hiddenInTree: hiddenInTree,
                colour: nil)
            if reason == nil {
                drawn.colour = Palette.viewColour(colourIndex)
                colourIndex += 1
            }
            views.append(drawn)
            for child in view.children {
                walk(child, depth: depth + 1, parent: toScreen, inherited: reason, hidden: hiddenInTree)
            }
        }
        walk(screen.root, depth: 0, parent: .identity, inherited: nil, hidden: false)
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
        if !traces.isEmpty { drawHeatmap(&out) }
        drawLabels(&out)
        drawAccessMarks(&out)
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

    /// Labels: leaves centred, containers in their top-left corner; sized to fit inside the view,
    /// moved down or left out when they would overlap one already placed (the legend names all).
    private func drawLabels(_ out: inout SVGText) {
        out.open(
            "g",
            [
                ("id", "labels"), ("stroke", "#ffffff"), ("stroke-width", "3"), ("paint-order", "stroke"),
                ("stroke-linejoin", "round"),
            ])
        for label in labels {
            let drawn = views[label.viewIndex]
            var attributes = [
                ("data-view", drawn.view.id), ("x", n(label.box.x)),
                ("y", n(label.box.y + label.fontSize * 0.95)),
                ("font-size", n(label.fontSize)), ("font-weight", label.isLeaf ? "bold" : "normal"),
                ("fill", drawn.colour.map { "\($0)" } ?? "#555555"),
            ]
            if drawn.colour == nil { attributes.append(("font-style", "italic")) }
            out.element("text", attributes, text: drawn.view.id)
        }
        out.close("g")
    }

    /// One placed label: the view, its box on screen (estimated text extent) and font size.
    public struct Label: Sendable {
        public var viewIndex: Int
        public var box: Rect
        public var fontSize: Double
        public var isLeaf: Bool
    }

    /// Where the labels go: leaves first (they matter most), then containers, deepest first; each
    /// as large as fits inside its view (leaves up to 28 units, containers 18), moved down or left
    /// out when it would overlap one already placed. No two returned boxes overlap.
    public var labels: [Label] {
        var placed: [Label] = []
        let order = views.indices.sorted { a, b in
            let leafA = views[a].view.children.isEmpty
            let leafB = views[b].view.children.isEmpty
            if leafA != leafB { return leafA }
            return views[a].depth > views[b].depth
        }
        let screenRect = Rect(x: 0, y: 0, width: screen.width, height: screen.height)
        for index in order {
            let drawn = views[index]
            if drawn.hiddenInTree, !options.showHidden { continue }
            guard let box = Self.screenBox(drawn).intersection(screenRect), box.width > 4, box.height > 4
            else {
                continue
            }
            let characters = Double(drawn.view.id.count)
            let isLeaf = drawn.view.children.isEmpty
            var size = min(
                isLeaf ? 28 : 18, box.height * (isLeaf ? 0.4 : 0.3), (box.width - 6) / (0.62 * characters))
            size = (size * 2).rounded(.down) / 2
            guard size >= 7 else { continue }
            let textWidth = 0.62 * size * characters
            let x = isLeaf ? box.center.x - textWidth / 2 : box.x + 5
            var rect = Rect(
                x: x, y: isLeaf ? box.center.y - size * 0.6 : box.y + 4, width: textWidth, height: size * 1.2)
            var attempts = 0
            while placed.contains(where: { $0.box.intersects(rect) }) && attempts < 4 {
                rect.y += size * 1.3
                attempts += 1
            }
            guard !placed.contains(where: { $0.box.intersects(rect) }), rect.maxY <= box.maxY + 1 else {
                continue
            }
            placed.append(Label(viewIndex: index, box: rect, fontSize: size, isLeaf: isLeaf))
        }
        return placed
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

    private func padlock(_ out: inout SVGText, x: Double, y: Double) {
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

    // MARK: - Legend

    private var legendRows: Int {
        views.filter { $0.colour != nil }.count + 14
    }

    private var legendRowHeight: Double {
        max(9, min(24, (screen.height - 40) / Double(legendRows)))
    }

    private var legendHeight: Double { 40 + Double(legendRows) * legendRowHeight }

    private func drawLegend(_ out: inout SVGText) {
        let row = legendRowHeight
        let font = (row * 0.68 * 2).rounded(.down) / 2
        var y = 30.0
        out.open("g", [("id", "legend"), ("transform", "translate(\(n(screen.width + 16)) 0)")])
        out.element(
            "text",
            [("x", "0"), ("y", n(y)), ("font-size", n(min(22, font * 1.2))), ("font-weight", "bold")],
            text: "screen \(screen.name) \(n(screen.width))×\(n(screen.height))")
        y += row
        func text(_ x: Double, _ content: String, bold: Bool = false) {
            var attributes = [("x", n(x)), ("y", n(y + font * 0.35)), ("font-size", n(font))]
            if bold { attributes.append(("font-weight", "bold")) }
            out.element("text", attributes, text: content)
        }
        func swatch(fill: String, stroke: String, dashed: Bool = false, x: Double = 0, width: Double = 36) {
            var attributes = [
                ("x", n(x)), ("y", n(y - row * 0.36)), ("width", n(width)), ("height", n(row * 0.72)),
                ("fill", fill), ("stroke", stroke), ("stroke-width", "2"),
            ]
            if dashed { attributes += [("fill-opacity", "0.22"), ("stroke-dasharray", "5 4")] }
            out.element("rect", attributes)
        }
        func line(_ colour: String, dashed: Bool = false, width: String = "2") {
            var attributes = [
                ("x1", "0"), ("y1", n(y)), ("x2", "36"), ("y2", n(y)), ("stroke", colour),
                ("stroke-width", width),
            ]
            if dashed { attributes.append(("stroke-dasharray", "7 4")) }
            out.element("line", attributes)
        }
        swatch(fill: "#d8d8d8", stroke: "none")
        text(46, "filled: where the view wins")
        y += row
        line("#000000")
        text(46, "bounds")
        y += row
        line("#000000", dashed: true, width: "1.5")
        text(46, "touch area (bounds + touch margin)")
        y += row
        swatch(fill: "\(Palette.inert)", stroke: "\(Palette.inert)", dashed: true)
        text(46, "grey: takes no touches" + (options.showHidden ? " (dotted: hidden)" : ""))
        y += row
        padlock(&out, x: 9, y: y - 10)
        text(46, "declares an access list")
        y += row
        if !traces.isEmpty {
            let delivered = traces.filter { if case .delivered = $0.outcome { true } else { false } }.count
            let missed = traces.filter { $0.outcome == .missed }.count
            let dropped = traces.count - delivered - missed
            let entries: [(RGB, String)] = [
                (RGB(red: 0x33, green: 0x66, blue: 0xcc), "touch: path in its view's colour"),
                (Palette.miss, "miss: no view there (\(missed))"),
                (Palette.dropped, "dropped by a rule (\(dropped))"),
            ]
            for (colour, label) in entries {
                line("\(colour)", width: "4")
                out.element("circle", [("cx", "30"), ("cy", n(y)), ("r", "6"), ("fill", "\(colour)")])
                text(46, label)
                y += row
            }
            out.element("circle", [("cx", "18"), ("cy", n(y)), ("r", n(row * 0.5)), ("fill", "url(#heat)")])
            text(46, "\(traces.count) touch-downs, \(delivered) delivered")
            y += row
        }
        y += row * 0.5
        text(0, "views (share of the screen they win):", bold: true)
        y += row
        for (index, drawn) in views.enumerated() {
            guard let colour = drawn.colour else { continue }
            let share = regions.share(ofView: index) * 100
            let indent = Double(min(drawn.depth, 6)) * 10
            swatch(fill: "\(Palette.regionColour(colour))", stroke: "\(colour)", x: indent, width: row * 0.9)
            var label =
                "\(drawn.view.id)  \(cFormat(share < 0.1 && share > 0 ? "%.2f" : "%.1f", share))%"
            if options.accessListViews.contains(drawn.view.id) { label += "  [access list]" }
            text(indent + row * 0.9 + 8, label)
            y += row
        }
        out.close("g")
    }

    // MARK: - Text helpers

    private func points(_ points: [Point]) -> String {
        points.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " ")
    }

    private func n(_ value: Double) -> String { SVGText.number(value) }
}

/// The document being written, one element per line.
struct SVGText {
    var text: String

    init(header: Bool = true) {
        text = header ? #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" : ""
    }

    /// `<name a="v" …/>`, or `<name …>text</name>` with `text`.
    mutating func element(_ name: String, _ attributes: [(String, String)], text content: String? = nil) {
        text += "<" + name
        appendAttributes(attributes)
        if let content {
            text += ">" + Self.escaped(content) + "</" + name + ">\n"
        } else {
            text += "/>\n"
        }
    }

    /// `<name a="v" …>`: the caller closes it with `close`.
    mutating func open(_ name: String, _ attributes: [(String, String)]) {
        text += "<" + name
        appendAttributes(attributes)
        text += ">\n"
    }

    mutating func close(_ name: String) {
        text += "</" + name + ">\n"
    }

    private mutating func appendAttributes(_ attributes: [(String, String)]) {
        for (key, value) in attributes {
            text += " " + key + "=\"" + Self.escaped(value) + "\""
        }
    }

    /// XML text with `&`, `<`, `>` and `"` escaped.
    static func escaped(_ value: String) -> String {
        guard value.contains(where: { "&<>\"".contains($0) }) else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Up to two decimals, no trailing zeros: `12`, `12.5`, `-0.33`.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var text = cFormat("%.2f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

extension Rect {
    func intersects(_ other: Rect) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }

    func intersection(_ other: Rect) -> Rect? {
        let minX = max(x, other.x)
        let minY = max(y, other.y)
        let maxX = min(self.maxX, other.maxX)
        let maxY = min(self.maxY, other.maxY)
        guard maxX > minX, maxY > minY else { return nil }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}
