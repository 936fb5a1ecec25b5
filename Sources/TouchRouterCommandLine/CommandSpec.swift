// A small declarative command-line parser shared by touchrouterd, touchrouterctl and
// touchrouter-bench: each command declares its options and arguments as values (`CommandSpec`),
// and the parser, the usage line and `--help` are derived from them, so the help cannot drift.
// Pure: no I/O, no Foundation.

/// The key an option is declared and read with. Each tool declares its keys once as static members
/// (`extension OptionKey { static let config = OptionKey("config") }`), so reading an option
/// through a misspelt key does not compile. The key's name is the option's long spelling.
public struct OptionKey: Hashable, Sendable, CustomStringConvertible {
    /// The long name, without dashes (`config` for `--config`).
    public let name: String
    /// Declares a key; call once per option, from a static member.
    public init(_ name: String) { self.name = name }
    /// `--config`.
    public var description: String { "--\(name)" }
}

/// The key a positional argument is declared and read with (static members, like `OptionKey`).
/// Its name is what usage and help print (`FILE`).
public struct ArgumentKey: Hashable, Sendable, CustomStringConvertible {
    /// The name usage prints (`FILE`).
    public let name: String
    /// Declares a key; call once per argument, from a static member.
    public init(_ name: String) { self.name = name }
    /// `FILE`.
    public var description: String { name }
}

/// An option: a flag (`--json`) when `valueName` is nil, else an option taking a value
/// (`--config FILE` or `--config=FILE`).
public struct OptionSpec: Sendable {
    /// The key it is read with; its name is the long spelling.
    public var key: OptionKey
    /// What the value is called in usage and help (`FILE`); nil for a flag.
    public var valueName: String?
    /// One line for `--help`.
    public var help: String
    /// Leaving it out is a usage error (`missing --config FILE`).
    public var isRequired: Bool
    /// A one-letter alias (`o` for `-o FILE`).
    public var shortName: Character?
    /// May be given more than once (every value is kept, in order); otherwise twice is an error.
    public var repeats: Bool
    /// Left out of usage and help (benchmark-only switches).
    public var isHidden: Bool
    /// What a valid value is, checked by the parser; set by a typed `Option`, nil accepts any text.
    public var check: ValueCheck?

    /// Declares an option; the defaults make an optional, visible, non-repeating flag.
    public init(
        _ key: OptionKey, valueName: String? = nil, help: String, isRequired: Bool = false,
        shortName: Character? = nil, repeats: Bool = false, isHidden: Bool = false
    ) {
        self.key = key
        self.valueName = valueName
        self.help = help
        self.isRequired = isRequired
        self.shortName = shortName
        self.repeats = repeats
        self.isHidden = isHidden
    }

    /// The long name without dashes (`config`).
    public var name: String { key.name }

    /// The flag spelled out with its value, as usage and help print it (`--config FILE`).
    public var synopsis: String { valueName.map { "--\(name) \($0)" } ?? "--\(name)" }
}

/// Which values an option accepts, and what the error says one should be (`a number from 1 to 65536`).
public struct ValueCheck: Sendable {
    /// What a valid value is, for the error.
    public var expected: String
    /// Whether `text` is a valid value.
    public var accepts: @Sendable (String) -> Bool

    /// Declares the check.
    public init(expected: String, accepts: @escaping @Sendable (String) -> Bool) {
        self.expected = expected
        self.accepts = accepts
    }
}

/// A positional argument; a repeating one takes every remaining argument (at least one unless optional).
public struct ArgumentSpec: Sendable {
    /// The key it is read with; its name is what usage prints.
    public var key: ArgumentKey
    /// One line for `--help`.
    public var help: String
    /// Takes every remaining positional (declare it last).
    public var repeats: Bool
    /// May be left out.
    public var isOptional: Bool

    /// Declares a positional argument; the defaults make a required single one.
    public init(_ key: ArgumentKey, help: String, repeats: Bool = false, isOptional: Bool = false) {
        self.key = key
        self.help = help
        self.repeats = repeats
        self.isOptional = isOptional
    }

    /// What usage prints (`FILE`).
    public var name: String { key.name }

    /// `FILE`, `FILE...`, `[VIEW...]`.
    public var synopsis: String {
        let text = repeats ? "\(name)..." : name
        return isOptional ? "[\(text)]" : text
    }
}

/// What a command is: its name, a one-line abstract, options, arguments and a longer discussion.
public struct CommandSpec: Sendable {
    /// The command's name (`validate`), or the executable's for a tool without subcommands.
    public var name: String
    /// One line: the OVERVIEW of its help and its row in a tool's overview.
    public var abstract: String
    /// Its options, in the order usage and help list them (`--help` is implicit, listed last).
    public var options: [OptionSpec]
    /// Its positional arguments, in order; only the last may repeat.
    public var arguments: [ArgumentSpec]
    /// Paragraphs printed at the end of its help.
    public var discussion: String?

