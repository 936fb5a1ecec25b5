import FoundationEssentials
import TouchRouterModel

/// Turns a config file's bytes into a `Config`, collecting every problem on the way: `JSONReader`
/// reads the JSON5 in one pass (values with positions), then this walks the tree against the schema.
/// Problems are located by the node they are about: a member's key, or a value's start.
struct ConfigParser {
    /// A problem found while walking the tree.
    struct Pending {
        var code: ConfigErrorCode
        var position: SourcePosition?
        var viewPath: String?
        var screenName: String?
        var message: String
    }

    /// Who a problem belongs to: a view (by its entry in `viewPaths`) or a screen's own keys, or the
    /// top level. A view's path is spelled out only when a problem is reported.
    struct Subject {
        var view: Int32?
        var screenName: String?
        static let top = Subject()
    }

    /// One view's path segment (its id, excerpted, or `#N`) and its parent's entry: the paths of
    /// every view, without building a string per view.
    struct PathEntry {
        var segment: String
        var parent: Int32
    }

    static let topKeys = ["screens", "unmatchedDevices"]
    static let reservedTopKeys = ["socket", "access"]
    static let screenKeys = [
        "name", "width", "height", "root", "devices", "rotation", "calibration", "physicalSize",
    ]
    static let viewKeys = [
        "id", "frame", "children", "hidden", "alpha", "interactive", "touchMargin", "shape", "transform",
        "multipleTouch", "exclusiveTouch", "access", "owner", "mount", "resetOnDisconnect",
    ]
    static let reservedViewKeys: [String] = []
    static let accessKeys = ["users", "groups"]
    static let marginKeys = ["top", "left", "bottom", "right"]
    static let transformKeys = ["rotate", "scale"]
    static let shapeNames = ["rect", "ellipse"]
    static let shapeObjectKeys = ["roundedRect", "polygon"]
    static let matcherKeys = ["name", "udev", "node"]

    let fileName: String
    let limits: ConfigLimits
    var pending: [Pending] = []
    var viewCount = 0
    var stopped = false
    var viewPaths: [PathEntry] = []
    /// id → the path entry of the first view that used it.
    var firstViewByID: [String: Int32] = [:]
    /// View id → its declared access list.
    var accessByViewID: [String: AccessList] = [:]
    /// The run-time keys (`owner`, `mount`, `resetOnDisconnect`), by view id (ConfigRuntime.swift).
    var runtimeKeys = RuntimeKeys()
    /// Per path entry: the view or an ancestor has an `owner` (a `mount` needs one).
    var ownedEntries: [Bool] = []
    /// Parsing a mounted subtree (a `mount` request), not a file: `owner` and `mount` are refused.
    var parsesMountedSubtree = false

    init(fileName: String, limits: ConfigLimits) {
        self.fileName = fileName
        self.limits = limits
    }

    static func tooLargeMessage(_ size: Int, limits: ConfigLimits) -> String {
        "the file is \(size) bytes, more than the limit of \(limits.maxFileBytes) bytes"
    }

    func parse(_ data: Data) throws(ConfigErrors) -> Config {
        var parser = self
        return try parser.run(data)
    }

    private mutating func run(_ data: Data) throws(ConfigErrors) -> Config {
        if data.count > limits.maxFileBytes {
            throw ConfigErrors([
                ConfigError(
                    code: .fileTooLarge, file: fileName,
                    message: Self.tooLargeMessage(data.count, limits: limits))
            ])
        }
        let read = data.withUnsafeBytes { raw in
            JSONReader.read(raw.bindMemory(to: UInt8.self), syntax: .json5)
        }
        let scanned = read.problems.map(error)
        if let failure = read.failure {
            switch failure.kind {
            case .invalidUTF8:
                // A byte offset, not a line: an editor may not show the line of a bad byte sensibly.
                throw ConfigErrors([ConfigError(code: .invalidUTF8, file: fileName, message: failure.message)]
                )
            case .nestingTooDeep:
                throw ConfigErrors([error(failure)])
            default:
                throw ConfigErrors((scanned + [error(failure)]).sorted(by: Self.inFileOrder))
            }
        }
        guard let root = read.root else { throw ConfigErrors([]) }
        // Nearly every object is a view: size the id table once instead of growing it.
        let expectedViews = min(read.objectCount, limits.maxViews)
        firstViewByID.reserveCapacity(expectedViews)
        viewPaths.reserveCapacity(expectedViews)
        let config = self.config(root)
        if pending.isEmpty && scanned.isEmpty, let config { return config }

        var errors = scanned
        // The reader already reported NaN/Infinity where they stand; the walk's copy at the same
        // place adds nothing.
        let nonFiniteAt = Set(read.problems.filter { $0.kind == .nonFinite }.map(\.position))
        for problem in pending {
            if problem.code == .nonFinite, let position = problem.position, nonFiniteAt.contains(position) {
                continue
            }
            errors.append(
                ConfigError(
                    code: problem.code, file: fileName, line: problem.position?.line,
                    column: problem.position?.column, viewPath: problem.viewPath,
                    screenName: problem.screenName,
                    message: problem.message))
        }
        errors.sort(by: Self.inFileOrder)
        if errors.count > limits.maxReportedErrors {
            let more = errors.count - limits.maxReportedErrors
            errors.removeLast(more)
            errors.append(
                ConfigError(code: .tooManyErrors, file: fileName, message: "\(more) more errors not listed"))
        }
        throw ConfigErrors(errors)
    }

