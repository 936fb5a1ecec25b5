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

/// Typed declarations: each fact (name, type, default, range, help) written once.
private enum Declared {
    static let count = Option.integer("count", help: "How many.", in: 1...64, default: 8)
    static let priority = Option<Int32?>.integer("priority", help: "The priority.", in: 1...99)
    static let speed = Option.number(
        "speed", help: "Speed factor.", in: 0.001...1000, zeroMeans: "flat out", default: 1)
    static let ratio = Option.number("ratio", help: "A ratio.", in: 0.5...2, default: 1)
    static let file = Option.path("file", valueName: "FILE", help: "A file.")
    static let level = Option.choice(
        "level", valueName: "LEVEL", help: "", choices: [("low", 0), ("high", 1)], default: 0, named: "low",
        parse: { ["low": 0, "high": 1][$0] })
    static let quiet = Option.flag("quiet", help: "Say less.")
}

private let typed = CommandSpec(
    name: "typed", abstract: "Typed options.",
    options: [
        Declared.count, Declared.priority, Declared.speed, Declared.ratio, Declared.file, Declared.level,
        Declared.quiet,
    ])

@Suite("TouchRouterCommandLine: options declared once with type, default and range")
struct DeclaredOptionTests {
    @Test("not given: the declared default; given: the typed value")
    func defaultsAndValues() throws {
        let none = try CommandLineParser.parse([], typed)
        #expect(none.value(Declared.count) == 8)
        #expect(none.value(Declared.priority) == nil)
        #expect(none.value(Declared.speed) == 1)
        #expect(none.value(Declared.level) == 0)
        #expect(!none.value(Declared.quiet))
        let given = try CommandLineParser.parse(
            ["--count", "64", "--priority=99", "--speed", "0", "--file", "f", "--level", "high", "--quiet"], typed)
        #expect(given.value(Declared.count) == 64)
        #expect(given.value(Declared.priority) == 99)
        #expect(given.value(Declared.speed) == 0)
        #expect(given.value(Declared.file) == "f")
        #expect(given.value(Declared.level) == 1)
        #expect(given.value(Declared.quiet))
    }

    @Test(
        "a value outside the declaration is a parse error saying what the declaration accepts",
        arguments: [
            (["--count", "0"], CommandLineError.invalidValue("count", text: "0", expected: "a number from 1 to 64")),
            (["--count", "x"], .invalidValue("count", text: "x", expected: "a number from 1 to 64")),
            (["--priority", "100"], .invalidValue("priority", text: "100", expected: "a number from 1 to 99")),
            (
                ["--speed", "1e-9"],
                .invalidValue("speed", text: "1e-9", expected: "0 (flat out) or a number from 0.001 to 1000")
            ),
            (
                ["--speed", "nan"],
                .invalidValue("speed", text: "nan", expected: "0 (flat out) or a number from 0.001 to 1000")
            ),
            (["--ratio", "0"], .invalidValue("ratio", text: "0", expected: "a number from 0.5 to 2")),
            (["--ratio", "2.5"], .invalidValue("ratio", text: "2.5", expected: "a number from 0.5 to 2")),
            (["--file", ""], .invalidValue("file", text: "", expected: "a non-empty path")),
            (["--level", "mid"], .invalidValue("level", text: "mid", expected: "low or high")),
        ] as [([String], CommandLineError)])
    func rangeErrors(arguments: [String], error: CommandLineError) {
        #expect(throws: error) { try CommandLineParser.parse(arguments, typed) }
    }

    @Test("the help line names the declared range and default")
    func help() {
        #expect(
            HelpText.help(typed, invokedAs: "typed") == """
                OVERVIEW: Typed options.

                USAGE: typed [--count N] [--priority N] [--speed X] [--ratio X] [--file FILE] [--level LEVEL] [--quiet]

                OPTIONS:
                  --count N             How many, 1 to 64 (default 8).
                  --priority N          The priority, 1 to 99.
                  --speed X             Speed factor, 0.001 to 1000, 0 = flat out (default 1).
                  --ratio X             A ratio, 0.5 to 2 (default 1).
                  --file FILE           A file.
                  --level LEVEL         low (default) or high.
                  --quiet               Say less.
                  -h, --help            Show this help.
                """)
        #expect(
            CommandLineError.invalidValue("count", text: "0", expected: "a number from 1 to 64").message()
                == "'--count' needs a number from 1 to 64, got '0'")
    }

    @Test("described: one command's own help sentence keeps the declared range and default")
    func described() {
        let worded = Declared.count.described("How many times.", isRequired: true)
        #expect(worded.spec.help == "How many times, 1 to 64 (default 8).")
        #expect(worded.spec.isRequired)
        #expect(worded.spec.check?.accepts("65") == false)
    }
}
