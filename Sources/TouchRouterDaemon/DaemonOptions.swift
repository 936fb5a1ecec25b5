/// The command line of `touchrouterd`, declared once (`DaemonOptions.spec`) and parsed by TouchRouterCommandLine.
import Glibc
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterSystem

/// A command line the daemon cannot run with; `description` is the message for the user.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    /// The message for the user.
    public var description: String
    /// Makes the error.
    public init(_ description: String) { self.description = description }
}

/// Everything `touchrouterd` is told on its command line.
public struct DaemonOptions: Equatable, Sendable {
    /// The layout config file (`--config`, required).
    public var configPath: String = ""
    /// Where and how to listen (`--socket`, `--socket-mode`, `--socket-group`).
    public var socket = ListenerOptions(path: "/run/touchrouter/touchrouter.sock")
    /// libinput's seat for live input (`--seat`, default "seat0").
    public var seat: String = "seat0"
    /// Explicit device nodes instead of a seat (`--device`, repeatable).
    public var devices: [String] = []
    /// A recording to play instead of live input (`--replay`).
    public var replayPath: String?
    /// Playback speed factor; 0 plays as fast as possible (`--speed`).
    public var replaySpeed: Double = 1
    /// Play the recording again from the start when it ends (`--loop`).
    public var replayLoops = false
    /// Hold the first frame until a client has subscribed (`--replay-wait`).
    public var replayWaitsForSubscriber = false
    /// How many clients must have subscribed before a held replay starts (`--replay-wait-for N`,
    /// which implies `--replay-wait`); lets a test connect several clients first.
    public var replayWaitSubscriberCount = 1
    /// The evemu `.desc` for an `.events` recording when it is not beside it (`--replay-device`).
    public var replayDevicePath: String?
    /// Benchmarks only (`--replay-restamp`, left out of `--help`): each replayed frame's timestamp
    /// is replaced by CLOCK_MONOTONIC (µs) read just before the frame goes to the tracker, so the
    /// `time` of a touches message tells a client on the same machine when routing began.
    public var replayRestampsFrames = false
    /// Stop the daemon (gracefully) once the recording has played (`--exit-after-replay`).
    public var exitsAfterReplay = false
    /// Lines less severe than this are not logged (`--log-level`).
    public var logLevel: LogLevel = .info
    /// Connections beyond this many are refused with an error line (`--max-clients`).
    public var maxClients = 64
    /// Bytes a client may have queued before coalescing, then disconnection (`--client-queue-bytes`).
    public var clientQueueBytes = 256 * 1024
    /// Run the routing loop's thread at SCHED_FIFO with this priority (`--realtime-priority`),
    /// so a busy machine cannot hold a frame back; nil keeps the normal policy.
    public var realtimePriority: Int32?

    /// `--speed` range: 0, or a factor in `minimumSpeed...maximumSpeed` (a slower factor would
    /// schedule frames centuries away; a faster one is what 0 is for).
    public static let minimumSpeed = 0.001
    public static let maximumSpeed = 1000.0
    /// `--max-clients` and `--replay-wait-for` at most this (one epoll loop, one fd each).
    public static let maximumClients = 65_536
    /// `--realtime-priority` range: SCHED_FIFO's 1–99.
    public static let realtimePriorities: ClosedRange<Int32> = 1...99
    /// `--client-queue-bytes` at most 1 GiB.
    public static let maximumClientQueueBytes = 1 << 30

    /// The defaults, before any flag.
    public init() {}

