import TouchRouterCore

// The picture's labels: where each view's id goes so that no two overlap, and drawing them.

extension LayoutPicture {

    /// Labels: leaves centred, containers in their top-left corner; sized to fit inside the view,
    /// moved down or left out when they would overlap one already placed (the legend names all).
    func drawLabels(_ out: inout SVGText) {
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
}

/// The rectangle tests label placement needs.
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
