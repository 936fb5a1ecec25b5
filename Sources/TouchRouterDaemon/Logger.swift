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
        var bytes = Array((prefix + message().replacingNewlines()).utf8)
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
    /// One event, one line: embedded newlines would split a journal entry.
    fileprivate func replacingNewlines() -> String {
        guard contains(where: \.isNewline) else { return self }
        return String(map { $0.isNewline ? " " : $0 })
    }
}