    /// touchrouterd's command line, declared once: the parser, usage and `--help` derive from it.
    public static let spec = CommandSpec(
        name: "touchrouterd",
        abstract: "Route touch panel input to the programs that own each screen region.",
        options: [
            OptionSpec(
                .config, valueName: "FILE",
                help: "Layout config (JSON5); reloaded on SIGHUP and when the file changes.", isRequired: true),
            OptionSpec(
                .socket, valueName: "PATH", help: "Unix socket to serve (default /run/touchrouter/touchrouter.sock)."),
            OptionSpec(.socketMode, valueName: "OCTAL", help: "Socket file permissions (default 0660)."),
            OptionSpec(.socketGroup, valueName: "GROUP", help: "Group owning the socket file (name or number)."),
            OptionSpec(.seat, valueName: "NAME", help: "libinput seat for live input (default seat0)."),
            OptionSpec(
                .device, valueName: "NODE", help: "Read this /dev/input/eventN instead of a seat (repeatable).",
                repeats: true),
            OptionSpec(
                .replay, valueName: "RECORDING",
                help: "Play a libinput-record YAML or evemu .events file instead of live input."),
            OptionSpec(
                .speed, valueName: "X",
                help: "Replay speed factor 0.001 to 1000, 0 = as fast as possible (default 1)."),
            OptionSpec(.loop, help: "Replay the recording again and again."),
            OptionSpec(.replayWait, help: "Hold the recording until the first client subscribes."),
            OptionSpec(.replayWaitFor, valueName: "N", help: "Hold the recording until N clients have subscribed."),
            OptionSpec(
                .replayDevice, valueName: "DESC", help: "evemu .desc for an .events recording (default: beside it)."),
            OptionSpec(.exitAfterReplay, help: "Stop once the recording has played."),
            OptionSpec(
                .replayRestamp, help: "Benchmarks: restamp each replayed frame with CLOCK_MONOTONIC.",
                isHidden: true),
            OptionSpec(.maxClients, valueName: "N", help: "Refuse connections beyond N, 1 to 65536 (default 64)."),
            OptionSpec(
                .clientQueueBytes, valueName: "N",
                help: "Per-client outbound queue bound, 4096 to 1073741824 (default 262144)."),
            OptionSpec(
                .logLevel, valueName: "LEVEL", help: "error, warning, notice, info (default) or debug."),
            OptionSpec(
                .realtimePriority, valueName: "N",
                help: "Route at SCHED_FIFO priority 1 to 99 (needs LimitRTPRIO= or CAP_SYS_NICE)."),
        ],
        discussion: """
            --seat and --device are alternatives. --speed, --loop, --replay-wait, --replay-wait-for,
            --replay-device and --exit-after-replay need --replay. Exit status: 0 after a graceful stop,
            1 when the daemon could not start, 2 for a bad command line.
            """)

    /// The text `--help` prints (on stdout, exit 0), generated from `spec`.
    public static let usage = HelpText.help(spec, invokedAs: "touchrouterd", showsVersion: true)

    /// Whether the command line asks for help (`--help` or `-h`), which wins over any mistake.
    public static func wantsHelp(_ arguments: [String]) -> Bool { CommandLineParser.wantsHelp(arguments) }