    private func error(_ problem: JSONProblem) -> ConfigError {
        let code: ConfigErrorCode =
            switch problem.kind {
            case .syntax: .syntax
            case .nestingTooDeep: .nestingTooDeep
            case .invalidUTF8: .invalidUTF8
            case .duplicateKey: .duplicateKey
            case .nonFinite: .nonFinite
            }
        return ConfigError(
            code: code, file: fileName, line: problem.position.line, column: problem.position.column,
            message: problem.message)
    }

    /// Located errors first, in file order; unlocated ones after, in the order found (stable).
    private static func inFileOrder(_ a: ConfigError, _ b: ConfigError) -> Bool {
        switch (a.line, b.line) {
        case (let la?, let lb?): (la, a.column ?? 0) < (lb, b.column ?? 0)
        case (.some, nil): true
        default: false
        }
    }

    // MARK: - Reporting

    mutating func report(
        _ code: ConfigErrorCode, _ position: SourcePosition?, _ subject: Subject, _ message: String
    ) {
        pending.append(
            Pending(
                code: code, position: position, viewPath: subject.view.map(viewPath),
                screenName: subject.screenName,
                message: message))
    }

    /// The path of a view entry: ids from the screen's root joined by `/`, the middle cut out when
    /// it is longer than 240 characters.
    func viewPath(_ entry: Int32) -> String {
        var segments: [String] = []
        var index = entry
        while index >= 0 {
            segments.append(viewPaths[Int(index)].segment)
            index = viewPaths[Int(index)].parent
        }
        let path = segments.reversed().joined(separator: "/")
        // Deep paths of long ids: keep the screen's end and the view's end.
        guard path.utf8.count > 240, path.unicodeScalars.count > 240 else { return path }
        let scalars = Array(path.unicodeScalars)
        return String(String.UnicodeScalarView(scalars[..<80])) + "…"
            + String(String.UnicodeScalarView(scalars[(scalars.count - 159)...]))
    }

    /// Reports unknown and reserved keys, with a "did you mean" for a near miss.
    mutating func checkKeys(
        _ object: JSONObject, allowed: [String], reserved: [String] = [], _ subject: Subject
    ) {
        reportUnknownKeys(
            object.members.lazy.filter { !allowed.contains($0.key) }, of: object,
            allowed: allowed, reserved: reserved, subject)
    }

    /// Reports these members (whose keys are not in `allowed`) as unknown or reserved keys.
    mutating func reportUnknownKeys<Members: Sequence<JSONMember>>(
        _ unknown: Members, of object: JSONObject, allowed: [String], reserved: [String] = [],
        _ subject: Subject
    ) {
        var seen: Set<String> = []
        for member in unknown {
            // A duplicate key is reported by the reader; its unknown-key error once is enough.
            if object.hasDuplicateKeys && !seen.insert(member.key).inserted { continue }
            let key = member.key
            if reserved.contains(key) {
                report(
                    .reservedKey, member.node.position, subject,
                    "\"\(key)\" is reserved for a later version and not supported yet")
                continue
            }
            var message = "unknown key \"\(Excerpt.of(key))\""
            if let suggestion = NearMiss.suggestion(for: key, among: allowed) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            report(.unknownKey, member.node.position, subject, message)
        }
    }

    mutating func wrongType(_ node: JSONNode, _ subject: Subject, _ what: String, _ expected: String) {
        report(
            .wrongType, node.position, subject, "\(what) must be \(expected), found \(node.value.typeName)")
    }

