import TouchRouterCore

// Passthrough in the picture (docs/passthrough.md): the areas whose touches a passthrough view hands
// to the screen's virtual device, hatched and outlined, labelled once per region with its mode, and a
// mark on every `passthrough: false` view. Which cells are passed through follows from the view the
// hit-test gives each cell (`EffectiveRegions`) and that view's responder chain, climbed with the
// daemon's own rule (`PassthroughRule`).

extension LayoutPicture {
    /// One passthrough region as drawn: the passthrough view, its settings, and the effective-region
    /// rectangles (screen space) whose touches it passes through.
    public struct PassthroughArea: Sendable {
        public var viewIndex: Int
        public var settings: PassthroughSettings
        public var rectangles: [Rect]
        /// Cells passed through (the area is `cells × cellSize²`).
        public var cells: Int
    }

    /// The passthrough regions, in the pre-order of their passthrough views: every effective region
    /// whose view's climb (`options.subscribedViews` counted as subscribed, access lists and
    /// `passthrough` keys as stops) ends at a view that passes through. Empty without `passthrough`.
    public var passthroughAreas: [PassthroughArea] {
        guard !options.passthrough.isEmpty else { return [] }
        let rule = PassthroughRule(accessListViews: options.accessListViews, passthrough: options.passthrough)
        var areas: [Int: PassthroughArea] = [:]
        for index in regions.rectangles.keys.sorted() {
            let rectangles = regions.rectangles[index]!
            let chain = sequence(first: index) { views[$0].parent }.map { views[$0].view.id }
            guard let (regionID, settings) = rule.region(chain, subscribedViews: options.subscribedViews),
                let regionIndex = sequence(first: index, next: { views[$0].parent }).first(where: {
                    views[$0].view.id == regionID
                })
            else { continue }
            if areas[regionIndex] == nil {
                areas[regionIndex] = PassthroughArea(
                    viewIndex: regionIndex, settings: settings, rectangles: [], cells: 0)
            }
            areas[regionIndex]!.rectangles += rectangles
            areas[regionIndex]!.cells += regions.cellCounts[index] ?? 0
        }
        return areas.keys.sorted().map { areas[$0]! }
    }

    /// The hatch pattern, the areas hatched, their outline, and one label per region.
    func drawPassthrough(_ out: inout SVGText) {
        let areas = passthroughAreas
        out.open("defs", [])
        out.open(
            "pattern",
            [
                ("id", "passthrough-hatch"), ("patternUnits", "userSpaceOnUse"), ("width", "16"), ("height", "16"),
                ("patternTransform", "rotate(45)"),
            ])
        out.element(
            "rect", [("width", "5"), ("height", "16"), ("fill", "\(Palette.passthrough)"), ("fill-opacity", "0.3")])
        out.close("pattern")
        out.close("defs")
        out.open("g", [("id", "passthrough"), ("shape-rendering", "crispEdges")])
        for area in areas {
            var d = ""
            for rect in area.rectangles {
                d += "M\(n(rect.x)) \(n(rect.y))h\(n(rect.width))v\(n(rect.height))h\(n(-rect.width))z"
            }
            out.element(
                "path",
                [
                    ("data-view", views[area.viewIndex].view.id), ("data-mode", area.settings.mode.rawValue),
                    ("fill", "url(#passthrough-hatch)"), ("d", d),
                ])
        }
        out.element(
            "path",
            [
                ("class", "passthrough-outline"), ("fill", "none"), ("stroke", "\(Palette.passthrough)"),
                ("stroke-width", "3"), ("d", outline(areas)),
            ])
        for area in areas { passthroughLabel(&out, area) }
        out.close("g")
    }

