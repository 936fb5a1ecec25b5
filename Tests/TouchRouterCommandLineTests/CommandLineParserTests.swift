import Testing
import TouchRouterCommandLine

extension OptionKey {
    fileprivate static let config = OptionKey("config")
    fileprivate static let json = OptionKey("json")
    fileprivate static let device = OptionKey("device")
    fileprivate static let output = OptionKey("output")
    fileprivate static let secret = OptionKey("secret")
    fileprivate static let undeclared = OptionKey("undeclared")
}

extension ArgumentKey {
    fileprivate static let x = ArgumentKey("X")
    fileprivate static let file = ArgumentKey("FILE")
}

/// A command with one of each kind of declaration.
private let spec = CommandSpec(
    name: "probe",
    abstract: "Probe the parser.",
    options: [
        OptionSpec(.config, valueName: "FILE", help: "A config.", isRequired: true),
        OptionSpec(.json, help: "JSON output."),
        OptionSpec(.device, valueName: "NODE", help: "A device (repeatable).", repeats: true),
        OptionSpec(.output, valueName: "FILE", help: "Where to write.", shortName: "o"),
        OptionSpec(.secret, help: "Not in help.", isHidden: true),
    ],
    arguments: [
        ArgumentSpec(.x, help: "A number."),
        ArgumentSpec(.file, help: "Files.", repeats: true, isOptional: true),
    ],
    discussion: "More words.")

private func parse(_ arguments: [String]) throws(CommandLineError) -> ParsedArguments {
    try CommandLineParser.parse(arguments, spec)
}

@Suite("TouchRouterCommandLine: the shared parser")
struct CommandLineParserTests {
    @Test("options and positionals mix; --opt value and --opt=value are the same; -o is --output")
    func valuesAndPositionals() throws {
        let parsed = try parse(["1", "--config", "a.json5", "--json", "f1", "-o", "out.svg", "f2"])
        #expect(parsed.value(.config) == "a.json5")
        #expect(parsed.flag(.json))
        #expect(!parsed.flag(.secret))
        #expect(parsed.value(.output) == "out.svg")
        #expect(parsed.argument(.x) == "1")
        #expect(parsed.arguments(.file) == ["f1", "f2"])
        #expect(try parse(["--config=b=c", "2"]).value(.config) == "b=c")
        #expect(try parse(["--config=", "2"]).value(.config) == "")
    }

    @Test("a value may start with '-'; negative numbers and a lone '-' are positionals; '--' ends options")
    func dashes() throws {
        #expect(try parse(["--config", "--json", "3"]).value(.config) == "--json")
        #expect(try parse(["--config", "c", "-12.5"]).argument(.x) == "-12.5")
        #expect(try parse(["--config", "c", "-", "-"]).arguments(.file) == ["-"])
        let ended = try parse(["--config", "c", "--", "--json", "--nope"])
        #expect(ended.argument(.x) == "--json")
        #expect(ended.arguments(.file) == ["--nope"])
        #expect(!ended.flag(.json))
    }

    @Test("a repeating option keeps every value in order; value() is the last")
    func repeating() throws {
        let parsed = try parse(["--config", "c", "--device", "a", "--device=b", "1"])
        #expect(parsed.values(.device) == ["a", "b"])
        #expect(parsed.value(.device) == "b")
        #expect(try parse(["--config", "c", "1"]).values(.device) == [])
    }

    @Test(
        "each mistake is its own error, with the usual wording",
        arguments: [
            (
                ["--config", "c", "1", "--jsn"],
                CommandLineError.unknownOption(
                    token: "--jsn", name: "jsn", known: ["config", "json", "device", "output", "help"]),
                "unknown option '--jsn' (did you mean '--json'?)"
            ),
            (
                ["--config", "c", "1", "-x=3"],
                .unknownOption(token: "-x=3", name: "x", known: ["config", "json", "device", "output", "help"]),
                "unknown option '-x'"
            ),
            (
                ["1", "--config"], .missingValue("config", synopsis: "--config FILE"),
                "'--config' needs a value (--config FILE)"
            ),
            (["--config", "c", "--json=yes", "1"], .flagTakesNoValue("json"), "'--json' takes no value"),
            (["--config", "a", "--config", "b", "1"], .repeated("config"), "'--config' given twice"),
            (["--config", "c", "--json", "--json", "1"], .repeated("json"), "'--json' given twice"),
            (["1"], .missingOption("config", synopsis: "--config FILE"), "missing --config FILE"),
            (["--config", "c"], .missingArgument(synopsis: "X"), "missing X"),
        ] as [([String], CommandLineError, String)])
    func mistakes(arguments: [String], error: CommandLineError, message: String) throws {
        let thrown = #expect(throws: CommandLineError.self) { try parse(arguments) }
        #expect(thrown == error)
        let suggest: (String, [String]) -> String? = { word, known in word == "jsn" ? known[1] : nil }
        #expect(thrown?.message(suggesting: suggest) == message)
    }

    @Test("more positionals than declared is an error naming the first extra one")
    func unexpectedArgument() throws {
        let short = CommandSpec(name: "one", abstract: "One.", arguments: [ArgumentSpec(.x, help: "A number.")])
        #expect(throws: CommandLineError.unexpectedArgument("2")) { try CommandLineParser.parse(["1", "2"], short) }
        let none = CommandSpec(name: "none", abstract: "None.")
        #expect(throws: CommandLineError.unexpectedArgument("x")) { try CommandLineParser.parse(["x"], none) }
        let required = CommandSpec(
            name: "files", abstract: "Files.", arguments: [ArgumentSpec(.file, help: "Files.", repeats: true)])
        #expect(throws: CommandLineError.missingArgument(synopsis: "FILE...")) {
            try CommandLineParser.parse([], required)
        }
    }

    @Test("--help and -h ask for help anywhere before '--', whatever else is wrong")
    func wantsHelp() {
        #expect(CommandLineParser.wantsHelp(["--help"]))
        #expect(CommandLineParser.wantsHelp(["--nonsense", "-h", "x"]))
        #expect(!CommandLineParser.wantsHelp(["--", "--help"]))
        #expect(!CommandLineParser.wantsHelp(["--helpful"]))
        #expect(!CommandLineParser.wantsHelp([]))
    }

    @Test("the help is generated from the declaration, exactly; hidden options are left out")
    func help() {
        #expect(
            HelpText.help(spec, invokedAs: "tool probe") == """
                OVERVIEW: Probe the parser.

                USAGE: tool probe --config FILE [--json] [--device NODE ...] [--output FILE] X [FILE...]

                ARGUMENTS:
                  X                     A number.
                  FILE...               Files.

                OPTIONS:
                  --config FILE         A config.
                  --json                JSON output.
                  --device NODE         A device (repeatable).
                  -o, --output FILE     Where to write.
                  -h, --help            Show this help.

                More words.
                """)
        #expect(HelpText.row("a-name-of-exactly-22ch", "Help.") == "  a-name-of-exactly-22ch  Help.")
    }

    @Test("reading a key the command did not declare traps (a key of another command)")
    func undeclaredKeyTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = try? CommandLineParser.parse(["--config", "c", "1"], spec).value(.undeclared)
        }
    }
}
