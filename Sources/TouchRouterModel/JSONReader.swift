/// The one JSON reader in the tree: JSON5 for configs, strict JSON for protocol lines.
///
/// One pass over the bytes builds the value tree with every node's line:column, validates UTF-8 as
/// it goes, finds duplicate keys and non-finite numbers (reported, reading goes on), and stops at the
/// first syntax error. It never recurses: open arrays and objects live on an explicit stack, capped at
/// `maxNesting`, so no input can overflow the thread's stack. Pure: bytes in, tree and problems out.
public enum JSONReader {
    /// The nesting cap used unless one is given: deeper arrays/objects fail with `nestingTooDeep`.
    public static let defaultMaxNesting = 512
    /// The most problems that do not stop reading (duplicate keys, non-finite numbers) a result
    /// lists; past it they are only counted (`JSONReadResult.unlistedProblemCount`), so a document
    /// of nothing but `NaN`s costs no more than its tree.
    public static let maxListedProblems = 1000

    /// Reads one document (JSON5 or strict JSON) from `bytes`.
    public static func read(
        _ bytes: UnsafeBufferPointer<UInt8>, syntax: JSONSyntax, maxNesting: Int = defaultMaxNesting
    ) -> JSONReadResult {
        var builder = TreeBuilder(scanner: JSONScanner(bytes: bytes, syntax: syntax), maxNesting: maxNesting)
        var result = JSONReadResult()
        do {
            result.root = try builder.run()
            result.problems = builder.scanner.problems
            result.unlistedProblemCount = builder.scanner.unlistedProblems
            result.objectCount = builder.objectCount
        } catch {
            if error.kind != .invalidUTF8,
                let bad = UTF8Check.firstInvalidByte(in: bytes, from: error.byteOffset)
            {
                // Bad bytes anywhere outrank a syntax error before them: say what is really wrong.
                result.failure = JSONProblem(
                    kind: .invalidUTF8, position: position(of: bad, in: bytes), byteOffset: bad,
                    message: "not valid UTF-8 at byte \(bad)")
            } else {
                result.failure = error
                if error.kind != .invalidUTF8 {
                    result.problems = builder.scanner.problems
                    result.unlistedProblemCount = builder.scanner.unlistedProblems
                }
            }
            result.partialTopLevelMembers = builder.topLevelMembers
        }
        return result
    }

