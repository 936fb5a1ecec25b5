import Testing
import TouchRouterCore

@testable import TouchRouterProtocol

@Suite("Line framing")
struct LineFramerTests {
    /// Every result until the framer needs more data.
    static func drain(_ framer: inout LineFramer) -> [FramedLine] {
        var results: [FramedLine] = []
        while true {
            let next = framer.nextLine()
            if next == .needMoreData { return results }
            results.append(next)
        }
    }

    static func line(_ text: String) -> FramedLine { .line(ArraySlice(text.utf8)) }

    @Test("partial input needs more; complete lines come out one by one")
    func partialAndComplete() {
        var framer = LineFramer()
        #expect(framer.nextLine() == .needMoreData)
        framer.append(Array(#"{"type":"sta"#.utf8))
        #expect(framer.nextLine() == .needMoreData)
        #expect(framer.bufferedByteCount == 12)
        framer.append(Array("tus\"}\n{\"type\":\"layout\"}\r\n\n{\"ty".utf8))
        #expect(
            Self.drain(&framer) == [
                Self.line(#"{"type":"status"}"#), Self.line("{\"type\":\"layout\"}\r"), Self.line(""),
            ])
        #expect(framer.bufferedByteCount == 4)
        framer.append(Array("pe\":\"x\"}\n".utf8))
        #expect(Self.drain(&framer) == [Self.line(#"{"type":"x"}"#)])
        #expect(framer.bufferedByteCount == 0)
    }

    @Test("a line of exactly the limit passes; one byte more is too long")
    func limit() {
        var framer = LineFramer(maxLineBytes: 8)
        framer.append(Array("12345678\n123456789\nok\n".utf8))
        #expect(Self.drain(&framer) == [Self.line("12345678"), .lineTooLong(limit: 8), Self.line("ok")])
    }

    @Test("an over-long line is reported once, while it streams in, and discarded up to its newline")
    func overLongStreaming() {
        var framer = LineFramer(maxLineBytes: 16)
        framer.append([UInt8](repeating: UInt8(ascii: "x"), count: 10))
        #expect(framer.nextLine() == .needMoreData)
        framer.append([UInt8](repeating: UInt8(ascii: "x"), count: 10))
        #expect(framer.nextLine() == .lineTooLong(limit: 16))
        #expect(framer.nextLine() == .needMoreData)
        for _ in 0..<100 {
            framer.append([UInt8](repeating: UInt8(ascii: "y"), count: 1000))
            #expect(framer.nextLine() == .needMoreData)
            #expect(framer.bufferedByteCount == 0, "discarded bytes are not kept")
        }
        framer.append(Array("yyy\nnext\n".utf8))
        #expect(Self.drain(&framer) == [Self.line("next")])
    }

    @Test("any split of a byte stream gives the same lines")
    func arbitrarySplits() {
        let seed: UInt64 = 0xF4A3E
        var random = SeededRandom(seed: seed)
        let text = (0..<200).map { index in String(repeating: "a", count: index % 37) + "\(index)" }
        let stream = Array(text.joined(separator: "\n").utf8) + [UInt8(ascii: "\n")]
        for round in 0..<50 {
            var framer = LineFramer(maxLineBytes: 64)
            var lines: [String] = []
            var position = 0
            while position < stream.count {
                let end = min(stream.count, position + Int.random(in: 1...40, using: &random))
                framer.append(stream[position..<end])
                position = end
                for result in Self.drain(&framer) {
                    guard case .line(let bytes) = result else {
                        Issue.record("seed \(seed) round \(round): \(result)")
                        continue
                    }
                    lines.append(String(decoding: bytes, as: UTF8.self))
                }
            }
            #expect(lines == text, "seed \(seed) round \(round)")
        }
    }
}
