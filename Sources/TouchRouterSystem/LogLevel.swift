/// The one log level type: the daemon's logger, libinput's messages and the input stage all use it.

/// Severity, numbered as syslog/journald priorities.
public enum LogLevel: Int, Sendable, CaseIterable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    /// Parses the names accepted by `--log-level`.
    public init?(name: String) {
        switch name.lowercased() {
        case "error", "err": self = .error
        case "warning", "warn": self = .warning
        case "notice": self = .notice
        case "info": self = .info
        case "debug": self = .debug
        default: return nil
        }
    }

    /// The name `--log-level` and non-journal lines use.
    public var name: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }
}

extension LogLevel: Comparable {
    /// More severe is smaller: `error < warning < … < debug`, as syslog numbers them.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
