import Foundation
import TouchRouterCore

/// Reading inbound JSON (rare: requests, and daemon lines in the client) through Foundation's
/// JSONDecoder into `JSONValue`, with every failure turned into a `ProtocolError`.
///
/// JSON5 is never enabled (Foundation's JSON5 path has trapped on invalid UTF-8), and bytes are
/// validated as UTF-8 before Foundation sees them. JSONDecoder rather than JSONSerialization:
/// on Linux the latter reads some doubles one ulp off.
enum JSONReading {
    /// Parses one line into its top-level object, or fails with `malformed-json`.
    static func object<Bytes: Collection>(
        fromLine line: Bytes
    ) throws(ProtocolError) -> [String: JSONValue] where Bytes.Element == UInt8 {
        guard String(validating: line, as: UTF8.self) != nil else {
            throw ProtocolError(code: .malformedJSON, message: "the line is not valid UTF-8")
        }
        let parsed: JSONValue
        do {
            parsed = try JSONDecoder().decode(JSONValue.self, from: Data(line))
        } catch {
            throw ProtocolError(code: .malformedJSON, message: "not valid JSON: \(reason(error))")
        }
        guard case .object(let object) = parsed else {
            throw ProtocolError(code: .malformedJSON, message: "a message must be a JSON object")
        }
        return object
    }

    /// The most specific text Foundation gives for a parse failure.
    private static func reason(_ error: any Error) -> String {
        guard case DecodingError.dataCorrupted(let context) = error else { return "\(error)" }
        if let underlying = context.underlyingError as NSError?,
            let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String
        {
            return detail
        }
        return context.debugDescription
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