    /// Parses `arguments` (without the program name); a mistake throws a `UsageError` with the
    /// message for the user. Ask `wantsHelp` first: `--help` is not an error.
    public static func parse(_ arguments: [String]) throws -> DaemonOptions {
        let parsed: ParsedArguments
        do {
            parsed = try CommandLineParser.parse(arguments, spec)
        } catch {
            throw UsageError(message(for: error))
        }
        var options = DaemonOptions()
        func number<N: LosslessStringConvertible & Comparable>(_ key: OptionKey, in range: ClosedRange<N>)
            throws -> N?
        {
            guard let text = parsed.value(key) else { return nil }
            guard let parsed = N(text), range.contains(parsed) else {
                throw UsageError(
                    "\(key) \(Excerpt.of(text)): expected a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return parsed
        }
        func path(_ key: OptionKey) throws -> String? {
            guard let text = parsed.value(key) else { return nil }
            guard !text.isEmpty else { throw UsageError("\(key) needs a non-empty path") }
            return text
        }
        options.configPath = try path(.config) ?? ""
        if let socket = try path(.socket) { options.socket.path = socket }
        if let text = parsed.value(.socketMode) {
            guard let mode = mode_t(text, radix: 8), mode <= 0o777 else {
                throw UsageError("--socket-mode \(Excerpt.of(text)): expected octal permissions like 0660")
            }
            options.socket.mode = mode
        }
        options.socket.group = parsed.value(.socketGroup) ?? options.socket.group
        options.seat = parsed.value(.seat) ?? options.seat
        options.devices = parsed.values(.device)
        options.replayPath = parsed.value(.replay)
        if let speed = try number(.speed, in: 0.0...Self.maximumSpeed) {
            guard speed == 0 || speed >= Self.minimumSpeed else {
                throw UsageError(
                    "--speed \(Excerpt.of(String(speed))): expected 0 (as fast as possible) or a factor "
                        + "from \(Self.minimumSpeed) to \(Self.maximumSpeed)")
            }
            options.replaySpeed = speed
        }
        options.replayLoops = parsed.flag(.loop)
        options.replayWaitsForSubscriber = parsed.flag(.replayWait)
        if let count = try number(.replayWaitFor, in: 1...Self.maximumClients) {
            options.replayWaitsForSubscriber = true
            options.replayWaitSubscriberCount = count
        }
        options.replayDevicePath = parsed.value(.replayDevice)
        options.exitsAfterReplay = parsed.flag(.exitAfterReplay)
        options.replayRestampsFrames = parsed.flag(.replayRestamp)
        options.maxClients = try number(.maxClients, in: 1...Self.maximumClients) ?? options.maxClients
        options.clientQueueBytes =
            try number(.clientQueueBytes, in: 4096...Self.maximumClientQueueBytes) ?? options.clientQueueBytes
        options.realtimePriority = try number(.realtimePriority, in: Self.realtimePriorities)
        if let text = parsed.value(.logLevel) {
            guard let level = LogLevel(name: text) else {
                throw UsageError("--log-level \(Excerpt.of(text)): expected error, warning, notice, info or debug")
            }
            options.logLevel = level
        }
        if parsed.flag(.seat) && !options.devices.isEmpty {
            throw UsageError("--seat and --device are alternatives: give one")
        }
        if options.replayPath == nil {
            let replayOnly: [OptionKey] = [
                .speed, .loop, .replayWait, .replayWaitFor, .replayDevice, .exitAfterReplay, .replayRestamp,
            ]
            if let misplaced = replayOnly.first(where: parsed.flag) {
                throw UsageError("\(misplaced) needs --replay RECORDING")
            }
        }
        return options
    }

    /// touchrouterd's wording of a parser error (kept from its hand-written parser; input excerpted).
    static func message(for error: CommandLineError) -> String {
        switch error {
        case .unknownOption(let token, _, _), .unexpectedArgument(let token):
            return "unknown option \(Excerpt.of(token))\n\(usage)"
        case .missingValue(let name, _): return "--\(name) needs a value"
        case .missingOption(_, let synopsis): return "\(synopsis) is required\n\(usage)"
        case .flagTakesNoValue(let name): return "--\(name) takes no value"
        case .repeated(let name): return "--\(name) given twice"
        case .missingArgument(let synopsis): return "missing \(synopsis)"
        }
    }
}

extension OptionKey {
    static let config = OptionKey("config")
    static let socket = OptionKey("socket")
    static let socketMode = OptionKey("socket-mode")
    static let socketGroup = OptionKey("socket-group")
    static let seat = OptionKey("seat")
    static let device = OptionKey("device")
    static let replay = OptionKey("replay")
    static let speed = OptionKey("speed")
    static let loop = OptionKey("loop")
    static let replayWait = OptionKey("replay-wait")
    static let replayWaitFor = OptionKey("replay-wait-for")
    static let replayDevice = OptionKey("replay-device")
    static let exitAfterReplay = OptionKey("exit-after-replay")
    static let replayRestamp = OptionKey("replay-restamp")
    static let maxClients = OptionKey("max-clients")
    static let clientQueueBytes = OptionKey("client-queue-bytes")
    static let logLevel = OptionKey("log-level")
    static let realtimePriority = OptionKey("realtime-priority")
}
