/// A view's `gestures: [...]` (docs/gestures.md): strings naming a kind with its defaults, or
/// objects `{type: …, …overrides}`. Every problem is a config error like any other.
extension ConfigParser {
    static let gestureCommonKeys = ["type", "cancelsTouches", "exclusive"]

    /// The keys each kind takes besides `type`, `cancelsTouches` and `exclusive`.
    static func gestureKeys(_ kind: GestureKind) -> [String] {
        switch kind {
        case .tap: ["taps", "fingers", "movement", "interval"]
        case .longPress: ["fingers", "movement", "duration"]
        case .pan: ["minimumFingers", "maximumFingers", "distance"]
        case .swipe: ["direction", "fingers", "distance", "maximumDuration"]
        case .pinch: ["distance"]
        case .rotate: ["angle"]
        }
    }

    /// Reads `gestures`; nil when anything in it is wrong (every problem reported).
    mutating func gestureSpecs(_ node: JSONNode, _ subject: Subject) -> [GestureSpec]? {
        guard case .array(let list) = node.value else {
            wrongType(node, subject, "\"gestures\"", "an array of gesture kinds or objects")
            return nil
        }
        if list.count > GestureDefaults.recognisersPerView {
            report(
                .invalidValue, node.position, subject,
                "a view may have at most \(GestureDefaults.recognisersPerView) gestures, found \(list.count)")
            return nil
        }
        let before = problemCount
        var specs: [GestureSpec] = []
        for element in list {
            guard let spec = gestureSpec(element, subject) else { continue }
            if specs.contains(spec) {
                report(.invalidValue, element.position, subject, "the same \(spec.kind.rawValue) gesture twice")
            }
            specs.append(spec)
        }
        return problemCount == before ? specs : nil
    }

    private mutating func gestureKind(_ text: String, _ node: JSONNode, _ subject: Subject) -> GestureKind? {
        if let kind = GestureKind(rawValue: text) { return kind }
        var message = "unknown gesture \"\(Excerpt.of(text))\""
        if let suggestion = NearMiss.suggestion(for: text, among: GestureKind.allCases.map(\.rawValue)) {
            message += " (did you mean \"\(suggestion)\"?)"
        } else {
            message += "; the kinds are " + GestureKind.allCases.map(\.rawValue).joined(separator: ", ")
        }
        report(.invalidValue, node.position, subject, message)
        return nil
    }

    private mutating func gestureSpec(_ node: JSONNode, _ subject: Subject) -> GestureSpec? {
        switch node.value {
        case .string(let text):
            return gestureKind(text, node, subject).map(GestureSpec.init)
        case .object(let object):
            guard let typeNode = object["type"] else {
                report(.missingKey, node.position, subject, "a gesture object needs \"type\"")
                return nil
            }
            guard case .string(let text) = typeNode.value else {
                wrongType(typeNode, subject, "a gesture's \"type\"", "a string")
                return nil
            }
            guard let kind = gestureKind(text, typeNode, subject) else { return nil }
            checkKeys(object, allowed: Self.gestureCommonKeys + Self.gestureKeys(kind), subject)
            var spec = GestureSpec(kind)
            readGestureOverrides(object, into: &spec, subject)
            return spec
        default:
            wrongType(node, subject, "a gesture", "a kind name or an object with \"type\"")
            return nil
        }
    }

