import Foundation
import Testing

@testable import TouchRouterCore

/// Reads `text` and returns the result.
func readJSON(_ text: String, _ syntax: JSONSyntax = .json5) -> JSONReadResult {
    JSONReader.read(Array(text.utf8), syntax: syntax)
}

/// A small comparable form of a tree, for expectations: numbers as doubles, objects as pairs.
indirect enum Plain: Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([Plain])
    case object([String], [Plain])

    init(_ node: JSONNode) {
        switch node.value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let number, _): self = .number(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(Plain.init))
        case .object(let object):
            self = .object(object.members.map(\.key), object.members.map { Plain($0.node) })
        }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .number(let number): "\(number)"
        case .string(let text): text.debugDescription
        case .array(let elements): "[\(elements.map(\.description).joined(separator: ","))]"
        case .object(let keys, let values):
            "{\(zip(keys, values).map { "\($0.debugDescription):\($1)" }.joined(separator: ","))}"
        }
    }
}

func plain(_ text: String, _ syntax: JSONSyntax = .json5) -> Plain? {
    let result = readJSON(text, syntax)
    guard result.failure == nil, result.problems.isEmpty, let root = result.root else { return nil }
    return Plain(root)
}

@Suite("JSON5 conformance")
struct JSON5ConformanceTests {
    static let accepted: [(String, String, Plain)] = [
        ("line comment", "// a\n[1, // b\n2]", .array([.number(1), .number(2)])),
        ("block comment", "/* a\n b */ [/**/1/* c */]", .array([.number(1)])),
        ("trailing comma in an array", "[1, 2,]", .array([.number(1), .number(2)])),
        ("trailing comma in an object", "{a: 1,}", .object(["a"], [.number(1)])),
        (
            "unquoted keys", "{$a_1: 1, _: 2, café: 3}",
            .object(["$a_1", "_", "café"], [.number(1), .number(2), .number(3)])
        ),
        ("escaped unquoted key", #"{\u0061b: 1}"#, .object(["ab"], [.number(1)])),
        (
            "reserved words as keys", "{null: 1, true: 2}",
            .object(["null", "true"], [.number(1), .number(2)])
        ),
        ("single quotes", #"['a"b', 'it\'s']"#, .array([.string("a\"b"), .string("it's")])),
        ("single-quoted key", "{'a b': 1}", .object(["a b"], [.number(1)])),
        (
            "hexadecimal", "[0x1F, 0XFF, -0xa, +0x10]",
            .array([.number(31), .number(255), .number(-10), .number(16)])
        ),
        ("leading point", "[.5, -.25]", .array([.number(0.5), .number(-0.25)])),
        ("trailing point", "[5., 1.e2]", .array([.number(5), .number(100)])),
        ("plus sign", "+1", .number(1)),
        ("exponents", "[1e3, 1E-3, 2.5e+2]", .array([.number(1000), .number(0.001), .number(250)])),
        ("escapes", #"'\b\f\n\r\t\v\0\'\"\\\/'"#, .string("\u{8}\u{C}\n\r\t\u{B}\0'\"\\/")),
        ("hex and unicode escapes", #""\x41\u00e9\uD83D\uDE00""#, .string("Aé😀")),
        ("the last low surrogate", #""\uD83D\uDFFF\uDBFF\uDC00""#, .string("\u{1F7FF}\u{10FC00}")),
        ("any other character escapes to itself", #""\q\ü""#, .string("qü")),
        ("line continuation (LF)", "'a\\\nb'", .string("ab")),
        ("line continuation (CRLF)", "'a\\\r\nb'", .string("ab")),
        ("line continuation (U+2028)", "'a\\\u{2028}b'", .string("ab")),
        ("raw U+2028 and U+2029 in a string", "'a\u{2028}b\u{2029}'", .string("a\u{2028}b\u{2029}")),
        ("byte order mark", "\u{FEFF}[1]", .array([.number(1)])),
        ("vertical tab and form feed as space", "[1,\u{B}\u{C}2]", .array([.number(1), .number(2)])),
        ("literals", "[true, false, null]", .array([.bool(true), .bool(false), .null])),
    ]

    @Test("JSON5 reads what the specification allows", arguments: accepted)
    func acceptsJSON5(name: String, text: String, expected: Plain) {
        #expect(plain(text) == expected, "\(name)")
    }

    @Test(
        "Infinity and NaN are read but reported as nonFinite, where they stand",
        arguments: ["Infinity", "-Infinity", "+Infinity", "NaN", "-NaN", "1e999", "-1e400"])
    func nonFinite(word: String) throws {
        let result = readJSON("[0, \(word)]")
        #expect(result.failure == nil)
        #expect(result.problems.map(\.kind) == [.nonFinite])
        #expect(result.problems.first?.position == SourcePosition(line: 1, column: 5))
        let errors = configErrors(fileWithChildren(#"{ id: "k", frame: [0, 0, 5, \#(word)] }"#))
        #expect(errors.map(\.code) == [.nonFinite])
    }

    static let refused: [(String, String, String)] = [
        ("octal escape", #"'\1'"#, "not an escape"),
        ("NUL escape followed by a digit (octal)", #"'\01'"#, "not an escape"),
        ("short hex escape", #"'\x4'"#, "2 hexadecimal digits"),
        ("lone surrogate", #"'\uD800'"#, "lone UTF-16 surrogate"),
        ("empty hex", "0x", "not a number"),
        ("two points", "1.2.3", "not a number"),
        ("unit after a number", "5px", "not a number"),
        ("a point alone", "[.]", "not a number"),
        ("leading zero", "007", "must not start with 0"),
        ("exponent without digits", "[1e]", "not a number"),
        ("signed exponent without digits", "[2e+]", "not a number"),
        ("negative exponent without digits", "[3.5E-]", "not a number"),
        ("U+2028 between values", "[1,\u{2028}2]", "U+2028"),
        ("em space between values", "[1,\u{2003}2]", "U+2003"),
        ("two commas", "[1,,2]", "where a value belongs"),
        ("comma alone", "[,]", "where a value belongs"),
        ("unclosed block comment", "[1] /*", "not closed"),
        ("newline in a string", "'a\nb'", "not closed on its line"),
        ("emoji as a key", "{😀: 1}", "expected a key"),
    ]

    @Test("JSON5 refuses what the specification does not allow", arguments: refused)
    func refusesInvalid(name: String, text: String, says: String) {
        let result = readJSON(text)
        let failure = result.failure
        #expect(failure?.kind == .syntax, "\(name): \(String(describing: failure))")
        #expect(failure?.message.contains(says) == true, "\(name): \(String(describing: failure))")
    }

    @Test("positions: members at their key, elements at their start, columns in Unicode scalars")
    func positions() throws {
        let result = readJSON("{\n  'é☕': [1,\n    \"x\"],\n}")
        let root = try #require(result.root)
        #expect(root.position == SourcePosition(line: 1, column: 1))
        guard case .object(let object) = root.value, let member = object["é☕"] else {
            Issue.record("not an object: \(root.value)")
            return
        }
        #expect(member.position == SourcePosition(line: 2, column: 3))
        guard case .array(let elements) = member.value else { return }
        #expect(
            elements.map(\.position) == [
                SourcePosition(line: 2, column: 10), SourcePosition(line: 3, column: 5),
            ])
    }

    @Test("integers keep their exact value beyond 2⁵³; fractions and exponents do not claim one")
    func exactIntegers() {
        let result = readJSON("[9007199254740993, -9223372036854775808, 18446744073709551616, 4.0, 1e2]")
        guard case .array(let elements)? = result.root?.value else {
            Issue.record("not an array")
            return
        }
        let integers = elements.map { node -> Int64? in
            if case .number(_, let integer) = node.value { return integer }
            return nil
        }
        #expect(integers == [9_007_199_254_740_993, Int64.min, nil, nil, nil])
    }

    @Test(
        "short integers (read at once) keep their sign, value and exact integer, in both dialects",
        arguments: [
            "5", "-5", "0", "-0", "-123456789012345678", "123456789012345678", "9007199254740993",
            "-9007199254740993", "-1234567890123456789",
        ])
    func shortIntegers(text: String) throws {
        for syntax in [JSONSyntax.json5, .strictJSON] {
            let node = try #require(readJSON("[\(text)]", syntax).root)
            guard case .array(let elements) = node.value, case .number(let value, let integer) = elements.first?.value
            else {
                Issue.record("not a number: \(text)")
                continue
            }
            #expect(value == Double(text)! && value.sign == Double(text)!.sign, "\(text)")
            #expect(integer == Int64(text), "\(text)")
        }
    }

    @Test(
        "doubles are read correctly rounded",
        arguments: [
            "0.1", "2.2250738585072014e-308", "1.7976931348623157e308", "5e-324",
            "123456789012345678901234567890",
            "0.30000000000000004", "3.141592653589793238462643383279", "1e23", "8.98846567431158e307",
        ])
    func correctlyRounded(text: String) {
        #expect(plain(text, .strictJSON) == .number(Double(text)!))
    }

    /// (keys, which one comes again): small objects are searched, large ones hashed; the first
    /// and the last key of a large one too.
    @Test(
        "duplicate keys are reported at the second one, in small and large objects",
        arguments: [(3, 1), (40, 1), (40, 0), (40, 39), (17, 0)])
    func duplicateKeys(size: Int, repeated: Int) throws {
        let keys = (0..<size).map { "k\($0): \($0)" } + ["k\(repeated): 0"]
        let result = readJSON("{" + keys.joined(separator: ", ") + "}")
        #expect(result.failure == nil)
        #expect(result.problems.map(\.kind) == [.duplicateKey])
        #expect(result.problems.first?.message == "duplicate key \"k\(repeated)\"")
    }

    @Test(
        "a comment or string left open over several lines is reported where it starts",
        arguments: [("[1,\n  /* a\nb\nc", 2, 3), ("[1,\n  'a\\\nb\\\nc", 2, 3), ("{\n a: 'é\\\n", 2, 5)])
    func unclosedOverLines(text: String, line: Int, column: Int) {
        let failure = readJSON(text).failure
        #expect(failure?.kind == .syntax)
        #expect(
            failure?.position == SourcePosition(line: line, column: column), "\(String(describing: failure))")
    }

    @Test("after a syntax error, invalid UTF-8 later in the file is what is reported")
    func invalidUTF8AfterSyntaxError() {
        let result = JSONReader.read([UInt8]("[1 2] ".utf8) + [0xFF], syntax: .json5)
        #expect(result.failure?.kind == .invalidUTF8)
        #expect(result.failure?.byteOffset == 6)
    }
}

@Suite("Excerpts in messages")
struct ExcerptTests {
    @Test("text up to the limit is kept, longer text is cut with …")
    func excerpt() {
        let exact = String(repeating: "é", count: Excerpt.limit)
        #expect(Excerpt.of(exact) == exact)
        let long = exact + "x"
        #expect(Excerpt.of(long) == String(repeating: "é", count: Excerpt.limit - 1) + "…")
        #expect(Excerpt.of("") == "")
    }

    static let megabyte = String(repeating: "A", count: 1 << 20)

    @Test(
        "a 1 MB key, id, string or word gives an error under 300 bytes",
        arguments: [
            "{ \(megabyte): 1, screens: [] }",
            fileWithChildren(#"{ id: "k", frame: [0, 0, 5, 5], "\#(megabyte)": 1 }"#),
            fileWithChildren(#"{ id: "\#(megabyte)!", frame: [0, 0, 0, 5] }"#),
            fileWithChildren(#"{ id: "k", frame: [0, 0, 5, 5], shape: "\#(megabyte)" }"#),
            fileWithChildren(#"{ id: "k", frame: [0, 0, 5, 5], hidden: \#(megabyte) }"#),
            fileWithChildren(#"{ id: "k", frame: [0, 0, 5, 1\#(String(repeating: "0", count: 1 << 20))] }"#),
            "{ \(megabyte)",
        ])
    func hugeInputs(text: String) {
        let errors = configErrors(text)
        #expect(!errors.isEmpty)
        for error in errors {
            #expect(error.description.utf8.count < 300, "\(error.description.prefix(200))")
        }
    }
}
