import TouchRouterModel

/// The view half of the config walk: views, their frames, shapes, margins, transforms and access lists.
extension ConfigParser {
    /// A view's members by key, found in one pass over the object (the first of a duplicate wins).
    /// It keeps each known key's position among the members, not a copy of its node: a view is
    /// read once per config or mount, and copying sixteen optional nodes cost more than reading
    /// the few a view has.
    private struct ViewMembers {
        /// The members, in file order.
        let members: [JSONMember]
        /// Per known key (`Key.rawValue`), the index of its first member, or -1 (a vector: no
        /// allocation).
        private var slots = SIMD16<Int32>(repeating: -1)
        /// Indices of the members with a key no view has.
        var unknownIndices: [Int] = []

        init(_ object: JSONObject) {
            members = object.members
            for (index, member) in members.enumerated() {
                // `viewKeys` is in `ViewKey` order, so the position found is the key's raw value.
                guard let slot = ConfigParser.viewKeys.firstIndex(of: member.key) else {
                    unknownIndices.append(index)
                    continue
                }
                if slots[slot] < 0 { slots[slot] = Int32(index) }
            }
        }

        /// The first member with this key's node (inlined: a view asks for every key, most absent).
        @inline(__always)
        subscript(_ key: ViewKey) -> JSONNode? {
            let index = slots[key.rawValue]
            return index < 0 ? nil : members[Int(index)].node
        }

        var unknown: [JSONMember] { unknownIndices.map { members[$0] } }
    }

    /// One view and its subtree. `above` is the product of the scales from the screen's root down to
    /// the parent (`GeometryBounds.composedScale` bounds it with this view's own).
    mutating func view(
        _ node: JSONNode, parent: Int32, placeholder: @autoclosure () -> String, depth: Int, defaultFrame: Rect?,
        above: ComposedScale
    ) -> View? {
        viewCount += 1
        let parentSubject = Subject(view: parent >= 0 ? parent : nil)
        if viewCount > limits.maxViews {
            let limit = limits.maxViews
            report(.tooManyViews, node.position, parentSubject, "more than \(limit) views")
            stopped = true
            return nil
        }
        guard let object = object(node, parentSubject, "a view") else { return nil }
        let members = ViewMembers(object)

        // The placeholder (`#3`) names a view without a usable id in messages; it is made only then.
        var named: String?
        var validID: String?
        if let idNode = members[.id], case .string(let id) = idNode.value {
            if Self.isValidID(id) {
                named = id
                validID = id
            } else if !id.isEmpty {
                named = id
            }
        }
        let segment = named ?? placeholder()
        // Messages quote at most an excerpt of each id; the view keeps its id whole.
        let entry = Int32(viewPaths.count)
        viewPaths.append(PathEntry(segment: Excerpt.of(segment), parent: parent))
        if parsesMountedSubtree { entryIDs.append(segment) }
        let subject = Subject(view: entry)
        if depth > limits.maxDepth {
            let limit = limits.maxDepth
            report(.treeTooDeep, node.position, subject, "views nest deeper than \(limit) levels")
            stopped = true
            return nil
        }

        if let idNode = members[.id] {
            switch idNode.value {
            case .string(let id):
                if validID == nil {
                    report(
                        .invalidID, idNode.position, subject,
                        "an id must be letters, digits, '-', '_' or '.', found \"\(Excerpt.of(id))\"")
                }
            default:
                wrongType(idNode, subject, "\"id\"", "a string")
            }
        } else {
            report(.missingKey, node.position, subject, "missing \"id\"")
        }
        if let id = validID {
            if let first = firstView(withID: id, entry) {
                let firstPath = keepsMoreProblems ? viewPath(first) : ""
                report(
                    .duplicateID, members[.id]?.position, subject,
                    "duplicate id \"\(Excerpt.of(id))\": already used by view \"\(firstPath)\"")
            }
        }
        if !members.unknownIndices.isEmpty {
            reportUnknownKeys(
                members.unknown, of: object, allowed: Self.viewKeys, reserved: Self.reservedViewKeys, subject)
        }

        var frame = defaultFrame ?? Rect(x: 0, y: 0, width: 1, height: 1)
        if let frameNode = members[.frame] {
            frame = self.frame(frameNode, subject) ?? frame
        } else if defaultFrame == nil {
            report(.missingKey, node.position, subject, "missing \"frame\" ([x, y, width, height])")
        }

        var alpha = 1.0
        if let alphaNode = members[.alpha], let value = finiteNumber(alphaNode, subject, "\"alpha\"") {
            if (0...1).contains(value) {
                alpha = value
            } else {
                report(
                    .alphaOutOfRange, alphaNode.position, subject, "alpha must be in 0…1, found \(Self.format(value))")
            }
        }
        let shape = members[.shape].flatMap { self.shape($0, subject) } ?? .rect
        var margin = EdgeMargin.zero
        if let marginNode = members[.touchMargin] {
            margin = touchMargin(marginNode, subject, shape: shape) ?? .zero
        }
        let transform = members[.transform].flatMap { self.transform($0, subject) }
        var composed = above.then(transform ?? ViewTransform())
        if !composed.isWithinBounds {
            report(
                .outOfRange, members[.transform]?.position ?? node.position, subject,
                "the scales from the screen's root down to this view multiply to ×\(Self.format(composed.largest))"
                    + " and ×\(Self.format(composed.smallest)), beyond \(GeometryBounds.composedScaleText)")
            composed = above  // reported once, here, not again for every view below
        }
        let hidden = members[.hidden].flatMap { bool($0, "hidden", subject) } ?? false
        let interactive = members[.interactive].flatMap { bool($0, "interactive", subject) } ?? true
        let multipleTouch = members[.multipleTouch].flatMap { bool($0, "multipleTouch", subject) } ?? false
        let exclusiveTouch = members[.exclusiveTouch].flatMap { bool($0, "exclusiveTouch", subject) } ?? false
        if let accessNode = members[.access], let list = accessList(accessNode, subject), let id = validID {
            accessByViewID[id] = list
        }
        if let gesturesNode = members[.gestures], let specs = gestureSpecs(gesturesNode, subject), let id = validID {
            if !specs.isEmpty { gesturesByViewID[id] = specs }
        }
        runtimeKeys(
            owner: members[.owner], mount: members[.mount], resetOnDisconnect: members[.resetOnDisconnect],
            entry: entry, parent: parent, viewID: validID, subject)

        var children: [View] = []
        if let childrenNode = members[.children] {
            if case .array(let list) = childrenNode.value {
                children.reserveCapacity(list.count)
                for (index, childNode) in list.enumerated() {
                    if stopped { break }
                    if let child = view(
                        childNode, parent: entry, placeholder: "#\(index)", depth: depth + 1, defaultFrame: nil,
                        above: composed)
                    {
                        children.append(child)
                    }
                }
            } else {
                wrongType(childrenNode, subject, "\"children\"", "an array of views")
            }
        }

        // Once anything is wrong the file is rejected, so stop building views and only keep checking.
        guard problemCount == 0 else { return nil }
        return View(
            id: segment, frame: frame, children: children, hidden: hidden, alpha: alpha, interactive: interactive,
            touchMargin: margin, shape: shape, transform: transform ?? ViewTransform(),
            multipleTouch: multipleTouch, exclusiveTouch: exclusiveTouch)
    }

