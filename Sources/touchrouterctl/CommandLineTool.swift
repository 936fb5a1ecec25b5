import Foundation
import TouchRouterCore

// A small declarative command-line parser: each command declares its options and arguments as
// values (`CommandSpec`), and the parser, the usage line and `--help` are derived from them.

/// How the process ends: 0 success, 1 the work failed (a bad config, …), 2 the command line was wrong.
enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    case usage = 2
}

/// An option: a flag (`--json`) when `valueName` is nil, else an option taking a value
/// (`--config FILE` or `--config=FILE`).
struct OptionSpec {
    var name: String
    var valueName: String?
    var help: String
    var isRequired = false
    /// A one-letter alias (`o` for `-o FILE`).
    var shortName: Character? = nil

    /// The flag spelled out with its value, as usage and help print it.
    var synopsis: String { valueName.map { "--\(name) \($0)" } ?? "--\(name)" }
}

/// A positional argument; a repeating one takes every remaining argument (at least one).
struct ArgumentSpec {
    var name: String
    var help: String
    var repeats = false
    var isOptional = false

    var synopsis: String {
        let text = repeats ? "\(name)..." : name
        return isOptional ? "[\(text)]" : text
    }
}

/// What a command is: its name, a one-line abstract, options, arguments and a longer discussion.
struct CommandSpec {
    var name: String
    var abstract: String
    var options: [OptionSpec] = []
    var arguments: [ArgumentSpec] = []
    var discussion: String?
}

/// A command of touchrouterctl.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    /// Runs the command; prints its results on stdout and its errors on stderr.
    static func run(_ arguments: ParsedArguments) -> ExitCode
}

/// The command line parsed against a `CommandSpec`.
struct ParsedArguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String: [String]] = [:]

    func value(_ option: String) -> String? { values[option] }
    func flag(_ option: String) -> Bool { flags.contains(option) }
    func argument(_ name: String) -> String? { positionals[name]?.first }
    func arguments(_ name: String) -> [String] { positionals[name] ?? [] }
}

/// A command-line mistake, printed with a pointer to `--help`.
struct UsageError: Error {
    var message: String
}

/// Standard error output.
enum StandardError {
    static func print(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

struct CommandLineTool {
    static let toolName = "touchrouterctl"
    static let helpOption = OptionSpec(name: "help", help: "Show this help.")

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
        if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            print(Self.help(spec))
            return .success
        }
        do {
            return command.run(try Self.parse(rest, spec))
        } catch {
            return usageError(error.message, spec)
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

    /// Parses a command's arguments (everything after its name).
    static func parse(_ arguments: [String], _ spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if optionsEnded || !looksLikeOption(token) {
                positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            var name = String(token.drop(while: { $0 == "-" }))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            let short = token.hasPrefix("--") ? nil : spec.options.first { $0.shortName.map(String.init) == name }
            if let short { name = short.name }
            guard token.hasPrefix("--") || short != nil, let option = spec.options.first(where: { $0.name == name })
            else {
                var message = "unknown option '\(token.split(separator: "=").first ?? "")'"
                if let suggestion = NearMiss.suggestion(for: name, among: spec.options.map(\.name) + ["help"]) {
                    message += " (did you mean '--\(suggestion)'?)"
                }
                throw UsageError(message: message)
            }
            if option.valueName == nil {
                if inlineValue != nil { throw UsageError(message: "'--\(name)' takes no value") }
                parsed.flags.insert(name)
                continue
            }
            if parsed.values[name] != nil { throw UsageError(message: "'--\(name)' given twice") }
            if let inlineValue {
                parsed.values[name] = inlineValue
            } else if index < arguments.count {
                parsed.values[name] = arguments[index]
                index += 1
            } else {
                throw UsageError(message: "'--\(name)' needs a value (\(option.synopsis))")
            }
        }
        for option in spec.options where option.isRequired && parsed.values[option.name] == nil {
            throw UsageError(message: "missing \(option.synopsis)")
        }
        var remaining = positionals[...]
        for argument in spec.arguments {
            if argument.repeats {
                if remaining.isEmpty && !argument.isOptional {
                    throw UsageError(message: "missing \(argument.synopsis)")
                }
                parsed.positionals[argument.name] = Array(remaining)
                remaining = []
            } else if let value = remaining.popFirst() {
                parsed.positionals[argument.name] = [value]
            } else if !argument.isOptional {
                throw UsageError(message: "missing \(argument.name)")
            }
        }
        if let extra = remaining.first {
            throw UsageError(message: "unexpected argument '\(extra)'")
        }
        return parsed
    }

    /// An option is a token starting with `-`, except a lone `-` and a negative number (`-12.5`).
    private static func looksLikeOption(_ token: String) -> Bool {
        guard token.hasPrefix("-"), token != "-" else { return false }
        return Double(token) == nil
    }

    static func usage(_ spec: CommandSpec) -> String {
        var parts = ["\(toolName) \(spec.name)"]
        for option in spec.options {
            parts.append(option.isRequired ? option.synopsis : "[\(option.synopsis)]")
        }
        parts += spec.arguments.map(\.synopsis)
        return parts.joined(separator: " ")
    }

    /// The full help of one command.
    static func help(_ spec: CommandSpec) -> String {
        var lines = ["OVERVIEW: \(spec.abstract)", "", "USAGE: \(usage(spec))"]
        if !spec.arguments.isEmpty {
            lines += ["", "ARGUMENTS:"]
            lines += spec.arguments.map { row($0.repeats ? "\($0.name)..." : $0.name, $0.help) }
        }
        lines += ["", "OPTIONS:"]
        lines += (spec.options + [helpOption]).map { option in
            let synopsis = option.shortName.map { "-\($0), \(option.synopsis)" } ?? option.synopsis
            return row(option.name == "help" ? "-h, --help" : synopsis, option.help)
        }
        if let discussion = spec.discussion {
            lines += ["", discussion]
        }
        return lines.joined(separator: "\n")
    }

    private static func row(_ name: String, _ help: String) -> String {
        let padded = name.count < 22 ? name.padding(toLength: 22, withPad: " ", startingAt: 0) : name + "  "
        return "  \(padded)\(help)"
    }

    func overview() -> String {
        var lines = [
            "OVERVIEW: Check touchrouter layouts and ask where a touch lands.",
            "",
            "USAGE: \(Self.toolName) COMMAND [OPTIONS] [ARGUMENTS]",
            "",
            "COMMANDS:",
        ]
        lines += commands.map { Self.row($0.spec.name, $0.spec.abstract) }
        lines += [
            "",
            "See '\(Self.toolName) help COMMAND' or '\(Self.toolName) COMMAND --help' for a command's options.",
        ]
        return lines.joined(separator: "\n")
    }
}
