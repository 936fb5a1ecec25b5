/// Usage and `--help` texts, generated from a `CommandSpec` so they cannot drift from the parser.
public enum HelpText {
    /// The help option every command has (parsed by `CommandLineParser.wantsHelp`, listed last).
    static let helpRow = row("-h, --help", "Show this help.")
    /// The version option of a tool (`CommandLineParser.wantsVersion`), listed after help.
    public static let versionRow = row("--version", "Show the version.")

    /// `touchrouterctl hit-test [--config FILE] [--screen NAME] X Y`; `invokedAs` is what the
    /// user types before the options. A repeating option prints as `[--device NODE ...]`.
    public static func usage(_ spec: CommandSpec, invokedAs: String) -> String {
        var parts = [invokedAs]
        for option in spec.options where !option.isHidden {
            let synopsis = option.repeats ? "\(option.synopsis) ..." : option.synopsis
            parts.append(option.isRequired ? synopsis : "[\(synopsis)]")
        }
        parts += spec.arguments.map(\.synopsis)
        return parts.joined(separator: " ")
    }

    /// The full help of one command: overview, usage, arguments, options, discussion.
    /// `showsVersion` lists `--version` too (a tool's own options, not a subcommand's).
    public static func help(_ spec: CommandSpec, invokedAs: String, showsVersion: Bool = false) -> String {
        var lines = ["OVERVIEW: \(spec.abstract)", "", "USAGE: \(usage(spec, invokedAs: invokedAs))"]
        if !spec.arguments.isEmpty {
            lines += ["", "ARGUMENTS:"]
            lines += spec.arguments.map { row($0.repeats ? "\($0.name)..." : $0.name, $0.help) }
        }
        lines += ["", "OPTIONS:"]
        lines += spec.options.filter { !$0.isHidden }.map { option in
            let synopsis = option.shortName.map { "-\($0), \(option.synopsis)" } ?? option.synopsis
            return row(synopsis, option.help)
        }
        lines.append(helpRow)
        if showsVersion { lines.append(versionRow) }
        if let discussion = spec.discussion {
            lines += ["", discussion]
        }
        return lines.joined(separator: "\n")
    }

    /// The overview of a tool with subcommands: abstract, usage, one row per command, a closing note.
    public static func overview(
        abstract: String, usage: String, commandsTitle: String = "COMMANDS", commands: [CommandSpec],
        footer: String
    ) -> String {
        var lines = ["OVERVIEW: \(abstract)", "", "USAGE: \(usage)", "", "\(commandsTitle):"]
        lines += commands.map { row($0.name, $0.abstract) }
        lines += ["", "OPTIONS:", helpRow, versionRow]
        lines += ["", footer]
        return lines.joined(separator: "\n")
    }

    /// `  NAME                  help`: names padded to 22 columns with at least two spaces, else followed by two.
    public static func row(_ name: String, _ help: String) -> String {
        let padded = name.count <= 20 ? name + String(repeating: " ", count: 22 - name.count) : name + "  "
        return "  \(padded)\(help)"
    }
}