    /// Records `entry` as the first view with `id`, or returns the entry of the view that was first.
    private mutating func firstView(withID id: String, _ entry: Int32) -> Int32? {
        guard let first = firstViewByID.updateValue(entry, forKey: id) else { return nil }
        firstViewByID[id] = first  // keep the first (a second lookup only for a duplicate)
        return first
    }

    /// `{users: ["kiosk", 1000], groups: ["touch"]}`: names or numeric ids, at least one entry.
    mutating func accessList(_ node: JSONNode, _ subject: Subject, key: String = "access") -> AccessList? {
        guard let object = object(node, subject, "\"\(key)\"") else { return nil }
        let problemsBefore = problemCount
        checkKeys(object, allowed: Self.accessKeys, subject)
        let listKey = key
        var list = AccessList()
        var valid = problemCount == problemsBefore
        for key in Self.accessKeys {
            guard let entries = object[key] else { continue }
            guard case .array(let elements) = entries.value else {
                wrongType(entries, subject, "\"\(listKey).\(key)\"", "an array of names or ids")
                valid = false
                continue
            }
            for (index, element) in elements.enumerated() {
                switch element.value {
                case .string(let name) where Self.isValidPrincipalName(name):
                    let principal = AccessList.Principal.name(name)
                    if key == "users" { list.users.append(principal) } else { list.groups.append(principal) }
                case .string(let name):
                    report(
                        .invalidValue, element.position, subject,
                        "\"\(Excerpt.of(name))\" is not a user or group name (letters, digits, '_', '.', '-'; not"
                            + " first a digit or '-'; at most 32)")
                    valid = false
                case .number(let number, _)
                where number == number.rounded() && number >= 0 && number < 4_294_967_295:
                    let principal = AccessList.Principal.id(UInt32(number))
                    if key == "users" { list.users.append(principal) } else { list.groups.append(principal) }
                case .number(let number, _):
                    report(
                        .invalidValue, element.position, subject,
                        "a numeric \(key == "users" ? "uid" : "gid") must be an integer in 0…4294967294, found"
                            + " \(Self.format(number))")
                    valid = false
                default:
                    wrongType(element, subject, "\"\(listKey).\(key)[\(index)]\"", "a name or a numeric id")
                    valid = false
                }
            }
        }
        if valid && list.users.isEmpty && list.groups.isEmpty {
            report(
                .invalidValue, node.position, subject,
                "an \(listKey) list must name at least one user or group (an empty one would admit only root)")
            return nil
        }
        return valid ? list : nil
    }

    /// A user or group name as `useradd` accepts them, conservatively.
    static func isValidPrincipalName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 32 else { return false }
        guard first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "_.-".unicodeScalars.contains($0)
        }
    }

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
