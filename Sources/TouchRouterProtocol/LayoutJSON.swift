import TouchRouterModel

/// The compact JSON form of a layout in the `layout` reply:
/// `"screens":[{"name":…,"width":…,"height":…,"root":VIEW}]` where VIEW is
/// `{"id":…,"frame":[x,y,w,h]}` plus, only when they differ from the defaults:
/// `"flags":["hidden","nonInteractive","multipleTouch","exclusiveTouch"]`, `"alpha":a`,
/// `"margin":[top,left,bottom,right]`, `"shape":"roundedRect","radius":r` /
/// `"shape":"ellipse"` / `"shape":"polygon","points":[[x,y],…]`,
/// `"transform":{"rotation":degrees,"scaleX":sx,"scaleY":sy}`, and `"children":[VIEW,…]`
/// back to front.
enum LayoutJSON {
    static func appendScreens(_ screens: [Screen], to object: inout JSONObjectWriter) {
        object.field("screens", array: screens) { screen, buffer in
            JSONObjectWriter.appendObject(to: &buffer) { object in
                object.field("name", string: screen.name)
                object.field("width", double: screen.width)
                object.field("height", double: screen.height)
                object.key("root")
                appendView(screen.root, to: &object.buffer)
            }
        }
    }

    static func appendView(_ view: View, to buffer: inout [UInt8]) {
        JSONObjectWriter.appendObject(to: &buffer) { object in
            object.field("id", string: view.id)
            let frame = view.frame
            object.field("frame", doubles: [frame.x, frame.y, frame.width, frame.height])
            var flags: [String] = []
            if view.hidden { flags.append("hidden") }
            if !view.interactive { flags.append("nonInteractive") }
            if view.multipleTouch { flags.append("multipleTouch") }
            if view.exclusiveTouch { flags.append("exclusiveTouch") }
            if !flags.isEmpty { object.field("flags", strings: flags) }
            if view.alpha != 1 { object.field("alpha", double: view.alpha) }
            let margin = view.touchMargin
            if margin != .zero {
                object.field("margin", doubles: [margin.top, margin.left, margin.bottom, margin.right])
            }
            switch view.shape {
            case .rect:
                break
            case .roundedRect(let radius):
                object.field("shape", string: "roundedRect")
                object.field("radius", double: radius)
            case .ellipse:
                object.field("shape", string: "ellipse")
            case .polygon(let points):
                object.field("shape", string: "polygon")
                object.field("points", array: points) { point, buffer in
                    JSONWriter.appendPoint(x: point.x, y: point.y, to: &buffer)
                }
            }
            if !view.transform.isIdentity {
                object.field("transform") { transform in
                    transform.field("rotation", double: view.transform.rotationDegrees)
                    transform.field("scaleX", double: view.transform.scaleX)
                    transform.field("scaleY", double: view.transform.scaleY)
                }
            }
            if !view.children.isEmpty {
                object.field("children", array: view.children) { child, buffer in
                    appendView(child, to: &buffer)
                }
            }
        }
    }

    static func layout(from fields: FieldReader) throws(ProtocolError) -> Layout {
        var screens: [Screen] = []
        for (index, element) in try fields.array("screens").enumerated() {
            let screen = try fields.nested(element, context: "screens[\(index)]")
            screens.append(
                Screen(
                    name: try screen.string("name"), width: try screen.double("width"),
                    height: try screen.double("height"),
                    root: try view(screen.nested(try screen.objectField("root"), context: "root"))))
        }
        return Layout(screens: screens)
    }

    static func view(_ fields: FieldReader) throws(ProtocolError) -> View {
        let frame = try fields.doubles("frame", count: 4)
        let flags = fields.has("flags") ? try fields.stringArray("flags") : []
        let margin = fields.has("margin") ? try fields.doubles("margin", count: 4) : [0, 0, 0, 0]
        let shape: Shape
        switch try fields.optionalString("shape") ?? "rect" {
        case "rect": shape = .rect
        case "roundedRect": shape = .roundedRect(radius: try fields.double("radius"))
        case "ellipse": shape = .ellipse
        case "polygon":
            var points: [Point] = []
            for (index, element) in try fields.array("points").enumerated() {
                guard let xy = FieldReader.doubles(element, count: 2) else {
                    throw fields.fail("\"\(fields.context)points[\(index)]\" must be [x,y]")
                }
                points.append(Point(xy[0], xy[1]))
            }
            shape = .polygon(points)
        case let other:
            throw fields.fail(
                "field \"\(fields.context)shape\" has an unknown value \"\(Excerpt.of(other))\"")
        }
        var transform = ViewTransform()
        if fields.has("transform") {
            let values = fields.nested(try fields.objectField("transform"), context: "transform")
            transform = ViewTransform(
                rotationDegrees: try values.double("rotation"), scaleX: try values.double("scaleX"),
                scaleY: try values.double("scaleY"))
        }
        var children: [View] = []
        if fields.has("children") {
            for (index, element) in try fields.array("children").enumerated() {
                children.append(
                    try view(try fields.nested(element, context: "\(fields.context)children[\(index)]")))
            }
        }
        return View(
            id: try fields.string("id"),
            frame: Rect(x: frame[0], y: frame[1], width: frame[2], height: frame[3]),
            children: children, hidden: flags.contains("hidden"),
            alpha: fields.has("alpha") ? try fields.double("alpha") : 1,
            interactive: !flags.contains("nonInteractive"),
            touchMargin: EdgeMargin(top: margin[0], left: margin[1], bottom: margin[2], right: margin[3]),
            shape: shape, transform: transform, multipleTouch: flags.contains("multipleTouch"),
            exclusiveTouch: flags.contains("exclusiveTouch"))
    }
}