    /// Declares a command.
    public init(
        name: String, abstract: String, options: [any CommandOption] = [], arguments: [ArgumentSpec] = [],
        discussion: String? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.options = options.map(\.spec)
        self.arguments = arguments
        self.discussion = discussion
    }

    /// The declaration of `key`, if this command has that option.
    public func option(_ key: OptionKey) -> OptionSpec? { options.first { $0.key == key } }
}

/// The command line parsed against a `CommandSpec`, read through the keys it was declared with.
/// Reading a key the command did not declare is a programming error and traps.
public struct ParsedArguments: Sendable {
    private let declaredOptions: Set<OptionKey>
    private let declaredArguments: Set<ArgumentKey>
    var values: [OptionKey: [String]] = [:]
    var flags: Set<OptionKey> = []
    var positionals: [ArgumentKey: [String]] = [:]

    init(_ spec: CommandSpec) {
        declaredOptions = Set(spec.options.map(\.key))
        declaredArguments = Set(spec.arguments.map(\.key))
    }

    private func checked(_ key: OptionKey) -> OptionKey {
        precondition(declaredOptions.contains(key), "\(key) is not declared by this command")
        return key
    }

    private func checked(_ key: ArgumentKey) -> ArgumentKey {
        precondition(declaredArguments.contains(key), "\(key) is not declared by this command")
        return key
    }

    /// The value of an option taking one (the last one for a repeating option), nil if not given.
    public func value(_ option: OptionKey) -> String? { values[checked(option)]?.last }
    /// Every value of a repeating option, in command-line order.
    public func values(_ option: OptionKey) -> [String] { values[checked(option)] ?? [] }
    /// Whether a flag, or an option taking a value, was given.
    public func flag(_ option: OptionKey) -> Bool {
        let key = checked(option)
        return flags.contains(key) || values[key] != nil
    }
    /// A single positional argument, nil if an optional one was left out.
    public func argument(_ name: ArgumentKey) -> String? { positionals[checked(name)]?.first }
    /// Every value of a repeating positional argument.
    public func arguments(_ name: ArgumentKey) -> [String] { positionals[checked(name)] ?? [] }

    /// The value of a declared option: the one given (the last, for a repeating option), else its
    /// default. The parser has checked it already, so reading cannot fail.
    public func value<Value>(_ option: Option<Value>) -> Value {
        let key = checked(option.spec.key)
        if option.spec.valueName == nil {
            return flags.contains(key) ? option.read("") ?? option.defaultValue : option.defaultValue
        }
        return values[key]?.last.flatMap(option.read) ?? option.defaultValue
    }
    /// Every value of a repeating text option, in command-line order.
    public func values(_ option: Option<String?>) -> [String] { values(option.spec.key) }
    /// Whether a declared option was given.
    public func flag<Value>(_ option: Option<Value>) -> Bool { flag(option.spec.key) }
}

/// What is wrong with a command line; each tool words it (`message(suggesting:)` is the usual wording).
/// Option names are the long names without dashes.
public enum CommandLineError: Error, Equatable, Sendable {
    /// `token` is not an option of the command; `name` is what was looked up (dashes and `=value`
    /// removed) and `known` the command's option names, for a did-you-mean.
    case unknownOption(token: String, name: String, known: [String])
    /// A flag was given `=value`.
    case flagTakesNoValue(String)
    /// An option taking a value came last.
    case missingValue(String, synopsis: String)
    /// A non-repeating option was given twice.
    case repeated(String)
    /// A required option was not given.
    case missingOption(String, synopsis: String)
    /// A required positional argument was not given (`synopsis` is `FILE...` for a repeating one).
    case missingArgument(synopsis: String)
    /// More positional arguments than the command declares.
    case unexpectedArgument(String)
    /// A value its option's declaration does not accept; `expected` says what it accepts
    /// (`a number from 1 to 65536`).
    case invalidValue(String, text: String, expected: String)

    /// The usual wording (touchrouterctl's); `suggest(name, known)` may offer a near spelling.
    public func message(suggesting suggest: (String, [String]) -> String? = { _, _ in nil }) -> String {
        switch self {
        case .unknownOption(let token, let name, let known):
            var message = "unknown option '\(token.split(separator: "=").first ?? "")'"
            if let suggestion = suggest(name, known) { message += " (did you mean '--\(suggestion)'?)" }
            return message
        case .flagTakesNoValue(let name): return "'--\(name)' takes no value"
        case .missingValue(let name, let synopsis): return "'--\(name)' needs a value (\(synopsis))"
        case .repeated(let name): return "'--\(name)' given twice"
        case .missingOption(_, let synopsis): return "missing \(synopsis)"
        case .missingArgument(let synopsis): return "missing \(synopsis)"
        case .unexpectedArgument(let token): return "unexpected argument '\(token)'"
        case .invalidValue(let name, let text, let expected): return "'--\(name)' needs \(expected), got '\(text)'"
        }
    }
}