    private mutating func readGestureOverrides(_ object: JSONObject, into spec: inout GestureSpec, _ subject: Subject) {
        let limit = GestureDefaults.fingerLimit
        let kind = spec.kind.rawValue
        if let value = bool(object, "cancelsTouches", subject) { spec.cancelsTouches = value }
        if let value = bool(object, "exclusive", subject) { spec.exclusive = value }
        if let value = count(object, "taps", 1...GestureDefaults.tapLimit, kind, subject) { spec.taps = value }
        if let value = count(object, "fingers", 1...limit, kind, subject) { spec.fingers = value }
        if let value = count(object, "minimumFingers", 1...limit, kind, subject) { spec.minimumFingers = value }
        if let value = count(object, "maximumFingers", 1...limit, kind, subject) { spec.maximumFingers = value }
        if spec.minimumFingers > spec.maximumFingers {
            report(
                .invalidValue, object["minimumFingers"]?.position ?? object["maximumFingers"]?.position, subject,
                "a pan's minimumFingers (\(spec.minimumFingers)) must not exceed maximumFingers (\(spec.maximumFingers))"
            )
        }
        if let value = measure(object, "movement", "mm", kind, subject) { spec.movementMM = value }
        if let value = measure(object, "distance", "mm", kind, subject) { spec.distanceMM = value }
        if let value = measure(object, "angle", "degrees", kind, subject) {
            if value < 180 {
                spec.angleDegrees = value
            } else {
                report(
                    .invalidValue, object["angle"]?.position, subject,
                    "a rotate's \"angle\" must be below 180 degrees, found \(Self.format(value))")
            }
        }
        if let value = milliseconds(object, "interval", kind, subject) { spec.intervalMicros = value }
        if let value = milliseconds(object, "duration", kind, subject) { spec.durationMicros = value }
        if let value = milliseconds(object, "maximumDuration", kind, subject) { spec.maximumDurationMicros = value }
        if let directionNode = object["direction"], let directions = swipeDirections(directionNode, subject) {
            spec.directions = directions
        }
    }

    /// A whole number in `range`.
    private mutating func count(
        _ object: JSONObject, _ key: String, _ range: ClosedRange<Int>, _ kind: String, _ subject: Subject
    ) -> Int? {
        guard let value = number(object, key, subject) else { return nil }
        guard value == value.rounded(), Double(range.lowerBound) <= value, value <= Double(range.upperBound) else {
            report(
                .invalidValue, object[key]?.position, subject,
                "a \(kind)'s \"\(key)\" must be a whole number in \(range.lowerBound)…\(range.upperBound), "
                    + "found \(Self.format(value))")
            return nil
        }
        return Int(value)
    }

    /// A length or angle > 0 (and below a million, so no threshold overflows arithmetic).
    private mutating func measure(
        _ object: JSONObject, _ key: String, _ unit: String, _ kind: String, _ subject: Subject
    ) -> Double? {
        guard let value = number(object, key, subject) else { return nil }
        guard value > 0, value < 1_000_000 else {
            report(
                .invalidValue, object[key]?.position, subject,
                "a \(kind)'s \"\(key)\" must be > 0 \(unit) (and below 1000000), found \(Self.format(value))")
            return nil
        }
        return value
    }

    /// A time in milliseconds > 0 and at most an hour, as microseconds.
    private mutating func milliseconds(
        _ object: JSONObject, _ key: String, _ kind: String, _ subject: Subject
    ) -> UInt64? {
        guard let value = number(object, key, subject) else { return nil }
        guard value > 0, value <= 3_600_000 else {
            report(
                .invalidValue, object[key]?.position, subject,
                "a \(kind)'s \"\(key)\" must be > 0 ms and at most 3600000 (an hour), found \(Self.format(value))")
            return nil
        }
        return UInt64((value * 1000).rounded())
    }

    /// `"left"` or `["left", "up"]`.
    private mutating func swipeDirections(_ node: JSONNode, _ subject: Subject) -> SwipeDirections? {
        var names: [JSONNode] = []
        switch node.value {
        case .string: names = [node]
        case .array(let list) where !list.isEmpty: names = list
        default:
            wrongType(node, subject, "a swipe's \"direction\"", "a direction or a non-empty array of them")
            return nil
        }
        var directions: SwipeDirections = []
        for name in names {
            guard case .string(let text) = name.value, let direction = SwipeDirection(rawValue: text) else {
                var found = Self.summary(name.value)
                if case .string(let text) = name.value { found = "\"\(Excerpt.of(text))\"" }
                report(
                    .invalidValue, name.position, subject,
                    "a swipe's \"direction\" must be \"left\", \"right\", \"up\" or \"down\", found \(found)")
                return nil
            }
            directions.insert(direction)
        }
        return directions
    }
}
