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
        if appendShortDecimal(value, to: &buffer) { return }
        // Move the buffer into the sink and back, so appends never copy it.
        var sink = ByteSink(buffer: [])
        swap(&sink.buffer, &buffer)
        value.write(to: &sink)
        swap(&sink.buffer, &buffer)
    }

    /// The shortest text of a value with at most 6 decimals and a magnitude from 0.001 to 10⁹
    /// (where `description` writes no exponent), or false (nothing written) for any other value.
    /// It tries 0, 1, … 6 decimals `d`: the integer `n` nearest to value·10ᵈ is the only one that
    /// can read back as the value (here value·10ᵈ < 10¹⁵, so the product's error and the value's
    /// half-ulp together stay under 0.2), and `n / 10ᵈ` is what a reader makes of the text
    /// (one correctly rounded division). The first `d` that reads back gives the fewest digits,
    /// which is `description`'s text (DoubleTextTests compares them on hundreds of thousands of values).
    /// Why: touch coordinates are mostly such values (device units times a simple scale), and
    /// this takes about 290 instructions a value where `Double.write(to:)` takes about 670
    /// (callgrind: the kiosk recording of `touchrouter-bench latency`, where doubles were a fifth
    /// of a frame's instructions). Cost: at most 8 multiplications and 7 divisions, then the digits.
    @inlinable
    static func appendShortDecimal(_ value: Double, to buffer: inout [UInt8]) -> Bool {
        let magnitude = value.magnitude
        guard magnitude >= 0.001, magnitude < 1e9 else { return false }
        // A value with at most 6 decimals, times 10⁶, is an integer give or take 2⁻⁵² of the
        // product (the value's half-ulp and the product's rounding): other values leave here, at
        // one multiplication's cost instead of seven tries (the test allows 2⁻⁵⁰: a margin of 4×).
        let micros = magnitude * 1e6
        guard (micros - Double(Int64(micros + 0.5))).magnitude <= micros * 0x1p-50 else { return false }
        var power = 1.0
        var places = 0
        while places <= 6 {
            // The nearest integer (the product is below 10¹⁵: the conversion truncates exactly).
            let digits = Int64(magnitude * power + 0.5)
            if Double(digits) / power == magnitude {
                appendDecimal(UInt64(digits), places: places, negative: value < 0, to: &buffer)
                return true
            }
            power *= 10
            places += 1
        }
        return false
    }

    /// Appends `digits` with a point `places` digits from the right (`.0` when there are none),
    /// after a `-` when `negative`: at most 9 + 1 + 6 + 1 bytes here, written backwards into stack
    /// scratch and appended at once.
    @inlinable
    static func appendDecimal(_ digits: UInt64, places: Int, negative: Bool, to buffer: inout [UInt8]) {
        var scratch: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { bytes in
            var start = bytes.count
            var rest = digits
            func put(_ byte: UInt8) {
                start -= 1
                bytes[start] = byte
            }
            if places == 0 { put(UInt8(ascii: "0")) }
            for _ in 0..<places {
                put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10))
                rest /= 10
            }
            put(UInt8(ascii: "."))
            repeat {
                put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10))
                rest /= 10
            } while rest > 0
            if negative { put(UInt8(ascii: "-")) }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start...]))
        }
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
