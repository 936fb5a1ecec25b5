/// An SVG picture of one screen's layout: effective touch regions, bounds, touch margins, views
/// that take no touches, labels, access-list marks, a legend, and optionally touches drawn over it.
/// Pure: builds a string; the caller writes it.
import Foundation
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
        func walk(_ view: View, depth: Int, parent: TouchRouterCore.AffineTransform, inherited: HitTestIgnoreReason?) {
            let reason = inherited ?? view.ignoreReason
            let toScreen = Self.concat(parent, Self.localToParent(view))
            var drawn = DrawnView(view: view, depth: depth, toScreen: toScreen, inertReason: reason, colour: nil)
            if reason == nil {
                drawn.colour = Palette.viewColour(colourIndex)
                colourIndex += 1
            }
            views.append(drawn)
            for child in view.children {
                walk(child, depth: depth + 1, parent: toScreen, inherited: reason)
            }
        }
        walk(screen.root, depth: 0, parent: .identity, inherited: nil)
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
        let halfWidth = frame.width / 2, halfHeight = frame.height / 2
        return TouchRouterCore.AffineTransform(
            a: m.a, b: m.b, c: m.c, d: m.d,
            tx: frame.x + halfWidth - (m.a * halfWidth + m.c * halfHeight),
            ty: frame.y + halfHeight - (m.b * halfWidth + m.d * halfHeight))
    }

    /// `outer ∘ inner`: apply `inner` first.
    static func concat(_ outer: TouchRouterCore.AffineTransform, _ inner: TouchRouterCore.AffineTransform) -> TouchRouterCore.AffineTransform {
        TouchRouterCore.AffineTransform(
            a: outer.a * inner.a + outer.c * inner.b, b: outer.b * inner.a + outer.d * inner.b,
            c: outer.a * inner.c + outer.c * inner.d, d: outer.b * inner.c + outer.d * inner.d,
            tx: outer.a * inner.tx + outer.c * inner.ty + outer.tx,
            ty: outer.b * inner.tx + outer.d * inner.ty + outer.ty)
    }

    /// The axis-aligned box around the view's bounds on screen.
    static func screenBox(_ drawn: DrawnView) -> Rect {
        let frame = drawn.view.frame
        let corners = [Point(0, 0), Point(frame.width, 0), Point(0, frame.height), Point(frame.width, frame.height)]
            .map(drawn.toScreen.apply)
        let xs = corners.map(\.x), ys = corners.map(\.y)
        return Rect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
    }

    // MARK: - SVG

    /// The SVG document.
    public func svg() -> String {
        var out = SVGText()
        let width = screen.width + Self.legendWidth
        let height = max(screen.height, legendHeight)
        out.line(
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(n(width))" height="\##(n(height))" "##
                + ##"viewBox="0 0 \##(n(width)) \##(n(height))" font-family="DejaVu Sans, Verdana, sans-serif">"##)
        out.line("<title>touchrouter: screen \(xml(screen.name)) (\(n(screen.width))×\(n(screen.height)))</title>")
        out.line(##"<rect width="\##(n(width))" height="\##(n(height))" fill="#f4f4f4"/>"##)
        out.line(##"<rect width="\##(n(screen.width))" height="\##(n(screen.height))" fill="#ffffff"/>"##)
        drawRegions(&out)
        drawViews(&out)
        if !traces.isEmpty { drawHeatmap(&out) }
        drawLabels(&out)
        drawAccessMarks(&out)
        if !traces.isEmpty { drawTraces(&out) }
        out.line(
            ##"<rect width="\##(n(screen.width))" height="\##(n(screen.height))" fill="none" stroke="#000000" stroke-width="2"/>"##)
        drawLegend(&out)
        out.line("</svg>")
        return out.text
    }

    /// Filled effective regions, one path per view, crisp cell edges.
    private func drawRegions(_ out: inout SVGText) {
        out.line(##"<g id="effective-regions" shape-rendering="crispEdges">"##)
        for (index, drawn) in views.enumerated() {
            guard let colour = drawn.colour, let rects = regions.rectangles[index] else { continue }
            var d = ""
            for rect in rects {
                d += "M\(n(rect.x)) \(n(rect.y))h\(n(rect.width))v\(n(rect.height))h\(n(-rect.width))z"
            }
            out.line(
                ##"<path data-view="\##(xml(drawn.view.id))" fill="\##(Palette.regionColour(colour))" d="\##(d)"/>"##)
        }
        out.line("</g>")
    }

    /// Bounds (solid), touch areas (dashed halo), inert views (grey, dashed).
    private func drawViews(_ out: inout SVGText) {
        out.line(##"<g id="views" fill="none">"##)
        for drawn in views {
            let view = drawn.view
            if view.hidden || drawn.inertReason == .hidden, !options.showHidden { continue }
            let m = drawn.toScreen
            guard m.a * m.d - m.b * m.c != 0, m.a.isFinite, m.b.isFinite else { continue }
            out.line(
                ##"<g data-view="\##(xml(view.id))" transform="matrix(\##(n(m.a)) \##(n(m.b)) \##(n(m.c)) \##(n(m.d)) \##(n(m.tx)) \##(n(m.ty)))">"##)
            let stroke = ##"vector-effect="non-scaling-stroke""##
            if let colour = drawn.colour {
                if let halo = touchArea(view) {
                    out.line(halo.replacingOccurrences(
                        of: "/>",
                        with: ##" stroke="\##(colour)" stroke-width="1.5" stroke-dasharray="7 4" \##(stroke)/>"##))
                } else if case .polygon(let vertices) = view.shape, view.touchMargin.top > 0 {
                    // A polygon's margin is its outline stroked 2 × margin wide, round joins.
                    out.line(
                        ##"<polygon points="\##(points(vertices))" stroke="\##(colour)" stroke-opacity="0.25" "##
                            + ##"stroke-width="\##(n(2 * view.touchMargin.top))" stroke-linejoin="round"/>"##)
                }
                out.line(
                    shapeElement(view, margin: 0).replacingOccurrences(
                        of: "/>", with: ##" stroke="\##(colour)" stroke-width="2" \##(stroke)/>"##))
            } else {
                let hidden = drawn.inertReason == .hidden
                let fill = hidden ? "none" : "\(Palette.inert)"
                out.line(
                    shapeElement(view, margin: 0).replacingOccurrences(
                        of: "/>",
                        with: ##" fill="\##(fill)" fill-opacity="0.22" stroke="\##(Palette.inert)" stroke-width="1.5" "##
                            + ##"stroke-dasharray="\##(hidden ? "2 4" : "5 4")" \##(stroke)/>"##))
            }
            out.line("</g>")
        }
        out.line("</g>")
    }

    /// The shape in local coordinates grown by `margin` (uniform), as an element ending in `/>`.
    private func shapeElement(_ view: View, margin: Double) -> String {
        let w = view.frame.width, h = view.frame.height
        switch view.shape {
        case .rect:
            return ##"<rect x="\##(n(-margin))" y="\##(n(-margin))" width="\##(n(w + 2 * margin))" height="\##(n(h + 2 * margin))"/>"##
        case .roundedRect(let radius):
            let r = max(0, min(radius, w / 2, h / 2)) + margin
            return ##"<rect x="\##(n(-margin))" y="\##(n(-margin))" width="\##(n(w + 2 * margin))" height="\##(n(h + 2 * margin))" rx="\##(n(r))"/>"##
        case .ellipse:
            return ##"<ellipse cx="\##(n(w / 2))" cy="\##(n(h / 2))" rx="\##(n(w / 2 + margin))" ry="\##(n(h / 2 + margin))"/>"##
        case .polygon(let vertices):
            return ##"<polygon points="\##(points(vertices))" fill-rule="evenodd"/>"##
        }
    }

    /// The touch area's outline when the view has a margin and a shape whose grown outline is an
    /// SVG element (every shape but the polygon).
    private func touchArea(_ view: View) -> String? {
        let margin = view.touchMargin
        guard margin != .zero else { return nil }
        switch view.shape {
        case .rect:
            let area = view.bounds.grown(by: margin)
            return ##"<rect x="\##(n(area.x))" y="\##(n(area.y))" width="\##(n(area.width))" height="\##(n(area.height))"/>"##
        case .roundedRect, .ellipse:
            return shapeElement(view, margin: margin.top)
        case .polygon:
            return nil
        }
    }

    /// Touch-down density: a soft disc per touch-down, stacking where people touch often.
    private func drawHeatmap(_ out: inout SVGText) {
        out.line(
            ##"<defs><radialGradient id="heat"><stop offset="0" stop-color="#ff7a00" stop-opacity="0.5"/>"##
                + ##"<stop offset="1" stop-color="#ff7a00" stop-opacity="0"/></radialGradient></defs>"##)
        out.line(##"<g id="heatmap">"##)
        for trace in traces {
            let p = trace.points[0]
            out.line(##"<circle cx="\##(n(p.x))" cy="\##(n(p.y))" r="48" fill="url(#heat)"/>"##)
        }
        out.line("</g>")
    }

    /// Labels: leaves centred, containers in their top-left corner; sized to fit inside the view,
    /// moved down or left out when they would overlap one already placed (the legend names all).
    private func drawLabels(_ out: inout SVGText) {
        var placed: [Rect] = []
        out.line(
            ##"<g id="labels" stroke="#ffffff" stroke-width="3" paint-order="stroke" stroke-linejoin="round">"##)
        // Leaves first (they matter most), then containers, deepest first.
        let order = views.indices.sorted { a, b in
            let leafA = views[a].view.children.isEmpty, leafB = views[b].view.children.isEmpty
            if leafA != leafB { return leafA }
            return views[a].depth > views[b].depth
        }
        for index in order {
            let drawn = views[index]
            let view = drawn.view
            if drawn.inertReason == .hidden, !options.showHidden { continue }
            let box = Self.screenBox(drawn).intersection(Rect(x: 0, y: 0, width: screen.width, height: screen.height))
            guard let box, box.width > 4, box.height > 4 else { continue }
            let characters = Double(view.id.count)
            let isLeaf = view.children.isEmpty
            var size = min(isLeaf ? 28 : 18, box.height * (isLeaf ? 0.4 : 0.3), (box.width - 6) / (0.62 * characters))
            size = (size * 2).rounded(.down) / 2
            guard size >= 7 else { continue }
            let textWidth = 0.62 * size * characters
            var x = isLeaf ? box.center.x - textWidth / 2 : box.x + 5
            var y = isLeaf ? box.center.y - size * 0.6 : box.y + 4
            var rect = Rect(x: x, y: y, width: textWidth, height: size * 1.2)
            var attempts = 0
            while placed.contains(where: { $0.intersects(rect) }) && attempts < 4 {
                y += size * 1.3
                if !isLeaf { x = box.x + 5 }
                rect = Rect(x: x, y: y, width: textWidth, height: size * 1.2)
                attempts += 1
            }
            guard !placed.contains(where: { $0.intersects(rect) }), rect.maxY <= box.maxY + 1 else { continue }
            placed.append(rect)
            let fill = drawn.colour.map { "\($0)" } ?? "#555555"
            let weight = isLeaf ? "bold" : "normal"
            out.line(
                ##"<text data-view="\##(xml(view.id))" x="\##(n(x))" y="\##(n(y + size * 0.95))" font-size="\##(n(size))" "##
                    + ##"font-weight="\##(weight)" fill="\##(fill)"\##(drawn.colour == nil ? ##" font-style="italic""## : "")>\##(xml(view.id))</text>"##)
        }
        out.line("</g>")
    }

    /// A padlock at the top-right corner of every view that declares an access list.
    private func drawAccessMarks(_ out: inout SVGText) {
        out.line(##"<g id="access-lists">"##)
        for drawn in views where options.accessListViews.contains(drawn.view.id) {
            if drawn.inertReason == .hidden, !options.showHidden { continue }
            let box = Self.screenBox(drawn)
            out.line(padlock(x: min(box.maxX, screen.width) - 22, y: max(box.y, 0) + 4))
        }
        out.line("</g>")
    }

    private func padlock(x: Double, y: Double) -> String {
        ##"<g transform="translate(\##(n(x)) \##(n(y)))"><path d="M4 8v-3a5 5 0 0 1 10 0v3" fill="none" stroke="#000000" stroke-width="2.2"/>"##
            + ##"<rect x="1" y="8" width="16" height="11" rx="2" fill="#000000"/><circle cx="9" cy="13" r="2" fill="#ffffff"/></g>"##
    }

    /// Paths coloured by where each touch went, a dot at each touch-down, a ring at each lift-off.
    private func drawTraces(_ out: inout SVGText) {
        out.line(##"<g id="touches" fill="none" stroke-linecap="round" stroke-linejoin="round">"##)
        var dots: [String] = []
        for trace in traces {
            let colour: RGB
            var attributes = ""
            switch trace.outcome {
            case .delivered(let viewID):
                colour = self.colour(ofView: viewID) ?? Palette.dropped
                attributes = ##" data-view="\##(xml(viewID))""##
            case .missed:
                colour = Palette.miss
                attributes = ##" data-outcome="missed""##
            case .dropped(let hitViewID):
                colour = Palette.dropped
                attributes = ##" data-outcome="dropped" data-hit-view="\##(xml(hitViewID))""##
            }
            var dash = ""
            if case .dropped = trace.outcome { dash = ##" stroke-dasharray="6 5""## }
            if trace.points.count > 1 {
                out.line(
                    ##"<polyline\##(attributes) points="\##(points(trace.points))" stroke="\##(colour)" stroke-width="4"\##(dash)/>"##)
                let end = trace.points[trace.points.count - 1]
                dots.append(
                    ##"<circle cx="\##(n(end.x))" cy="\##(n(end.y))" r="5" fill="#ffffff" stroke="\##(colour)" stroke-width="2.5"/>"##)
            }
            let start = trace.points[0]
            dots.append(
                ##"<circle\##(attributes) cx="\##(n(start.x))" cy="\##(n(start.y))" r="10" fill="\##(colour)" stroke="#ffffff" stroke-width="2"/>"##)
        }
        for dot in dots { out.line(dot) }
        out.line("</g>")
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
        out.line(##"<g id="legend" transform="translate(\##(n(screen.width + 16)) 0)">"##)
        out.line(
            ##"<text x="0" y="\##(n(y))" font-size="\##(n(min(22, font * 1.2)))" font-weight="bold">screen \##(xml(screen.name)) \##(n(screen.width))×\##(n(screen.height))</text>"##)
        y += row
        func text(_ x: Double, _ content: String, _ extra: String = "") -> String {
            ##"<text x="\##(n(x))" y="\##(n(y + font * 0.35))" font-size="\##(n(font))"\##(extra)>\##(xml(content))</text>"##
        }
        // Symbols, each drawn at the row's y.
        let symbols: [(String, (Double) -> String)] = [
            ("filled: where the view wins", { y in
                ##"<rect x="0" y="\##(n(y - row * 0.35))" width="36" height="\##(n(row * 0.7))" fill="#d8d8d8"/>"##
            }),
            ("bounds", { y in
                ##"<line x1="0" y1="\##(n(y))" x2="36" y2="\##(n(y))" stroke="#000000" stroke-width="2"/>"##
            }),
            ("touch area (bounds + touch margin)", { y in
                ##"<line x1="0" y1="\##(n(y))" x2="36" y2="\##(n(y))" stroke="#000000" stroke-width="1.5" stroke-dasharray="7 4"/>"##
            }),
            ("grey: takes no touches" + (options.showHidden ? " (dotted: hidden)" : ""), { y in
                ##"<rect x="0" y="\##(n(y - row * 0.35))" width="36" height="\##(n(row * 0.7))" fill="\##(Palette.inert)" "##
                    + ##"fill-opacity="0.22" stroke="\##(Palette.inert)" stroke-dasharray="5 4"/>"##
            }),
            ("declares an access list", { y in padlock(x: 9, y: y - 10) }),
        ]
        for (label, symbol) in symbols {
            out.line(symbol(y))
            out.line(text(46, label))
            y += row
        }
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
                out.line(
                    ##"<line x1="0" y1="\##(n(y))" x2="26" y2="\##(n(y))" stroke="\##(colour)" stroke-width="4"/><circle cx="30" cy="\##(n(y))" r="6" fill="\##(colour)"/>"##)
                out.line(text(46, label))
                y += row
            }
            out.line(##"<circle cx="18" cy="\##(n(y))" r="\##(n(row * 0.5))" fill="url(#heat)"/>"##)
            out.line(text(46, "\(traces.count) touch-downs, \(delivered) delivered"))
            y += row
        }
        y += row * 0.5
        out.line(text(0, "views (share of the screen they win):", ##" font-weight="bold""##))
        y += row
        for (index, drawn) in views.enumerated() {
            guard let colour = drawn.colour else { continue }
            let share = regions.share(ofView: index) * 100
            let indent = Double(min(drawn.depth, 6)) * 10
            out.line(
                ##"<rect x="\##(n(indent))" y="\##(n(y - row * 0.38))" width="\##(n(row * 0.9))" height="\##(n(row * 0.76))" fill="\##(Palette.regionColour(colour))" stroke="\##(colour)" stroke-width="2"/>"##)
            var label = "\(drawn.view.id)  \(String(format: share < 0.1 && share > 0 ? "%.2f" : "%.1f", share))%"
            if options.accessListViews.contains(drawn.view.id) { label += "  [access list]" }
            out.line(text(indent + row * 0.9 + 8, label))
            y += row
        }
        out.line("</g>")
    }

    // MARK: - Text helpers

    private func points(_ points: [Point]) -> String {
        points.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " ")
    }

    private func n(_ value: Double) -> String { SVGText.number(value) }

    private func xml(_ text: String) -> String {
        var escaped = ""
        for character in text {
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
}

/// The document being written.
struct SVGText {
    var text = ##"<?xml version="1.0" encoding="UTF-8"?>"## + "\n"

    mutating func line(_ line: String) {
        text += line
        text += "\n"
    }

    /// Up to two decimals, no trailing zeros: `12`, `12.5`, `-0.33`.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return String(format: "%.2f", rounded).replacingOccurrences(of: ##"0+$"##, with: "", options: .regularExpression)
    }
}

extension Rect {
    func intersects(_ other: Rect) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }

    func intersection(_ other: Rect) -> Rect? {
        let minX = max(x, other.x), minY = max(y, other.y)
        let maxX = min(self.maxX, other.maxX), maxY = min(self.maxY, other.maxY)
        guard maxX > minX, maxY > minY else { return nil }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}
