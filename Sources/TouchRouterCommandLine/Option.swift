// An option declared once: its name, the type its value is read as, its default and its range.
// The help line, the parser's check and the range error all come from this one declaration.

/// Anything a `CommandSpec` lists as an option: a typed `Option` or a bare `OptionSpec`.
public protocol CommandOption: Sendable {
    /// What the parser and the help text see.
    var spec: OptionSpec { get }
}

extension OptionSpec: CommandOption {
    /// Itself.
    public var spec: OptionSpec { self }
}

/// An option declared once with the type of its value, its default and what a valid value is.
/// The parser rejects a value the declaration does not accept (`CommandLineError.invalidValue`),
/// the help line names the range and the default, and `ParsedArguments.value(_:)` returns the typed
/// value (the default when the option was not given).
public struct Option<Value: Sendable>: CommandOption {
    /// What the parser and the help text see; its help line already names the range and default.
    public private(set) var spec: OptionSpec
    /// The value when the option is not given.
    public let defaultValue: Value
    /// The range and default the help line adds to `sentence` (`, 1 to 65536 (default 64)`).
    private let helpSuffix: String
    private let convert: @Sendable (String) -> Value?

    /// The general form: `convert` reads a value (nil: not valid, and `expected` says what is);
    /// `defaultText` is how help prints the default (nil: not printed); `range` is printed before it.
    /// For a value that is nil when the option is not given, use `optional`, which cannot mistake an
    /// invalid value for a valid nil.
    public init(
        _ name: String, valueName: String, help: String, default defaultValue: Value, defaultText: String? = nil,
        range: String? = nil, expected: String, isRequired: Bool = false, shortName: Character? = nil,
        isHidden: Bool = false, convert: @escaping @Sendable (String) -> Value?
    ) {
        self.defaultValue = defaultValue
        self.convert = convert
        self.helpSuffix = (range.map { ", \($0)" } ?? "") + (defaultText.map { " (default \($0))" } ?? "")
        self.spec = OptionSpec(
            OptionKey(name), valueName: valueName, help: Self.join(help, helpSuffix), isRequired: isRequired,
            shortName: shortName, isHidden: isHidden)
        spec.check = ValueCheck(expected: expected) { convert($0) != nil }
    }

    private init(spec: OptionSpec, defaultValue: Value, convert: @escaping @Sendable (String) -> Value?) {
        self.spec = spec
        self.defaultValue = defaultValue
        self.helpSuffix = ""
        self.convert = convert
    }

    /// `Refuse connections beyond N.` + `, 1 to 65536 (default 64)` → `Refuse connections beyond N, 1 to
    /// 65536 (default 64).`
    private static func join(_ sentence: String, _ suffix: String) -> String {
        guard !suffix.isEmpty else { return sentence }
        let stem = sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence
        return stem + suffix + "."
    }

    /// The same option (name, type, default, range) as one command describes it: its own help
    /// sentence, and whether that command requires it.
    public func described(_ help: String, isRequired: Bool = false) -> Option {
        var copy = self
        copy.spec.help = Self.join(help, helpSuffix)
        copy.spec.isRequired = isRequired
        return copy
    }

    /// Reads a value the parser has accepted.
    func read(_ text: String) -> Value? { convert(text) }
}

extension Option {
    /// The general form for a value that is nil when the option is not given: `convert` reads the
    /// wrapped value (nil: not valid, and `expected` says what is).
    public static func optional<Wrapped: Sendable>(
        _ name: String, valueName: String, help: String, range: String? = nil, expected: String,
        isRequired: Bool = false, convert: @escaping @Sendable (String) -> Wrapped?
    ) -> Option where Value == Wrapped? {
        Option(
            name, valueName: valueName, help: help, default: nil, range: range, expected: expected,
            isRequired: isRequired, convert: { text in convert(text).map { .some($0) } })
    }
}

extension Option where Value == Bool {
    /// A flag (`--json`): true when given.
    public static func flag(_ name: String, help: String, isHidden: Bool = false) -> Option {
        Option(spec: OptionSpec(OptionKey(name), help: help, isHidden: isHidden), defaultValue: false) { _ in true }
    }
}

extension Option {
    /// Any text (`--name NAME`), nil when not given. `repeats`: every value is kept
    /// (`ParsedArguments.values`).
    public static func text(
        _ name: String, valueName: String, help: String, isRequired: Bool = false, shortName: Character? = nil,
        repeats: Bool = false, isHidden: Bool = false
    ) -> Option where Value == String? {
        let spec = OptionSpec(
            OptionKey(name), valueName: valueName, help: help, isRequired: isRequired, shortName: shortName,
            repeats: repeats, isHidden: isHidden)
        return Option(spec: spec, defaultValue: nil) { $0 }
    }

    /// Any text, with a default that help prints (`--seat NAME`, default `seat0`).
    public static func text(_ name: String, valueName: String, help: String, default defaultValue: String)
        -> Option where Value == String
    {
        Option(
            name, valueName: valueName, help: help, default: defaultValue, defaultText: defaultValue,
            expected: "text", convert: { $0 })
    }

    /// A path that may not be empty (`--config FILE`), nil when not given.
    public static func path(_ name: String, valueName: String, help: String, isRequired: Bool = false) -> Option
    where Value == String? {
        optional(
            name, valueName: valueName, help: help, expected: "a non-empty path", isRequired: isRequired,
            convert: { $0.isEmpty ? nil : $0 })
    }

