import TouchRouterCore

// The legend panel right of the screen: every coloured view by name, then the key to the marks.

extension LayoutPicture {

    var legendRows: Int {
        views.filter { $0.colour != nil }.count + 14 + (options.passthrough.isEmpty ? 0 : 3)
    }

    var legendRowHeight: Double {
        max(9, min(24, (screen.height - 40) / Double(legendRows)))
    }

    var legendHeight: Double { 40 + Double(legendRows) * legendRowHeight }

    func drawLegend(_ out: inout SVGText) {
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
        if !options.passthrough.isEmpty {
            let cells = passthroughAreas.reduce(0) { $0 + $1.cells }
            let share = Double(cells) / Double(regions.columns * regions.rows) * 100
            swatch(fill: "url(#passthrough-hatch)", stroke: "\(Palette.passthrough)")
            text(46, "hatched: passed through (\(cFormat("%.1f", share))%)")
            y += row
            let subscribed = options.subscribedViews.sorted().joined(separator: ", ")
            text(46, subscribed.isEmpty ? "(as if no program subscribed)" : "(as if only \(subscribed) subscribed)")
            y += row
            passthroughStopMark(&out, x: 8, y: y - 10)
            text(46, "passthrough: false (never passed through)")
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
            if let settings = options.passthrough[drawn.view.id] {
                label +=
                    settings.passesThrough ? "  [passthrough: \(settings.mode.rawValue)]" : "  [passthrough: false]"
            }
            text(indent + row * 0.9 + 8, label)
            y += row
        }
        out.close("g")
    }
}
