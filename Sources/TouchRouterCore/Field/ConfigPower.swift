/// The config's `idle.power` key (docs/field.md, "Panel power"), read into `PanelPowerSettings`:
/// one backend (`backlight` or `command`), an optional `dim`, a `timeoutSeconds`. Every problem is
/// located like any other config error.

extension ConfigParser {
    static let powerKeys = ["backlight", "method", "command", "dim", "timeoutSeconds"]
    static let powerCommandKeys = ["on", "off", "dim"]
    static let dimKeys = ["seconds", "brightness"]
    /// Where a backlight given by name lives.
    static let backlightClassDirectory = "/sys/class/backlight"
    /// At most this many arguments in a command, each at most `maximumArgumentBytes`.
    static let maximumArguments = 64
    static let maximumArgumentBytes = 4096

    /// Reads `idle.power`; nil (reported) when it is not a valid backend. `idleMicros` is the
    /// screen's `idle.seconds` (a dim comes before it).
    mutating func panelPower(_ node: JSONNode, idleMicros: UInt64?, _ subject: Subject) -> PanelPowerSettings? {
        guard let power = object(node, subject, "\"power\"") else { return nil }
        checkKeys(power, allowed: Self.powerKeys, subject)
        var backend: PanelPowerSettings.Backend?
        switch (power["backlight"], power["command"]) {
        case (nil, nil):
            report(.missingKey, node.position, subject, "\"power\" needs \"backlight\" or \"command\"")
        case (.some, .some(let command)):
            report(.invalidValue, command.position, subject, "\"power\" takes \"backlight\" or \"command\", not both")
        case (.some, nil):
            backend = backlight(power, subject)
        case (nil, .some(let command)):
            if let method = power["method"] {
                report(.invalidValue, method.position, subject, "\"method\" is for a \"backlight\"")
            }
            backend = self.command(command, subject)
        }
        var settings = backend.map { PanelPowerSettings(backend: $0) }
        if let seconds = bounded(power, "timeoutSeconds", in: 0.1...600, unit: "seconds", subject) {
            settings?.timeoutMicros = Self.micros(seconds * 1_000_000)
        }
        readDim(power, idleMicros: idleMicros, into: &settings, subject)
        return settings
    }

    /// `backlight` (a name under /sys/class/backlight, or an absolute path) and `method`.
    private mutating func backlight(_ power: JSONObject, _ subject: Subject) -> PanelPowerSettings.Backend? {
        guard let name = string(power, "backlight", subject) else { return nil }
        var directory: String?
        if name.hasPrefix("/") && !name.utf8.contains(0) {
            directory = name
        } else if Self.isValidID(name) && name != "." && name != ".." {
            directory = Self.backlightClassDirectory + "/" + name
        }
        var method = PanelPowerSettings.BacklightMethod.blPower
        if let given = string(power, "method", subject) {
            if let known = PanelPowerSettings.BacklightMethod(rawValue: given) {
                method = known
            } else {
                report(
                    .invalidValue, power["method"]?.position, subject,
                    "\"method\" must be \"bl_power\" or \"brightness\", found \"\(Excerpt.of(given))\"")
            }
        }
        guard let directory else {
            report(
                .invalidValue, power["backlight"]?.position, subject,
                "\"backlight\" must be a name in \(Self.backlightClassDirectory) or an absolute path, found \""
                    + Excerpt.of(name) + "\"")
            return nil
        }
        return .backlight(directory: directory, method: method)
    }

    /// `command: {on: [...], off: [...], dim: [...]}`: argv arrays, `on` and `off` required.
    private mutating func command(_ node: JSONNode, _ subject: Subject) -> PanelPowerSettings.Backend? {
        guard let command = object(node, subject, "\"command\"") else { return nil }
        checkKeys(command, allowed: Self.powerCommandKeys, subject)
        var argvs: [String: [String]] = [:]
        for key in Self.powerCommandKeys {
            guard let argvNode = command[key] else {
                if key != "dim" {
                    report(.missingKey, node.position, subject, "\"command\" needs \"\(key)\" (an argv array)")
                }
                continue
            }
            argvs[key] = argv(argvNode, key, subject)
        }
        guard let on = argvs["on"], let off = argvs["off"], command["dim"] == nil || argvs["dim"] != nil else {
            return nil
        }
        return .command(on: on, off: off, dim: argvs["dim"])
    }

    /// A program and its arguments: 1…64 strings, the first not empty, none with a NUL byte or over
    /// 4096 bytes. Run as given, without a shell.
    private mutating func argv(_ node: JSONNode, _ key: String, _ subject: Subject) -> [String]? {
        let problem = "\"\(key)\" must be an argv array: 1…\(Self.maximumArguments) strings, the program first"
        guard case .array(let elements) = node.value, (1...Self.maximumArguments).contains(elements.count) else {
            report(.invalidValue, node.position, subject, problem + ", found " + Self.summary(node.value))
            return nil
        }
        var argv: [String] = []
        for element in elements {
            guard case .string(let text) = element.value else {
                wrongType(element, subject, "an argument of \"\(key)\"", "a string")
                return nil
            }
            guard !text.utf8.contains(0), text.utf8.count <= Self.maximumArgumentBytes, !(argv.isEmpty && text.isEmpty)
            else {
                report(
                    .invalidValue, element.position, subject,
                    "an argument of \"\(key)\" must be a string of 1…\(Self.maximumArgumentBytes) bytes without NUL"
                        + (argv.isEmpty ? " (the program)" : ""))
                return nil
            }
            argv.append(text)
        }
        return argv
    }

    /// `dim: {seconds, brightness}`: before `idle.seconds`; `brightness` (percent) for a backlight,
    /// `command.dim` for a command.
    private mutating func readDim(
        _ power: JSONObject, idleMicros: UInt64?, into settings: inout PanelPowerSettings?, _ subject: Subject
    ) {
        let isCommand = power["backlight"] == nil && power["command"] != nil
        var hasDimCommand = false
        if isCommand, case .object(let command)? = power["command"]?.value { hasDimCommand = command["dim"] != nil }
        guard let node = power["dim"] else {
            if hasDimCommand, let position = power["command"]?.position {
                report(.missingKey, position, subject, "\"command.dim\" needs \"dim\": {seconds: N}")
            }
            return
        }
        guard let dim = object(node, subject, "\"dim\"") else { return }
        checkKeys(dim, allowed: Self.dimKeys, subject)
        if let seconds = bounded(dim, "seconds", in: 0.001...604_800, unit: "seconds", subject) {
            let micros = Self.micros(seconds * 1_000_000)
            if let idleMicros, micros >= idleMicros {
                report(
                    .invalidValue, dim["seconds"]?.position, subject,
                    "\"dim.seconds\" must be less than idle's \"seconds\" (the panel dims before it goes off)")
            }
            settings?.dimMicros = micros
        } else if dim["seconds"] == nil {
            report(.missingKey, node.position, subject, "\"dim\" needs \"seconds\"")
        }
        if isCommand {
            if let brightness = dim["brightness"] {
                report(
                    .invalidValue, brightness.position, subject,
                    "\"brightness\" is for a \"backlight\"; a command dims with \"command.dim\"")
            }
            if !hasDimCommand {
                report(.missingKey, node.position, subject, "a command dims with \"command\": {dim: [...]}")
            }
        } else if let percent = bounded(dim, "brightness", in: 0...100, unit: "percent", subject) {
            settings?.dimBrightnessPercent = percent
        } else if dim["brightness"] == nil {
            report(
                .missingKey, node.position, subject,
                "\"dim\" needs \"brightness\" (percent of the backlight's max_brightness)")
        }
    }
}
