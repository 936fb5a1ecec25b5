/// The lexical half of `JSONReader`: white space and comments, strings, numbers and words, with
/// UTF-8 validated as each byte is consumed and positions computed on demand.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let syntax: JSONSyntax
    var index = 0
    /// Problems that do not stop reading: the first `JSONReader.maxListedProblems`.
    var problems: [JSONProblem] = []
    /// Problems past `JSONReader.maxListedProblems`, counted, not kept.
    var unlistedProblems = 0

    private var line: UInt32 = 1
    private var lineStart = 0
    /// Whether a byte ≥ 0x80 was consumed on the current line: until then a column is a byte count.
    var lineHasNonASCII = false
    /// A column already counted on this line (offset → column), so positions on one long line cost
    /// the distance since the last one, not the whole line again.
    private var cachedOffset = 0
    private var cachedColumn: UInt32 = 1
    /// Escaped strings are built here, reused across strings.
    private var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, syntax: JSONSyntax) {
        self.bytes = bytes
        self.syntax = syntax
    }

    var json5: Bool { syntax == .json5 }

    /// Keeps a problem that does not stop reading, or only counts it once the list is full: the
    /// list's memory is bounded whatever the input repeats. The message is made only when kept.
    mutating func note(_ kind: JSONProblem.Kind, at offset: Int, _ message: @autoclosure () -> String) {
        guard problems.count < JSONReader.maxListedProblems else {
            unlistedProblems += 1
            return
        }
        problems.append(problem(kind, at: offset, message()))
    }
    var atEnd: Bool { index >= bytes.count }
    /// The byte at `index + offset`, or nil past the end.
    func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    // MARK: - Positions and failures

    /// The line and column of `offset`, which must be on the current line and not past `index`.
    mutating func lineAndColumn(at offset: Int) -> (UInt32, UInt32) {
        if !lineHasNonASCII { return (line, UInt32(truncatingIfNeeded: offset - lineStart + 1)) }
        if cachedOffset < lineStart || cachedOffset > offset {
            cachedOffset = lineStart
            cachedColumn = 1
        }
        while cachedOffset < offset {
            if bytes[cachedOffset] & 0xC0 != 0x80 { cachedColumn &+= 1 }
            cachedOffset += 1
        }
        return (line, cachedColumn)
    }

    /// The position of `offset`, on this line or an earlier one (a string or comment that runs over
    /// lines and is not closed is reported where it starts).
    mutating func position(at offset: Int) -> SourcePosition {
        if offset < lineStart { return JSONReader.position(of: offset, in: bytes) }
        let (line, column) = lineAndColumn(at: offset)
        return SourcePosition(line: Int(line), column: Int(column))
    }

    mutating func problem(_ kind: JSONProblem.Kind, at offset: Int, _ message: String) -> JSONProblem {
        JSONProblem(kind: kind, position: position(at: offset), byteOffset: offset, message: message)
    }

    /// A syntax failure at `offset` (default: the current byte).
    mutating func syntaxError(_ message: String, at offset: Int? = nil) -> JSONProblem {
        problem(.syntax, at: offset ?? index, message)
    }

    private mutating func newLine() {
        line &+= 1
        lineStart = index
        lineHasNonASCII = false
    }

    // MARK: - UTF-8

    /// The scalar whose UTF-8 sequence starts at `offset` (a byte ≥ 0x80) and its length; fails with
    /// `invalidUTF8` on an overlong form, a surrogate, a value past U+10FFFF, a bad or missing
    /// continuation byte.
    mutating func scalar(at offset: Int) throws(JSONProblem) -> (Unicode.Scalar, Int) {
        guard let (value, length) = UTF8Check.sequence(in: bytes, at: offset) else {
            throw problem(.invalidUTF8, at: offset, "not valid UTF-8 at byte \(offset)")
        }
        return (Unicode.Scalar(value)!, length)
    }

    /// The byte or character at `offset`, for a message: `'x'`, `'é' (U+00E9)`, `byte 0x0A`.
    mutating func describe(at offset: Int) throws(JSONProblem) -> String {
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte < 0x80 { return "byte 0x" + Self.hex(UInt32(byte), digits: 2) }
        let (scalar, _) = try scalar(at: offset)
        return "'\(Character(scalar))' (U+\(Self.hex(scalar.value, digits: 4)))"
    }

    static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    // MARK: - White space and comments

    /// Skips white space and (JSON5) comments. Non-ASCII spaces are refused with a message naming
    /// them: they are nearly always pasted by accident and invisible in an editor.
    @inline(__always)
    mutating func skipSpace() throws(JSONProblem) {
        // Most calls stand on a token already, or on plain spaces before one.
        while index < bytes.count && bytes[index] == 0x20 { index += 1 }
        guard index < bytes.count else { return }
        let byte = bytes[index]
        if byte > 0x20 && byte != UInt8(ascii: "/") && byte < 0x80 { return }
        try skipSpaceAndComments()
    }

    private mutating func skipSpaceAndComments() throws(JSONProblem) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09:
                index += 1
            case 0x0A:
                index += 1
                newLine()
            case 0x0D:
                index += 1
                if peek() == 0x0A { index += 1 }
                newLine()
            case 0x0B where json5, 0x0C where json5:
                index += 1
            case 0xEF where peek(1) == 0xBB && peek(2) == 0xBF && (json5 || index == 0):  // byte order mark
                index += 3
                lineHasNonASCII = true
            case 0xC2 where json5 && peek(1) == 0xA0:
                throw syntaxError("a no-break space (U+00A0) is not allowed here: use a plain space")
            case 0xE2 where json5 && peek(1) == 0x80 && (peek(2) == 0xA8 || peek(2) == 0xA9):
                throw syntaxError(
                    "a Unicode line separator (U+2028/U+2029) is not allowed here: use a plain newline")
            case UInt8(ascii: "/") where json5 && peek(1) == UInt8(ascii: "/"):
                index += 2
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D {
                    try skipCommentByte()
                }
            case UInt8(ascii: "/") where json5 && peek(1) == UInt8(ascii: "*"):
                let start = index
                index += 2
                while true {
                    guard index < bytes.count else {
                        throw syntaxError("a /* comment is not closed", at: start)
                    }
                    if bytes[index] == UInt8(ascii: "*") && peek(1) == UInt8(ascii: "/") {
                        index += 2
                        break
                    }
                    if bytes[index] == 0x0A {
                        index += 1
                        newLine()
                    } else {
                        try skipCommentByte()
                    }
                }
            default:
                if json5 && bytes[index] >= 0x80 {
                    let (scalar, _) = try scalar(at: index)
                    if scalar.properties.generalCategory == .spaceSeparator {
                        throw syntaxError(
                            "a Unicode space (U+\(Self.hex(scalar.value, digits: 4))) is not allowed here: "
                                + "use a plain space")
                    }
                }
                return
            }
        }
    }

    private mutating func skipCommentByte() throws(JSONProblem) {
        if bytes[index] < 0x80 {
            index += 1
        } else {
            index += try scalar(at: index).1
            lineHasNonASCII = true
        }
    }

    // MARK: - Strings

    /// Reads a quoted string starting at `index` (on its quote) and resolves its escapes.
    mutating func string() throws(JSONProblem) -> String {
        let quote = bytes[index]
        let start = index
        index += 1
        var runStart = index
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote {
                let text: String
                if escaped {
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    text = String(decoding: scratch, as: UTF8.self)
                } else {
                    text = String(
                        decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<index]), as: UTF8.self)
                }
                index += 1
                return text
            }
            switch byte {
            case UInt8(ascii: "\\"):
                // The scratch buffer is emptied at a string's first escape only (most have none).
                if !escaped { scratch.removeAll(keepingCapacity: true) }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                escaped = true
                try escape(stringStart: start)
                runStart = index
            case 0x0A, 0x0D:
                throw syntaxError("a string is not closed on its line", at: start)
            case 0..<0x20 where !json5:
                throw syntaxError(
                    "a control character (byte 0x\(Self.hex(UInt32(byte), digits: 2))) must be escaped in a string"
                )
            case 0x80...:
                index += try scalar(at: index).1
                lineHasNonASCII = true
            default:
                index += 1
            }
        }
        throw syntaxError("a string is not closed", at: start)
    }

    /// Resolves the escape at `index` (on its backslash) into `scratch`.
    private mutating func escape(stringStart: Int) throws(JSONProblem) {
        let backslash = index
        guard let letter = peek(1) else { throw syntaxError("a string is not closed", at: stringStart) }
        index += 2
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(letter)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            appendUTF8(try unicodeEscape(at: backslash))
        case _ where !json5:
            throw syntaxError(
                "\(try describe(at: backslash + 1)) cannot follow '\\' in a JSON string", at: backslash)
        case UInt8(ascii: "'"): scratch.append(letter)
        case UInt8(ascii: "v"): scratch.append(0x0B)
        case UInt8(ascii: "0") where !(peek().map(Self.isDigit) ?? false): scratch.append(0)
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            throw syntaxError(
                "'\\\(Character(Unicode.Scalar(letter)))' is not an escape (octal is not JSON5)",
                at: backslash)
        case UInt8(ascii: "x"):
            guard let value = hexValue(at: index, digits: 2) else {
                throw syntaxError("'\\x' must be followed by 2 hexadecimal digits", at: backslash)
            }
            index += 2
            appendUTF8(Unicode.Scalar(value)!)
        case 0x0A:
            newLine()  // a line continuation: nothing is added
        case 0x0D:
            if peek() == 0x0A { index += 1 }
            newLine()
        case 0x80...:
            let (scalar, length) = try scalar(at: backslash + 1)
            index = backslash + 1 + length
            lineHasNonASCII = true
            // `\` before U+2028/U+2029 is a line continuation; before anything else, the character itself.
            if scalar.value != 0x2028 && scalar.value != 0x2029 { appendUTF8(scalar) }
        default:
            scratch.append(letter)
        }
    }

    /// `\uXXXX` at `backslash` (index is past the `u`), joining a surrogate pair.
    mutating func unicodeEscape(at backslash: Int) throws(JSONProblem) -> Unicode.Scalar {
        guard let unit = hexValue(at: index, digits: 4) else {
            throw syntaxError("'\\u' must be followed by 4 hexadecimal digits", at: backslash)
        }
        index += 4
        if (0xD800...0xDBFF).contains(unit), peek() == UInt8(ascii: "\\"), peek(1) == UInt8(ascii: "u"),
            let low = hexValue(at: index + 2, digits: 4), (0xDC00...0xDFFF).contains(low)
        {
            index += 6
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(unit) else {
            throw syntaxError("'\\u\(Self.hex(unit, digits: 4))' is a lone UTF-16 surrogate", at: backslash)
        }
        return scalar
    }

    private func hexValue(at offset: Int, digits: Int) -> UInt32? {
        guard offset + digits <= bytes.count else { return nil }
        var value: UInt32 = 0
        for position in offset..<(offset + digits) {
            guard let digit = Self.hexDigit(bytes[position]) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: Unicode.Scalar) {
        UTF8.encode(scalar) { scratch.append($0) }
    }

    // MARK: - Character classes

    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func isASCIIIdentifierStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
            UInt8(ascii: "$"):
            true
        default: false
        }
    }

    /// ECMAScript 5.1's IdentifierStart (beyond ASCII): a letter or letter number.
    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .letterNumber:
            true
        default: false
        }
    }

    /// ECMAScript 5.1's IdentifierPart (beyond ASCII): also marks, digits, connectors, ZWNJ, ZWJ.
    static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        if isIdentifierStart(scalar) || scalar.value == 0x200C || scalar.value == 0x200D { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .decimalNumber, .connectorPunctuation: return true
        default: return false
        }
    }
}
