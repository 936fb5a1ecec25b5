import Foundation

// Parsing a config file's bytes into a JSON value tree.
//
// The values come from Foundation's JSONDecoder with `allowsJSON5` (JSONSerialization on Linux has no
// JSON5 option). JSONDecoder alone is not enough for a daemon's config, so three things sit beside it:
// - a UTF-8 check first, because the JSON5 decoder traps (kills the process) on some invalid UTF-8;
// - `JSON5Locator`, a small non-recursive scanner that finds line:column for keys and values, the
//   position of a syntax error (JSONDecoder reports none on Linux), duplicate keys (which
//   JSONDecoder silently accepts) and NaN/Infinity/out-of-range numbers;
// - a nesting cap: JSONDecoder itself refuses nesting past 512 levels without recursing into a
//   stack overflow (checked with 100,000 levels), and the locator reports where that happens.

/// A decoded JSON5 value. Objects keep no key order (JSONDecoder does not expose it); errors are
/// ordered by position afterwards.
enum JSONValue: Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Ordered by how common each type is in a layout: numbers (frames) first.
        if container.decodeNil() {
            self = .null
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let object = try? container.decode([String: JSONValue].self) {
            self = .object(object)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    /// The type's name as messages use it: "found a string".
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Decodes by trying each type in turn. Correct for any document, but every failed try makes
    /// JSONDecoder build an error with its coding path, which costs O(depth²): slow on deep files.
    static func decode(_ data: Data) throws -> JSONValue {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        return try decoder.decode(JSONValue.self, from: data)
    }

    /// Decodes asking JSONDecoder for exactly the type the locator saw at each step, so no try fails
    /// (linear time). Throws if the shape does not match what JSONDecoder parsed (then use `decode`).
    static func decode(_ data: Data, guide shape: JSONDocumentShape) throws -> JSONValue {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        let guide = DecodingGuide(shape)
        decoder.userInfo[DecodingGuide.userInfoKey] = guide
        let value = try decoder.decode(GuidedValue.self, from: data).value
        guard guide.next == shape.entries.count else { throw DecodingGuide.Mismatch() }
        return value
    }
}

/// The locator's shape of a document and how far decoding has consumed it.
private final class DecodingGuide: @unchecked Sendable {
    // Used by one decode on one thread only.
    struct Mismatch: Error {}
    static let userInfoKey = CodingUserInfoKey(rawValue: "touchrouter.decodingGuide")!

    let shape: JSONDocumentShape
    var next = 0

    init(_ shape: JSONDocumentShape) {
        self.shape = shape
    }
}

/// A JSON object key of any name.
private struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// One value decoded as the guide says.
private struct GuidedValue: Decodable {
    var value: JSONValue

    init(from decoder: Decoder) throws {
        guard let guide = decoder.userInfo[DecodingGuide.userInfoKey] as? DecodingGuide,
            guide.next < guide.shape.entries.count
        else { throw DecodingGuide.Mismatch() }
        let entry = guide.shape.entries[guide.next]
        guide.next += 1
        switch entry {
        case .object(let keyList):
            let container = try decoder.container(keyedBy: AnyCodingKey.self)
            let keys = guide.shape.keyLists[keyList]
            var object: [String: JSONValue] = [:]
            object.reserveCapacity(keys.count)
            for key in keys {
                object[key] = try container.decode(GuidedValue.self, forKey: AnyCodingKey(stringValue: key))
                    .value
            }
            guard object.count == container.allKeys.count else { throw DecodingGuide.Mismatch() }
            value = .object(object)
        case .array:
            var container = try decoder.unkeyedContainer()
            var array: [JSONValue] = []
            if let count = container.count { array.reserveCapacity(count) }
            while !container.isAtEnd {
                array.append(try container.decode(GuidedValue.self).value)
            }
            value = .array(array)
        case .null:
            guard try decoder.singleValueContainer().decodeNil() else { throw DecodingGuide.Mismatch() }
            value = .null
        case .bool:
            value = .bool(try decoder.singleValueContainer().decode(Bool.self))
        case .number:
            value = .number(try decoder.singleValueContainer().decode(Double.self))
        case .string:
            value = .string(try decoder.singleValueContainer().decode(String.self))
        }
    }
}

/// One step of a path into a JSON document.
enum JSONPathComponent: Hashable {
    case key(String)
    case index(Int)
}

/// Where something is in the file: 1-based line, and column counted in Unicode scalars.
struct SourcePosition: Hashable, Comparable {
    var line: Int
    var column: Int

    static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// UTF-8 validation with the offset of the first bad byte.
enum UTF8Check {
    /// The 0-based offset where the first invalid UTF-8 sequence starts, or nil when all is valid.
    static func firstInvalidByte(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The allowed range of the second byte excludes overlongs, surrogates and > U+10FFFF.
            let length: Int
            var secondLow: UInt8 = 0x80
            var secondHigh: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                secondLow = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                secondHigh = 0x9F
            case 0xF0:
                length = 4
                secondLow = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                secondHigh = 0x8F
            default: return index
            }
            for offset in 1..<length {
                let position = index + offset
                guard position < count else { return index }
                let byte = bytes[position]
                let low = offset == 1 ? secondLow : 0x80
                let high = offset == 1 ? secondHigh : 0xBF
                if byte < low || byte > high { return index }
            }
            index += length
        }
        return nil
    }
}

