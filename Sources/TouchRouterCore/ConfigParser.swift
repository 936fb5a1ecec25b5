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
        /// A screen's device matcher, by its index in `devices`: its problems say `devices[N]: `.
        var matcher: Int?
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
    /// Every key a view may have, listed once: each case's name is the config's key, its raw value
    /// its position in `viewKeys` (the order near-miss suggestions try them in).
    enum ViewKey: Int, CaseIterable {
        case id, frame, children, hidden, alpha, interactive, touchMargin, shape, transform
        case multipleTouch, exclusiveTouch, access, gestures, owner, mount, resetOnDisconnect, passthrough
    }
    /// The view keys as the config spells them (the case names of `ViewKey`, in its order).
    static let viewKeys = ViewKey.allCases.map { String(describing: $0) }
    static let reservedViewKeys: [String] = []
    static let accessKeys = ["users", "groups"]
    static let marginKeys = ["top", "left", "bottom", "right"]
    static let transformKeys = ["rotate", "scale"]
    static let shapeNames = ["rect", "ellipse"]
    static let shapeObjectKeys = ["roundedRect", "polygon"]
    static let matcherSelectingKeys = ["name", "udev", "node"]
    static let matcherKeys = matcherSelectingKeys + ["filters"]

    let fileName: String
    let limits: ConfigLimits
    /// The problems kept (the first `limits.maxReportedErrors` found).
    var pending: [Pending] = []
    /// Every problem found, kept or not: zero means nothing is wrong so far.
    var problemCount = 0
    var viewCount = 0
    var stopped = false
    var viewPaths: [PathEntry] = []
    /// id → the path entry of the first view that used it.
    var firstViewByID: [String: Int32] = [:]
    /// Per path entry, the view's whole id (kept only while parsing a mounted subtree, where
    /// `MountedViews` answers parents from it; empty for the mount point's own path).
    var entryIDs: [String] = []
    /// View id → its declared access list.
    var accessByViewID: [String: AccessList] = [:]
    /// View id → its declared gestures (`gestures`, docs/gestures.md).
    var gesturesByViewID: [String: [GestureSpec]] = [:]
    /// View id → its `passthrough` (ConfigPassthrough.swift, docs/passthrough.md).
    var passthroughByViewID: [String: PassthroughSettings] = [:]
    /// The run-time keys (`owner`, `mount`, `resetOnDisconnect`), by view id (ConfigRuntime.swift).
    var runtimeKeys = RuntimeKeys()
    /// Per path entry: the view or an ancestor has an `owner` (a `mount` needs one).
    var ownedEntries: [Bool] = []
    /// Parsing a mounted subtree (a `mount` request), not a file: `owner` and `mount` are refused.
    var parsesMountedSubtree = false
    /// Screen name → its `idle`, `wake` and `filters` (ConfigField.swift).
    var fieldByScreen: [String: FieldSettings] = [:]

    init(fileName: String, limits: ConfigLimits) {
        self.fileName = fileName
        self.limits = limits
    }

    func parse(_ data: some Collection<UInt8>) throws(ConfigErrors) -> Config {
        if data.count > limits.maxFileBytes {
            throw ConfigErrors([.fileTooLarge(data.count, file: fileName, limits: limits)])
        }
        var parser = self
        return try parser.run(Array(data))
    }

    /// `bytes` is at most `limits.maxFileBytes` long (`parse` checked).
    private mutating func run(_ bytes: [UInt8]) throws(ConfigErrors) -> Config {
        let read = bytes.withUnsafeBufferPointer { JSONReader.read($0, syntax: .json5) }
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
                let found = scanned.count + read.unlistedProblemCount + 1
                throw ConfigErrors(listed(scanned, found: found, keeping: error(failure)))
            }
        }
        guard let root = read.root else { throw ConfigErrors([]) }
        // Nearly every object is a view: size the id table once instead of growing it.
        let expectedViews = min(read.objectCount, limits.maxViews)
        firstViewByID.reserveCapacity(expectedViews)
        viewPaths.reserveCapacity(expectedViews)
        let config = self.config(root)
        if problemCount == 0 && scanned.isEmpty, let config { return config }

        var errors = scanned
        var skipped = 0
        // The reader already reported NaN/Infinity where they stand; the walk's copy at the same
        // place adds nothing.
        let nonFiniteAt = Set(read.problems.filter { $0.kind == .nonFinite }.map(\.position))
        for problem in pending {
            if problem.code == .nonFinite, let position = problem.position, nonFiniteAt.contains(position) {
                skipped += 1
                continue
            }
            errors.append(
                ConfigError(
                    code: problem.code, file: fileName, line: problem.position?.line,
                    column: problem.position?.column, viewPath: problem.viewPath,
                    screenName: problem.screenName,
                    message: problem.message))
        }
        // The reader and the walk each kept their first problems and counted the rest.
        let found = scanned.count + read.unlistedProblemCount + problemCount - skipped
        throw ConfigErrors(listed(errors, found: found))
    }

    /// `errors` as a file's errors are listed: in file order, at most `limits.maxReportedErrors`
    /// (`last`, the syntax error that stopped reading, always among them, last), then one
    /// `tooManyErrors` counting the rest of the `found` problems.
    private func listed(_ errors: [ConfigError], found: Int, keeping last: ConfigError? = nil) -> [ConfigError] {
        var errors = errors.sorted(by: Self.inFileOrder)
        let room = max(0, limits.maxReportedErrors - (last == nil ? 0 : 1))
        if errors.count > room { errors.removeLast(errors.count - room) }
        if let last { errors.append(last) }
        let more = found - errors.count
        if more > 0 {
            errors.append(
                ConfigError(code: .tooManyErrors, file: fileName, message: "\(more) more errors not listed"))
        }
        return errors
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

    // MARK: - Top level (screens: ConfigScreens.swift; views: ConfigViews.swift)

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
                    // A placeholder name (`#3`, no `name`) is unique and never a real name's twin.
                    if !screen.name.hasPrefix("#"), !names.insert(screen.name).inserted {
                        var namePosition: SourcePosition?
                        if case .object(let object) = element.value {
                            namePosition = object["name"]?.position
                        }
                        report(
                            .duplicateScreenName, namePosition, Subject(screenName: Excerpt.of(screen.name)),
                            "another screen already has the name \"\(Excerpt.of(screen.name))\"")
                    }
                    // A broken file is rejected: from its first problem on, screens are checked, not kept.
                    guard problemCount == 0 else { continue }
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
        guard problemCount == 0 else { return nil }
        var config = Config(layout: Layout(screens: screens), screenInputs: inputs, unmatchedDevices: policy)
        config.viewAccess = accessByViewID
        config.viewGestures = gesturesByViewID
        config.viewPassthrough = passthroughByViewID
        config.runtime = runtimeKeys.settings
        config.fieldSettings = fieldByScreen
        return config
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
