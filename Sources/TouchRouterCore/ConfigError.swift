import TouchRouterModel

/// Config errors: one typed error per problem, all of a file's problems thrown together.

/// What kind of problem a config error reports. The raw value is stable and machine-readable.
public enum ConfigErrorCode: String, Hashable, Sendable, CaseIterable {
    /// The file could not be read (missing, a directory, permission denied).
    case unreadable
    /// The file is larger than the size limit.
    case fileTooLarge
    /// The bytes are not valid UTF-8.
    case invalidUTF8
    /// Not valid JSON5 (a syntax error).
    case syntax
    /// Brackets nest deeper than the parser accepts.
    case nestingTooDeep
    /// The same key appears twice in one object.
    case duplicateKey
    /// A value has the wrong JSON type (a string where a number belongs, …).
    case wrongType
    /// A required key is missing.
    case missingKey
    /// A key that the schema does not know.
    case unknownKey
    /// A key reserved for a later version (socket, access).
    case reservedKey
    /// A value of the right type that is not allowed (an unknown shape name, an empty glob, …).
    case invalidValue
    /// A number is NaN, infinite or out of Double's range.
    case nonFinite
    /// Two views share an id.
    case duplicateID
    /// A view id is empty or has characters other than letters, digits, `-`, `_`, `.`.
    case invalidID
    /// A width or height is ≤ 0.
    case nonPositiveSize
    /// alpha is outside 0…1.
    case alphaOutOfRange
    /// A touch margin is negative.
    case negativeMargin
    /// A polygon has fewer than 3 points.
    case polygonTooFewPoints
    /// A transform scales by zero.
    case zeroScale
    /// A number beyond the bounds that keep geometry finite (`GeometryBounds`): a coordinate beyond
    /// ±10⁷, a scale beyond 10⁻³…10³ (or scales that multiply beyond 10⁻⁶…10⁶ down a path), a
    /// rotation beyond ±360°, a physical size beyond 1…100,000 mm.
    case outOfRange
    /// A shaped view (not "rect") has the per-edge touchMargin form.
    case perEdgeMarginOnShape
    /// A screen rotation other than 0, 90, 180 or 270.
    case invalidRotation
    /// A calibration matrix that is not 6 finite numbers, has an entry beyond ±1000, or is
    /// (nearly) singular.
    case invalidCalibration
    /// Two screens share a name.
    case duplicateScreenName
    /// The config has no screens.
    case noScreens
    /// More views than the view limit.
    case tooManyViews
    /// Views nest deeper than the depth limit.
    case treeTooDeep
    /// So many errors that the rest were not listed.
    case tooManyErrors
}

/// One problem in a config file, located as precisely as possible.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ConfigErrorCode
    /// The file name as the user gave it (used only in messages).
    public var file: String
    /// 1-based line of the offending key or value, when known.
    public var line: Int?
    /// 1-based column (in Unicode scalars) of the offending key or value, when known.
    public var column: Int?
    /// The view's path, ids joined by `/` from the screen's root (`main/keypad/key7`), when the
    /// problem is inside a view. A view without a valid id appears as `#index` among its siblings.
    public var viewPath: String?
    /// The screen's name, when the problem is in a screen's own keys (not in a view).
    public var screenName: String?
    /// What is wrong, in words (`width must be > 0`).
    public var message: String
    /// For `unreadable`: the errno of the failed system call, when one failed (the daemon retries
    /// a reload that failed for a transient reason such as EMFILE).
    public var systemErrno: Int32?

    /// An error; leave out what is not known.
    public init(
        code: ConfigErrorCode, file: String, line: Int? = nil, column: Int? = nil,
        viewPath: String? = nil, screenName: String? = nil, message: String, systemErrno: Int32? = nil
    ) {
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.viewPath = viewPath
        self.screenName = screenName
        self.message = message
        self.systemErrno = systemErrno
    }

    /// A file of `size` bytes, more than `limits` allows: refused before parsing (or reading).
    public static func fileTooLarge(_ size: Int, file: String, limits: ConfigLimits) -> ConfigError {
        ConfigError(
            code: .fileTooLarge, file: file,
            message: "the file is \(size) bytes, more than the limit of \(limits.maxFileBytes) bytes")
    }

    /// `kiosk.json5:42:7: view "main/keypad/key7": width must be > 0`
    public var description: String {
        var text = file
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": "
        if let viewPath {
            text += "view \"\(viewPath)\": "
        } else if let screenName {
            text += "screen \"\(screenName)\": "
        }
        return text + message
    }
}

/// Every problem found in one config file, thrown as one error: a file is accepted whole or not at all.
public struct ConfigErrors: Error, Hashable, Sendable, CustomStringConvertible {
    /// In file order where positions are known, never empty.
    public var errors: [ConfigError]

    /// Wraps the errors found in one file.
    public init(_ errors: [ConfigError]) {
        self.errors = errors
    }

    /// One error per line.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }

    /// The codes, in order (handy in tests and logs).
    public var codes: [ConfigErrorCode] { errors.map(\.code) }
}

/// Limits that protect the daemon from a huge or malicious file.
public struct ConfigLimits: Hashable, Sendable {
    /// Most views in the whole file (every screen together).
    public var maxViews: Int
    /// Deepest view; a screen's root is at depth 1.
    public var maxDepth: Int
    /// Largest file in bytes.
    public var maxFileBytes: Int
    /// Most errors listed; past it one `tooManyErrors` error says how many more there were.
    public var maxReportedErrors: Int

    /// Limits; the defaults are the daemon's (`standard`).
    public init(
        maxViews: Int = 1_000_000, maxDepth: Int = 256, maxFileBytes: Int = 64 << 20,
        maxReportedErrors: Int = 1000
    ) {
        self.maxViews = maxViews
        self.maxDepth = maxDepth
        self.maxFileBytes = maxFileBytes
        self.maxReportedErrors = maxReportedErrors
    }

    /// The daemon's limits: 1,000,000 views, depth 256, 64 MiB, 1000 errors listed.
    public static let standard = ConfigLimits()
}
