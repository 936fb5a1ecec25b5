import TouchRouterModel

/// The input half of a config: which devices drive which screen, and how their coordinates turn.

/// Picks input devices by name, udev properties and device node. Every key given must match; a
/// matcher with no keys is rejected by the config validation (it would match everything).
public struct DeviceMatcher: Hashable, Sendable {
    /// A glob (`*`, `?`, `[a-z]`, `[!0-9]`, `\` escapes) on the device's name, e.g. `"ILITEK*"`.
    public var nameGlob: String?
    /// udev property → glob on its value, e.g. `["ID_PATH": "pci-0000:00:14.0-usb-0:2*"]`.
    /// A property the device does not have does not match.
    public var udevProperties: [String: String]
    /// The exact device node, e.g. `/dev/input/event5`.
    public var node: String?
    /// The field settings of a device this matcher takes (docs/field.md, "Per device matcher"): the
    /// screen's, with the matcher's own `filters` replacing them key by key. Nil: the matcher has no
    /// `filters`, its devices get the screen's.
    public var fieldSettings: FieldSettings?

    /// A matcher from its keys; give at least one of the first three.
    public init(
        nameGlob: String? = nil, udevProperties: [String: String] = [:], node: String? = nil,
        fieldSettings: FieldSettings? = nil
    ) {
        self.nameGlob = nameGlob
        self.udevProperties = udevProperties
        self.node = node
        self.fieldSettings = fieldSettings
    }

    /// No key given: such a matcher would match every device.
    public var isEmpty: Bool { nameGlob == nil && udevProperties.isEmpty && node == nil }

    /// Whether a device with this name, these udev properties and this node matches every key given.
    public func matches(
        name: String, udevProperties deviceProperties: [String: String], node deviceNode: String?
    )
        -> Bool
    {
        if let nameGlob, !Glob.matches(nameGlob, name) { return false }
        if let node, node != deviceNode { return false }
        for (property, valueGlob) in udevProperties {
            guard let value = deviceProperties[property], Glob.matches(valueGlob, value) else { return false }
        }
        return true
    }
}

/// Shell-style wildcard matching (as fnmatch without flags): `*` any run, `?` one character,
/// `[abc]`, `[a-z]`, `[!a-z]` (or `[^…]`) a class, `\x` a literal x. Works on Unicode scalars.
public enum Glob {
    /// Whether `text` matches `pattern` as a whole.
    public static func matches(_ pattern: String, _ text: String) -> Bool {
        let pattern = Array(pattern.unicodeScalars)
        let text = Array(text.unicodeScalars)
        var p = 0
        var t = 0
        // Backtracking point: the pattern index after the last `*` and the text index it has eaten to.
        var starPattern: Int?
        var starText = 0
        while t < text.count {
            if p < pattern.count {
                switch pattern[p] {
                case "*":
                    starPattern = p + 1
                    starText = t
                    p += 1
                    continue
                case "?":
                    p += 1
                    t += 1
                    continue
                case "[":
                    if let (matched, next) = matchClass(pattern, at: p, text[t]) {
                        if matched {
                            p = next
                            t += 1
                            continue
                        }
                    } else if text[t] == "[" {
                        // An unclosed `[` is a literal.
                        p += 1
                        t += 1
                        continue
                    }
                case "\\" where p + 1 < pattern.count:
                    if pattern[p + 1] == text[t] {
                        p += 2
                        t += 1
                        continue
                    }
                case let literal:
                    if literal == text[t] {
                        p += 1
                        t += 1
                        continue
                    }
                }
            }
            // Mismatch: let the last `*` eat one more character, or fail.
            guard let resume = starPattern else { return false }
            starText += 1
            t = starText
            p = resume
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }

    /// Matches one character against the class starting at `pattern[start] == "["`; returns whether
    /// it matched and the index after `]`, or nil when the class is not closed.
    private static func matchClass(
        _ pattern: [Unicode.Scalar], at start: Int, _ character: Unicode.Scalar
    )
        -> (Bool, Int)?
    {
        var index = start + 1
        var negated = false
        if index < pattern.count && (pattern[index] == "!" || pattern[index] == "^") {
            negated = true
            index += 1
        }
        var matched = false
        var first = true
        while index < pattern.count {
            var low = pattern[index]
            if low == "]" && !first { return (matched != negated, index + 1) }
            first = false
            if low == "\\" && index + 1 < pattern.count {
                index += 1
                low = pattern[index]
            }
            var high = low
            if index + 2 < pattern.count && pattern[index + 1] == "-" && pattern[index + 2] != "]" {
                high = pattern[index + 2]
                index += 2
            }
            if low.value <= character.value && character.value <= high.value { matched = true }
            index += 1
        }
        return nil
    }
}

/// What to do with a touch device that no screen's `devices` matches.
public enum UnmatchedDevicePolicy: String, Hashable, Sendable {
    /// It drives the first screen in the file (the default).
    case firstScreen = "first-screen"
    /// It is ignored.
    case ignore
}

/// One screen's input settings: its devices, rotation and calibration, as given in the config.
/// The rotation/calibration math lives in `ScreenMapping`; this only carries validated values.
public struct ScreenInputConfig: Hashable, Sendable {
    /// The screen these settings belong to.
    public var screenName: String
    /// A device matching any of these drives the screen. Empty: only unmatched devices (by policy).
    public var devices: [DeviceMatcher]
    /// Clockwise quarter turns of the panel relative to the layout: 0, 90, 180 or 270.
    public var rotationDegrees: Int
    /// A libinput calibration matrix (6 finite numbers, row-major `[a, b, c, d, e, f]`), or nil to
    /// keep the device's udev LIBINPUT_CALIBRATION_MATRIX.
    public var calibration: [Double]?
    /// The screen's size on the glass (`physicalSize`), in the layout's orientation; used for a
    /// device that reports no size of its own (`PhysicalScale.resolve`).
    public var physicalSize: PhysicalSize?

    /// Settings for the named screen; the defaults are the config's defaults.
    public init(
        screenName: String, devices: [DeviceMatcher] = [], rotationDegrees: Int = 0,
        calibration: [Double]? = nil, physicalSize: PhysicalSize? = nil
    ) {
        self.screenName = screenName
        self.devices = devices
        self.rotationDegrees = rotationDegrees
        self.calibration = calibration
        self.physicalSize = physicalSize
    }

    /// Whether any of this screen's matchers matches the device.
    public func matches(deviceName: String, udevProperties: [String: String], node: String?) -> Bool {
        matcherIndex(deviceName: deviceName, udevProperties: udevProperties, node: node) != nil
    }

    /// The first of this screen's matchers (in file order) that matches the device.
    public func matcherIndex(deviceName: String, udevProperties: [String: String], node: String?) -> Int? {
        devices.firstIndex { $0.matches(name: deviceName, udevProperties: udevProperties, node: node) }
    }
}

/// The screen a device drives and which of that screen's `devices` matchers took it.
public struct ScreenMatch: Hashable, Sendable {
    /// The screen's name.
    public var screen: String
    /// The index of the first matching matcher in the screen's `devices`; nil when none matched and
    /// `unmatchedDevices` gave the device the screen. It picks the device's `filters`.
    public var matcherIndex: Int?

    /// A match.
    public init(screen: String, matcherIndex: Int?) {
        self.screen = screen
        self.matcherIndex = matcherIndex
    }
}
