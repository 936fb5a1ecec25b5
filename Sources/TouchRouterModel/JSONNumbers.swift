/// Numbers and bare words for `JSONScanner`.
extension JSONScanner {
    /// Exact powers of ten: a decimal of at most 2⁵³ scaled by one of these is correctly rounded.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
        1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The text from `start` to `index`, cut to an excerpt, for a message.
    func excerpt(from start: Int) -> String {
        let end = min(index, start + Excerpt.limit * 4)
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        return Excerpt.of(end < index ? text + "…" : text)
    }

    /// Reads a number at `index` (on a sign, a digit or '.'). JSON5 adds `+`, hexadecimal, a point
    /// with digits on one side only, `Infinity` and `NaN` (recorded as a problem and returned; in
    /// strict JSON a failure). A number beyond a double's range is recorded as a problem in both.
    mutating func number() throws(JSONProblem) -> JSONParsedValue {
        if let small = smallInteger() { return small }
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            if bytes[index] == UInt8(ascii: "+") && !json5 {
                throw syntaxError("a number cannot start with '+' in JSON")
            }
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        let bodyStart = index
        let isHex =
            json5 && bodyStart + 1 < bytes.count && bytes[bodyStart] == UInt8(ascii: "0")
            && bytes[bodyStart + 1] | 0x20 == UInt8(ascii: "x")
        // Greedy, so that `5px` or `1.2.3` is reported whole.
        while index < bytes.count {
            let byte = bytes[index]
            if Self.isDigit(byte) || Self.isASCIIIdentifierStart(byte) || byte == UInt8(ascii: ".") {
                index += 1
            } else if (byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")) && !isHex && index > bodyStart
                && bytes[index - 1] | 0x20 == UInt8(ascii: "e")
            {
                index += 1
            } else {
                break
            }
        }
        let body = UnsafeBufferPointer(rebasing: bytes[bodyStart..<index])
        if let first = body.first, first == UInt8(ascii: "I") || first == UInt8(ascii: "N"),
            body.elementsEqual("Infinity".utf8) || body.elementsEqual("NaN".utf8)
        {
            let name = body.count == 3 ? "NaN" : "Infinity"
            guard json5 else {
                throw syntaxError("\(name) is not allowed: numbers must be finite", at: start)
            }
            note(.nonFinite, at: start, "\(name) is not allowed: numbers must be finite")
            let value = name == "NaN" ? Double.nan : (negative ? -Double.infinity : .infinity)
            return .number(value, integer: nil)
        }
        if body.count > 1 && body[0] == UInt8(ascii: "0") && Self.isDigit(body[1]) {
            throw syntaxError("'\(excerpt(from: start))': a number must not start with 0", at: start)
        }
        let parsed = isHex ? Self.hexadecimal(body) : decimal(body)
        guard let (magnitude, integer) = parsed else {
            throw syntaxError("'\(excerpt(from: start))' is not a number", at: start)
        }
        let value = negative ? -magnitude : magnitude
        if !value.isFinite {
            // Valid syntax in both dialects: reported, and reading goes on (so a request's `seq` after
            // it can still be read).
            let quoted = problems.count < JSONReader.maxListedProblems ? excerpt(from: bodyStart) : ""
            note(.nonFinite, at: start, "\(quoted) is out of range for a number")
        }
        var exactInteger: Int64?
        if let integer {
            exactInteger =
                negative
                ? (integer <= 1 << 63 ? Int64(truncatingIfNeeded: 0 &- integer) : nil)
                : Int64(exactly: integer)
        }
        return .number(value, integer: exactInteger)
    }

    /// The common case read at once: `-`? and 1–18 decimal digits, without a leading zero, ended by
    /// a byte that cannot continue a number (what the whole path below would read as the same
    /// integer, exactly: it fits Int64, and a double's rounding of it is `Double(value)`). Nil,
    /// with `index` unmoved, for anything else. Cost: the digits.
    private mutating func smallInteger() -> JSONParsedValue? {
        var position = index
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let digitsStart = position
        var value: Int64 = 0
        while position < bytes.count, Self.isDigit(bytes[position]), position - digitsStart < 18 {
            value = value * 10 + Int64(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        let digits = position - digitsStart
        guard digits > 0, digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count {
            let next = bytes[position]
            guard !Self.isDigit(next), !Self.isASCIIIdentifierStart(next), next != UInt8(ascii: ".") else {
                return nil
            }
        }
        index = position
        return .number(negative ? -Double(value) : Double(value), integer: negative ? -value : value)
    }

    /// `0x` and hexadecimal digits (JSON5): the value, and the integer when it fits 64 bits.
    private static func hexadecimal(_ body: UnsafeBufferPointer<UInt8>) -> (Double, UInt64?)? {
        guard body.count > 2 else { return nil }
        var integer: UInt64? = 0
        var value = 0.0
        for byte in body[2...] {
            guard let digit = hexDigit(byte) else { return nil }
            value = value * 16 + Double(digit)
            if let current = integer {
                let (shifted, overflow) = current.multipliedReportingOverflow(by: 16)
                integer = overflow ? nil : shifted | UInt64(digit)
            }
        }
        return (integer.map { Double($0) } ?? value, integer)
    }

    /// A decimal `digits [. digits] [e [+-] digits]`: the value, correctly rounded, and the integer
    /// when the text has no point or exponent and fits 64 bits.
    private func decimal(_ body: UnsafeBufferPointer<UInt8>) -> (Double, UInt64?)? {
        var position = 0
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var truncated = false
        var exponent = 0
        var integerOverflow = false
        var integer: UInt64 = 0

        let integerStart = position
        while position < body.count, Self.isDigit(body[position]) {
            let digit = UInt64(body[position] - UInt8(ascii: "0"))
            let (times10, overflow1) = integer.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(digit)
            integerOverflow = integerOverflow || overflow1 || overflow2
            integer = sum
            if significantDigits < 19 {
                if mantissa != 0 || digit != 0 {
                    mantissa = mantissa * 10 + digit
                    significantDigits += 1
                }
            } else {
                truncated = truncated || digit != 0
                exponent += 1
            }
            position += 1
        }
        let integerDigits = position - integerStart
        var fractionDigits = 0
        var hasPoint = false
        if position < body.count, body[position] == UInt8(ascii: ".") {
            hasPoint = true
            position += 1
            while position < body.count, Self.isDigit(body[position]) {
                let digit = UInt64(body[position] - UInt8(ascii: "0"))
                if mantissa == 0 && digit == 0 {
                    exponent -= 1
                } else if significantDigits < 19 {
                    mantissa = mantissa * 10 + digit
                    significantDigits += 1
                    exponent -= 1
                } else {
                    truncated = truncated || digit != 0
                }
                fractionDigits += 1
                position += 1
            }
        }
        // JSON needs digits before the point and after it; JSON5 on at least one side.
        if json5
            ? integerDigits + fractionDigits == 0 : integerDigits == 0 || (hasPoint && fractionDigits == 0)
        {
            return nil
        }
        var hasExponent = false
        if position < body.count, body[position] | 0x20 == UInt8(ascii: "e") {
            hasExponent = true
            position += 1
            var exponentNegative = false
            if position < body.count,
                body[position] == UInt8(ascii: "+") || body[position] == UInt8(ascii: "-")
            {
                exponentNegative = body[position] == UInt8(ascii: "-")
                position += 1
            }
            var written = 0
            let digitsStart = position
            while position < body.count, Self.isDigit(body[position]) {
                written = min(written * 10 + Int(body[position] - UInt8(ascii: "0")), 1_000_000)
                position += 1
            }
            guard position > digitsStart else { return nil }
            exponent += exponentNegative ? -written : written
        }
        guard position == body.count else { return nil }

        let isInteger = !hasPoint && !hasExponent && !integerOverflow
        if mantissa == 0 { return (0, isInteger ? 0 : nil) }
        if !truncated && mantissa <= 1 << 53 && (-22...22).contains(exponent) {
            let scaled =
                exponent < 0
                ? Double(mantissa) / Self.exactPowersOfTen[-exponent]
                : Double(mantissa) * Self.exactPowersOfTen[exponent]
            return (scaled, isInteger ? integer : nil)
        }
        if isInteger { return (Double(integer), integer) }
        // Rare (long or extreme numbers): the standard library's correctly rounded conversion, on a
        // text already checked against the grammar above.
        var text = String(decoding: body, as: UTF8.self)
        if text.first == "." { text = "0" + text }
        return Double(text).map { ($0, nil) }
    }

    // MARK: - Words

    /// Reads an identifier at `index` (JSON5 keys and the words `true`, `false`, `null`, `Infinity`,
    /// `NaN`): ECMAScript 5.1 IdentifierName, `\uXXXX` escapes included. Nil when none starts here.
    mutating func identifier() throws(JSONProblem) -> String? {
        let start = index
        var runStart = index
        var escaped = false
        var text: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            let first = index == start
            if byte < 0x80 {
                if Self.isASCIIIdentifierStart(byte) || (!first && Self.isDigit(byte)) {
                    index += 1
                } else if byte == UInt8(ascii: "\\") && json5 && peek(1) == UInt8(ascii: "u") {
                    let backslash = index
                    text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    index += 2
                    let scalar = try unicodeEscape(at: backslash)
                    let allowed =
                        scalar.value < 0x80
                        ? Self.isASCIIIdentifierStart(UInt8(scalar.value))
                            || (!first && Self.isDigit(UInt8(scalar.value)))
                        : first ? Self.isIdentifierStart(scalar) : Self.isIdentifierPart(scalar)
                    guard allowed else {
                        throw syntaxError(
                            "'\\u\(Self.hex(scalar.value, digits: 4))' cannot be part of a key", at: backslash
                        )
                    }
                    UTF8.encode(scalar) { text.append($0) }
                    escaped = true
                    runStart = index
                } else {
                    break
                }
            } else {
                let (scalar, length) = try scalar(at: index)
                guard first ? Self.isIdentifierStart(scalar) : Self.isIdentifierPart(scalar) else { break }
                index += length
                lineHasNonASCII = true
            }
        }
        guard index > start else { return nil }
        if !escaped {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }
        text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        return String(decoding: text, as: UTF8.self)
    }
}
