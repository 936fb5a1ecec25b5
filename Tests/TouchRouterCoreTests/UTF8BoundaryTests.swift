import Testing

@testable import TouchRouterCore

/// UTF-8's edges as the JSON reader sees them (configs and protocol lines alike): the shortest and
/// longest sequence of each length, and the first byte past each limit of the second byte's range
/// (overlong forms, surrogates, values past U+10FFFF), in a string and after a syntax error.
@Suite("UTF-8 boundaries in the JSON reader")
struct UTF8BoundaryTests {
    /// Each sequence, and the scalar it encodes (nil: not UTF-8).
    static let cases: [([UInt8], UInt32?)] = [
        ([0xC2, 0x80], 0x80), ([0xDF, 0xBF], 0x7FF), ([0xC1, 0xBF], nil), ([0xC0, 0x80], nil),
        ([0xE0, 0xA0, 0x80], 0x800), ([0xE0, 0x9F, 0xBF], nil), ([0xE0, 0x80, 0x80], nil),
        ([0xED, 0x9F, 0xBF], 0xD7FF), ([0xED, 0xA0, 0x80], nil), ([0xEE, 0x80, 0x80], 0xE000),
        ([0xEF, 0xBF, 0xBD], 0xFFFD), ([0xE1, 0x80, 0x7F], nil), ([0xE1, 0xC0, 0x80], nil),
        ([0xF0, 0x90, 0x80, 0x80], 0x10000), ([0xF0, 0x8F, 0xBF, 0xBF], nil),
        ([0xF4, 0x8F, 0xBF, 0xBF], 0x10FFFF), ([0xF4, 0x90, 0x80, 0x80], nil), ([0xF5, 0x80, 0x80, 0x80], nil),
        ([0xE2, 0x82], nil), ([0x80], nil),
    ]

    @Test("inside a string: read as its scalar, or refused as invalidUTF8 at its first byte", arguments: cases)
    func inString(bytes: [UInt8], scalar: UInt32?) {
        for syntax in [JSONSyntax.json5, .strictJSON] {
            let result = JSONReader.read([UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")], syntax: syntax)
            if let scalar {
                guard case .string(let text)? = result.root?.value else {
                    Issue.record("\(bytes) refused: \(String(describing: result.failure))")
                    continue
                }
                #expect(text.unicodeScalars.map { $0.value } == [scalar])
            } else {
                #expect(result.failure?.kind == .invalidUTF8, "\(bytes) accepted")
                #expect(result.failure?.byteOffset == 1)
            }
        }
    }

    @Test("after a syntax error: invalidUTF8 reported only for a sequence that is not UTF-8", arguments: cases)
    func afterSyntaxError(bytes: [UInt8], scalar: UInt32?) {
        let result = JSONReader.read([UInt8]("[1 2] ".utf8) + bytes, syntax: .json5)
        #expect(result.failure?.kind == (scalar == nil ? .invalidUTF8 : .syntax), "\(bytes)")
    }
}
