import Foundation
import Testing
import TouchRouterCore

@testable import TouchRouterProtocol

@Suite("Request decoding")
struct RequestDecoderTests {
    static let goodLines: [(String, ClientRequest)] = [
        (
            #"{"type":"hello","version":1,"client":"kiosk-ui"}"#,
            ClientRequest(.hello(version: 1, client: "kiosk-ui"))
        ),
        (#"{"type":"hello","version":1}"#, ClientRequest(.hello(version: 1, client: nil))),
        (#"{"type":"hello","version":2,"seq":0}"#, ClientRequest(.hello(version: 2, client: nil), seq: 0)),
        (
            #"{"type":"subscribe","views":["keypad","keypad/7"],"subtree":true,"seq":7}"#,
            ClientRequest(.subscribe(views: ["keypad", "keypad/7"], subtree: true), seq: 7)
        ),
        (#"{"type":"subscribe","views":[]}"#, ClientRequest(.subscribe(views: [], subtree: false))),
        (#"{"type":"unsubscribe","views":["a"]}"#, ClientRequest(.unsubscribe(.views(["a"])))),
        (#"{"type":"unsubscribe","all":true,"seq":3}"#, ClientRequest(.unsubscribe(.all), seq: 3)),
        (
            #"{"type":"hitTest","screen":"main","point":[10,20.5]}"#,
            ClientRequest(.hitTest(screen: "main", screenPoint: Point(10, 20.5)))
        ),
        (
            #"{"type":"hitTest","point":[-1e3,0]}"#,
            ClientRequest(.hitTest(screen: nil, screenPoint: Point(-1000, 0)))
        ),
        (#"{"type":"layout"}"#, ClientRequest(.layout)),
        (
            #"{"type":"explain","screen":"main","point":[540,880],"seq":5}"#,
            ClientRequest(.explain(screen: "main", screenPoint: Point(540, 880)), seq: 5)
        ),
        (#"{"type":"explain","point":[-1,2.5]}"#, ClientRequest(.explain(screen: nil, screenPoint: Point(-1, 2.5)))),
        (
            #"{"type":"hitTest","point":[1,2],"screen":null,"seq":8}"#,
            ClientRequest(.hitTest(screen: nil, screenPoint: Point(1, 2)), seq: 8)
        ),
        (
            #"  {"seq":9007199254740991,"type":"status"}  "#,
            ClientRequest(.status, seq: 9_007_199_254_740_991)
        ),
        (#"{"type":"status","seq":4.0}"#, ClientRequest(.status, seq: 4)),
        ("{\"type\":\"reload\"}\r", ClientRequest(.reload)),
        (#"{"type":"layout","extra":{"ignored":[1,2]}}"#, ClientRequest(.layout)),
    ]

    @Test("well-formed requests", arguments: goodLines)
    func decodesWellFormed(line: String, expected: ClientRequest) {
        #expect(RequestDecoder.decode(line: Array(line.utf8)) == .request(expected))
    }

    static let badLines: [(String, ErrorCode, Int64?)] = [
        ("not json", .malformedJSON, nil),
        (#"{"type":"hello""#, .malformedJSON, nil),
        (#"["hello"]"#, .malformedJSON, nil),
        (#""hello""#, .malformedJSON, nil),
        ("42", .malformedJSON, nil),
        (#"{"type":"status","seq":1e400}"#, .malformedJSON, nil),
        (#"{"type":"hitTest","point":[NaN,1]}"#, .malformedJSON, nil),
        (#"{"type":"hitTest","point":[Infinity,1]}"#, .malformedJSON, nil),
        (#"{'type':'status'}"#, .malformedJSON, nil),
        (#"{"seq":1}"#, .invalidMessage, 1),
        (#"{"type":7,"seq":2}"#, .invalidMessage, 2),
        (#"{"type":"dance","seq":3}"#, .unknownType, 3),
        (#"{"type":"Hello"}"#, .unknownType, nil),
        (#"{"type":"hello","seq":4}"#, .invalidMessage, 4),
        (#"{"type":"hello","version":"1"}"#, .invalidMessage, nil),
        (#"{"type":"hello","version":1.5}"#, .invalidMessage, nil),
        (#"{"type":"hello","version":true}"#, .invalidMessage, nil),
        (#"{"type":"hello","version":1e300}"#, .invalidMessage, nil),
        (#"{"type":"hello","version":123456789012345678901234567890}"#, .invalidMessage, nil),
        (#"{"type":"hello","version":1,"client":5}"#, .invalidMessage, nil),
        (#"{"type":"subscribe","seq":5}"#, .invalidMessage, 5),
        (#"{"type":"setView","views":{"ok":3},"seq":9}"#, .invalidMessage, 9),
        (#"{"type":"subscribe","views":"a"}"#, .invalidMessage, nil),
        (#"{"type":"subscribe","views":["a",1]}"#, .invalidMessage, nil),
        (#"{"type":"subscribe","views":["a"],"subtree":1}"#, .invalidMessage, nil),
        (#"{"type":"subscribe","views":["a"],"subtree":"yes"}"#, .invalidMessage, nil),
        (#"{"type":"unsubscribe"}"#, .invalidMessage, nil),
        (#"{"type":"unsubscribe","all":true,"views":["a"]}"#, .invalidMessage, nil),
        (#"{"type":"hitTest","point":[1]}"#, .invalidMessage, nil),
        (#"{"type":"hitTest","point":[1,2,3]}"#, .invalidMessage, nil),
        (#"{"type":"hitTest","point":["1",2]}"#, .invalidMessage, nil),
        (#"{"type":"hitTest","point":[true,2]}"#, .invalidMessage, nil),
        (#"{"type":"hitTest","point":{"x":1,"y":2},"seq":6}"#, .invalidMessage, 6),
        (#"{"type":"status","seq":-1}"#, .invalidMessage, nil),
        (#"{"type":"status","seq":9007199254740992}"#, .invalidMessage, nil),
        (#"{"type":"status","seq":"1"}"#, .invalidMessage, nil),
        (#"{"type":"status","seq":1.5}"#, .invalidMessage, nil),
    ]

    @Test("malformed and invalid requests give typed errors", arguments: badLines)
    func rejectsBadLines(line: String, code: ErrorCode, seq: Int64?) {
        let decoded = RequestDecoder.decode(line: Array(line.utf8))
        guard case .error(let error) = decoded else {
            Issue.record("expected \(code) for \(line), got \(decoded)")
            return
        }
        #expect(error.code == code, "\(line): \(error)")
        #expect(error.seq == seq, "\(line): \(error)")
        #expect(!error.message.isEmpty)
    }

    @Test("blank lines are ignored")
    func blankLines() {
        #expect(RequestDecoder.decode(line: [UInt8]()) == .emptyLine)
        #expect(RequestDecoder.decode(line: Array(" \t\r".utf8)) == .emptyLine)
    }

    @Test("invalid UTF-8 is a malformed-json error, never a trap")
    func invalidUTF8() throws {
        let cases: [[UInt8]] = [
            [0x7B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            Array(#"{"type":"hello","client":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
            Array(#"{"type":"#.utf8) + [0xED, 0xA0, 0x80] + Array("}".utf8),  // encoded surrogate
            [0xEF, 0xBB, 0xBF] + [0x80],
        ]
        for bytes in cases {
            guard case .error(let error) = RequestDecoder.decode(line: bytes) else {
                Issue.record("accepted \(bytes)")
                continue
            }
            #expect(error.code == .malformedJSON)
        }
        let fixture = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fuzz/json5-invalid-utf8-trap.bin")
        let bytes = try [UInt8](Data(contentsOf: fixture))
        guard case .error(let error) = RequestDecoder.decode(line: bytes) else {
            Issue.record("the JSON5 trap fixture was accepted")
            return
        }
        #expect(error.code == .malformedJSON)
    }

    @Test("deep nesting within the line limit is an error, not a stack overflow", arguments: [100, 600, 30000])
    func deepNesting(depth: Int) {
        let line =
            Array(#"{"type":"status","x":"#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: depth)
            + [UInt8](repeating: UInt8(ascii: "]"), count: depth) + Array("}".utf8)
        switch RequestDecoder.decode(line: line) {
        case .request(let request): #expect(depth < 512 && request.message == .status)
        case .error(let error): #expect(error.code == .malformedJSON)
        case .emptyLine: Issue.record("not empty")
        }
    }

    @Test("a \\u escaped lone surrogate is rejected")
    func loneSurrogate() {
        let decoded = RequestDecoder.decode(
            line: Array(#"{"type":"hello","version":1,"client":"\ud800"}"#.utf8))
        guard case .error(let error) = decoded else {
            Issue.record("accepted a lone surrogate: \(decoded)")
            return
        }
        #expect(error.code == .malformedJSON)
    }

    @Test("every request round-trips through its encoder", arguments: goodLines)
    func roundTrip(line: String, expected: ClientRequest) {
        #expect(RequestDecoder.decode(line: expected.encodedLine().dropLast()) == .request(expected))
        #expect(expected.encodedLine().last == UInt8(ascii: "\n"))
    }

    @Test("random bytes and mutated requests never crash the decoder")
    func fuzz() {
        let seed: UInt64 = 0x5EED_0005
        var random = SeededRandom(seed: seed)
        let templates = Self.goodLines.map { Array($0.0.utf8) } + Self.badLines.map { Array($0.0.utf8) }
        let alphabet = Array(#"{}[]":,0123456789.eE+-truefalsnul\ "#.utf8) + [0x00, 0x80, 0xFF, 0xC3]
        for round in 0..<3000 {
            var bytes = templates[Int.random(in: 0..<templates.count, using: &random)]
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let position = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes.insert(alphabet.randomElement(using: &random)!, at: position)
                case 1 where position < bytes.count: bytes.remove(at: position)
                default:
                    if position < bytes.count { bytes[position] = UInt8.random(in: 0...255, using: &random) }
                }
            }
            switch RequestDecoder.decode(line: bytes) {
            case .request, .emptyLine: break
            case .error(let error):
                #expect(!error.message.isEmpty, "seed \(seed) round \(round)")
            }
        }
    }
}
