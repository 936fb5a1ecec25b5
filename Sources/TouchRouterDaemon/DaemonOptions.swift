/// The command line of `touchrouterd`, declared once and parsed by hand.
import Glibc
import TouchRouterCore
import TouchRouterSystem

/// A command line the daemon cannot run with; `description` is the message for the user.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    /// The message for the user (the usage text for `--help`).
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

    /// `--speed` range: 0, or a factor in `minimumSpeed...maximumSpeed` (a slower factor would
    /// schedule frames centuries away; a faster one is what 0 is for).
    public static let minimumSpeed = 0.001
    public static let maximumSpeed = 1000.0
    /// `--max-clients` and `--replay-wait-for` at most this (one epoll loop, one fd each).
    public static let maximumClients = 65_536
    /// `--client-queue-bytes` at most 1 GiB.
    public static let maximumClientQueueBytes = 1 << 30

    /// The defaults, before any flag.
    public init() {}

    /// The text `--help` prints.
    public static let usage = """
        usage: touchrouterd --config FILE [--socket PATH] [--socket-mode OCTAL] [--socket-group GROUP]
                            [--seat NAME | --device NODE ...]
                            [--replay RECORDING [--speed X] [--loop] [--replay-wait | --replay-wait-for N]
                             [--replay-device DESC] [--exit-after-replay]]
                            [--max-clients N] [--client-queue-bytes N] [--log-level LEVEL]

          --config FILE           layout config (JSON5); reloaded on SIGHUP and when the file changes
          --socket PATH           Unix socket to serve (default /run/touchrouter/touchrouter.sock)
          --socket-mode OCTAL     socket file permissions (default 0660)
          --socket-group GROUP    group owning the socket file (name or number)
          --seat NAME             libinput seat for live input (default seat0)
          --device NODE           read this /dev/input/eventN instead of a seat (repeatable)
          --replay RECORDING      play a libinput-record YAML or evemu .events file instead of live input
          --speed X               replay speed factor 0.001 to 1000, 0 = as fast as possible (default 1)
          --loop                  replay the recording again and again
          --replay-wait           hold the recording until the first client subscribes
          --replay-wait-for N     hold the recording until N clients have subscribed
          --replay-device DESC    evemu .desc for an .events recording (default: beside it)
          --exit-after-replay     stop once the recording has played
          --max-clients N         refuse connections beyond N, 1 to 65536 (default 64)
          --client-queue-bytes N  per-client outbound queue bound, 4096 to 1073741824 (default 262144)
          --log-level LEVEL       error, warning, notice, info (default) or debug
        """

    /// Parses `arguments` (without the program name). `--help` throws a `UsageError` whose text
    /// is the usage.
    public static func parse(_ arguments: [String]) throws -> DaemonOptions {
        var options = DaemonOptions()
        var remaining = arguments[...]
        func value(for flag: String) throws -> String {
            guard let next = remaining.popFirst() else { throw UsageError("\(flag) needs a value") }
            return next
        }
        func number<N: LosslessStringConvertible & Comparable>(for flag: String, in range: ClosedRange<N>)
            throws -> N
        {
            let text = try value(for: flag)
            guard let parsed = N(text), range.contains(parsed) else {
                throw UsageError(
                    "\(flag) \(Excerpt.of(text)): expected a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return parsed
        }
        func path(for flag: String) throws -> String {
            let text = try value(for: flag)
            guard !text.isEmpty else { throw UsageError("\(flag) needs a non-empty path") }
            return text
        }
        while let flag = remaining.popFirst() {
            switch flag {
            case "--config": options.configPath = try path(for: flag)
            case "--socket": options.socket.path = try path(for: flag)
            case "--socket-mode":
                let text = try value(for: flag)
                guard let mode = mode_t(text, radix: 8), mode <= 0o777 else {
                    throw UsageError("--socket-mode \(Excerpt.of(text)): expected octal permissions like 0660")
                }
                options.socket.mode = mode
            case "--socket-group": options.socket.group = try value(for: flag)
            case "--seat": options.seat = try value(for: flag)
            case "--device": options.devices.append(try value(for: flag))
            case "--replay": options.replayPath = try value(for: flag)
            case "--speed":
                let speed = try number(for: flag, in: 0.0...Self.maximumSpeed)
                guard speed == 0 || speed >= Self.minimumSpeed else {
                    throw UsageError(
                        "--speed \(Excerpt.of(String(speed))): expected 0 (as fast as possible) or a factor "
                            + "from \(Self.minimumSpeed) to \(Self.maximumSpeed)")
                }
                options.replaySpeed = speed
            case "--loop": options.replayLoops = true
            case "--replay-wait": options.replayWaitsForSubscriber = true
            case "--replay-wait-for":
                options.replayWaitsForSubscriber = true
                options.replayWaitSubscriberCount = try number(for: flag, in: 1...Self.maximumClients)
            case "--replay-device": options.replayDevicePath = try value(for: flag)
            case "--exit-after-replay": options.exitsAfterReplay = true
            case "--replay-restamp": options.replayRestampsFrames = true
            case "--max-clients": options.maxClients = try number(for: flag, in: 1...Self.maximumClients)
            case "--client-queue-bytes":
                options.clientQueueBytes = try number(for: flag, in: 4096...Self.maximumClientQueueBytes)
            case "--log-level":
                let text = try value(for: flag)
                guard let level = LogLevel(name: text) else {
                    throw UsageError("--log-level \(Excerpt.of(text)): expected error, warning, notice, info or debug")
                }
                options.logLevel = level
            case "--help", "-h": throw UsageError(usage)
            default: throw UsageError("unknown option \(Excerpt.of(flag))\n\(usage)")
            }
        }
        if options.configPath.isEmpty { throw UsageError("--config FILE is required\n\(usage)") }
        if arguments.contains("--seat") && !options.devices.isEmpty {
            throw UsageError("--seat and --device are alternatives: give one")
        }
        if options.replayPath == nil {
            let replayOnly = [
                "--speed", "--loop", "--replay-wait", "--replay-wait-for", "--replay-device",
                "--exit-after-replay", "--replay-restamp",
            ]
            if let misplaced = replayOnly.first(where: arguments.contains) {
                throw UsageError("\(misplaced) needs --replay RECORDING")
            }
        }
        return options
    }
}
