import TouchRouterModel

/// `touchrouterctl calibrate --apply`'s edit of a config file: one screen's `calibration` value
/// replaced in place, or the key added to the screen's object beside its neighbours, and every
/// other byte of the file left as it was (comments, formatting, key order). Pure: bytes in, bytes
/// out. The screen and the key are found with `JSONReader` (every value carries its line:column);
/// only the value's extent is found by a short lexical walk, since the reader records where values
/// start, not where they end.
public enum CalibrationEdit {
    /// Why the file was not edited.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The file is not JSON5 (the reader's message, with its line:column).
        case unreadable(String)
        /// No screen of that name in the file (the names it has, in order).
        case screenNotFound(String, available: [String])
        /// More than one screen has that name (the config is invalid; nothing to choose between).
        case duplicateScreen(String)
        /// The text at a position the reader gave is not what it should be (a bug, or a file the
        /// walk does not understand); nothing is written.
        case unexpectedText(SourcePosition)

        public var description: String {
            switch self {
            case .unreadable(let message): "the file is not valid JSON5: \(message)"
            case .screenNotFound(let name, let available):
                "no screen named \"\(name)\" in the file"
                    + (available.isEmpty
                        ? " (it has no screens)" : " (its screens: \(available.joined(separator: ", ")))")
            case .duplicateScreen(let name): "more than one screen is named \"\(name)\""
            case .unexpectedText(let position):
                "could not edit the file at \(position): the text there is not what the reader found"
            }
        }
    }

    /// The decimals a matrix entry is written with: a millionth of the panel, far below one device
    /// unit of any panel (a 16-bit axis has 65,536), and the same presses always print the same text.
    public static let decimals = 6

    /// `value` with `decimals` decimals, trailing zeros dropped: `0.95`, `-0.031416`, `1`, never `-0`.
    public static func decimal(_ value: Double, places: Int = decimals) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard scaled.isFinite, scaled.magnitude < 1e15 else { return "\(value)" }
        let units = Int64(scale)
        let whole = Int64(scaled.magnitude) / units
        var fraction = Int64(scaled.magnitude) % units
        let sign = scaled < 0 ? "-" : ""
        guard fraction != 0 else { return whole == 0 ? "0" : sign + String(whole) }
        var digits = places
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        return "\(sign)\(whole)." + String(repeating: "0", count: digits - text.count) + text
    }

    /// `[a, b, c, d, e, f]` as the config and the tool's output write it.
    public static func matrixText(_ matrix: [Double]) -> String {
        "[" + matrix.map { decimal($0) }.joined(separator: ", ") + "]"
    }

    /// The config text `text` with screen `screen`'s `calibration` set to `matrix` (written by
    /// `matrixText`). Without the key, it is added after the screen's `rotation` (else `height`,
    /// `width`, `name`): on a line of its own indented like that key when the key starts its line,
    /// else on the same line; quoted when that key is. Throws when the file does not parse, the
    /// screen is not in it, or the edited text does not read back with the new matrix.
    public static func apply(matrix: [Double], screen: String, to text: [UInt8]) throws(Failure) -> [UInt8] {
        let replacement = Array(matrixText(matrix).utf8)
        let object = try screenObject(named: screen, in: text)
        var walk = TextWalk(bytes: text)
        var edited = text
        if let member = object.members.first(where: { $0.key == "calibration" }) {
            let keyStart = try walk.offset(of: member.node.position)
            let valueStart = try walk.valueStart(afterKeyAt: keyStart, member.node.position)
            let valueEnd = try walk.valueEnd(from: valueStart, member.node.position)
            edited.replaceSubrange(valueStart..<valueEnd, with: replacement)
        } else {
            let anchor = ["rotation", "height", "width", "name"].lazy.compactMap { key in
                object.members.first { $0.key == key }
            }.first
            // `name` found the screen, so some anchor is there.
            guard let anchor else { throw .unexpectedText(SourcePosition(line: 1, column: 1)) }
            edited = try insert(replacement, after: anchor, in: text, walk: &walk)
        }
        try check(edited, screen: screen, matrix: replacement)
        return edited
    }

    /// The members of the screen object named `name` in `text`'s `screens` array.
    static func screenObject(named name: String, in text: [UInt8]) throws(Failure) -> JSONObject {
        let read = JSONReader.read(text, syntax: .json5)
        if let failure = read.failure { throw .unreadable(failure.description) }
        guard case .object(let top)? = read.root?.value, case .array(let screens)? = top["screens"]?.value else {
            throw .screenNotFound(name, available: [])
        }
        var names: [String] = []
        var found: [JSONObject] = []
        for node in screens {
            guard case .object(let object) = node.value, case .string(let screenName)? = object["name"]?.value else {
                continue
            }
            names.append(screenName)
            if screenName == name { found.append(object) }
        }
        guard let object = found.first else { throw .screenNotFound(name, available: names) }
        guard found.count == 1 else { throw .duplicateScreen(name) }
        return object
    }

    /// Adds `calibration: VALUE` after `anchor`'s value (see `apply`).
    private static func insert(
        _ value: [UInt8], after anchor: JSONMember, in text: [UInt8], walk: inout TextWalk
    ) throws(Failure) -> [UInt8] {
        let position = anchor.node.position
        let keyStart = try walk.offset(of: position)
        let valueEnd = try walk.valueEnd(from: try walk.valueStart(afterKeyAt: keyStart, position), position)
        let quote = text[keyStart] == UInt8(ascii: "\"") || text[keyStart] == UInt8(ascii: "'") ? [text[keyStart]] : []
        let member = quote + Array("calibration".utf8) + quote + Array(": ".utf8) + value
        var index = walk.skipBlanks(from: valueEnd)
        let hasComma = index < text.count && text[index] == UInt8(ascii: ",")
        if hasComma { index = walk.skipBlanks(from: index + 1) }
        let lineEnd = walk.lineEnd(ifOnlyCommentFrom: index)
        let indent = walk.indentation(before: keyStart)
        var edited = text
        guard let lineEnd, let indent else {
            // Not on lines of its own: `{ name: "a", rotation: 0, … }`.
            if hasComma {
                let comma = walk.skipBlanks(from: valueEnd)
                edited.insert(contentsOf: Array(" ".utf8) + member + Array(",".utf8), at: comma + 1)
            } else {
                edited.insert(contentsOf: Array(", ".utf8) + member, at: valueEnd)
            }
            return edited
        }
        let lineBreak = walk.lineBreak(at: lineEnd)
        edited.insert(contentsOf: lineBreak + indent + member + (hasComma ? Array(",".utf8) : []), at: lineEnd)
        if !hasComma { edited.insert(UInt8(ascii: ","), at: valueEnd) }
        return edited
    }

    /// The edited text must read back with the screen's calibration equal to the written matrix.
    private static func check(_ edited: [UInt8], screen: String, matrix: [UInt8]) throws(Failure) {
        let object = try screenObject(named: screen, in: edited)
        let expected = JSONReader.read(matrix, syntax: .json5).root
        guard let node = object["calibration"], case .array(let written) = node.value,
            case .array(let wanted)? = expected?.value, written.count == wanted.count,
            zip(written, wanted).allSatisfy({ pair in
                if case .number(let a, _) = pair.0.value, case .number(let b, _) = pair.1.value { return a == b }
                return false
            })
        else { throw .unexpectedText(object["calibration"]?.position ?? SourcePosition(line: 1, column: 1)) }
    }
}