    /// "passed through: virtual touchscreen" (or pointer) in the bottom-left corner of the region's
    /// largest rectangle, as large as fits (up to 24 units); left out when nothing fits.
    private func passthroughLabel(_ out: inout SVGText, _ area: PassthroughArea) {
        guard let largest = area.rectangles.max(by: { $0.width * $0.height < $1.width * $1.height }) else { return }
        let device = area.settings.mode == .touch ? "virtual touchscreen" : "virtual pointer"
        let text = "passed through: \(device)"
        let size =
            (min(24, largest.height * 0.5, (largest.width - 16) / (0.62 * Double(text.count))) * 2)
            .rounded(.down) / 2
        guard size >= 7 else { return }
        out.element(
            "text",
            [
                ("class", "passthrough-label"), ("data-view", views[area.viewIndex].view.id),
                ("x", n(largest.x + 8)), ("y", n(largest.maxY - size * 0.6)), ("font-size", n(size)),
                ("font-weight", "bold"), ("fill", "\(Palette.passthrough)"), ("stroke", "#ffffff"),
                ("stroke-width", "3"), ("paint-order", "stroke"),
            ],
            text: text)
    }

    /// The outline of the passed-through cells: every cell edge between a region's cell and a cell
    /// outside it (or another region's), merged into runs along rows and columns.
    private func outline(_ areas: [PassthroughArea]) -> String {
        let columns = regions.columns
        let rows = regions.rows
        let cell = regions.cellSize
        var owner = [Int32](repeating: -1, count: columns * rows)
        for (number, area) in areas.enumerated() {
            for rect in area.rectangles {
                let firstColumn = Int((rect.x / cell).rounded())
                let lastColumn = Int((rect.maxX / cell).rounded())
                for row in Int((rect.y / cell).rounded())..<Int((rect.maxY / cell).rounded()) {
                    for column in firstColumn..<lastColumn { owner[row * columns + column] = Int32(number) }
                }
            }
        }
        func at(_ row: Int, _ column: Int) -> Int32 {
            row < 0 || row >= rows || column < 0 || column >= columns ? -1 : owner[row * columns + column]
        }
        var d = ""
        // Horizontal edges at each row boundary, then vertical ones at each column boundary.
        for (lines, length, horizontal) in [(rows, columns, true), (columns, rows, false)] {
            for line in 0...lines {
                var start: Int?
                for step in 0...length {
                    let differs =
                        step < length
                        && (horizontal
                            ? at(line - 1, step) != at(line, step) : at(step, line - 1) != at(step, line))
                    if differs, start == nil { start = step }
                    if !differs, let first = start {
                        let along = n(Double(first) * cell)
                        let across = n(Double(line) * cell)
                        let run = n(Double(step - first) * cell)
                        d += horizontal ? "M\(along) \(across)h\(run)" : "M\(across) \(along)v\(run)"
                        start = nil
                    }
                }
            }
        }
        return d
    }

    /// A "no entry" mark at the top-right corner of every `passthrough: false` view (left of its
    /// padlock when it has an access list too): its touches never reach the virtual device.
    func drawPassthroughStops(_ out: inout SVGText) {
        out.open("g", [("id", "passthrough-stops")])
        for drawn in views where options.passthrough[drawn.view.id]?.passesThrough == false {
            if drawn.hiddenInTree, !options.showHidden { continue }
            let box = Self.screenBox(drawn)
            let shift = options.accessListViews.contains(drawn.view.id) ? 26.0 : 0
            passthroughStopMark(
                &out, x: min(box.maxX, screen.width) - 22 - shift, y: max(box.y, 0) + 4, viewID: drawn.view.id)
        }
        out.close("g")
    }

    /// A circle crossed by a bar, 20 units across, its top-left corner at (x, y).
    func passthroughStopMark(_ out: inout SVGText, x: Double, y: Double, viewID: String? = nil) {
        var attributes = [("class", "passthrough-stop"), ("transform", "translate(\(n(x)) \(n(y)))")]
        if let viewID { attributes.insert(("data-view", viewID), at: 0) }
        out.open("g", attributes)
        out.element(
            "circle",
            [
                ("cx", "10"), ("cy", "10"), ("r", "8.5"), ("fill", "#ffffff"), ("stroke", "\(Palette.passthrough)"),
                ("stroke-width", "3"),
            ])
        out.element("path", [("d", "M4 16L16 4"), ("stroke", "\(Palette.passthrough)"), ("stroke-width", "3")])
        out.close("g")
    }
}