    /// The line and column of `offset`, counted from the start (only for a failure past the point
    /// where reading stopped).
    static func position(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> SourcePosition {
        var line = 1
        var column = 1
        var index = 0
        while index < offset {
            let byte = bytes[index]
            if byte == 0x0A || (byte == 0x0D && (index + 1 >= bytes.count || bytes[index + 1] != 0x0A)) {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return SourcePosition(line: line, column: column)
    }

    /// Reads one document from any collection of bytes (copied once if not contiguous).
    public static func read<Bytes: Collection>(
        _ bytes: Bytes, syntax: JSONSyntax, maxNesting: Int = defaultMaxNesting
    ) -> JSONReadResult where Bytes.Element == UInt8 {
        if let result = bytes.withContiguousStorageIfAvailable({
            read($0, syntax: syntax, maxNesting: maxNesting)
        }) {
            return result
        }
        return Array(bytes).withUnsafeBufferPointer { read($0, syntax: syntax, maxNesting: maxNesting) }
    }
}

/// Builds the tree with an explicit stack. Finished values wait on `elements` / `members` until their
/// container closes, then move into one exactly sized array.
private struct TreeBuilder {
    var scanner: JSONScanner
    let maxNesting: Int

    private struct Frame {
        var isObject: Bool
        /// Where this container's finished children start in `elements` or `members`.
        var start: Int
        /// The container node's position (its key's, when it is a member).
        var line: UInt32
        var column: UInt32
        /// The key of the member being read (objects).
        var key = ""
        var keyLine: UInt32 = 0
        var keyColumn: UInt32 = 0
        var hasDuplicateKeys = false
        /// The keys so far, once the object is too large for a linear duplicate check.
        var keySet: Set<String>?
    }

    private var frames: [Frame] = []
    private(set) var objectCount = 0
    private let elements = MoveStack<JSONNode>()
    private let members = MoveStack<JSONMember>()

    init(scanner: JSONScanner, maxNesting: Int) {
        self.scanner = scanner
        self.maxNesting = maxNesting
    }

    /// The finished members of the outermost object, when reading stopped inside it.
    var topLevelMembers: [JSONMember] {
        guard let first = frames.first, first.isObject else { return [] }
        let end = frames.dropFirst().first(where: \.isObject)?.start ?? members.count
        return members.copy(first.start..<end)
    }

    private var json5: Bool { scanner.syntax == .json5 }

    mutating func run() throws(JSONProblem) -> JSONNode {
        try scanner.skipSpace()
        guard !scanner.atEnd else { throw scanner.syntaxError("empty document") }
        while true {
            // A value starts here.
            guard !scanner.atEnd else {
                throw scanner.syntaxError("unexpected end of file: an array or object is not closed")
            }
            let (line, column) = positionForValue()
            var node: JSONNode
            switch scanner.bytes[scanner.index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = scanner.bytes[scanner.index] == UInt8(ascii: "{")
                if isObject { objectCount += 1 }
                guard frames.count < maxNesting else {
                    throw scanner.problem(
                        .nestingTooDeep, at: scanner.index,
                        "arrays and objects nest deeper than \(maxNesting) levels")
                }
                frames.append(
                    Frame(
                        isObject: isObject, start: isObject ? members.count : elements.count, line: line,
                        column: column))
                scanner.index += 1
                try scanner.skipSpace()
                if scanner.peek() == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    scanner.index += 1
                    node = close()
                } else {
                    if isObject { try readKey() }
                    continue
                }
            default:
                node = JSONNode(try scalarValue(), line: line, column: column)
            }
            // The value is finished: hand it to its container, and close containers as they end.
            while true {
                guard !frames.isEmpty else {
                    try scanner.skipSpace()
                    guard scanner.atEnd else {
                        throw scanner.syntaxError(
                            "unexpected \(try scanner.describe(at: scanner.index)) after the end of the document"
                        )
                    }
                    return node
                }
                let isObject = frames[frames.count - 1].isObject
                if isObject {
                    members.append(JSONMember(key: frames[frames.count - 1].key, node: node))
                } else {
                    elements.append(node)
                }
                try scanner.skipSpace()
                guard let byte = scanner.peek() else {
                    throw scanner.syntaxError("unexpected end of file: an array or object is not closed")
                }
                let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if byte == closing {
                    scanner.index += 1
                    node = close()
                    continue
                }
                guard byte == UInt8(ascii: ",") else {
                    throw scanner.syntaxError(
                        "expected ',' or '\(isObject ? "}" : "]")' but found \(try scanner.describe(at: scanner.index))"
                    )
                }
                let comma = scanner.index
                scanner.index += 1
                try scanner.skipSpace()
                if scanner.peek() == closing {
                    guard json5 else {
                        throw scanner.syntaxError(
                            "a comma before '\(isObject ? "}" : "]")' is not allowed in JSON", at: comma)
                    }
                    scanner.index += 1
                    node = close()
                    continue
                }
                if isObject { try readKey() }
                break
            }
        }
    }

    /// A member's value is positioned at its key; anything else at its own start.
    private mutating func positionForValue() -> (UInt32, UInt32) {
        // Read in place: a copy of the frame would retain and release its key and key set.
        if let top = frames.indices.last, frames[top].isObject { return (frames[top].keyLine, frames[top].keyColumn) }
        return scanner.lineAndColumn(at: scanner.index)
    }

    /// Pops the innermost container into a node.
    private mutating func close() -> JSONNode {
        let frame = frames.removeLast()
        if frame.isObject {
            let object = JSONObject(
                members: members.popArray(from: frame.start), hasDuplicateKeys: frame.hasDuplicateKeys)
            return JSONNode(.object(object), line: frame.line, column: frame.column)
        }
        return JSONNode(.array(elements.popArray(from: frame.start)), line: frame.line, column: frame.column)
    }

    /// Reads `key :` (at a key's first byte, past white space), checks it against the object's keys.
    private mutating func readKey() throws(JSONProblem) {
        guard let byte = scanner.peek() else {
            throw scanner.syntaxError("unexpected end of file: an array or object is not closed")
        }
        let keyStart = scanner.index
        let (keyLine, keyColumn) = scanner.lineAndColumn(at: keyStart)
        let key: String
        if byte == UInt8(ascii: "\"") || (json5 && byte == UInt8(ascii: "'")) {
            key = try scanner.string()
        } else if json5, let word = try scanner.identifier() {
            key = word
        } else {
            let expected = json5 ? "a key" : "a key in double quotes"
            throw scanner.syntaxError(
                "expected \(expected) or '}' but found \(try scanner.describe(at: keyStart))")
        }
        let top = frames.count - 1
        if isDuplicate(key, in: top) {
            frames[top].hasDuplicateKeys = true
            scanner.note(.duplicateKey, at: keyStart, "duplicate key \"\(Excerpt.of(key))\"")
        }
        frames[top].key = key
        frames[top].keyLine = keyLine
        frames[top].keyColumn = keyColumn
        try scanner.skipSpace()
        guard scanner.peek() == UInt8(ascii: ":") else {
            throw scanner.syntaxError("expected ':' after the key \"\(Excerpt.of(key))\"")
        }
        scanner.index += 1
        try scanner.skipSpace()
        guard !scanner.atEnd else {
            throw scanner.syntaxError("unexpected end of file: an array or object is not closed")
        }
    }

    /// Whether the object `frames[top]` already has `key` (linear while small, then a set).
    private mutating func isDuplicate(_ key: String, in top: Int) -> Bool {
        let start = frames[top].start
        if frames[top].keySet == nil {
            if members.count - start < 16 {
                for index in start..<members.count where members[index].key == key { return true }
                return false
            }
            let waiting = members
            frames[top].keySet = Set((start..<waiting.count).lazy.map { waiting[$0].key })
        }
        return !frames[top].keySet!.insert(key).inserted
    }

    /// A string, number or word where a value belongs.
    private mutating func scalarValue() throws(JSONProblem) -> JSONParsedValue {
        let start = scanner.index
        let byte = scanner.bytes[start]
        switch byte {
        case UInt8(ascii: "\""):
            return .string(try scanner.string())
        case UInt8(ascii: "'") where json5:
            return .string(try scanner.string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try scanner.number()
        case UInt8(ascii: "+") where json5, UInt8(ascii: ".") where json5:
            return try scanner.number()
        default:
            break
        }
        guard let word = try scanner.identifier() else {
            throw scanner.syntaxError("unexpected \(try scanner.describe(at: start)) where a value belongs")
        }
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        case "Infinity", "NaN":
            scanner.index = start
            return try scanner.number()
        default:
            scanner.index = start
            throw scanner.syntaxError("unexpected '\(Excerpt.of(word))' where a value belongs")
        }
    }
}

