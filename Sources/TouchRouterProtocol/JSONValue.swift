/// A JSON value: what inbound lines are parsed into, and the free-form values of the `status`
/// reply's counters.
///
/// Not the reader's `JSONParsedValue`, on purpose: that one is a parse tree (members in file order,
/// every node with its line:column, numbers as read) for config errors that point into a file; this
/// one is a value to look fields up in and to write. `JSONReading.value(_:)` is the one bridge.
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits Int64.
    case integer(Int64)
    /// Any other number. Finite only; a non-finite double is written as `null`, never as a number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// Written with its keys sorted, so output is deterministic.
    case object([String: JSONValue])

    /// Appends the value's JSON text.
    public func append(to buffer: inout [UInt8]) {
        switch self {
        case .null: JSONWriter.appendRaw("null", to: &buffer)
        case .bool(let flag):
            if flag {
                JSONWriter.appendRaw("true", to: &buffer)
            } else {
                JSONWriter.appendRaw("false", to: &buffer)
            }
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
                    object.key(escaping: key)
                    fields[key]!.append(to: &object.buffer)
                }
            }
        }
    }

    /// The value as an exact integer, when it is a number with no fraction.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .double(let value): value.isFinite && value.rounded() == value ? Int64(exactly: value) : nil
        default: nil
        }
    }

    /// The value as a double, when it is a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}
