import Foundation
import Testing

@testable import TouchRouterCore

@Suite("Config UTF-8 guard")
struct ConfigUTF8Tests {
    @Test("the fixture that traps Foundation's JSON5 decoder is rejected, not fatal")
    func trapFixture() throws {
        let data = try Data(contentsOf: RepositoryPaths.utf8TrapFixture)
        #expect(data.count == 9)
        let errors = configErrors(data)
        #expect(errors.map(\.description) == ["test.json5: not valid UTF-8 at byte 1"])
    }

    @Test(
        "invalid sequences are found at their first bad byte",
        arguments: [
            ([0x7B, 0xC0, 0x80], 1),  // overlong NUL
            ([0x7B, 0x20, 0xED, 0xA0, 0x80], 2),  // UTF-16 surrogate
            ([0x7B, 0xF4, 0x90, 0x80, 0x80], 1),  // above U+10FFFF
            ([0x7B, 0xE2, 0x82], 1),  // truncated at the end
            ([0x7B, 0xE2, 0x28, 0xA1], 1),  // bad continuation
            ([0x80], 0),  // lone continuation
        ] as [([UInt8], Int)])
    func invalidSequences(bytes: [UInt8], offset: Int) {
        let errors = configErrors(Data(bytes))
        #expect(errors.map(\.code) == [.invalidUTF8])
        #expect(errors.first?.message == "not valid UTF-8 at byte \(offset)")
    }

    @Test("valid multi-byte text in comments and ids' neighbours is accepted")
    func validUnicode() {
        let text = "// Café ☕ 𝄞 résumé\n" + fileWithChildren(#"{ id: "k", frame: [0, 0, 5, 5] } // ü"#)
        #expect(configErrors(text).isEmpty)
        // Columns count Unicode scalars, not bytes.
        let bad = "{ /* ☕☕ */ screens: 3 }"
        #expect(configErrors(bad).first?.column == 12)
    }
}
