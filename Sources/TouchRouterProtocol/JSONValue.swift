import Foundation

/// A free-form JSON value, for the `status` reply's counters (which the daemon fills as it likes).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// Finite only; a non-finite double is written as `0.0`.
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Written with its keys sorted, so output is deterministic.
    case object([String: JSONValue])

    /// Appends the value's JSON text.
    public func append(to buffer: inout [UInt8]) {
        switch self {
        case .null: JSONWriter.appendRaw("null", to: &buffer)
        case .bool(let flag):
            if flag { JSONWriter.appendRaw("true", to: &buffer) } else { JSONWriter.appendRaw("false", to: &buffer) }
        case .integer(let value): JSONWriter.appendInteger(value, to: &buffer)
        case .double(let value): JSONWriter.appendDouble(value, to: &buffer)
        case .string(let value): JSONWriter.appendString(value, to: &buffer)
        case .array(let values):
            buffer.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                value.append(to: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let fields):
            JSONObjectWriter.appendObject(to: &buffer) { object in
                for key in fields.keys.sorted() {
                    object.key(key)
                    fields[key]!.append(to: &object.buffer)
                }
            }
        }
    }

    /// Converts what JSONSerialization returned; nil for anything that is not JSON.
    init?(foundation value: Any) {
        switch value {
        case is NSNull: self = .null
        case let string as String: self = .string(string)
        case let array as [Any]:
            var values: [JSONValue] = []
            for element in array {
                guard let converted = JSONValue(foundation: element) else { return nil }
                values.append(converted)
            }
            self = .array(values)
        case let object as [String: Any]:
            var fields: [String: JSONValue] = [:]
            for (key, element) in object {
                guard let converted = JSONValue(foundation: element) else { return nil }
                fields[key] = converted
            }
            self = .object(fields)
        default:
            if JSONReading.isBoolean(value), let flag = value as? Bool {
                self = .bool(flag)
            } else if let number = value as? NSNumber, !Self.isFloatingPoint(number),
                let integer = FieldReader.integer(value, in: Int64.min...Int64.max)
            {
                self = .integer(integer)
            } else if let double = FieldReader.finiteDouble(value) {
                self = .double(double)
            } else {
                return nil
            }
        }
    }

    /// The number was written with a fraction or exponent (Foundation stores it as a double).
    private static func isFloatingPoint(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "d" || type == "f"
    }
}