    mutating func object(_ node: JSONNode, _ subject: Subject, _ what: String) -> JSONObject? {
        guard case .object(let object) = node.value else {
            wrongType(node, subject, what, "an object")
            return nil
        }
        return object
    }

    mutating func finiteNumber(_ node: JSONNode, _ subject: Subject, _ what: String) -> Double? {
        guard case .number(let number, _) = node.value else {
            wrongType(node, subject, what, "a number")
            return nil
        }
        guard number.isFinite else {
            report(.nonFinite, node.position, subject, "\(what) must be a finite number")
            return nil
        }
        return number
    }

    mutating func number(_ object: JSONObject, _ key: String, _ subject: Subject) -> Double? {
        guard let node = object[key] else { return nil }
        return finiteNumber(node, subject, "\"\(key)\"")
    }

    mutating func bool(_ object: JSONObject, _ key: String, _ subject: Subject) -> Bool? {
        object[key].flatMap { bool($0, key, subject) }
    }

    mutating func bool(_ node: JSONNode, _ key: String, _ subject: Subject) -> Bool? {
        guard case .bool(let flag) = node.value else {
            wrongType(node, subject, "\"\(key)\"", "true or false")
            return nil
        }
        return flag
    }

    mutating func string(_ object: JSONObject, _ key: String, _ subject: Subject) -> String? {
        guard let node = object[key] else { return nil }
        guard case .string(let text) = node.value else {
            wrongType(node, subject, "\"\(key)\"", "a string")
            return nil
        }
        return text
    }

