// UTF-8 validation for the JSON reader: the scanner decodes each scalar with it, the reader finds
// the first bad byte of a document that is not UTF-8.

/// UTF-8 validation with the offset of the first bad byte.
enum UTF8Check {
    /// The scalar value and length of the well-formed sequence at `offset` (lead byte ≥ 0x80), or nil.
    /// The second byte's allowed range excludes overlongs, surrogates and values past U+10FFFF.
    static func sequence(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (UInt32, Int)? {
        let lead = bytes[offset]
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        var value: UInt32
        switch lead {
        case 0xC2...0xDF:
            length = 2
            value = UInt32(lead & 0x1F)
        case 0xE0...0xEF:
            length = 3
            value = UInt32(lead & 0x0F)
            if lead == 0xE0 { secondLow = 0xA0 }
            if lead == 0xED { secondHigh = 0x9F }
        case 0xF0...0xF4:
            length = 4
            value = UInt32(lead & 0x07)
            if lead == 0xF0 { secondLow = 0x90 }
            if lead == 0xF4 { secondHigh = 0x8F }
        default: return nil
        }
        guard offset + length <= bytes.count else { return nil }
        for position in (offset + 1)..<(offset + length) {
            let byte = bytes[position]
            let low = position == offset + 1 ? secondLow : 0x80
            let high = position == offset + 1 ? secondHigh : 0xBF
            guard byte >= low && byte <= high else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return (value, length)
    }

    /// The 0-based offset where the first invalid UTF-8 sequence at or after `start` begins, or nil.
    static func firstInvalidByte(in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] < 0x80 {
                index += 1
            } else if let (_, length) = sequence(in: bytes, at: index) {
                index += length
            } else {
                return index
            }
        }
        return nil
    }
}