/// A problem the locator found in the text itself.
struct JSON5Problem {
    var code: ConfigErrorCode
    var position: SourcePosition
    var message: String
}

/// What one locator pass found.
struct JSON5LocatorResult {
    /// Positions of the wanted paths: the key's position for an object member, the value's start for
    /// an array element or the document.
    var positions: [[JSONPathComponent]: SourcePosition] = [:]
    /// Duplicate keys and non-finite numbers (the scan goes on after them).
    var problems: [JSON5Problem] = []
    /// The first syntax or nesting error (the scan stops there).
    var fatal: JSON5Problem?
    /// Every value's kind in document order, and every object's keys: what `JSONValue.decode(_:guide:)`
    /// needs to ask JSONDecoder for exactly the right type at each step.
    var shape = JSONDocumentShape()
}

/// The kinds of a document's values in document order (pre-order), from the locator's scan.
struct JSONDocumentShape {
    enum Entry {
        case null, bool, number, string, array
        case object(keyList: Int)
    }
    var entries: [Entry] = []
    /// Each object's keys in document order, indexed by `Entry.object(keyList:)`.
    var keyLists: [[String]] = []
}

/// A JSON5 scanner that checks structure and records positions, with an explicit stack (never
/// recursion), so any nesting depth is safe. It builds no values.
struct JSON5Locator {
    /// Deepest nesting of arrays and objects; JSONDecoder's own limit, so both agree.
    static let maxNesting = 512

    private enum Container {
        case object(keys: Set<String>)
        case array(count: Int)
    }

    private enum State {
        case value, afterValue, keyOrEnd, elementOrEnd
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let wanted: Set<[JSONPathComponent]>
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var stack: [Container] = []
    private var path: [JSONPathComponent] = []
    private var result = JSON5LocatorResult()
    /// Indices into `result.shape.keyLists` of the objects still open.
    private var openObjects: [Int] = []

    /// Scans the document; records the positions of `wanted` paths.
    static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, wanted: Set<[JSONPathComponent]>
    ) -> JSON5LocatorResult {
        var scanner = JSON5Locator(bytes: bytes, wanted: wanted)
        scanner.run()
        return scanner.result
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, wanted: Set<[JSONPathComponent]>) {
        self.bytes = bytes
        self.wanted = wanted
    }

    private var position: SourcePosition {
        mutating get { position(at: index) }
    }

    /// The column at `columnCacheOffset` on the current line, so that positions on one very long line
    /// cost the distance since the last one, not the whole line again.
    private var columnCacheOffset = 0
    private var columnCacheValue = 1

    private mutating func position(at offset: Int) -> SourcePosition {
        if columnCacheOffset < lineStart || columnCacheOffset > offset {
            columnCacheOffset = lineStart
            columnCacheValue = 1
        }
        while columnCacheOffset < offset {
            if bytes[columnCacheOffset] & 0xC0 != 0x80 { columnCacheValue += 1 }
            columnCacheOffset += 1
        }
        return SourcePosition(line: line, column: columnCacheValue)
    }

    private mutating func fail(_ message: String, code: ConfigErrorCode = .syntax) {
        if result.fatal == nil {
            result.fatal = JSON5Problem(code: code, position: position, message: message)
        }
    }

