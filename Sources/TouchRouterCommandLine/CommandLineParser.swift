/// Parses a command's arguments against its `CommandSpec`.
public enum CommandLineParser {
    /// Whether the arguments ask for help: `--help` or `-h` before any `--`. Checked before parsing,
    /// so `--help` wins over any other mistake on the line.
    public static func wantsHelp(_ arguments: [String]) -> Bool {
        arguments.prefix(while: { $0 != "--" }).contains { $0 == "--help" || $0 == "-h" }
    }

    /// Whether the arguments ask for the version: `--version` before any `--` (help wins over it).
    public static func wantsVersion(_ arguments: [String]) -> Bool {
        arguments.prefix(while: { $0 != "--" }).contains("--version")
    }

    /// Parses a command's arguments (everything after its name). Options and positionals may mix;
    /// `--` ends the options; `--name=value` and `--name value` are the same; a token after an
    /// option that takes a value is that value even if it starts with `-`.
    public static func parse(_ arguments: [String], _ spec: CommandSpec) throws(CommandLineError) -> ParsedArguments {
        var parsed = ParsedArguments(spec)
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
                let known = spec.options.filter { !$0.isHidden }.map(\.name) + ["help"]
                throw .unknownOption(token: token, name: name, known: known)
            }
            if option.valueName == nil {
                if inlineValue != nil { throw .flagTakesNoValue(name) }
                if parsed.flags.contains(option.key) && !option.repeats { throw .repeated(name) }
                parsed.flags.insert(option.key)
                continue
            }
            if parsed.values[option.key] != nil && !option.repeats { throw .repeated(name) }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw .missingValue(name, synopsis: option.synopsis)
            }
            parsed.values[option.key, default: []].append(value)
        }
        for option in spec.options where option.isRequired && parsed.values[option.key] == nil {
            throw .missingOption(option.name, synopsis: option.synopsis)
        }
        for option in spec.options {
            guard let check = option.check else { continue }
            if let text = parsed.values[option.key]?.first(where: { !check.accepts($0) }) {
                throw .invalidValue(option.name, text: text, expected: check.expected)
            }
        }
        var remaining = positionals[...]
        for argument in spec.arguments {
            if argument.repeats {
                if remaining.isEmpty && !argument.isOptional {
                    throw .missingArgument(synopsis: argument.synopsis)
                }
                parsed.positionals[argument.key] = Array(remaining)
                remaining = []
            } else if let value = remaining.popFirst() {
                parsed.positionals[argument.key] = [value]
            } else if !argument.isOptional {
                throw .missingArgument(synopsis: argument.name)
            }
        }
        if let extra = remaining.first {
            throw .unexpectedArgument(extra)
        }
        return parsed
    }

    /// An option is a token starting with `-`, except a lone `-` and a negative number (`-12.5`).
    static func looksLikeOption(_ token: String) -> Bool {
        guard token.hasPrefix("-"), token != "-" else { return false }
        return Double(token) == nil
    }
}