/// The finished values waiting for their container to close: a stack that hands its top run off
/// as an array by moving the values (no retain and release per value, as copying a slice out of an
/// `Array` and removing it would cost). Its storage doubles when full and is never larger than
/// twice the most values that waited at once, which the input's size bounds.
private final class MoveStack<Element> {
    private var storage: UnsafeMutablePointer<Element>
    private var capacity: Int
    /// The values waiting.
    private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = capacity
        storage = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// Pushes a value. Amortised O(1).
    func append(_ element: consuming Element) {
        if count == capacity {
            let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = larger
            capacity *= 2
        }
        (storage + count).initialize(to: element)
        count += 1
    }

    /// The value at `index` (below `count`).
    subscript(index: Int) -> Element {
        precondition(index >= 0 && index < count, "MoveStack index out of range")
        return storage[index]
    }

    /// The values from `start` to the top, in order, moved out into an exactly sized array; the
    /// stack is left with the `start` values below them. O(values moved).
    func popArray(from start: Int) -> [Element] {
        precondition(start >= 0 && start <= count, "MoveStack start out of range")
        let moved = count - start
        guard moved > 0 else { return [] }
        // Appended one by one into reserved room: `Array(unsafeUninitializedCapacity:)` would look
        // the storage's type up at run time for every array.
        var array: [Element] = []
        array.reserveCapacity(moved)
        for offset in start..<count { array.append((storage + offset).move()) }
        count = start
        return array
    }

    /// Copies of the values in `range` (the stack keeps them).
    func copy(_ range: Range<Int>) -> [Element] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "MoveStack range out of range")
        return Array(UnsafeBufferPointer(start: storage + range.lowerBound, count: range.count))
    }
}