    private func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private mutating func run() {
        var state = State.value
        record()
        while result.fatal == nil {
            skipSpaceAndComments()
            if result.fatal != nil { return }
            guard let byte = peek() else {
                if stack.isEmpty && state == .afterValue { return }
                fail(
                    stack.isEmpty
                        ? "empty document" : "unexpected end of file: an array or object is not closed")
                return
            }
            switch state {
            case .value:
                state = scanValue(byte)
            case .afterValue:
                guard let top = stack.last else {
                    fail("unexpected \(describe(byte)) after the end of the document")
                    return
                }
                switch (top, byte) {
                case (.object, UInt8(ascii: ",")):
                    index += 1
                    path.removeLast()
                    state = .keyOrEnd
                case (.array, UInt8(ascii: ",")):
                    index += 1
                    path.removeLast()
                    state = .elementOrEnd
                case (.object, UInt8(ascii: "}")), (.array, UInt8(ascii: "]")):
                    index += 1
                    path.removeLast()
                    closeContainer()
                    state = .afterValue
                case (.object, _):
                    fail("expected ',' or '}' but found \(describe(byte))")
                case (.array, _):
                    fail("expected ',' or ']' but found \(describe(byte))")
                }
            case .keyOrEnd:
                if byte == UInt8(ascii: "}") {
                    index += 1
                    closeContainer()
                    state = .afterValue
                } else if scanKey(byte) {
                    state = .value
                }
            case .elementOrEnd:
                if byte == UInt8(ascii: "]") {
                    index += 1
                    closeContainer()
                    state = .afterValue
                } else {
                    guard case .array(let count) = stack[stack.count - 1] else { return }
                    stack[stack.count - 1] = .array(count: count + 1)
                    path.append(.index(count))
                    record()
                    state = .value
                }
            }
        }
    }

    /// A container closed: it is itself a finished value of its parent.
    private mutating func closeContainer() {
        if case .object = stack.removeLast() { openObjects.removeLast() }
    }

    private mutating func record() {
        if !wanted.isEmpty && wanted.contains(path) && result.positions[path] == nil {
            result.positions[path] = position
        }
    }

    private mutating func open(_ container: Container) -> Bool {
        guard stack.count < JSON5Locator.maxNesting else {
            fail(
                "arrays and objects nest deeper than \(JSON5Locator.maxNesting) levels", code: .nestingTooDeep
            )
            return false
        }
        stack.append(container)
        index += 1
        return true
    }