    /// Letters, digits, `-`, `_`, `.`; not empty.
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty
            && id.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                    || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
            }
    }

    // MARK: - Top level and screens

    mutating func config(_ document: JSONNode) -> Config? {
        guard let top = object(document, .top, "the config") else { return nil }
        checkKeys(top, allowed: Self.topKeys, reserved: Self.reservedTopKeys, .top)

        var policy = UnmatchedDevicePolicy.firstScreen
        if let text = string(top, "unmatchedDevices", .top) {
            if let parsed = UnmatchedDevicePolicy(rawValue: text) {
                policy = parsed
            } else {
                report(
                    .invalidValue, top["unmatchedDevices"]?.position, .top,
                    "\"unmatchedDevices\" must be \"first-screen\" or \"ignore\", found \"\(Excerpt.of(text))\""
                )
            }
        }

        var screens: [Screen] = []
        var inputs: [ScreenInputConfig] = []
        if let screensNode = top["screens"] {
            if case .array(let list) = screensNode.value {
                if list.isEmpty {
                    report(
                        .noScreens, screensNode.position, .top,
                        "the config has no screens: \"screens\" is empty")
                }
                var names: Set<String> = []
                for (index, element) in list.enumerated() where !stopped {
                    guard let (screen, input) = self.screen(element, index) else { continue }
                    if !names.insert(screen.name).inserted {
                        var namePosition: SourcePosition?
                        if case .object(let object) = element.value {
                            namePosition = object["name"]?.position
                        }
                        report(
                            .duplicateScreenName, namePosition, Subject(screenName: Excerpt.of(screen.name)),
                            "another screen already has the name \"\(Excerpt.of(screen.name))\"")
                    }
                    screens.append(screen)
                    inputs.append(input)
                }
            } else {
                wrongType(screensNode, .top, "\"screens\"", "an array of screens")
            }
        } else {
            report(
                .noScreens, document.position, .top,
                "the config has no screens: \"screens\" must list at least one")
        }
        guard pending.isEmpty else { return nil }
        var config = Config(layout: Layout(screens: screens), screenInputs: inputs, unmatchedDevices: policy)
        config.viewAccess = accessByViewID
        config.runtime = runtimeKeys.settings
        return config
    }

    private mutating func screen(_ node: JSONNode, _ index: Int) -> (Screen, ScreenInputConfig)? {
        guard let object = object(node, .top, "a screen") else { return nil }
        var name = "#\(index)"
        if let nameNode = object["name"] {
            switch nameNode.value {
            case .string(let text) where Self.isValidID(text):
                name = text
            case .string(let text):
                report(
                    .invalidID, nameNode.position, Subject(screenName: Excerpt.of(text)),
                    "a screen name must be letters, digits, '-', '_' or '.'")
            default:
                wrongType(nameNode, Subject(screenName: name), "\"name\"", "a string")
            }
        } else {
            report(.missingKey, node.position, Subject(screenName: name), "missing \"name\"")
        }
        let subject = Subject(screenName: Excerpt.of(name))
        checkKeys(object, allowed: Self.screenKeys, subject)

        var size: [Double] = []
        for key in ["width", "height"] {
            guard let lengthNode = object[key] else {
                report(.missingKey, node.position, subject, "missing \"\(key)\"")
                continue
            }
            guard let length = finiteNumber(lengthNode, subject, "\"\(key)\"") else { continue }
            if length <= 0 {
                report(
                    .nonPositiveSize, lengthNode.position, subject,
                    "\(key) must be > 0, found \(Self.format(length))")
            }
            size.append(length)
        }
        let width = size.count == 2 ? size[0] : 1
        let height = size.count == 2 ? size[1] : 1

        var root = View(id: "#root", frame: Rect(x: 0, y: 0, width: width, height: height))
        if let rootNode = object["root"] {
            if let view = view(
                rootNode, parent: -1, placeholder: "#root", depth: 1,
                defaultFrame: Rect(x: 0, y: 0, width: width, height: height))
            {
                root = view
            }
        } else {
            report(.missingKey, node.position, subject, "missing \"root\" (the screen's root view)")
        }

        var input = ScreenInputConfig(screenName: name)
        if let devicesNode = object["devices"] {
            if case .array(let list) = devicesNode.value {
                for matcherNode in list {
                    if let matcher = matcher(matcherNode, subject) { input.devices.append(matcher) }
                }
            } else {
                wrongType(devicesNode, subject, "\"devices\"", "an array of device matchers")
            }
        }
        if let rotation = number(object, "rotation", subject) {
            if [0, 90, 180, 270].contains(rotation) {
                input.rotationDegrees = Int(rotation)
            } else {
                report(
                    .invalidRotation, object["rotation"]?.position, subject,
                    "rotation must be 0, 90, 180 or 270, found \(Self.format(rotation))")
            }
        }
        if let calibrationNode = object["calibration"] {
            var numbers: [Double] = []
            if case .array(let list) = calibrationNode.value {
                for element in list {
                    if case .number(let number, _) = element.value, number.isFinite { numbers.append(number) }
                }
                if numbers.count == 6 && list.count == 6 { input.calibration = numbers }
            }
            if input.calibration == nil {
                report(
                    .invalidCalibration, calibrationNode.position, subject,
                    "calibration must be 6 finite numbers [a, b, c, d, e, f], found "
                        + Self.summary(calibrationNode.value))
            }
        }
        input.physicalSize = object["physicalSize"].flatMap { physicalSize($0, subject) }
        return (Screen(name: name, width: width, height: height, root: root), input)
    }

    private mutating func matcher(_ node: JSONNode, _ subject: Subject) -> DeviceMatcher? {
        guard let object = object(node, subject, "a device matcher") else { return nil }
        checkKeys(object, allowed: Self.matcherKeys, subject)
        var matcher = DeviceMatcher()
        if let name = string(object, "name", subject) {
            if name.isEmpty {
                report(
                    .invalidValue, object["name"]?.position, subject, "a device name glob must not be empty")
            }
            matcher.nameGlob = name
        }
        if let nodePath = string(object, "node", subject) {
            if !nodePath.hasPrefix("/") {
                report(
                    .invalidValue, object["node"]?.position, subject,
                    "\"node\" must be an absolute path, found \"\(Excerpt.of(nodePath))\"")
            }
            matcher.node = nodePath
        }
        if let udevNode = object["udev"] {
            if case .object(let properties) = udevNode.value {
                for member in properties.members {
                    guard case .string(let glob) = member.node.value else {
                        wrongType(
                            member.node, subject, "udev property \"\(Excerpt.of(member.key))\"", "a string")
                        continue
                    }
                    if matcher.udevProperties[member.key] == nil { matcher.udevProperties[member.key] = glob }
                }
            } else {
                wrongType(udevNode, subject, "\"udev\"", "an object of property: value")
            }
        }
        if object.isEmpty {
            report(
                .invalidValue, node.position, subject,
                "a device matcher needs at least one of \"name\", \"udev\", \"node\"")
        }
        return matcher
    }

    // MARK: - Formatting

    /// A number as a person writes it: 90, not 90.0.
    static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }

    static func summary(_ value: JSONParsedValue) -> String {
        if case .array(let list) = value { return "\(list.count) values" }
        return value.typeName
    }
}
