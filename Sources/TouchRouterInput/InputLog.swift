/// Log messages from the input stage (the reader, libinput itself, the injector), handed to the
/// caller so the daemon can write them with journald priorities (the one `LogLevel` type).
import TouchRouterSystem

/// Receives one formatted log line (no trailing newline) and its level.
public typealias InputLogHandler = (LogLevel, String) -> Void