    /// A path that may not be empty, with a default that help prints.
    public static func path(_ name: String, valueName: String, help: String, default defaultValue: String)
        -> Option where Value == String
    {
        Option(
            name, valueName: valueName, help: help, default: defaultValue, defaultText: defaultValue,
            expected: "a non-empty path", convert: { $0.isEmpty ? nil : $0 })
    }

    /// A whole number in `range`, nil when not given.
    public static func integer<Integer: FixedWidthInteger & Sendable>(
        _ name: String, valueName: String = "N", help: String, in range: ClosedRange<Integer>
    ) -> Option where Value == Integer? {
        optional(
            name, valueName: valueName, help: help, range: NumberRange.text(range),
            expected: NumberRange.expected(range),
            convert: { text in Integer(text).flatMap { range.contains($0) ? $0 : nil } })
    }

    /// A finite number in `range`, or 0 when `zeroMeans` says what 0 asks for (`--speed`: 0 plays
    /// as fast as possible), with a default that help prints. An upper bound of infinity is
    /// printed as no range.
    public static func number(
        _ name: String, valueName: String = "X", help: String, in range: ClosedRange<Double>,
        zeroMeans: String? = nil, default defaultValue: Double
    ) -> Option where Value == Double {
        let zero = zeroMeans.map { (", 0 = \($0)", "0 (\($0)) or ") }
        return Option(
            name, valueName: valueName, help: help, default: defaultValue,
            defaultText: NumberRange.format(defaultValue),
            range: NumberRange.text(range).map { $0 + (zero?.0 ?? "") },
            expected: (zero?.1 ?? "") + NumberRange.expected(range),
            convert: { text in
                guard let value = Double(text), value.isFinite else { return nil }
                return range.contains(value) || (zeroMeans != nil && value == 0) ? value : nil
            })
    }

    /// Comma-separated whole numbers (`--sizes N,...`), each in `range`, with a default help prints.
    public static func integers(
        _ name: String, valueName: String = "N,...", help: String, in range: ClosedRange<Int> = 0...Int.max,
        default defaultValue: [Int]
    ) -> Option where Value == [Int] {
        Option(
            name, valueName: valueName, help: help, default: defaultValue,
            defaultText: defaultValue.map(String.init).joined(separator: ","),
            expected: NumberRange.text(range).map { "comma-separated numbers, each from \($0)" }
                ?? "comma-separated whole numbers >= \(range.lowerBound)",
            convert: { text in
                let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
                guard !numbers.isEmpty, numbers.allSatisfy({ $0.map(range.contains) ?? false }) else { return nil }
                return numbers.compactMap { $0 }
            })
    }

    /// One of `choices`, by name (`--log-level LEVEL`); help (after `help`, if any) lists them and marks
    /// the default.
    public static func choice(
        _ name: String, valueName: String, help: String, choices: [(name: String, value: Value)],
        default defaultValue: Value, named defaultName: String, parse: @escaping @Sendable (String) -> Value?
    ) -> Option {
        let names = choices.map { $0.name }
        let marked = names.map { $0 == defaultName ? "\($0) (default)" : $0 }
        return Option(
            name, valueName: valueName, help: (help.isEmpty ? "" : help + " ") + NumberRange.list(marked) + ".",
            default: defaultValue,
            expected: NumberRange.list(names), convert: parse)
    }
}

extension Option where Value: FixedWidthInteger {
    /// A whole number in `range`, with a default that help prints. A range up to the type's
    /// largest value is printed as no range (`MS`, `default 500`).
    public static func integer(
        _ name: String, valueName: String = "N", help: String, in range: ClosedRange<Value>,
        default defaultValue: Value
    ) -> Option {
        Option(
            name, valueName: valueName, help: help, default: defaultValue, defaultText: "\(defaultValue)",
            range: NumberRange.text(range), expected: NumberRange.expected(range),
            convert: { text in Value(text).flatMap { range.contains($0) ? $0 : nil } })
    }
}

/// How ranges and numbers read in help lines and errors.
enum NumberRange {
    /// `1 to 65536`; nil for a range without an upper bound (up to the type's largest value).
    static func text<Integer: FixedWidthInteger>(_ range: ClosedRange<Integer>) -> String? {
        range.upperBound == Integer.max ? nil : "\(range.lowerBound) to \(range.upperBound)"
    }

    /// `0.001 to 1000`; nil when the upper bound is infinity.
    static func text(_ range: ClosedRange<Double>) -> String? {
        range.upperBound == .infinity ? nil : "\(format(range.lowerBound)) to \(format(range.upperBound))"
    }

    /// `a number from 1 to 65536`, `a whole number >= 0`.
    static func expected<Integer: FixedWidthInteger>(_ range: ClosedRange<Integer>) -> String {
        text(range).map { "a number from \($0)" } ?? "a whole number >= \(range.lowerBound)"
    }

    /// `a number from 0.001 to 1000`, `a number >= 0`, `a positive number`.
    static func expected(_ range: ClosedRange<Double>) -> String {
        if let text = text(range) { return "a number from \(text)" }
        return range.lowerBound > 0 ? "a positive number" : "a number >= \(format(range.lowerBound))"
    }

    /// `1000` rather than `1000.0`; `0.001` as Swift prints it.
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// `a, b or c`.
    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }
}
