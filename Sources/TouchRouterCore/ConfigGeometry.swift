import TouchRouterModel

/// The config walk's view geometry: frames, shapes, touch margins and transforms.
extension ConfigParser {

    private mutating func numbers(
        _ node: JSONNode, count: Int, _ subject: Subject, _ what: String, _ expected: String
    ) -> [Double]? {
        guard case .array(let list) = node.value, list.count == count else {
            if case .array(let list) = node.value {
                report(
                    .wrongType, node.position, subject,
                    "\(what) must be \(expected), found \(list.count) values")
            } else {
                wrongType(node, subject, what, expected)
            }
            return nil
        }
        var result: [Double] = []
        result.reserveCapacity(count)
        for (index, element) in list.enumerated() {
            if let number = finiteNumber(element, subject, "\(what)[\(index)]") { result.append(number) }
        }
        return result.count == count ? result : nil
    }

    mutating func frame(_ node: JSONNode, _ subject: Subject) -> Rect? {
        // The common case, without building an array: four finite numbers, positive size.
        if case .array(let list) = node.value, list.count == 4, case .number(let x, _) = list[0].value,
            case .number(let y, _) = list[1].value, case .number(let width, _) = list[2].value,
            case .number(let height, _) = list[3].value, GeometryBounds.isCoordinate(x),
            GeometryBounds.isCoordinate(y), GeometryBounds.isCoordinate(width), GeometryBounds.isCoordinate(height),
            width > 0, height > 0
        {
            return Rect(x: x, y: y, width: width, height: height)
        }
        guard let values = numbers(node, count: 4, subject, "\"frame\"", "[x, y, width, height]") else {
            return nil
        }
        var valid = true
        if case .array(let list) = node.value {
            for (index, name) in ["x", "y", "width", "height"].enumerated()
            where !checkCoordinate(values[index], list[index], subject, "the frame's \(name)") {
                valid = false
            }
        }
        for (index, name) in [(2, "width"), (3, "height")] where values[index] <= 0 {
            if case .array(let list) = node.value {
                report(
                    .nonPositiveSize, list[index].position, subject,
                    "\(name) must be > 0, found \(Self.format(values[index]))")
            }
            valid = false
        }
        return valid ? Rect(x: values[0], y: values[1], width: values[2], height: values[3]) : nil
    }

    mutating func shape(_ node: JSONNode, _ subject: Subject) -> Shape? {
        let expected = "\"rect\", \"ellipse\", {\"roundedRect\": radius} or {\"polygon\": [[x, y], …]}"
        switch node.value {
        case .string("rect"): return .rect
        case .string("ellipse"): return .ellipse
        case .string(let name):
            var message = "unknown shape \"\(Excerpt.of(name))\""
            if let suggestion = NearMiss.suggestion(for: name, among: Self.shapeNames + Self.shapeObjectKeys) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            report(.invalidValue, node.position, subject, message + "; a shape is \(expected)")
            return nil
        case .object(let object):
            guard object.count == 1, let member = object.members.first else {
                report(
                    .invalidValue, node.position, subject,
                    "a shape object must have exactly one key: \(expected)")
                return nil
            }
            let inner = member.node
            switch member.key {
            case "roundedRect":
                guard let radius = finiteNumber(inner, subject, "the corner radius") else { return nil }
                guard radius >= 0 else {
                    report(
                        .invalidValue, inner.position, subject,
                        "the corner radius must be ≥ 0, found \(Self.format(radius))")
                    return nil
                }
                guard checkCoordinate(radius, inner, subject, "the corner radius") else { return nil }
                return .roundedRect(radius: radius)
            case "polygon":
                guard case .array(let list) = inner.value else {
                    wrongType(inner, subject, "\"polygon\"", "an array of [x, y] points")
                    return nil
                }
                var points: [Point] = []
                for pointNode in list {
                    if let xy = numbers(pointNode, count: 2, subject, "a polygon point", "[x, y]"),
                        checkCoordinate(xy[0], pointNode, subject, "a polygon point's x"),
                        checkCoordinate(xy[1], pointNode, subject, "a polygon point's y")
                    {
                        points.append(Point(xy[0], xy[1]))
                    }
                }
                guard list.count >= 3 else {
                    report(
                        .polygonTooFewPoints, inner.position, subject,
                        "a polygon needs at least 3 points, found \(list.count)")
                    return nil
                }
                return points.count == list.count ? .polygon(points) : nil
            default:
                checkKeys(object, allowed: Self.shapeObjectKeys, subject)
                return nil
            }
        default:
            wrongType(node, subject, "\"shape\"", expected)
            return nil
        }
    }

