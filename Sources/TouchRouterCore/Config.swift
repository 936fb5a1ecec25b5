import Foundation

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
        if let input = screenInputs.first(where: {
            $0.matches(deviceName: name, udevProperties: udevProperties, node: node)
        }) {
            return input.screenName
        }
        switch unmatchedDevices {
        case .firstScreen: return layout.screens.first?.name
        case .ignore: return nil
        }
    }

    /// Parses and validates a JSON5 config. Pure: `fileName` is used only in messages.
    /// Throws every problem found at once; a file is accepted whole or not at all.
    public static func parse(
        _ data: Data, fileName: String, limits: ConfigLimits = .standard
    ) throws(ConfigErrors)
        -> Config
    {
        try ConfigParser(fileName: fileName, limits: limits).parse(data)
    }
}

/// Reads and parses the config file at `path` (the only file read the config code does): checks the
/// size before reading, then `Config.parse`. Messages name the file as `path` is written.
public func loadConfig(path: String, limits: ConfigLimits = .standard) throws(ConfigErrors) -> Config {
    func failure(_ code: ConfigErrorCode, _ message: String) -> ConfigErrors {
        ConfigErrors([ConfigError(code: code, file: path, message: message)])
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw failure(.unreadable, "no such file")
    }
    if isDirectory.boolValue { throw failure(.unreadable, "is a directory, not a config file") }
    if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
        size > limits.maxFileBytes
    {
        throw failure(.fileTooLarge, ConfigParser.tooLargeMessage(size, limits: limits))
    }
    let data: Data
    do {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        // One byte past the limit tells a file that grew since the size check.
        data = try handle.read(upToCount: limits.maxFileBytes + 1) ?? Data()
    } catch {
        throw failure(.unreadable, "cannot be read: \(error.localizedDescription)")
    }
    return try Config.parse(data, fileName: path, limits: limits)
}
