import Glibc
import TouchRouterClient
import TouchRouterCommandLine
import TouchRouterProtocol
import TouchRouterSystem

/// `touchrouterctl metrics [--format F] [--output FILE]`: every counter of the running daemon as
/// OpenMetrics text (docs/metrics.md), or written atomically into node_exporter's textfile
/// directory.
enum MetricsCommand: Command {
    static let spec = CommandSpec(
        name: "metrics",
        abstract: "Print the running daemon's counters as OpenMetrics text.",
        options: [format, output, ToolOption.socket],
        discussion: """
            For root, the daemon's user, or anyone while no view has an access list. With --output,
            a reader of FILE sees the old text or the new one, never half of it (node_exporter reads
            *.prom files; the temporary file's name does not end in .prom).
            """)

    static let format = Option<MetricsFormat>(
        "format", valueName: "FORMAT",
        help: "openmetrics (the default) or prometheus (text 0.0.4, for node_exporter's textfile collector).",
        default: .openMetrics, expected: "openmetrics or prometheus", convert: MetricsFormat.init(rawValue:))
    static let output = Option.text(
        "output", valueName: "FILE",
        help: "Write to FILE instead: a new file in its directory (mode 0644), renamed over FILE.")

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        let format = arguments.value(Self.format)
        let output = arguments.value(Self.output)
        return runBlocking {
            guard let client = await connectToDaemon(arguments, command: "metrics") else { return .failure }
            let text: String
            do {
                text = try await client.metrics(format: format)
            } catch {
                StandardError.print("touchrouterctl metrics: \(error)")
                return .failure
            }
            guard let output else {
                return LineOutput.write(text, to: 1) == nil ? .success : .failure
            }
            if let failure = writeAtomically(text, to: output) {
                StandardError.print("touchrouterctl metrics: \(output): \(failure)")
                return .failure
            }
            return .success
        }
    }

    /// Writes `text` to a new file beside `path` (`.NAME.PID.tmp`, mode 0644 whatever the umask:
    /// node_exporter runs as another user), then renames it over `path`. Nil when done, else the
    /// failed call; the temporary file is removed on failure.
    static func writeAtomically(_ text: String, to path: String) -> SystemError? {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(directory).\(name).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return SystemError(call: "open", errno: errno) }
        var failure = fchmod(fd, 0o644) == 0 ? nil : SystemError(call: "fchmod", errno: errno)
        failure = failure ?? LineOutput.write(text, to: fd)
        if failure == nil && fsync(fd) != 0 { failure = SystemError(call: "fsync", errno: errno) }
        if close(fd) != 0 && failure == nil { failure = SystemError(call: "close", errno: errno) }
        if failure == nil && rename(temporary, path) != 0 { failure = SystemError(call: "rename", errno: errno) }
        if failure != nil { unlink(temporary) }
        return failure
    }
}
