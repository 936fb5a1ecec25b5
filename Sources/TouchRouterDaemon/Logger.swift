/// Logging to stderr, one line per event, with `<N>` syslog priority prefixes when stderr is
/// connected to the journal (systemd sets JOURNAL_STREAM to the stream's "device:inode").
import Glibc
import TouchRouterSystem

/// Writes log lines to stderr. Not thread-safe; the daemon has one thread.
public final class Logger {
    /// Lines less severe than this are dropped.
    public var minimumLevel: LogLevel
    /// A log line is cut to this many bytes (journald's own line limit is 48 KiB).
    public static let maximumLineBytes = 4096
    /// Prefix lines with `<N>` instead of a level word (stderr is the journal).
    public let usesJournalPrefixes: Bool

    /// A logger; journal prefixes are on when stderr is the journal.
    public init(minimumLevel: LogLevel = .info, usesJournalPrefixes: Bool = Logger.stderrIsJournal()) {
        self.minimumLevel = minimumLevel
        self.usesJournalPrefixes = usesJournalPrefixes
    }

    /// Logs `message` (built only if it will be written) at `level`.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level.rawValue <= minimumLevel.rawValue else { return }
        let prefix = usesJournalPrefixes ? "<\(level.rawValue)>" : "touchrouterd: \(level.name): "
        var bytes = Array((prefix + message().escapingControls()).utf8)
        // The last guard against an input echoed whole (messages quote input through `excerpt`).
        if bytes.count > Self.maximumLineBytes {
            let cut = bytes.count - Self.maximumLineBytes
            bytes.removeLast(cut)
            // Never end inside a UTF-8 sequence.
            while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
            if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
            bytes += Array("… (\(cut) bytes cut)".utf8)
        }
        bytes.append(UInt8(ascii: "\n"))
        // One write(2) per line, so lines from a crash-looping daemon never interleave.
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// Logs at `error`, `warning`, `notice`, `info` or `debug`.
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }

    /// True when JOURNAL_STREAM names the device and inode of our stderr.
    public static func stderrIsJournal() -> Bool {
        guard let value = getenv("JOURNAL_STREAM") else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return String(cString: value) == "\(status.st_dev):\(status.st_ino)"
    }
}

extension String {
    /// One event, one line, and nothing in it a terminal or the journal would act on: newlines
    /// become spaces (they would split an entry), and every other control character (C0, DEL, C1:
    /// a NUL ends a journal field, an ESC starts a terminal sequence) is written as `\xNN` or
    /// `\u{NNNN}`. Messages quote client input (view ids, names) through `Excerpt`; this is where
    /// it becomes safe to print. Cost: one pass over the line.
    func escapingControls() -> String {
        guard unicodeScalars.contains(where: \.isLogControl) else { return self }
        var escaped = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029].contains(scalar.value) {
                escaped.append(" ")
            } else if scalar.isLogControl {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                let text = scalar.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{\(hex)}"
                escaped.append(contentsOf: text.unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}

extension Unicode.Scalar {
    /// A control character or a line break (C0, DEL, C1, U+2028, U+2029).
    fileprivate var isLogControl: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
    }
}
