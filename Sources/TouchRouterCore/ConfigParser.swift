import Foundation

/// Turns a config file's bytes into a `Config`, collecting every problem on the way.
struct ConfigParser {
    /// A problem found while walking the decoded value, located by its JSON path until the locator
    /// turns the path into line:column.
    private struct Pending {
        var code: ConfigErrorCode
        var path: [JSONPathComponent]
        var viewPath: String?
        var screenName: String?
        var message: String
    }

    /// Who a problem belongs to: a view (by path) or a screen's own keys, or the top level.
    private struct Subject {
        var viewPath: String?
        var screenName: String?
        static let top = Subject()
    }

    static let topKeys = ["screens", "unmatchedDevices"]
    static let reservedTopKeys = ["socket", "access"]
    static let screenKeys = ["name", "width", "height", "root", "devices", "rotation", "calibration"]
    static let viewKeys = [
        "id", "frame", "children", "hidden", "alpha", "interactive", "touchMargin", "shape", "transform",
        "multipleTouch", "exclusiveTouch", "access",
    ]
    static let reservedViewKeys: [String] = []
    static let accessKeys = ["users", "groups"]
    static let marginKeys = ["top", "left", "bottom", "right"]
    static let transformKeys = ["rotate", "scale"]
    static let shapeNames = ["rect", "ellipse"]
    static let shapeObjectKeys = ["roundedRect", "polygon"]
    static let matcherKeys = ["name", "udev", "node"]

    /// Largest file decoded the slow way when the guided decode cannot be used (see `run`).
    static let maxFallbackBytes = 1 << 20

