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

/// Everything `touchrouterd` is told on its command line. Each option is declared once, with its
/// type, default and range, in `DaemonOptions.Declared`; the defaults here are those declarations'.
public struct DaemonOptions: Equatable, Sendable {
    /// The layout config file (`--config`, required).
    public var configPath: String = ""
    /// Where and how to listen (`--socket`, `--socket-mode`, `--socket-group`).
    public var socket = ListenerOptions(
        path: Declared.socket.defaultValue, mode: Declared.socketMode.defaultValue, group: nil)
    /// libinput's seat for live input (`--seat`).
    public var seat = Declared.seat.defaultValue
    /// Explicit device nodes instead of a seat (`--device`, repeatable).
    public var devices: [String] = []
    /// A recording to play instead of live input (`--replay`).
    public var replayPath: String?
    /// Playback speed factor; 0 plays as fast as possible (`--speed`).
    public var replaySpeed = Declared.speed.defaultValue
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
    public var logLevel = Declared.logLevel.defaultValue
    /// Connections beyond this many are refused with an error line (`--max-clients`).
    public var maxClients = Declared.maxClients.defaultValue
    /// Bytes a client may have queued before coalescing, then disconnection (`--client-queue-bytes`).
    public var clientQueueBytes = Declared.clientQueueBytes.defaultValue
    /// Run the routing loop's thread at SCHED_FIFO with this priority (`--realtime-priority`),
    /// so a busy machine cannot hold a frame back; nil keeps the normal policy.
    public var realtimePriority: Int32?

    /// `--max-clients` and `--replay-wait-for` at most this (one epoll loop, one fd each).
    public static let maximumClients = 65_536

    /// The defaults, before any flag.
    public init() {}

    /// touchrouterd's options, each declared once: name, type, default, range and help line.
    public enum Declared {
        static let config = Option.path(
            "config", valueName: "FILE", help: "Layout config (JSON5); reloaded on SIGHUP and when the file changes.",
            isRequired: true)
        static let socket = Option.path(
            "socket", valueName: "PATH", help: "Unix socket to serve.", default: "/run/touchrouter/touchrouter.sock")
        static let socketMode = Option<mode_t>(
            "socket-mode", valueName: "OCTAL", help: "Socket file permissions.", default: 0o660, defaultText: "0660",
            expected: "octal permissions like 0660",
            convert: { mode_t($0, radix: 8).flatMap { $0 <= 0o777 ? $0 : nil } })
        static let socketGroup = Option.text(
            "socket-group", valueName: "GROUP", help: "Group owning the socket file (name or number).")
        static let seat = Option.text(
            "seat", valueName: "NAME", help: "libinput seat for live input.", default: "seat0")
        static let device = Option.text(
            "device", valueName: "NODE", help: "Read this /dev/input/eventN instead of a seat (repeatable).",
            repeats: true)
        static let replay = Option.text(
            "replay", valueName: "RECORDING",
            help: "Play a libinput-record YAML or evemu .events file instead of live input.")
        /// Slower than 0.001 would schedule frames centuries away; faster is what 0 is for.
        static let speed = Option.number(
            "speed", help: "Replay speed factor.", in: 0.001...1000, zeroMeans: "as fast as possible", default: 1)
        static let loop = Option.flag("loop", help: "Replay the recording again and again.")
        static let replayWait = Option.flag(
            "replay-wait", help: "Hold the recording until the first client subscribes.")
        static let replayWaitFor = Option.integer(
            "replay-wait-for", help: "Hold the recording until N clients have subscribed.", in: 1...maximumClients)
        static let replayDevice = Option.text(
            "replay-device", valueName: "DESC", help: "evemu .desc for an .events recording (default: beside it).")
        static let exitAfterReplay = Option.flag("exit-after-replay", help: "Stop once the recording has played.")
        static let replayRestamp = Option.flag(
            "replay-restamp", help: "Benchmarks: restamp each replayed frame with CLOCK_MONOTONIC.", isHidden: true)
        static let maxClients = Option.integer(
            "max-clients", help: "Refuse connections beyond N.", in: 1...maximumClients, default: 64)
        static let clientQueueBytes = Option.integer(
            "client-queue-bytes", help: "Per-client outbound queue bound.", in: 4096...(1 << 30), default: 256 * 1024)
        static let logLevel = Option.choice(
            "log-level", valueName: "LEVEL", help: "",
            choices: LogLevel.allCases.map { ($0.name, $0) }, default: LogLevel.info, named: "info",
            parse: LogLevel.init(name:))
        /// SCHED_FIFO's priorities are 1–99.
        static let realtimePriority = Option<Int32?>.integer(
            "realtime-priority", help: "Route at SCHED_FIFO priority (needs LimitRTPRIO= or CAP_SYS_NICE).",
            in: 1...99)
    }

    /// touchrouterd's command line: the parser, usage and `--help` derive from the declarations.
    public static let spec = CommandSpec(
        name: "touchrouterd",
        abstract: "Route touch panel input to the programs that own each screen region.",
        options: [
            Declared.config, Declared.socket, Declared.socketMode, Declared.socketGroup, Declared.seat,
            Declared.device, Declared.replay, Declared.speed, Declared.loop, Declared.replayWait,
            Declared.replayWaitFor, Declared.replayDevice, Declared.exitAfterReplay, Declared.replayRestamp,
            Declared.maxClients, Declared.clientQueueBytes, Declared.logLevel, Declared.realtimePriority,
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
        typealias Declared = DaemonOptions.Declared
        var options = DaemonOptions()
        options.configPath = parsed.value(Declared.config) ?? ""
        options.socket.path = parsed.value(Declared.socket)
        options.socket.mode = parsed.value(Declared.socketMode)
        options.socket.group = parsed.value(Declared.socketGroup)
        options.seat = parsed.value(Declared.seat)
        options.devices = parsed.values(Declared.device)
        options.replayPath = parsed.value(Declared.replay)
        options.replaySpeed = parsed.value(Declared.speed)
        options.replayLoops = parsed.value(Declared.loop)
        options.replayWaitsForSubscriber = parsed.value(Declared.replayWait)
        if let count = parsed.value(Declared.replayWaitFor) {
            options.replayWaitsForSubscriber = true
            options.replayWaitSubscriberCount = count
        }
        options.replayDevicePath = parsed.value(Declared.replayDevice)
        options.exitsAfterReplay = parsed.value(Declared.exitAfterReplay)
        options.replayRestampsFrames = parsed.value(Declared.replayRestamp)
        options.maxClients = parsed.value(Declared.maxClients)
        options.clientQueueBytes = parsed.value(Declared.clientQueueBytes)
        options.realtimePriority = parsed.value(Declared.realtimePriority)
        options.logLevel = parsed.value(Declared.logLevel)
        if parsed.flag(Declared.seat) && !options.devices.isEmpty {
            throw UsageError("--seat and --device are alternatives: give one")
        }
        if options.replayPath == nil {
            let replayOnly: [OptionKey] = [
                Declared.speed.spec.key, Declared.loop.spec.key, Declared.replayWait.spec.key,
                Declared.replayWaitFor.spec.key, Declared.replayDevice.spec.key, Declared.exitAfterReplay.spec.key,
                Declared.replayRestamp.spec.key,
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
        case .invalidValue(let name, let text, let expected):
            return text.isEmpty ? "--\(name) needs \(expected)" : "--\(name) \(Excerpt.of(text)): expected \(expected)"
        }
    }
}