    private mutating func scanValue(_ byte: UInt8) -> State {
        switch byte {
        case UInt8(ascii: "{"):
            result.shape.entries.append(.object(keyList: result.shape.keyLists.count))
            result.shape.keyLists.append([])
            openObjects.append(result.shape.keyLists.count - 1)
            return open(.object(keys: [])) ? .keyOrEnd : .value
        case UInt8(ascii: "["):
            result.shape.entries.append(.array)
            return open(.array(count: 0)) ? .elementOrEnd : .value
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            result.shape.entries.append(.string)
            _ = scanString()
            return .afterValue
        case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "I"), UInt8(ascii: "N"):
            result.shape.entries.append(.number)
            scanNumber()
            return .afterValue
        default:
            if isIdentifierStart(byte) {
                let start = index
                let word = scanIdentifier()
                result.shape.entries.append(word == "null" ? .null : .bool)
                if word != "true" && word != "false" && word != "null" {
                    index = start
                    fail("unexpected \(word.isEmpty ? describe(byte) : "'\(word)'") where a value belongs")
                }
                return .afterValue
            }
            fail("unexpected \(describe(byte)) where a value belongs")
            return .value
        }
    }

    /// Reads a member's key and the ':' after it; pushes the key onto the path.
    private mutating func scanKey(_ byte: UInt8) -> Bool {
        let keyStart = index
        let key: String
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            guard let text = scanString() else { return false }
            key = text
        } else if isIdentifierStart(byte) {
            key = scanIdentifier()
        } else {
            fail("expected a key or '}' but found \(describe(byte))")
            return false
        }
        guard case .object(var keys) = stack[stack.count - 1] else { return false }
        // Drop the container's copy so the set is mutated in place, not copied per key.
        stack[stack.count - 1] = .object(keys: [])
        if !keys.insert(key).inserted {
            result.problems.append(
                JSON5Problem(
                    code: .duplicateKey, position: position(at: keyStart), message: "duplicate key \"\(key)\""
                ))
        }
        stack[stack.count - 1] = .object(keys: keys)
        result.shape.keyLists[openObjects[openObjects.count - 1]].append(key)
        path.append(.key(key))
        if !wanted.isEmpty && wanted.contains(path) && result.positions[path] == nil {
            result.positions[path] = position(at: keyStart)
        }
        skipSpaceAndComments()
        guard peek() == UInt8(ascii: ":") else {
            fail("expected ':' after the key \"\(key)\"")
            return false
        }
        index += 1
        return true
    }

    /// Reads a quoted string; returns its raw text (escapes kept as written, enough for keys).
    private mutating func scanString() -> String? {
        let quote = bytes[index]
        let start = index
        index += 1
        var raw: [UInt8] = []
        while let byte = peek() {
            switch byte {
            case quote:
                index += 1
                return String(decoding: raw, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let next = peek(1) else { break }
                index += 2
                if next == UInt8(ascii: "\n") || next == UInt8(ascii: "\r") {
                    if next == UInt8(ascii: "\r") && peek() == UInt8(ascii: "\n") { index += 1 }
                    newLine()
                } else {
                    raw.append(byte)
                    raw.append(next)
                }
                continue
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index = start
                fail("a string is not closed on its line")
                return nil
            default:
                raw.append(byte)
                index += 1
                continue
            }
            break
        }
        index = start
        fail("a string is not closed")
        return nil
    }

    private mutating func scanNumber() {
        let start = index
        var sign = 1.0
        if let byte = peek(), byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") {
            if byte == UInt8(ascii: "-") { sign = -1 }
            index += 1
        }
        let bodyStart = index
        while let byte = peek(), isNumberByte(byte) { index += 1 }
        let body = String(decoding: bytes[bodyStart..<index], as: UTF8.self)
        let value: Double?
        if body == "Infinity" || body == "NaN" {
            result.problems.append(
                JSON5Problem(
                    code: .nonFinite, position: position(at: start),
                    message: "\(body) is not allowed: numbers must be finite"))
            return
        } else if body.count > 1, body.first == "0", body.dropFirst().first?.isNumber == true {
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            index = start
            fail("'\(text)': a number must not start with 0")
            return
        } else if body.hasPrefix("0x") || body.hasPrefix("0X") {
            value = UInt64(body.dropFirst(2), radix: 16).map(Double.init)
        } else if body.first == "." || body.last == "." {
            value = Double(body.first == "." ? "0" + body : body + "0")
        } else if body.allSatisfy({ $0.isNumber || "eE+-.".contains($0) }),
            body.first?.isNumber == true
        {
            value = Double(body)
        } else {
            value = nil
        }
        guard let value else {
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            index = start
            fail("'\(text)' is not a number")
            return
        }
        if !(sign * value).isFinite {
            result.problems.append(
                JSON5Problem(
                    code: .nonFinite, position: position(at: start),
                    message: "\(body) is out of range for a number"))
        }
    }

    private func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "."):
            return true
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            // Only as an exponent's sign.
            guard index > 0 else { return false }
            let previous = bytes[index - 1]
            return previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E")
        default:
            return false
        }
    }

    private func isIdentifierStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "_"), UInt8(ascii: "$"), 0x80...0xFF:
            return true
        default:
            return false
        }
    }

    private mutating func scanIdentifier() -> String {
        let start = index
        while let byte = peek(),
            isIdentifierStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        {
            // A no-break space or line separator ends a word (and is then reported where it stands).
            if (byte == 0xC2 && peek(1) == 0xA0)
                || (byte == 0xE2 && peek(1) == 0x80 && (peek(2) == 0xA8 || peek(2) == 0xA9))
            {
                break
            }
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func newLine() {
        line += 1
        lineStart = index
    }

    private mutating func skipSpaceAndComments() {
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), 0x0B, 0x0C:
                index += 1
            case UInt8(ascii: "\n"):
                index += 1
                newLine()
            case UInt8(ascii: "\r"):
                index += 1
                if peek() == UInt8(ascii: "\n") { index += 1 }
                newLine()
            case 0xEF where peek(1) == 0xBB && peek(2) == 0xBF:  // byte order mark
                index += 3
            // JSON5 allows these as white space, Foundation's reader does not: say so where they are.
            case 0xC2 where peek(1) == 0xA0:
                fail("a no-break space (U+00A0) is not allowed here: use a plain space")
                return
            case 0xE2 where peek(1) == 0x80 && (peek(2) == 0xA8 || peek(2) == 0xA9):
                fail("a Unicode line separator (U+2028/U+2029) is not allowed here: use a plain newline")
                return
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
                while let next = peek(), next != UInt8(ascii: "\n"), next != UInt8(ascii: "\r") { index += 1 }
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
                let start = index
                index += 2
                while true {
                    guard let next = peek() else {
                        index = start
                        fail("a /* comment is not closed")
                        return
                    }
                    if next == UInt8(ascii: "*") && peek(1) == UInt8(ascii: "/") {
                        index += 2
                        break
                    }
                    index += 1
                    if next == UInt8(ascii: "\n") { newLine() }
                }
            default:
                return
            }
        }
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return String(format: "byte 0x%02X", byte)
    }
}
