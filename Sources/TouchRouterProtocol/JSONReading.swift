import TouchRouterModel

/// Reading inbound JSON (requests on the daemon side, daemon lines in the client) with Core's
/// `JSONReader` in strict mode, into `JSONValue`, with every failure turned into a `ProtocolError`.
///
/// Strict RFC 8259 JSON: no comments, trailing commas, single quotes, `NaN`/`Infinity`, unescaped
/// control characters or duplicate keys; UTF-8 is validated as the line is read. Messages say what
/// is wrong and at which column, quoting at most `Excerpt.limit` characters of the line.
enum JSONReading {
    /// Parses one line into its top-level object, or fails with `malformed-json`. The error keeps
    /// the line's `seq` when one was readable before (or despite) the problem.
    static func object<Bytes: Collection>(
        fromLine line: Bytes
    ) throws(ProtocolError) -> [String: JSONValue] where Bytes.Element == UInt8 {
        fields(try nodeObject(fromLine: line))
    }

    /// `object(fromLine:)` before its members become values: the reader's top-level object.
    static func nodeObject<Bytes: Collection>(
        fromLine line: Bytes
    ) throws(ProtocolError) -> JSONObject where Bytes.Element == UInt8 {
        let read = JSONReader.read(line, syntax: .strictJSON)
        if let failure = read.failure {
            throw ProtocolError(
                code: .malformedJSON, message: describe(failure),
                seq: seq(in: JSONObject(members: read.partialTopLevelMembers)))
        }
        guard let root = read.root, case .object(let object) = root.value else {
            throw ProtocolError(code: .malformedJSON, message: "a message must be a JSON object")
        }
        if let problem = read.problems.first {
            throw ProtocolError(code: .malformedJSON, message: describe(problem), seq: seq(in: object))
        }
        return object
    }

    private static func describe(_ problem: JSONProblem) -> String {
        switch problem.kind {
        case .invalidUTF8: "the line is not valid UTF-8 (at byte \(problem.byteOffset))"
        case .syntax, .nestingTooDeep:
            "not valid JSON at column \(problem.position.column): \(problem.message)"
        case .duplicateKey, .nonFinite: "at column \(problem.position.column): \(problem.message)"
        }
    }

    /// The request's `seq`, if the object has a usable one (an integer in `ClientRequest.seqRange`).
    private static func seq(in object: JSONObject) -> Int64? {
        guard let node = object["seq"], case .number = node.value, let value = JSONValue(node).integerValue,
            ClientRequest.seqRange.contains(value)
        else { return nil }
        return value
    }

    /// The members as values; the member named `skipped` is left out (a `mount`'s subtree, which
    /// the layout worker reads as nodes).
    static func fields(_ object: JSONObject, skipping skipped: String? = nil) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        fields.reserveCapacity(object.count)
        for member in object.members where member.key != skipped { fields[member.key] = JSONValue(member.node) }
        return fields
    }
}

extension JSONValue {
    /// The protocol's value for a reader's node (a request line's, or a JSON5 file's for
    /// touchrouterctl). Recursion is bounded by the reader's nesting cap (512).
    public init(_ node: JSONNode) {
        switch node.value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let number, let integer): self = integer.map(JSONValue.integer) ?? .double(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(JSONValue.init))
        case .object(let object): self = .object(JSONReading.fields(object))
        }
    }
}
/// Typed access to one JSON object's fields; each accessor fails with `invalid-message` naming the
/// field, and carries the request's `seq` once it is known.
struct FieldReader {
    let object: [String: JSONValue]
    /// Prefixed to field names in messages, e.g. `touches[2].` for nested objects.
    var context: String = ""
    var seq: Int64?

    /// The field is present and not `null`.
    func has(_ key: String) -> Bool {
        guard let value = object[key] else { return false }
        return value != .null
    }

    func fail(_ message: String) -> ProtocolError {
        ProtocolError(code: .invalidMessage, message: message, seq: seq)
    }

    private func required(_ key: String) throws(ProtocolError) -> JSONValue {
        guard let value = object[key], value != .null else {
            throw fail("missing field \"\(context)\(key)\"")
        }
        return value
    }

    func string(_ key: String) throws(ProtocolError) -> String {
        guard case .string(let value) = try required(key) else {
            throw fail("field \"\(context)\(key)\" must be a string")
        }
        return value
    }

    func optionalString(_ key: String) throws(ProtocolError) -> String? {
        has(key) ? try string(key) : nil
    }

    func bool(_ key: String) throws(ProtocolError) -> Bool {
        guard case .bool(let flag) = try required(key) else {
            throw fail("field \"\(context)\(key)\" must be true or false")
        }
        return flag
    }

    func optionalBool(_ key: String) throws(ProtocolError) -> Bool? {
        has(key) ? try bool(key) : nil
    }

    /// An integer in `range` (a JSON number with no fraction, e.g. `3` or `3.0`).
    func integer(_ key: String, in range: ClosedRange<Int64>) throws(ProtocolError) -> Int64 {
        guard let value = try required(key).integerValue, range.contains(value) else {
            throw fail(
                "field \"\(context)\(key)\" must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    func optionalInteger(_ key: String, in range: ClosedRange<Int64>) throws(ProtocolError) -> Int64? {
        has(key) ? try integer(key, in: range) : nil
    }

    func double(_ key: String) throws(ProtocolError) -> Double {
        guard let value = try required(key).doubleValue, value.isFinite else {
            throw fail("field \"\(context)\(key)\" must be a finite number")
        }
        return value
    }

    /// An array of exactly `count` finite numbers.
    func doubles(_ key: String, count: Int) throws(ProtocolError) -> [Double] {
        guard let values = Self.doubles(try required(key), count: count) else {
            throw fail("field \"\(context)\(key)\" must be an array of \(count) finite numbers")
        }
        return values
    }

    static func doubles(_ value: JSONValue, count: Int) -> [Double]? {
        guard case .array(let elements) = value, elements.count == count else { return nil }
        let values = elements.compactMap(\.doubleValue).filter(\.isFinite)
        return values.count == count ? values : nil
    }

    /// `[x, y]`, both finite.
    func point(_ key: String) throws(ProtocolError) -> Point {
        let xy = try doubles(key, count: 2)
        return Point(xy[0], xy[1])
    }

    func optionalPoint(_ key: String) throws(ProtocolError) -> Point? {
        has(key) ? try point(key) : nil
    }

    func stringArray(_ key: String) throws(ProtocolError) -> [String] {
        guard case .array(let elements) = try required(key) else {
            throw fail("field \"\(context)\(key)\" must be an array of strings")
        }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let string) = element else {
                throw fail("field \"\(context)\(key)\" must be an array of strings")
            }
            strings.append(string)
        }
        return strings
    }

    func array(_ key: String) throws(ProtocolError) -> [JSONValue] {
        guard case .array(let elements) = try required(key) else {
            throw fail("field \"\(context)\(key)\" must be an array")
        }
        return elements
    }

    func objectField(_ key: String) throws(ProtocolError) -> [String: JSONValue] {
        guard case .object(let object) = try required(key) else {
            throw fail("field \"\(context)\(key)\" must be an object")
        }
        return object
    }

    /// A reader for a nested object, failing with this reader's `seq`.
    func nested(_ value: JSONValue, context: String) throws(ProtocolError) -> FieldReader {
        guard case .object(let object) = value else {
            throw fail("\"\(context)\" must be an object")
        }
        return FieldReader(object: object, context: context + ".", seq: seq)
    }

    func nested(_ object: [String: JSONValue], context: String) -> FieldReader {
        FieldReader(object: object, context: context + ".", seq: seq)
    }
}
