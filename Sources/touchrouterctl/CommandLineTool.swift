import TouchRouterCommandLine
import TouchRouterCore

// touchrouterctl's dispatch: commands declare their options and arguments as values (`CommandSpec`,
// from TouchRouterCommandLine; shared options in ToolOptions.swift); the parser, usage and `--help` derive
// from them.

/// How the process ends: 0 success, 1 the work failed (a bad config, …), 2 the command line was wrong;
/// `calibrate`'s own: 3 a result out of tolerance, 130 interrupted (as a shell reports SIGINT).
enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    case usage = 2
    case outOfTolerance = 3
    case interrupted = 130
}

/// A command of touchrouterctl.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    /// Runs the command; prints its results on stdout and its errors on stderr.
    static func run(_ arguments: ParsedArguments) -> ExitCode
}

/// A command-line mistake, printed with a pointer to `--help`.
struct UsageError: Error {
    var message: String
}

/// Standard error output.
enum StandardError {
    static func print(_ text: String) {
        LineOutput.write(text + "\n", to: 2)
    }
}

struct CommandLineTool {
    static let toolName = "touchrouterctl"
    var commands: [any Command.Type]

    func run(_ arguments: [String]) -> ExitCode {
        guard let first = arguments.first else {
            StandardError.print(overview())
            return .usage
        }
        if first == "--help" || first == "-h" {
            print(overview())
            return .success
        }
        if first == "--version" {
            print(PackageVersion.line(tool: Self.toolName))
            return .success
        }
        if first == "help" {
            guard let name = arguments.dropFirst().first else {
                print(overview())
                return .success
            }
            guard let command = command(named: name) else { return unknownCommand(name) }
            print(Self.help(command.spec))
            return .success
        }
        guard let command = command(named: first) else {
            return first.hasPrefix("-") ? usageError("unknown option '\(first)'", nil) : unknownCommand(first)
        }
        let spec = command.spec
        let rest = Array(arguments.dropFirst())
        if CommandLineParser.wantsHelp(rest) {
            print(Self.help(spec))
            return .success
        }
        do {
            return command.run(try CommandLineParser.parse(rest, spec))
        } catch {
            return usageError(error.message(suggesting: NearMiss.suggestion(for:among:)), spec)
        }
    }

    private func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == name }
    }

    private func unknownCommand(_ name: String) -> ExitCode {
        var message = "unknown command '\(name)'"
        if let suggestion = NearMiss.suggestion(for: name, among: commands.map { $0.spec.name }) {
            message += " (did you mean '\(suggestion)'?)"
        }
        return usageError(message, nil)
    }

    private func usageError(_ message: String, _ spec: CommandSpec?) -> ExitCode {
        let prefix = spec.map { "\(Self.toolName) \($0.name)" } ?? Self.toolName
        let helpCommand = spec.map { "\(Self.toolName) \($0.name) --help" } ?? "\(Self.toolName) --help"
        StandardError.print("\(prefix): \(message)\nSee '\(helpCommand)'.")
        return .usage
    }

    static func usage(_ spec: CommandSpec) -> String {
        HelpText.usage(spec, invokedAs: "\(toolName) \(spec.name)")
    }

    /// The full help of one command.
    static func help(_ spec: CommandSpec) -> String {
        HelpText.help(spec, invokedAs: "\(toolName) \(spec.name)")
    }

    func overview() -> String {
        HelpText.overview(
            abstract: "Check touchrouter layouts and ask where a touch lands.",
            usage: "\(Self.toolName) COMMAND [OPTIONS] [ARGUMENTS]", commands: commands.map { $0.spec },
            footer: "See '\(Self.toolName) help COMMAND' or '\(Self.toolName) COMMAND --help' for a command's options.")
    }
}
