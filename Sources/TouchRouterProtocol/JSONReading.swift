import Foundation
import TouchRouterCore

/// Reading inbound JSON (rare: requests, and daemon lines in the client) through Foundation's
/// JSONSerialization, with every failure turned into a `ProtocolError`.
///
/// JSON5 is never enabled (Foundation's JSON5 path has trapped on invalid UTF-8), and bytes are
/// validated as UTF-8 before Foundation sees them.
enum JSONReading {
    /// Parses one line into its top-level object, or fails with `malformed-json`.
    static func object<Bytes: Collection>(
        fromLine line: Bytes
    ) throws(ProtocolError) -> [String: Any] where Bytes.Element == UInt8 {
        guard String(validating: line, as: UTF8.self) != nil else {
            throw ProtocolError(code: .malformedJSON, message: "the line is not valid UTF-8")
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(line), options: [])
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw ProtocolError(
                code: .malformedJSON, message: "not valid JSON" + (reason.map { ": \($0)" } ?? ""))
        }
        guard let object = parsed as? [String: Any] else {
            throw ProtocolError(code: .malformedJSON, message: "a message must be a JSON object")
        }
        return object
    }

    private static let booleanType = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// The value is a JSON `true`/`false` (Foundation hands both booleans and numbers over as
    /// NSNumber; only the concrete class tells them apart).
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return ObjectIdentifier(type(of: number)) == booleanType
    }
}

/// Typed access to one JSON object's fields; each accessor fails with `invalid-message` naming the
/// field, and carries the request's `seq` once it is known.
struct FieldReader {
    let object: [String: Any]
    /// Prefixed to field names in messages, e.g. `touches[2].` for nested objects.
    var context: String = ""
    var seq: Int64?

    func has(_ key: String) -> Bool {
        guard let value = object[key] else { return false }
        return !(value is NSNull)
    }

    func fail(_ message: String) -> ProtocolError {
        ProtocolError(code: .invalidMessage, message: message, seq: seq)
    }

    private func required(_ key: String) throws(ProtocolError) -> Any {
        guard let value = object[key], !(value is NSNull) else {
            throw fail("missing field \"\(context)\(key)\"")
        }
        return value
    }

    func string(_ key: String) throws(ProtocolError) -> String {
        guard let value = try required(key) as? String else {
            throw fail("field \"\(context)\(key)\" must be a string")
        }
        return value
    }

    func optionalString(_ key: String) throws(ProtocolError) -> String? {
        has(key) ? try string(key) : nil
    }

    func bool(_ key: String) throws(ProtocolError) -> Bool {
        let value = try required(key)
        guard JSONReading.isBoolean(value), let flag = value as? Bool else {
            throw fail("field \"\(context)\(key)\" must be true or false")
        }
        return flag
    }

    func optionalBool(_ key: String) throws(ProtocolError) -> Bool? {
        has(key) ? try bool(key) : nil
    }

    /// An integer in `range` (a JSON number with no fraction, e.g. `3` or `3.0`).
    func integer(_ key: String, in range: ClosedRange<Int64>) throws(ProtocolError) -> Int64 {
        guard let value = Self.integer(try required(key), in: range) else {
            throw fail(
                "field \"\(context)\(key)\" must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    func optionalInteger(_ key: String, in range: ClosedRange<Int64>) throws(ProtocolError) -> Int64? {
        has(key) ? try integer(key, in: range) : nil
    }

    static func integer(_ value: Any, in range: ClosedRange<Int64>) -> Int64? {
        guard !JSONReading.isBoolean(value), let number = value as? NSNumber else { return nil }
        if let exact = number as? Int64 { return range.contains(exact) ? exact : nil }
        let double = number.doubleValue
        guard double.isFinite, double.rounded() == double, let exact = Int64(exactly: double) else {
            return nil
        }
        return range.contains(exact) ? exact : nil
    }

    static func finiteDouble(_ value: Any) -> Double? {
        guard !JSONReading.isBoolean(value), let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        return double.isFinite ? double : nil
    }

    func double(_ key: String) throws(ProtocolError) -> Double {
        guard let value = Self.finiteDouble(try required(key)) else {
            throw fail("field \"\(context)\(key)\" must be a finite number")
        }
        return value
    }

    func doubles(_ key: String, count: Int) throws(ProtocolError) -> [Double] {
        let array = try required(key) as? [Any]
        let values = array?.compactMap(Self.finiteDouble) ?? []
        guard let array, array.count == count, values.count == count else {
            throw fail("field \"\(context)\(key)\" must be an array of \(count) finite numbers")
        }
        return values
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
        guard let array = try required(key) as? [Any] else {
            throw fail("field \"\(context)\(key)\" must be an array of strings")
        }
        var strings: [String] = []
        strings.reserveCapacity(array.count)
        for element in array {
            guard let string = element as? String else {
                throw fail("field \"\(context)\(key)\" must be an array of strings")
            }
            strings.append(string)
        }
        return strings
    }

    func array(_ key: String) throws(ProtocolError) -> [Any] {
        guard let array = try required(key) as? [Any] else {
            throw fail("field \"\(context)\(key)\" must be an array")
        }
        return array
    }

    func objectField(_ key: String) throws(ProtocolError) -> [String: Any] {
        guard let object = try required(key) as? [String: Any] else {
            throw fail("field \"\(context)\(key)\" must be an object")
        }
        return object
    }

    /// A reader for a nested object, failing with this reader's `seq`.
    func nested(_ value: Any, context: String) throws(ProtocolError) -> FieldReader {
        guard let object = value as? [String: Any] else {
            throw fail("\"\(context)\" must be an object")
        }
        return FieldReader(object: object, context: context + ".", seq: seq)
    }
}
