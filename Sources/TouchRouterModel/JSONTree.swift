/// The values `JSONReader` yields: a tree of nodes, each with where it stands in the text.

/// Where something is in a text: 1-based line, and 1-based column counted in Unicode scalars.
public struct SourcePosition: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// 1-based line.
    public var line: Int
    /// 1-based column, in Unicode scalars (what an editor shows), not bytes.
    public var column: Int

    /// A position.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}

/// One parsed value with its position: for an object's member the position of its key (where a
/// person looks for "the alpha of this view"), otherwise the value's first character.
public struct JSONNode: Sendable {
    /// The value.
    public var value: JSONParsedValue
    // 32-bit halves keep a node small: a layout has millions of them and files are ≤ 4 GiB.
    private var line: UInt32
    private var column: UInt32

    /// A node at `position` (clamped to 32 bits).
    public init(_ value: JSONParsedValue, at position: SourcePosition) {
        self.value = value
        line = UInt32(clamping: position.line)
        column = UInt32(clamping: position.column)
    }

    init(_ value: JSONParsedValue, line: UInt32, column: UInt32) {
        self.value = value
        self.line = line
        self.column = column
    }

    /// See the type's comment: a member's key, else the value's start.
    public var position: SourcePosition { SourcePosition(line: Int(line), column: Int(column)) }
}

/// A JSON or JSON5 value.
public enum JSONParsedValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any number. `integer` is set when the text was a decimal integer (no fraction, no exponent)
    /// that fits Int64, so integers beyond 2⁵³ stay exact. JSON5's `NaN` and `Infinity` and
    /// out-of-range numbers arrive here as non-finite doubles, and are also reported as problems.
    case number(Double, integer: Int64?)
    /// A string, escapes resolved.
    case string(String)
    /// An array, in order.
    case array([JSONNode])
    /// An object, members in file order.
    case object(JSONObject)

    /// The type's name as messages say it: "found a string".
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// An object's members in file order. A duplicate key is reported by the reader; both members stay
/// here and lookups find the first.
public struct JSONObject: Sendable {
    /// Every member, in file order.
    public var members: [JSONMember]
    /// Whether some key appears more than once (the reader reported it).
    public var hasDuplicateKeys: Bool

    /// An object from its members.
    public init(members: [JSONMember], hasDuplicateKeys: Bool = false) {
        self.members = members
        self.hasDuplicateKeys = hasDuplicateKeys
    }

    /// The first member with this key (a linear search: objects in configs and requests are small,
    /// and the callers ask for a fixed handful of keys).
    public subscript(key: String) -> JSONNode? {
        for member in members where member.key == key { return member.node }
        return nil
    }

    /// The number of members.
    public var count: Int { members.count }
    /// No members.
    public var isEmpty: Bool { members.isEmpty }
}

/// One `key: value` of an object; the node's position is the key's.
public struct JSONMember: Sendable {
    /// The key, escapes resolved.
    public var key: String
    /// The value, positioned at the key.
    public var node: JSONNode

    /// A member.
    public init(key: String, node: JSONNode) {
        self.key = key
        self.node = node
    }
}

/// The dialect `JSONReader` reads.
public enum JSONSyntax: Sendable {
    /// JSON5 (configs): comments, trailing commas, unquoted keys, single quotes, hexadecimal,
    /// leading/trailing decimal points, `+`, `Infinity`/`NaN` (reported as `nonFinite`), more escapes.
    case json5
    /// RFC 8259 JSON (protocol lines): none of the above; raw control characters in strings refused.
    case strictJSON
}

/// A problem the reader found. Duplicate keys and non-finite numbers let reading go on; the other
/// kinds end it.
public struct JSONProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem.
    public enum Kind: String, Hashable, Sendable {
        /// Not valid in the dialect: the message says what and the position where.
        case syntax
        /// Arrays and objects nest deeper than the reader's limit.
        case nestingTooDeep
        /// The bytes are not UTF-8; `byteOffset` is the first bad byte.
        case invalidUTF8
        /// A key appears twice in one object.
        case duplicateKey
        /// `NaN`, `Infinity`, or a number beyond a double's range.
        case nonFinite
    }

    /// What kind of problem.
    public var kind: Kind
    /// Where it is.
    public var position: SourcePosition
    /// Where it is, as a 0-based byte offset.
    public var byteOffset: Int
    /// What is wrong, in words; quotes at most `Excerpt.limit` characters of the input.
    public var message: String

    /// A problem.
    public init(kind: Kind, position: SourcePosition, byteOffset: Int, message: String) {
        self.kind = kind
        self.position = position
        self.byteOffset = byteOffset
        self.message = message
    }

    /// `line:column: message`.
    public var description: String { "\(position): \(message)" }
}

/// What one `JSONReader.read` gave.
public struct JSONReadResult: Sendable {
    /// The document, or nil when `failure` is set.
    public var root: JSONNode?
    /// Problems that did not stop reading (duplicate keys, non-finite numbers), in text order: the
    /// first `JSONReader.maxListedProblems`.
    public var problems: [JSONProblem] = []
    /// How many more such problems there were, past `problems` (counted, not kept).
    public var unlistedProblemCount = 0
    /// The problem that stopped reading (syntax, nesting, invalid UTF-8), if any.
    public var failure: JSONProblem?
    /// When reading stopped inside a top-level object: its members that were complete by then (so a
    /// protocol error can still echo the request's `seq`).
    public var partialTopLevelMembers: [JSONMember] = []
    /// How many objects the document has (a capacity hint for whoever walks it).
    public var objectCount = 0
}

/// Cuts what a message quotes from its input, so that no input size reaches a log line or a reply.
public enum Excerpt {
    /// The most characters (Unicode scalars) a message quotes from one piece of input.
    public static let limit = 80

    /// `text` itself when it has at most `limit` Unicode scalars, else its first `limit - 1`
    /// followed by `…`. Costs at most `limit` steps, whatever the text's length.
    public static func of(_ text: String, limit: Int = Excerpt.limit) -> String {
        // At most `limit` bytes is at most `limit` scalars (O(1) for a native string).
        if text.utf8.count <= limit { return text }
        var scalars = text.unicodeScalars.makeIterator()
        var kept = String.UnicodeScalarView()
        var count = 0
        while let scalar = scalars.next() {
            count += 1
            if count >= limit {
                if scalars.next() == nil {
                    kept.append(scalar)
                    return String(kept)
                }
                return String(kept) + "…"
            }
            kept.append(scalar)
        }
        return text
    }
}