/// The lexical walk over JSON5 text that `CalibrationEdit` needs: a reader's position to a byte
/// offset, past a key and its colon, to the end of a value, and the line around a point.
private struct TextWalk {
    let bytes: [UInt8]
    /// Where each line starts, as the reader counts lines (`\n`, `\r\n`, a lone `\r`).
    private var lineStarts: [Int] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The byte offset of a reader's position (1-based line, column in Unicode scalars).
    mutating func offset(of position: SourcePosition) throws(CalibrationEdit.Failure) -> Int {
        if lineStarts.isEmpty {
            lineStarts = [0]
            for index in bytes.indices {
                let byte = bytes[index]
                if byte == 0x0A || (byte == 0x0D && (index + 1 >= bytes.count || bytes[index + 1] != 0x0A)) {
                    lineStarts.append(index + 1)
                }
            }
        }
        guard position.line >= 1, position.line <= lineStarts.count else { throw .unexpectedText(position) }
        var index = lineStarts[position.line - 1]
        var column = 1
        while index < bytes.count, column < position.column {
            index += 1
            if index < bytes.count, bytes[index] & 0xC0 != 0x80 { column += 1 }
        }
        guard index < bytes.count, column == position.column else { throw .unexpectedText(position) }
        return index
    }

    /// Past the key at `keyStart`, white space, comments and the colon: where the value starts.
    func valueStart(afterKeyAt keyStart: Int, _ position: SourcePosition) throws(CalibrationEdit.Failure) -> Int {
        var index: Int
        let first = bytes[keyStart]
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            index = try stringEnd(from: keyStart, position)
        } else {
            index = keyStart
            while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ":"),
                bytes[index] != UInt8(ascii: "/")
            {
                index += 1
            }
        }
        index = try skipSpaceAndComments(from: index, position)
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw .unexpectedText(position) }
        index = try skipSpaceAndComments(from: index + 1, position)
        guard index < bytes.count else { throw .unexpectedText(position) }
        return index
    }

    /// One past the value starting at `start`: a string, a bracketed array or object (strings and
    /// comments inside skipped), or a word or number up to the next delimiter.
    func valueEnd(from start: Int, _ position: SourcePosition) throws(CalibrationEdit.Failure) -> Int {
        let first = bytes[start]
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") { return try stringEnd(from: start, position) }
        guard first == UInt8(ascii: "[") || first == UInt8(ascii: "{") else {
            var index = start
            while index < bytes.count, !isSpace(bytes[index]),
                !",]}/".utf8.contains(bytes[index])
            {
                index += 1
            }
            return index
        }
        var depth = 0
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                index = try stringEnd(from: index, position)
                continue
            }
            if byte == UInt8(ascii: "/") {
                let after = try skipSpaceAndComments(from: index, position)
                if after > index {
                    index = after
                    continue
                }
            }
            if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") { depth += 1 }
            if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { return index + 1 }
            }
            index += 1
        }
        throw .unexpectedText(position)
    }

    /// One past the string whose quote is at `start` (escapes skipped).
    private func stringEnd(from start: Int, _ position: SourcePosition) throws(CalibrationEdit.Failure) -> Int {
        let quote = bytes[start]
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\") {
                index += 2
            } else if bytes[index] == quote {
                return index + 1
            } else {
                index += 1
            }
        }
        throw .unexpectedText(position)
    }

    private func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    /// Past white space and `//` and `/* */` comments.
    private func skipSpaceAndComments(from start: Int, _ position: SourcePosition) throws(CalibrationEdit.Failure)
        -> Int
    {
        var index = start
        while index < bytes.count {
            if isSpace(bytes[index]) {
                index += 1
            } else if bytes[index] == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/")
            {
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
            } else if bytes[index] == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*")
            {
                index += 2
                while index + 1 < bytes.count,
                    !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/"))
                {
                    index += 1
                }
                guard index + 1 < bytes.count else { throw .unexpectedText(position) }
                index += 2
            } else {
                break
            }
        }
        return index
    }

    /// Past spaces and tabs on the same line.
    func skipBlanks(from start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        return index
    }

    /// The end of the line (its line break, or the end of the text) when nothing but blanks and a
    /// `//` comment stands from `start` to it; nil when something else does.
    func lineEnd(ifOnlyCommentFrom start: Int) -> Int? {
        var index = skipBlanks(from: start)
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") {
            while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
        }
        guard index == bytes.count || bytes[index] == 0x0A || bytes[index] == 0x0D else { return nil }
        return index
    }

    /// The blanks between the start of `offset`'s line and `offset`, when only blanks are there.
    func indentation(before offset: Int) -> [UInt8]? {
        var start = offset
        while start > 0, bytes[start - 1] != 0x0A, bytes[start - 1] != 0x0D { start -= 1 }
        let indent = Array(bytes[start..<offset])
        return indent.allSatisfy { $0 == 0x20 || $0 == 0x09 } ? indent : nil
    }

    /// The line break at `offset` (`\r\n`, `\r` or `\n`; `\n` at the end of the text).
    func lineBreak(at offset: Int) -> [UInt8] {
        guard offset < bytes.count, bytes[offset] == 0x0D else { return [0x0A] }
        return offset + 1 < bytes.count && bytes[offset + 1] == 0x0A ? [0x0D, 0x0A] : [0x0D]
    }
}
