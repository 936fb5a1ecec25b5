/// Log messages from the input stage (the reader, libinput itself, the injector), handed to the
/// caller so the daemon can write them with journald priorities.

/// How severe a log message is; the order is debug < info < warning < error.
public enum InputLogLevel: Int, Comparable, Sendable, CustomStringConvertible {
    case debug = 7
    case info = 6
    case warning = 4
    case error = 3

    /// The syslog/journald priority number (`<3>` … `<7>` as a stderr prefix).
    public var syslogPriority: Int { rawValue }

    public static func < (lhs: InputLogLevel, rhs: InputLogLevel) -> Bool {
        lhs.rawValue > rhs.rawValue
    }

    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// Receives one formatted log line (no trailing newline) and its level.
public typealias InputLogHandler = (InputLogLevel, String) -> Void