    let fileName: String
    let limits: ConfigLimits
    private var pending: [Pending] = []
    private var viewCount = 0
    private var stopped = false
    /// id → the path of the first view that used it.
    private var firstViewPathByID: [String: String] = [:]
    /// View id → its declared access list.
    private var accessByViewID: [String: AccessList] = [:]

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
        let outcome: Result<Config, ConfigErrors> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            // Before anything else: the JSON5 decoder traps on some invalid UTF-8.
            if let offset = UTF8Check.firstInvalidByte(in: bytes) {
                return .failure(
                    ConfigErrors([
                        ConfigError(
                            code: .invalidUTF8, file: fileName, message: "not valid UTF-8 at byte \(offset)")
                    ]))
            }
            let firstScan = JSON5Locator.scan(bytes, wanted: [])
            if let fatal = firstScan.fatal, fatal.code == .nestingTooDeep {
                return .failure(ConfigErrors([error(fatal)]))
            }
            let document: JSONValue
            do {
                // The guided decode is linear; the plain one is the fallback when the locator's view of
                // the document differs from JSONDecoder's (duplicate keys, escapes in keys). The
                // fallback costs O(depth²) per failed try, so a large file gets only the locator's
                // findings instead.
                if firstScan.fatal == nil, let guided = try? JSONValue.decode(data, guide: firstScan.shape) {
                    document = guided
                } else if data.count <= Self.maxFallbackBytes || firstScan.problems.isEmpty {
                    document = try JSONValue.decode(data)
                } else {
                    throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not decoded"))
                }
            } catch {
                var errors = firstScan.problems.map(self.error)
                if let fatal = firstScan.fatal { errors.append(self.error(fatal)) }
                if errors.isEmpty {
                    errors.append(
                        ConfigError(
                            code: .syntax, file: fileName,
                            message: "not valid JSON5 (the parser gave no position)"))
                }
                return .failure(ConfigErrors(errors.sorted(by: Self.inFileOrder)))
            }
            let config = self.config(document)
            if pending.isEmpty && firstScan.problems.isEmpty, let config {
                return .success(config)
            }
            let located = JSON5Locator.scan(bytes, wanted: Set(pending.map(\.path)))
            var errors = located.problems.map(self.error)
            // The scanner already reported NaN/Infinity where it stands; the walk's copy adds nothing.
            let scannerReported = Set(
                located.problems.map { "\($0.code)@\($0.position.line):\($0.position.column)" })
            for problem in pending {
                let position = located.positions[problem.path]
                if let position,
                    scannerReported.contains("\(problem.code)@\(position.line):\(position.column)")
                {
                    continue
                }
                errors.append(
                    ConfigError(
                        code: problem.code, file: fileName, line: position?.line, column: position?.column,
                        viewPath: problem.viewPath, screenName: problem.screenName, message: problem.message))
            }
            errors.sort(by: Self.inFileOrder)
            if errors.count > limits.maxReportedErrors {
                let more = errors.count - limits.maxReportedErrors
                errors.removeLast(more)
                errors.append(
                    ConfigError(
                        code: .tooManyErrors, file: fileName, message: "\(more) more errors not listed"))
            }
            return .failure(ConfigErrors(errors))
        }
        return try outcome.get()
    }

    private func error(_ problem: JSON5Problem) -> ConfigError {
        ConfigError(
            code: problem.code, file: fileName, line: problem.position.line, column: problem.position.column,
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

    private mutating func report(
        _ code: ConfigErrorCode, _ path: [JSONPathComponent], _ subject: Subject, _ message: String
    ) {
        pending.append(
            Pending(
                code: code, path: path, viewPath: subject.viewPath, screenName: subject.screenName,
                message: message))
    }

    /// Reports unknown and reserved keys, with a "did you mean" for a near miss.
    private mutating func checkKeys(
        _ object: [String: JSONValue], allowed: [String], reserved: [String] = [],
        _ path: [JSONPathComponent],
        _ subject: Subject
    ) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            if reserved.contains(key) {
                report(
                    .reservedKey, path + [.key(key)], subject,
                    "\"\(key)\" is reserved for a later version and not supported yet")
                continue
            }
            var message = "unknown key \"\(key)\""
            if let suggestion = NearMiss.suggestion(for: key, among: allowed) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            report(.unknownKey, path + [.key(key)], subject, message)
        }
    }

    private mutating func wrongType(
        _ value: JSONValue, _ path: [JSONPathComponent], _ subject: Subject, _ what: String,
        _ expected: String
    ) {
        report(.wrongType, path, subject, "\(what) must be \(expected), found \(value.typeName)")
    }

    private mutating func object(
        _ value: JSONValue, _ path: [JSONPathComponent], _ subject: Subject, _ what: String
    ) -> [String: JSONValue]? {
        guard case .object(let object) = value else {
            wrongType(value, path, subject, what, "an object")
            return nil
        }
        return object
    }

    private mutating func finiteNumber(
        _ value: JSONValue, _ path: [JSONPathComponent], _ subject: Subject, _ what: String
    ) -> Double? {
        guard case .number(let number) = value else {
            wrongType(value, path, subject, what, "a number")
            return nil
        }
        guard number.isFinite else {
            report(.nonFinite, path, subject, "\(what) must be a finite number")
            return nil
        }
        return number
    }

    private mutating func number(
        _ object: [String: JSONValue], _ key: String, _ path: [JSONPathComponent], _ subject: Subject
    ) -> Double? {
        guard let value = object[key] else { return nil }
        return finiteNumber(value, path + [.key(key)], subject, "\"\(key)\"")
    }

    private mutating func bool(
        _ object: [String: JSONValue], _ key: String, _ path: [JSONPathComponent], _ subject: Subject
    ) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else {
            wrongType(value, path + [.key(key)], subject, "\"\(key)\"", "true or false")
            return nil
        }
        return flag
    }

    private mutating func string(
        _ object: [String: JSONValue], _ key: String, _ path: [JSONPathComponent], _ subject: Subject
    ) -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value else {
            wrongType(value, path + [.key(key)], subject, "\"\(key)\"", "a string")
            return nil
        }
        return text
    }

    /// Letters, digits, `-`, `_`, `.`; not empty.
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty
            && id.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || $0 == "-" || $0 == "_" || $0 == "."
            }
    }

    // MARK: - Top level and screens

    private mutating func config(_ document: JSONValue) -> Config? {
        guard let top = object(document, [], .top, "the config") else { return nil }
        checkKeys(top, allowed: Self.topKeys, reserved: Self.reservedTopKeys, [], .top)

        var policy = UnmatchedDevicePolicy.firstScreen
        if let text = string(top, "unmatchedDevices", [], .top) {
            if let parsed = UnmatchedDevicePolicy(rawValue: text) {
                policy = parsed
            } else {
                report(
                    .invalidValue, [.key("unmatchedDevices")], .top,
                    "\"unmatchedDevices\" must be \"first-screen\" or \"ignore\", found \"\(text)\"")
            }
        }

        var screens: [Screen] = []
        var inputs: [ScreenInputConfig] = []
        switch top["screens"] {
        case nil:
            report(.noScreens, [], .top, "the config has no screens: \"screens\" must list at least one")
        case .array(let list)?:
            if list.isEmpty {
                report(.noScreens, [.key("screens")], .top, "the config has no screens: \"screens\" is empty")
            }
            var names: Set<String> = []
            for (index, value) in list.enumerated() where !stopped {
                guard let (screen, input) = self.screen(value, [.key("screens"), .index(index)], index) else {
                    continue
                }
                if !names.insert(screen.name).inserted {
                    report(
                        .duplicateScreenName, [.key("screens"), .index(index), .key("name")],
                        Subject(screenName: screen.name),
                        "another screen already has the name \"\(screen.name)\"")
                }
                screens.append(screen)
                inputs.append(input)
            }
        case let other?:
            wrongType(other, [.key("screens")], .top, "\"screens\"", "an array of screens")
        }
        guard pending.isEmpty else { return nil }
        var config = Config(
            layout: Layout(screens: screens), screenInputs: inputs, unmatchedDevices: policy)
        config.viewAccess = accessByViewID
        return config
    }

    private mutating func screen(
        _ value: JSONValue, _ path: [JSONPathComponent], _ index: Int
    )
        -> (Screen, ScreenInputConfig)?
    {
        guard let object = object(value, path, .top, "a screen") else { return nil }
        var name = "#\(index)"
        switch object["name"] {
        case .string(let text)?:
            if Self.isValidID(text) {
                name = text
            } else {
                report(
                    .invalidID, path + [.key("name")], Subject(screenName: text),
                    "a screen name must be letters, digits, '-', '_' or '.'")
            }
        case nil:
            report(.missingKey, path, Subject(screenName: name), "missing \"name\"")
        case let other?:
            wrongType(other, path + [.key("name")], Subject(screenName: name), "\"name\"", "a string")
        }
        let subject = Subject(screenName: name)
        checkKeys(object, allowed: Self.screenKeys, path, subject)

        var size: [Double] = []
        for key in ["width", "height"] {
            guard object[key] != nil else {
                report(.missingKey, path, subject, "missing \"\(key)\"")
                continue
            }
            guard let length = number(object, key, path, subject) else { continue }
            if length <= 0 {
                report(
                    .nonPositiveSize, path + [.key(key)], subject,
                    "\(key) must be > 0, found \(Self.format(length))")
            }
            size.append(length)
        }
        let width = size.count == 2 ? size[0] : 1
        let height = size.count == 2 ? size[1] : 1

        var root = View(id: "#root", frame: Rect(x: 0, y: 0, width: width, height: height))
        if let rootValue = object["root"] {
            if let view = view(
                rootValue, path + [.key("root")], parentViewPath: nil, placeholder: "#root", depth: 1,
                defaultFrame: Rect(x: 0, y: 0, width: width, height: height))
            {
                root = view
            }
        } else {
            report(.missingKey, path, subject, "missing \"root\" (the screen's root view)")
        }

        var input = ScreenInputConfig(screenName: name)
        if let devicesValue = object["devices"] {
            if case .array(let list) = devicesValue {
                for (matcherIndex, matcherValue) in list.enumerated() {
                    if let matcher = matcher(
                        matcherValue, path + [.key("devices"), .index(matcherIndex)], subject)
                    {
                        input.devices.append(matcher)
                    }
                }
            } else {
                wrongType(
                    devicesValue, path + [.key("devices")], subject, "\"devices\"",
                    "an array of device matchers")
            }
        }
        if let rotation = number(object, "rotation", path, subject) {
            if [0, 90, 180, 270].contains(rotation) {
                input.rotationDegrees = Int(rotation)
            } else {
                report(
                    .invalidRotation, path + [.key("rotation")], subject,
                    "rotation must be 0, 90, 180 or 270, found \(Self.format(rotation))")
            }
        }
        if let calibrationValue = object["calibration"] {
            let calibrationPath = path + [.key("calibration")]
            let numbers: [Double]?
            if case .array(let list) = calibrationValue {
                numbers = list.compactMap { if case .number(let n) = $0, n.isFinite { n } else { nil } }
            } else {
                numbers = nil
            }
            if let numbers, numbers.count == 6, case .array(let list) = calibrationValue, list.count == 6 {
                input.calibration = numbers
            } else {
                report(
                    .invalidCalibration, calibrationPath, subject,
                    "calibration must be 6 finite numbers [a, b, c, d, e, f], found "
                        + Self.summary(calibrationValue)
                )
            }
        }
        return (Screen(name: name, width: width, height: height, root: root), input)
    }

    private mutating func matcher(
        _ value: JSONValue, _ path: [JSONPathComponent], _ subject: Subject
    )
        -> DeviceMatcher?
    {
        guard let object = object(value, path, subject, "a device matcher") else { return nil }
        checkKeys(object, allowed: Self.matcherKeys, path, subject)
        var matcher = DeviceMatcher()
        if let name = string(object, "name", path, subject) {
            if name.isEmpty {
                report(.invalidValue, path + [.key("name")], subject, "a device name glob must not be empty")
            }
            matcher.nameGlob = name
        }
        if let node = string(object, "node", path, subject) {
            if !node.hasPrefix("/") {
                report(
                    .invalidValue, path + [.key("node")], subject,
                    "\"node\" must be an absolute path, found \"\(node)\"")
            }
            matcher.node = node
        }
        if let udevValue = object["udev"] {
            if case .object(let properties) = udevValue {
                for property in properties.keys.sorted() {
                    guard case .string(let glob) = properties[property]! else {
                        wrongType(
                            properties[property]!, path + [.key("udev"), .key(property)], subject,
                            "udev property \"\(property)\"", "a string")
                        continue
                    }
                    matcher.udevProperties[property] = glob
                }
            } else {
                wrongType(
                    udevValue, path + [.key("udev")], subject, "\"udev\"", "an object of property: value")
            }
        }
        if object.isEmpty {
            report(
                .invalidValue, path, subject,
                "a device matcher needs at least one of \"name\", \"udev\", \"node\"")
        }
        return matcher
    }

    // MARK: - Views

    private mutating func view(
        _ value: JSONValue, _ path: [JSONPathComponent], parentViewPath: String?, placeholder: String,
        depth: Int,
        defaultFrame: Rect?
    ) -> View? {
        viewCount += 1
        if viewCount > limits.maxViews {
            report(
                .tooManyViews, path, Subject(viewPath: parentViewPath), "more than \(limits.maxViews) views")
            stopped = true
            return nil
        }
        let parentSubject = Subject(viewPath: parentViewPath)
        guard let object = object(value, path, parentSubject, "a view") else { return nil }

        var segment = placeholder
        var validID: String?
        switch object["id"] {
        case .string(let id)?:
            if Self.isValidID(id) {
                segment = id
                validID = id
            } else {
                segment = id.isEmpty ? placeholder : id
            }
        default:
            break
        }
        let viewPath = parentViewPath.map { "\($0)/\(segment)" } ?? segment
        let subject = Subject(viewPath: viewPath)
        if depth > limits.maxDepth {
            report(.treeTooDeep, path, subject, "views nest deeper than \(limits.maxDepth) levels")
            stopped = true
            return nil
        }

        switch object["id"] {
        case .string(let id)?:
            if validID == nil {
                report(
                    .invalidID, path + [.key("id")], subject,
                    "an id must be letters, digits, '-', '_' or '.', found \"\(id)\"")
            }
        case nil:
            report(.missingKey, path, subject, "missing \"id\"")
        case let other?:
            wrongType(other, path + [.key("id")], subject, "\"id\"", "a string")
        }
        if let id = validID {
            if let first = firstViewPathByID[id] {
                report(
                    .duplicateID, path + [.key("id")], subject,
                    "duplicate id \"\(id)\": already used by view \"\(first)\"")
            } else {
                firstViewPathByID[id] = viewPath
            }
        }
        checkKeys(object, allowed: Self.viewKeys, reserved: Self.reservedViewKeys, path, subject)

        var frame = defaultFrame ?? Rect(x: 0, y: 0, width: 1, height: 1)
        if let frameValue = object["frame"] {
            frame = self.frame(frameValue, path + [.key("frame")], subject) ?? frame
        } else if defaultFrame == nil {
            report(.missingKey, path, subject, "missing \"frame\" ([x, y, width, height])")
        }

        var alpha = 1.0
        if let value = number(object, "alpha", path, subject) {
            if (0...1).contains(value) {
                alpha = value
            } else {
                report(
                    .alphaOutOfRange, path + [.key("alpha")], subject,
                    "alpha must be in 0…1, found \(Self.format(value))")
            }
        }
        let shape = object["shape"].flatMap { self.shape($0, path + [.key("shape")], subject) } ?? .rect
        var margin = EdgeMargin.zero
        if let marginValue = object["touchMargin"] {
            margin = touchMargin(marginValue, path + [.key("touchMargin")], subject, shape: shape) ?? .zero
        }
        let transform = object["transform"].flatMap {
            self.transform($0, path + [.key("transform")], subject)
        }
        let hidden = bool(object, "hidden", path, subject) ?? false
        let interactive = bool(object, "interactive", path, subject) ?? true
        let multipleTouch = bool(object, "multipleTouch", path, subject) ?? false
        let exclusiveTouch = bool(object, "exclusiveTouch", path, subject) ?? false
        if let accessValue = object["access"],
            let list = accessList(accessValue, path + [.key("access")], subject),
            let id = validID
        {
            accessByViewID[id] = list
        }

        var children: [View] = []
        if let childrenValue = object["children"] {
            if case .array(let list) = childrenValue {
                children.reserveCapacity(list.count)
                for (index, childValue) in list.enumerated() {
                    if stopped { break }
                    if let child = view(
                        childValue, path + [.key("children"), .index(index)], parentViewPath: viewPath,
                        placeholder: "#\(index)", depth: depth + 1, defaultFrame: nil)
                    {
                        children.append(child)
                    }
                }
            } else {
                wrongType(
                    childrenValue, path + [.key("children")], subject, "\"children\"", "an array of views")
            }
        }

        // Once anything is wrong the file is rejected, so stop building views and only keep checking.
        guard pending.isEmpty else { return nil }
        return View(
            id: segment, frame: frame, children: children, hidden: hidden, alpha: alpha,
            interactive: interactive,
            touchMargin: margin, shape: shape, transform: transform ?? ViewTransform(),
            multipleTouch: multipleTouch, exclusiveTouch: exclusiveTouch)
    }

    /// `{users: ["kiosk", 1000], groups: ["touch"]}`: names or numeric ids, at least one entry.
    private mutating func accessList(
        _ value: JSONValue, _ path: [JSONPathComponent], _ subject: Subject
    ) -> AccessList? {
        guard let object = object(value, path, subject, "\"access\"") else { return nil }
        let problemsBefore = pending.count
        checkKeys(object, allowed: Self.accessKeys, path, subject)
        var list = AccessList()
        var valid = pending.count == problemsBefore
        for key in Self.accessKeys {
            guard let entries = object[key] else { continue }
            guard case .array(let elements) = entries else {
                wrongType(
                    entries, path + [.key(key)], subject, "\"access.\(key)\"", "an array of names or ids")
                valid = false
                continue
            }
            for (index, element) in elements.enumerated() {
                let elementPath = path + [.key(key), .index(index)]
                switch element {
                case .string(let name) where Self.isValidPrincipalName(name):
                    let principal = AccessList.Principal.name(name)
                    if key == "users" { list.users.append(principal) } else { list.groups.append(principal) }
                case .string(let name):
                    report(
                        .invalidValue, elementPath, subject,
                        "\"\(name)\" is not a user or group name (letters, digits, '_', '.', '-'; not first"
                            + " a digit or '-'; at most 32)")
                    valid = false
                case .number(let number)
                where number == number.rounded() && number >= 0 && number < 4_294_967_295:
                    let principal = AccessList.Principal.id(UInt32(number))
                    if key == "users" { list.users.append(principal) } else { list.groups.append(principal) }
                case .number(let number):
                    report(
                        .invalidValue, elementPath, subject,
                        "a numeric \(key == "users" ? "uid" : "gid") must be an integer in 0…4294967294, found"
                            + " \(Self.format(number))")
                    valid = false
                default:
                    wrongType(
                        element, elementPath, subject, "\"access.\(key)[\(index)]\"", "a name or a numeric id"
                    )
                    valid = false
                }
            }
        }
        if valid && list.users.isEmpty && list.groups.isEmpty {
            report(
                .invalidValue, path, subject,
                "an access list must name at least one user or group (an empty one would admit only root)")
            return nil
        }
        return valid ? list : nil
    }

    /// A user or group name as `useradd` accepts them, conservatively.
    static func isValidPrincipalName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 32 else {
            return false
        }
        guard first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first) else {
            return false
        }
        return name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "_.-".unicodeScalars.contains($0)
        }
    }

    private mutating func numbers(
        _ value: JSONValue, count: Int, _ path: [JSONPathComponent], _ subject: Subject, _ what: String,
        _ expected: String
    ) -> [Double]? {
        guard case .array(let list) = value, list.count == count else {
            if case .array(let list) = value {
                report(.wrongType, path, subject, "\(what) must be \(expected), found \(list.count) values")
            } else {
                wrongType(value, path, subject, what, expected)
            }
            return nil
        }
        var result: [Double] = []
        for (index, element) in list.enumerated() {
            if let number = finiteNumber(element, path + [.index(index)], subject, "\(what)[\(index)]") {
                result.append(number)
            }
        }
        return result.count == count ? result : nil
    }

    private mutating func frame(_ value: JSONValue, _ path: [JSONPathComponent], _ subject: Subject) -> Rect?
    {
        guard let values = numbers(value, count: 4, path, subject, "\"frame\"", "[x, y, width, height]")
        else {
            return nil
        }
        var valid = true
        for (index, name) in [(2, "width"), (3, "height")] where values[index] <= 0 {
            report(
                .nonPositiveSize, path + [.index(index)], subject,
                "\(name) must be > 0, found \(Self.format(values[index]))")
            valid = false
        }
        return valid ? Rect(x: values[0], y: values[1], width: values[2], height: values[3]) : nil
    }

    private mutating func shape(_ value: JSONValue, _ path: [JSONPathComponent], _ subject: Subject) -> Shape?
    {
        let expected = "\"rect\", \"ellipse\", {\"roundedRect\": radius} or {\"polygon\": [[x, y], …]}"
        switch value {
        case .string("rect"): return .rect
        case .string("ellipse"): return .ellipse
        case .string(let name):
            var message = "unknown shape \"\(name)\""
            if let suggestion = NearMiss.suggestion(for: name, among: Self.shapeNames + Self.shapeObjectKeys)
            {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            report(.invalidValue, path, subject, message + "; a shape is \(expected)")
            return nil
        case .object(let object):
            guard object.count == 1, let (key, inner) = object.first else {
                report(.invalidValue, path, subject, "a shape object must have exactly one key: \(expected)")
                return nil
            }
            switch key {
            case "roundedRect":
                guard let radius = finiteNumber(inner, path + [.key(key)], subject, "the corner radius")
                else {
                    return nil
                }
                guard radius >= 0 else {
                    report(
                        .invalidValue, path + [.key(key)], subject,
                        "the corner radius must be ≥ 0, found \(Self.format(radius))")
                    return nil
                }
                return .roundedRect(radius: radius)
            case "polygon":
                let pointsPath = path + [.key(key)]
                guard case .array(let list) = inner else {
                    wrongType(inner, pointsPath, subject, "\"polygon\"", "an array of [x, y] points")
                    return nil
                }
                var points: [Point] = []
                for (index, pointValue) in list.enumerated() {
                    if let xy = numbers(
                        pointValue, count: 2, pointsPath + [.index(index)], subject, "a polygon point",
                        "[x, y]")
                    {
                        points.append(Point(xy[0], xy[1]))
                    }
                }
                guard list.count >= 3 else {
                    report(
                        .polygonTooFewPoints, pointsPath, subject,
                        "a polygon needs at least 3 points, found \(list.count)")
                    return nil
                }
                return points.count == list.count ? .polygon(points) : nil
            default:
                checkKeys(object, allowed: Self.shapeObjectKeys, path, subject)
                return nil
            }
        default:
            wrongType(value, path, subject, "\"shape\"", expected)
            return nil
        }
    }

    private mutating func touchMargin(
        _ value: JSONValue, _ path: [JSONPathComponent], _ subject: Subject, shape: Shape
    ) -> EdgeMargin? {
        switch value {
        case .number:
            guard let margin = finiteNumber(value, path, subject, "\"touchMargin\"") else { return nil }
            guard margin >= 0 else {
                report(
                    .negativeMargin, path, subject, "touchMargin must be ≥ 0, found \(Self.format(margin))")
                return nil
            }
            return EdgeMargin(all: margin)
        case .object(let object):
            if shape != .rect {
                report(
                    .perEdgeMarginOnShape, path, subject,
                    "a shaped view takes a single touchMargin number; "
                        + "{top, left, bottom, right} is for rectangles only"
                )
            }
            checkKeys(object, allowed: Self.marginKeys, path, subject)
            var edges: [Double] = []
            for key in Self.marginKeys {
                let edge = number(object, key, path, subject) ?? 0
                if edge < 0 {
                    report(
                        .negativeMargin, path + [.key(key)], subject,
                        "touchMargin \(key) must be ≥ 0, found \(Self.format(edge))")
                }
                edges.append(max(0, edge))
            }
            return EdgeMargin(top: edges[0], left: edges[1], bottom: edges[2], right: edges[3])
        default:
            wrongType(value, path, subject, "\"touchMargin\"", "a number or {top, left, bottom, right}")
            return nil
        }
    }

    private mutating func transform(
        _ value: JSONValue, _ path: [JSONPathComponent], _ subject: Subject
    ) -> ViewTransform? {
        guard let object = object(value, path, subject, "\"transform\"") else { return nil }
        checkKeys(object, allowed: Self.transformKeys, path, subject)
        var transform = ViewTransform()
        if let degrees = number(object, "rotate", path, subject) {
            transform.rotationDegrees = degrees
        }
        if let scaleValue = object["scale"] {
            let scalePath = path + [.key("scale")]
            let scales: [Double]?
            if case .array = scaleValue {
                scales = numbers(
                    scaleValue, count: 2, scalePath, subject, "\"scale\"", "a number or [sx, sy]")
            } else if case .number = scaleValue {
                scales = finiteNumber(scaleValue, scalePath, subject, "\"scale\"").map { [$0, $0] }
            } else {
                wrongType(scaleValue, scalePath, subject, "\"scale\"", "a number or [sx, sy]")
                scales = nil
            }
            if let scales {
                if scales.contains(0) {
                    report(.zeroScale, scalePath, subject, "scale must not be 0 (the view would vanish)")
                } else {
                    transform.scaleX = scales[0]
                    transform.scaleY = scales[1]
                }
            }
        }
        return transform
    }

    // MARK: - Formatting

    /// A number as a person writes it: 90, not 90.0.
    static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }

    private static func summary(_ value: JSONValue) -> String {
        if case .array(let list) = value { return "\(list.count) values" }
        return value.typeName
    }
}

/// "Did you mean" suggestions: the closest known word within a small edit distance.
public enum NearMiss {
    /// The candidate closest to `word` (case-insensitive edit distance), if it is close enough to be a
    /// likely typo: at most 2 edits, and fewer than half the word's length.
    public static func suggestion(for word: String, among candidates: [String]) -> String? {
        let lowered = Array(word.lowercased().unicodeScalars)
        var best: (distance: Int, candidate: String)?
        for candidate in candidates {
            let distance = editDistance(lowered, Array(candidate.lowercased().unicodeScalars))
            if distance <= 2, distance * 2 < max(lowered.count, 2), distance < (best?.distance ?? .max) {
                best = (distance, candidate)
            }
        }
        return best?.candidate
    }

    /// Edit distance counting an insertion, a deletion, a substitution or a swap of two neighbours as
    /// one edit (optimal string alignment), since swapped letters are the commonest typo.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