    mutating func touchMargin(_ node: JSONNode, _ subject: Subject, shape: Shape) -> EdgeMargin? {
        switch node.value {
        case .number:
            guard let margin = finiteNumber(node, subject, "\"touchMargin\"") else { return nil }
            guard margin >= 0 else {
                report(
                    .negativeMargin, node.position, subject,
                    "touchMargin must be ≥ 0, found \(Self.format(margin))")
                return nil
            }
            guard checkCoordinate(margin, node, subject, "touchMargin") else { return nil }
            return EdgeMargin(all: margin)
        case .object(let object):
            if shape != .rect {
                report(
                    .perEdgeMarginOnShape, node.position, subject,
                    "a shaped view takes a single touchMargin number; {top, left, bottom, right} is for rectangles only"
                )
            }
            checkKeys(object, allowed: Self.marginKeys, subject)
            var edges: [Double] = []
            for key in Self.marginKeys {
                let edge = number(object, key, subject) ?? 0
                if edge < 0 {
                    report(
                        .negativeMargin, object[key]?.position, subject,
                        "touchMargin \(key) must be ≥ 0, found \(Self.format(edge))")
                } else if let edgeNode = object[key], !checkCoordinate(edge, edgeNode, subject, "touchMargin \(key)") {
                    edges.append(0)
                    continue
                }
                edges.append(max(0, edge))
            }
            return EdgeMargin(top: edges[0], left: edges[1], bottom: edges[2], right: edges[3])
        default:
            wrongType(node, subject, "\"touchMargin\"", "a number or {top, left, bottom, right}")
            return nil
        }
    }

    mutating func transform(_ node: JSONNode, _ subject: Subject) -> ViewTransform? {
        guard let object = object(node, subject, "\"transform\"") else { return nil }
        checkKeys(object, allowed: Self.transformKeys, subject)
        var transform = ViewTransform()
        if let degrees = number(object, "rotate", subject) {
            if abs(degrees) <= GeometryBounds.maxRotationDegrees {
                transform.rotationDegrees = degrees
            } else {
                report(
                    .outOfRange, object["rotate"]?.position, subject,
                    "rotate must be within ±\(Self.format(GeometryBounds.maxRotationDegrees)) degrees, found"
                        + " \(Self.format(degrees))")
            }
        }
        if let scaleNode = object["scale"] {
            let scales: [Double]?
            switch scaleNode.value {
            case .array:
                scales = numbers(scaleNode, count: 2, subject, "\"scale\"", "a number or [sx, sy]")
            case .number:
                scales = finiteNumber(scaleNode, subject, "\"scale\"").map { [$0, $0] }
            default:
                wrongType(scaleNode, subject, "\"scale\"", "a number or [sx, sy]")
                scales = nil
            }
            if let scales {
                let bounds = GeometryBounds.scale
                if scales.contains(0) {
                    report(
                        .zeroScale, scaleNode.position, subject, "scale must not be 0 (the view would vanish)"
                    )
                } else if let outside = scales.first(where: { !bounds.contains(abs($0)) }) {
                    report(
                        .outOfRange, scaleNode.position, subject,
                        "scale must be within \(Self.format(bounds.lowerBound))…\(Self.format(bounds.upperBound))"
                            + " in magnitude, found \(Self.format(outside))")
                } else {
                    transform.scaleX = scales[0]
                    transform.scaleY = scales[1]
                }
            }
        }
        return transform
    }
}
