import TouchRouterModel

/// How the config walk reports: problems located by a node and owned by a subject, unknown and
/// reserved keys with their near misses, and the typed field readers (object, number, bool,
/// string) that report a wrong type or a non-finite number instead of failing.
extension ConfigParser {
    /// Counts a problem, and keeps it while fewer than `limits.maxReportedErrors` are kept: past
    /// that, a broken file's errors cost a count, not a message each (the message and the view's
    /// path are made only for a problem kept).
    mutating func report(
        _ code: ConfigErrorCode, _ position: SourcePosition?, _ subject: Subject,
        _ message: @autoclosure () -> String
    ) {
        problemCount += 1
        guard keepsMoreProblems else { return }
        let text = message()
        pending.append(
            Pending(
                code: code, position: position, viewPath: subject.view.map(viewPath),
                screenName: subject.screenName,
                message: subject.matcher.map { "devices[\($0)]: " + text } ?? text))
    }

    /// Whether another problem would be kept (else it is only counted).
    var keepsMoreProblems: Bool { pending.count < limits.maxReportedErrors }

    /// The path of a view entry: ids from the screen's root joined by `/`, the middle cut out when
    /// it is longer than 240 characters.
    func viewPath(_ entry: Int32) -> String {
        var segments: [String] = []
        var index = entry
        while index >= 0 {
            segments.append(viewPaths[Int(index)].segment)
            index = viewPaths[Int(index)].parent
        }
        let path = segments.reversed().joined(separator: "/")
        // Deep paths of long ids: keep the screen's end and the view's end.
        guard path.utf8.count > 240, path.unicodeScalars.count > 240 else { return path }
        let scalars = Array(path.unicodeScalars)
        return String(String.UnicodeScalarView(scalars[..<80])) + "…"
            + String(String.UnicodeScalarView(scalars[(scalars.count - 159)...]))
    }

    /// Reports unknown and reserved keys, with a "did you mean" for a near miss.
    mutating func checkKeys(
        _ object: JSONObject, allowed: [String], reserved: [String] = [], _ subject: Subject
    ) {
        reportUnknownKeys(
            object.members.lazy.filter { !allowed.contains($0.key) }, of: object,
            allowed: allowed, reserved: reserved, subject)
    }

    /// Reports these members (whose keys are not in `allowed`) as unknown or reserved keys.
    mutating func reportUnknownKeys<Members: Sequence<JSONMember>>(
        _ unknown: Members, of object: JSONObject, allowed: [String], reserved: [String] = [],
        _ subject: Subject
    ) {
        var seen: Set<String> = []
        for member in unknown {
            // A duplicate key is reported by the reader; its unknown-key error once is enough.
            if object.hasDuplicateKeys && !seen.insert(member.key).inserted { continue }
            let key = member.key
            if reserved.contains(key) {
                report(
                    .reservedKey, member.node.position, subject,
                    "\"\(key)\" is reserved for a later version and not supported yet")
                continue
            }
            var message = "unknown key \"\(Excerpt.of(key))\""
            if let suggestion = NearMiss.suggestion(for: key, among: allowed) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            report(.unknownKey, member.node.position, subject, message)
        }
    }

    mutating func wrongType(_ node: JSONNode, _ subject: Subject, _ what: String, _ expected: String) {
        report(
            .wrongType, node.position, subject, "\(what) must be \(expected), found \(node.value.typeName)")
    }

    mutating func object(_ node: JSONNode, _ subject: Subject, _ what: String) -> JSONObject? {
        guard case .object(let object) = node.value else {
            wrongType(node, subject, what, "an object")
            return nil
        }
        return object
    }

    mutating func finiteNumber(_ node: JSONNode, _ subject: Subject, _ what: String) -> Double? {
        guard case .number(let number, _) = node.value else {
            wrongType(node, subject, what, "a number")
            return nil
        }
        guard number.isFinite else {
            report(.nonFinite, node.position, subject, "\(what) must be a finite number")
            return nil
        }
        return number
    }

    mutating func number(_ object: JSONObject, _ key: String, _ subject: Subject) -> Double? {
        guard let node = object[key] else { return nil }
        return finiteNumber(node, subject, "\"\(key)\"")
    }

    /// Reports a coordinate or length beyond ±`GeometryBounds.maxCoordinate` (`outOfRange`);
    /// returns whether it is within.
    mutating func checkCoordinate(
        _ value: Double, _ node: JSONNode, _ subject: Subject, _ what: @autoclosure () -> String
    ) -> Bool {
        guard !GeometryBounds.isCoordinate(value) else { return true }
        report(
            .outOfRange, node.position, subject,
            "\(what()) must be within ±\(Self.format(GeometryBounds.maxCoordinate)), found \(Self.format(value))")
        return false
    }

    mutating func bool(_ object: JSONObject, _ key: String, _ subject: Subject) -> Bool? {
        object[key].flatMap { bool($0, key, subject) }
    }

    mutating func bool(_ node: JSONNode, _ key: String, _ subject: Subject) -> Bool? {
        guard case .bool(let flag) = node.value else {
            wrongType(node, subject, "\"\(key)\"", "true or false")
            return nil
        }
        return flag
    }

    mutating func string(_ object: JSONObject, _ key: String, _ subject: Subject) -> String? {
        guard let node = object[key] else { return nil }
        guard case .string(let text) = node.value else {
            wrongType(node, subject, "\"\(key)\"", "a string")
            return nil
        }
        return text
    }

    /// Letters, digits, `-`, `_`, `.`; not empty.
    static func isValidID(_ id: String) -> Bool {
        // The bytes in place when the string has them so (a native or small string: every id the
        // reader makes), else one by one.
        id.utf8.withContiguousStorageIfAvailable { !$0.isEmpty && $0.allSatisfy(isIDByte) }
            ?? (!id.isEmpty && id.utf8.allSatisfy(isIDByte))
    }

    /// A byte an id may have: a letter, a digit, `-`, `_` or `.`.
    private static func isIDByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
    }
}
