import TouchRouterModel

/// The view half of the config walk: each view and its subtree, its keys read in one pass (frames,
/// shapes, margins and transforms in ConfigGeometry.swift, access lists in ConfigAccessLists.swift).
extension ConfigParser {
    /// A view's members by key, found in one pass over the object (the first of a duplicate wins).
    /// It keeps each known key's position among the members, not a copy of its node: a view is
    /// read once per config or mount, and copying sixteen optional nodes cost more than reading
    /// the few a view has.
    private struct ViewMembers {
        /// The members, in file order.
        let members: [JSONMember]
        /// Per known key (`Key.rawValue`), the index of its first member, or -1 (a vector: no
        /// allocation; room for 32 keys).
        private var slots = SIMD32<Int32>(repeating: -1)
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
        if let passthroughNode = members[.passthrough], let settings = passthrough(passthroughNode, subject),
            let id = validID
        {
            passthroughByViewID[id] = settings
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

}
