/// Byte-level JSON output: strings, integers and doubles appended straight to a `[UInt8]`, with no
/// intermediate `String` or `Dictionary`. Every daemon→client line is written through these.

/// Appends JSON tokens to a byte buffer. A namespace of static functions so callers keep and reuse
/// their own buffer (`removeAll(keepingCapacity: true)` between messages).
public enum JSONWriter {
    @usableFromInline static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `value` as a JSON string literal: quotes, `\"` `\\`, the short escapes for
    /// `\b \f \n \r \t`, `\u00XX` for the other control characters; everything else (UTF-8,
    /// including non-ASCII) is copied unchanged, which JSON allows.
    @inlinable
    public static func appendString(_ value: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                    continue
                }
                if runStart < index {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
                appendEscape(byte, to: &buffer)
                runStart = index + 1
            }
            if runStart < bytes.count {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    @usableFromInline
    static func appendEscape(_ byte: UInt8, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
        case 0x08: buffer.append(UInt8(ascii: "b"))
        case 0x0C: buffer.append(UInt8(ascii: "f"))
        case 0x0A: buffer.append(UInt8(ascii: "n"))
        case 0x0D: buffer.append(UInt8(ascii: "r"))
        case 0x09: buffer.append(UInt8(ascii: "t"))
        default:
            buffer.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            buffer.append(hexDigits[Int(byte >> 4)])
            buffer.append(hexDigits[Int(byte & 0xF)])
        }
    }

    /// Appends an unsigned integer in decimal, without allocating.
    @inlinable
    public static func appendInteger(_ value: UInt64, to buffer: inout [UInt8]) {
        if value < 10 {
            buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        // 20 digits hold UInt64.max; write them backwards into 24 bytes of stack scratch.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { scratch in
            while rest > 0 {
                scratch[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
                count += 1
            }
            var index = count
            while index > 0 {
                index -= 1
                buffer.append(scratch[index])
            }
        }
    }

    /// Appends a signed integer in decimal, without allocating.
    @inlinable
    public static func appendInteger(_ value: Int64, to buffer: inout [UInt8]) {
        if value < 0 {
            buffer.append(UInt8(ascii: "-"))
        }
        appendInteger(value.magnitude, to: &buffer)
    }

    /// Appends a signed integer in decimal, without allocating.
    @inlinable
    public static func appendInteger(_ value: Int, to buffer: inout [UInt8]) {
        appendInteger(Int64(value), to: &buffer)
    }

    /// Appends a finite double as Swift's `description` prints it: the shortest text that reads
    /// back to the same value, always with a fraction or exponent (`12.0`, `0.1`, `1e-07`,
    /// `1e+16`), all valid JSON numbers; `-0.0` is written as `0.0`. A non-finite value (never
    /// expected: configs and requests are bounded so that geometry stays finite, and the touches
    /// encoder refuses such a touch) is written as `null`, never as a number: the output stays
    /// valid JSON and a reader that wants a number refuses it instead of taking a made-up `0.0`.
    @inlinable
    public static func appendDouble(_ value: Double, to buffer: inout [UInt8]) {
        guard value.isFinite else {
            buffer.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
            return
        }
        if value == 0 {
            buffer.append(contentsOf: [UInt8(ascii: "0"), UInt8(ascii: "."), UInt8(ascii: "0")])
            return
        }
        // Move the buffer into the sink and back, so appends never copy it.
        var sink = ByteSink(buffer: [])
        swap(&sink.buffer, &buffer)
        value.write(to: &sink)
        swap(&sink.buffer, &buffer)
    }

    /// Appends `[x,y]`.
    @inlinable
    public static func appendPoint(x: Double, y: Double, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "["))
        appendDouble(x, to: &buffer)
        buffer.append(UInt8(ascii: ","))
        appendDouble(y, to: &buffer)
        buffer.append(UInt8(ascii: "]"))
    }

    /// Appends text that needs no escaping as it is, without quotes: an enum's raw value such as a
    /// touch phase (`TouchPhase`'s and `CancelReason`'s raw values are the wire's words, lowercase
    /// letters and `-`; TouchesEncoderTests checks that). Raw values this short are small strings:
    /// no allocation.
    @inlinable
    public static func appendUnescaped(_ text: String, to buffer: inout [UInt8]) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
    }

    /// Appends a literal ASCII fragment such as `{"type":"touches","view":` (given as a
    /// `StaticString` so it is never copied into a `String`).
    @inlinable
    public static func appendRaw(_ fragment: StaticString, to buffer: inout [UInt8]) {
        fragment.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }
}

/// A `TextOutputStream` over a byte array, so `Double.write(to:)` lands in our buffer.
@usableFromInline
struct ByteSink: TextOutputStream {
    @usableFromInline var buffer: [UInt8]

    @usableFromInline
    init(buffer: [UInt8]) {
        self.buffer = buffer
    }

    @usableFromInline
    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { buffer.append(contentsOf: $0) }
    }

    /// TextOutputStream's ASCII customization point: `Double.write(to:)` hands its digits here
    /// straight from its stack buffer, so no `String` is built (half the time, and no heap
    /// allocation for 16–17 digit values). Were the hook ever gone, `write(_:)` still does the job.
    @usableFromInline
    mutating func _writeASCII(_ ascii: UnsafeBufferPointer<UInt8>) {
        buffer.append(contentsOf: ascii)
    }
}
