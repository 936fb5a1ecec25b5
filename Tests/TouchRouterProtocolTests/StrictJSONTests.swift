import Foundation
import Testing
import TouchRouterCore

@testable import TouchRouterProtocol

/// Request lines are strict JSON (docs/protocol.md), read by the same reader as configs.
@Suite("Strict JSON requests")
struct StrictJSONTests {
    private func decodeError(_ line: String) -> ProtocolError? {
        guard case .error(let error) = RequestDecoder.decode(line: Array(line.utf8)) else { return nil }
        return error
    }

    static let refused: [(String, String)] = [
        (#"{"type":"status",}"#, "comma before '}'"),
        (#"{"type":"subscribe","views":["a",]}"#, "comma before ']'"),
        (#"{"type":"status"} // hi"#, "after the end"),
        (#"{type:"status"}"#, "double quotes"),
        (#"{"type":'status'}"#, "where a value belongs"),
        (#"{"type":"hitTest","point":[0x10,1]}"#, "not a number"),
        (#"{"type":"hitTest","point":[+1,1]}"#, "'+'"),
        (#"{"type":"hitTest","point":[.5,1]}"#, "where a value belongs"),
        (#"{"type":"hitTest","point":[5.,1]}"#, "not a number"),
        (#"{"type":"hitTest","point":[01,1]}"#, "must not start with 0"),
        (#"{"type":"hitTest","point":[1e,1]}"#, "not a number"),
        (#"{"type":"hitTest","point":[2e+,1]}"#, "not a number"),
        (#"{"type":"hitTest","point":[1,3.5E-]}"#, "not a number"),
        (#"{"type":"hitTest","point":[NaN,1]}"#, "NaN"),
        (#"{"type":"hitTest","point":[-Infinity,1]}"#, "Infinity"),
        ("{\"type\":\"hello\",\"version\":1,\"client\":\"a\tb\"}", "control character"),
        (#"{"type":"hello","version":1,"client":"\x41"}"#, "cannot follow"),
        (#"{"type":"status","type":"reload"}"#, #"duplicate key "type""#),
    ]

    @Test("what JSON5 allows and JSON does not is malformed-json", arguments: refused)
    func refusesNonJSON(line: String, says: String) throws {
        let error = try #require(decodeError(line), "accepted: \(line)")
        #expect(error.code == .malformedJSON)
        #expect(error.message.contains(says), "\(error.message)")
    }

    @Test("a trailing comma after seq still answers with that seq")
    func trailingCommaKeepsSeq() throws {
        let error = try #require(decodeError(#"{"type":"status","seq":3,}"#))
        #expect(error.code == .malformedJSON)
        #expect(error.seq == 3)
        #expect(error.message == "not valid JSON at column 25: a comma before '}' is not allowed in JSON")
    }

    @Test(
        "a number out of range is said in our words, with the request's seq before or after it",
        arguments: [
            #"{"type":"hitTest","seq":5,"point":[1e999,1]}"#,
            #"{"type":"hitTest","point":[1e999,1],"seq":5}"#,
        ])
    func outOfRange(line: String) throws {
        let error = try #require(decodeError(line))
        #expect(error.code == .malformedJSON)
        #expect(error.seq == 5)
        #expect(error.message.hasSuffix(": 1e999 is out of range for a number"), "\(error.message)")
        #expect(!error.message.contains("typeMismatch"))
    }

    @Test("an unreadable seq is left out")
    func unreadableSeq() throws {
        #expect(try #require(decodeError(#"{"type":"status","seq":1e400}"#)).seq == nil)
        #expect(try #require(decodeError(#"{"type":"status","seq":-1,}"#)).seq == nil)
    }

    @Test("JSON escapes, surrogate pairs, exponents and exact integers are read")
    func acceptsJSON() {
        let line =
            #"{"type":"hello","version":1E0,"client":"\u00e9\ud83d\ude00\/\"\\\b\f\n\r\t","seq":9007199254740991}"#
        #expect(
            RequestDecoder.decode(line: Array(line.utf8))
                == .request(
                    ClientRequest(
                        .hello(version: 1, client: "é😀/\"\\\u{8}\u{C}\n\r\t"), seq: 9_007_199_254_740_991)))
    }

    static let megabyte = String(repeating: "A", count: 1 << 20)

    @Test(
        "a 1 MB key, value or word in a request gives an error message under 300 bytes",
        arguments: [
            #"{"type":"\#(megabyte)"}"#, #"{"\#(megabyte)":1e999,"type":"status"}"#,
            #"{"type":"status",\#(megabyte)}"#,
            #"{"type":"status","x":\#(megabyte)}"#,
            #"{"type":"status","x":1\#(String(repeating: "0", count: 1 << 20))}"#,
            #"{"type":"status","\#(megabyte)":1,"\#(megabyte)":2}"#,
        ])
    func hugeInputs(line: String) throws {
        let error = try #require(decodeError(line))
        #expect(error.message.utf8.count < 300, "\(error.message.prefix(200))")
        #expect(DaemonMessage.error(error).encodedLine().count < 400)
    }

    /// Random values written by the protocol's writer read back identical (doubles bit for bit).
    /// Replay one seed with `TOUCHROUTER_JSON_SEED=<seed> swift test --filter StrictJSONTests`.
    @Test("random values round-trip through the writer and the reader")
    func roundTrip() throws {
        let seed =
            ProcessInfo.processInfo.environment["TOUCHROUTER_JSON_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        for round in 0..<500 {
            var fields: [String: JSONValue] = ["type": .string("status")]
            for index in 0..<Int.random(in: 0...6, using: &random) {
                fields["k\(index)"] = Self.randomValue(&random, depth: 0)
            }
            var line: [UInt8] = []
            JSONValue.object(fields).append(to: &line)
            let read = try JSONReading.object(fromLine: line)
            #expect(read == fields, "seed \(seed) (replay: TOUCHROUTER_JSON_SEED=\(seed)), round \(round)")
        }
    }

    /// A free value's keys are data (a client's `setView` fields echoed in `status`): a quote, a
    /// backslash or a control character in one is escaped, never ends the key.
    @Test func aFreeObjectsKeysAreEscaped() throws {
        let fields: [String: JSONValue] = ["type": .string("status"), "a\"b\\c\u{1}": .integer(1)]
        var line: [UInt8] = []
        JSONValue.object(fields).append(to: &line)
        #expect(String(decoding: line, as: UTF8.self).contains(#""a\"b\\c\u0001":1"#))
        #expect(try JSONReading.object(fromLine: line) == fields)
    }

    private static func randomValue(_ random: inout SeededRandom, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth < 3 ? 8 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .integer(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 3:
            let bits = UInt64.random(in: 0...UInt64.max, using: &random)
            let double = Double(bitPattern: bits)
            return .double(double.isFinite && double != double.rounded() ? double : 0.5)
        case 4:
            let scalars = (0..<Int.random(in: 0...8, using: &random)).map { _ in
                Unicode.Scalar(UInt32.random(in: 0...0x2FF, using: &random)) ?? "x"
            }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 5:
            return .string(["", "é", "😀", "\u{2028}", "\"\\/", "\u{0}\u{1F}"].randomElement(using: &random)!)
        case 6:
            return .array(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in randomValue(&random, depth: depth + 1)
                })
        default:
            var object: [String: JSONValue] = [:]
            for index in 0..<Int.random(in: 0...4, using: &random) {
                object["f\(index)"] = randomValue(&random, depth: depth + 1)
            }
            return .object(object)
        }
    }
}
