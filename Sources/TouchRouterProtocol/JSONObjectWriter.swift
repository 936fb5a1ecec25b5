import TouchRouterModel

/// Writes one JSON object field by field (replies and requests: not the hot path, but still
/// straight to bytes, in a fixed field order so lines read well in `socat`).
struct JSONObjectWriter {
    var buffer: [UInt8]
    private var needsComma = false

    private init(buffer: [UInt8]) {
        self.buffer = buffer
    }

    /// Appends `{…}` (filled by `body`) and a newline to `buffer`.
    static func appendLine(to buffer: inout [UInt8], _ body: (inout JSONObjectWriter) -> Void) {
        appendObject(to: &buffer, body)
        buffer.append(UInt8(ascii: "\n"))
    }

    /// Appends `{…}` filled by `body` to `buffer`.
    static func appendObject(to buffer: inout [UInt8], _ body: (inout JSONObjectWriter) -> Void) {
        var writer = JSONObjectWriter(buffer: [])
        swap(&writer.buffer, &buffer)
        writer.buffer.append(UInt8(ascii: "{"))
        body(&writer)
        writer.buffer.append(UInt8(ascii: "}"))
        swap(&writer.buffer, &buffer)
    }

    /// Writes `,"name":` (the comma only after the first field). A field's name is a literal of
    /// the protocol, plain ASCII needing no escapes: copied as it is. (Escaping a `String` name
    /// cost about 500 instructions a key, half of a `gesture` line's encoding, measured with
    /// callgrind.)
    mutating func key(_ name: StaticString) {
        if needsComma { buffer.append(UInt8(ascii: ",")) }
        needsComma = true
        buffer.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { buffer.append(contentsOf: $0) }
        buffer.append(UInt8(ascii: "\""))
        buffer.append(UInt8(ascii: ":"))
    }

    /// Writes `,"name":` for a name that is data (an object's keys in a free JSON value), escaped.
    mutating func key(escaping name: String) {
        if needsComma { buffer.append(UInt8(ascii: ",")) }
        needsComma = true
        JSONWriter.appendString(name, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
    }

    mutating func field(_ name: StaticString, string: String) {
        key(name)
        JSONWriter.appendString(string, to: &buffer)
    }

    mutating func field(_ name: StaticString, optionalString: String?) {
        key(name)
        if let optionalString {
            JSONWriter.appendString(optionalString, to: &buffer)
        } else {
            JSONWriter.appendRaw("null", to: &buffer)
        }
    }

    mutating func field(_ name: StaticString, integer: Int64) {
        key(name)
        JSONWriter.appendInteger(integer, to: &buffer)
    }

    mutating func field(_ name: StaticString, unsigned: UInt64) {
        key(name)
        JSONWriter.appendInteger(unsigned, to: &buffer)
    }

    mutating func field(_ name: StaticString, double: Double) {
        key(name)
        JSONWriter.appendDouble(double, to: &buffer)
    }

    mutating func field(_ name: StaticString, bool: Bool) {
        key(name)
        if bool {
            JSONWriter.appendRaw("true", to: &buffer)
        } else {
            JSONWriter.appendRaw("false", to: &buffer)
        }
    }

    mutating func field(_ name: StaticString, point: Point) {
        key(name)
        JSONWriter.appendPoint(x: point.x, y: point.y, to: &buffer)
    }

    mutating func field(_ name: StaticString, doubles: [Double]) {
        key(name)
        buffer.append(UInt8(ascii: "["))
        for (index, value) in doubles.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            JSONWriter.appendDouble(value, to: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    mutating func field(_ name: StaticString, strings: [String]) {
        key(name)
        buffer.append(UInt8(ascii: "["))
        for (index, value) in strings.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(value, to: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    mutating func field(_ name: StaticString, object body: (inout JSONObjectWriter) -> Void) {
        key(name)
        JSONObjectWriter.appendObject(to: &buffer, body)
    }

    /// `"name":[…]` with one element per item, each written by `element` straight into the buffer.
    mutating func field<Items: Sequence>(
        _ name: StaticString, array items: Items, element: (Items.Element, inout [UInt8]) -> Void
    ) {
        key(name)
        buffer.append(UInt8(ascii: "["))
        var first = true
        for item in items {
            if !first { buffer.append(UInt8(ascii: ",")) }
            first = false
            element(item, &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }
}
