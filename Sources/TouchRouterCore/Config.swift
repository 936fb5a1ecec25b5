import TouchRouterModel

/// A validated config file: the layout (every screen's view tree) and each screen's input settings.
public struct Config: Hashable, Sendable {
    /// Every screen with its view tree, in file order.
    public var layout: Layout
    /// Each screen's input settings, in the same order as `layout.screens`.
    public var screenInputs: [ScreenInputConfig]
    /// What a device that no screen matches drives (`unmatchedDevices`).
    public var unmatchedDevices: UnmatchedDevicePolicy
    /// The access lists views declare (`access`), by view id; views without one are open to every
    /// client that can connect (subject to their ancestors' lists).
    public var viewAccess: [String: AccessList] = [:]
    /// The gestures views declare (`gestures`), by view id; empty when no view has any, and then
    /// nothing about routing changes (docs/gestures.md).
    public var viewGestures: [String: [GestureSpec]] = [:]
    /// The views' `passthrough` keys, by view id (docs/passthrough.md); empty when no view has one,
    /// and then nothing about routing changes.
    public var viewPassthrough: [String: PassthroughSettings] = [:]
    /// Who may change which views at run time (`owner`), the mount points (`mount`) and the views
    /// whose run-time changes are undone when their client leaves (`resetOnDisconnect`).
    public var runtime = RuntimeSettings()
    /// Each screen's `idle`, `wake` and `filters` (docs/field.md), by screen name; a screen
    /// without them is absent (everything off). A device matcher's own `filters` are on the matcher
    /// (`DeviceMatcher.fieldSettings`; `fieldSettings(forScreen:matcherIndex:)` picks).
    public var fieldSettings: [String: FieldSettings] = [:]

    /// A config from parts (tests, generated layouts); `Config.parse` is the usual way to get one.
    public init(
        layout: Layout, screenInputs: [ScreenInputConfig],
        unmatchedDevices: UnmatchedDevicePolicy = .firstScreen
    ) {
        self.layout = layout
        self.screenInputs = screenInputs
        self.unmatchedDevices = unmatchedDevices
    }

    /// The input settings of the named screen.
    public func input(forScreen name: String) -> ScreenInputConfig? {
        screenInputs.first { $0.screenName == name }
    }

    /// The screen a device drives: the first screen (in file order) with a matcher that matches it,
    /// else the first screen or none, as `unmatchedDevices` says.
    public func screenName(
        forDeviceNamed name: String, udevProperties: [String: String], node: String?
    ) -> String? {
        screenMatch(forDeviceNamed: name, udevProperties: udevProperties, node: node)?.screen
    }

    /// `screenName(forDeviceNamed:…)` with the matcher that took the device (the first matching one
    /// of that screen's `devices`; nil for a device given a screen by `unmatchedDevices`).
    public func screenMatch(
        forDeviceNamed name: String, udevProperties: [String: String], node: String?
    ) -> ScreenMatch? {
        for input in screenInputs {
            if let index = input.matcherIndex(deviceName: name, udevProperties: udevProperties, node: node) {
                return ScreenMatch(screen: input.screenName, matcherIndex: index)
            }
        }
        switch unmatchedDevices {
        case .firstScreen: return layout.screens.first.map { ScreenMatch(screen: $0.name, matcherIndex: nil) }
        case .ignore: return nil
        }
    }

    /// The millimetres per layout unit of a device reporting `deviceSize` (nil: none) on the named
    /// screen: the device's size (through the screen's calibration), else the screen's
    /// `physicalSize`, else the fallback density.
    public func physicalScale(forScreen name: String, deviceSize: PhysicalSize?) -> PhysicalScale {
        guard let screen = layout.screen(named: name) else { return .fallback }
        let input = input(forScreen: name)
        return PhysicalScale.resolve(
            deviceSize: deviceSize, rotationDegrees: input?.rotationDegrees ?? 0, calibration: input?.calibration,
            configuredSize: input?.physicalSize, screenWidth: screen.width, screenHeight: screen.height)
    }

    /// Parses and validates a JSON5 config: its bytes (an array, or `Data` where the caller has
    /// Foundation; the engine itself links none). Pure: `fileName` is used only in messages.
    /// Throws every problem found at once; a file is accepted whole or not at all.
    public static func parse(
        _ data: some Collection<UInt8>, fileName: String, limits: ConfigLimits = .standard
    ) throws(ConfigErrors)
        -> Config
    {
        try ConfigParser(fileName: fileName, limits: limits).parse(data)
    }
}
