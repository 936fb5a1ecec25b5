/// Newline framing of a byte stream: bytes in, complete lines out, "need more" in between.

/// What the framer has next.
public enum FramedLine: Hashable, Sendable {
    /// One complete line, without its `\n` (a `\r` before it is left in; the JSON decoder treats
    /// it as whitespace).
    case line(ArraySlice<UInt8>)
    /// No complete line is buffered: read more bytes and `append` them.
    case needMoreData
    /// A line grew past the limit. Reported once per over-long line; the framer then discards
    /// everything up to and including that line's `\n` and goes on with the next line. The daemon
    /// replies `line-too-long` and disconnects (protocol v1), so it never resumes in practice.
    case lineTooLong(limit: Int)
}

/// Accumulates received bytes and splits them into lines, with a cap on a line's length so a
/// client cannot make the daemon buffer without bound. Never throws; pure.
public struct LineFramer: Sendable {
    /// The longest line accepted, in bytes, not counting the `\n`.
    public let maxLineBytes: Int
    private var buffer: [UInt8] = []
    /// Where the unconsumed bytes start.
    private var readIndex = 0
    /// Where the search for the next `\n` resumes (bytes before it hold none).
    private var scanIndex = 0
    /// Inside an over-long line: drop bytes until its `\n`.
    private var discarding = false

    /// The default line cap, 64 KiB.
    public static let defaultMaxLineBytes = 64 * 1024

    /// Makes a framer that accepts lines of at most `maxLineBytes` bytes.
    public init(maxLineBytes: Int = LineFramer.defaultMaxLineBytes) {
        precondition(maxLineBytes > 0, "a line cap must be positive")
        self.maxLineBytes = maxLineBytes
    }

    /// Bytes received and not yet returned in a line (what a client that disconnects mid-line
    /// leaves behind).
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes. Consumed bytes are dropped first, so memory stays at about one line.
    public mutating func append<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if readIndex > 0 {
            buffer.removeSubrange(0..<readIndex)
            scanIndex -= readIndex
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete line, `needMoreData`, or `lineTooLong` once for each over-long line.
    public mutating func nextLine() -> FramedLine {
        while true {
            guard let newline = buffer[scanIndex...].firstIndex(of: UInt8(ascii: "\n")) else {
                scanIndex = buffer.count
                if discarding {
                    readIndex = buffer.count
                    return .needMoreData
                }
                if buffer.count - readIndex > maxLineBytes {
                    discarding = true
                    readIndex = buffer.count
                    return .lineTooLong(limit: maxLineBytes)
                }
                return .needMoreData
            }
            let start = readIndex
            readIndex = newline + 1
            scanIndex = readIndex
            if discarding {
                discarding = false
                continue
            }
            if newline - start > maxLineBytes {
                return .lineTooLong(limit: maxLineBytes)
            }
            return .line(buffer[start..<newline])
        }
    }
}
