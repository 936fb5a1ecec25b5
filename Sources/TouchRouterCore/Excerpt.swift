/// Bounded quoting of input in messages: no input size reaches an error reply or a log line whole.

/// How many characters of an input a message quotes at most.
public let excerptCharacterLimit = 80

/// `text` whole when it has at most `limit` characters, else its first `limit` characters and `…`.
/// Every message that quotes something a user or client supplied (a key, an id, a value, a flag)
/// quotes it through this.
public func excerpt(_ text: some StringProtocol, limit: Int = excerptCharacterLimit) -> String {
    var end = text.startIndex
    var count = 0
    while end != text.endIndex {
        if count == limit { return String(text[..<end]) + "…" }
        text.formIndex(after: &end)
        count += 1
    }
    return String(text)
}
