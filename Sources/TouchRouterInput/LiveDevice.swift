import TouchRouterCore

/// What the live reader knows about a device when it appears, and what the caller decides for it.

/// A device as udev and libinput describe it when it is added: the facts a config matcher
/// (`name` glob, `udev` properties, `node` path) looks at.
public struct LiveDeviceDescription: Hashable, Sendable {
    /// libinput's device name (the kernel's name, e.g. "Atmel maXTouch Touchscreen").
    public var name: String
    /// The kernel's sysname, e.g. "event5".
    public var sysname: String
    /// The device node, e.g. "/dev/input/event5"; nil when udev does not know it.
    public var node: String?
    /// Every udev property of the device (ID_PATH, ID_INPUT_TOUCHSCREEN, LIBINPUT_CALIBRATION_MATRIX, …).
    public var udevProperties: [String: String]
    /// Whether libinput sees touch capability (LIBINPUT_DEVICE_CAP_TOUCH).
    public var hasTouch: Bool
    /// The panel's size as libinput reports it (`libinput_device_get_size`, native axes); nil when
    /// the device gives no axis resolution.
    public var physicalSize: PhysicalSize?

    /// Creates a description (the reader builds these; tests may too).
    public init(
        name: String, sysname: String, node: String?, udevProperties: [String: String], hasTouch: Bool,
        physicalSize: PhysicalSize? = nil
    ) {
        self.name = name
        self.sysname = sysname
        self.node = node
        self.udevProperties = udevProperties
        self.hasTouch = hasTouch
        self.physicalSize = physicalSize
    }
}

/// Where a touch device's contacts go: the screen it drives, that screen's size in layout units,
/// the libinput calibration matrix that maps the device onto it and its millimetres per unit.
public struct ScreenAssignment: Hashable, Sendable {
    /// The screen's name in the layout.
    public var screen: String
    /// The screen's width in layout units: libinput's transformed x runs over 0..<width.
    public var width: Double
    /// The screen's height in layout units: libinput's transformed y runs over 0..<height.
    public var height: Double
    /// The 6-number libinput calibration matrix (rotation and calibration composed) to set on the
    /// device; nil keeps the device's default (the udev LIBINPUT_CALIBRATION_MATRIX property).
    public var calibrationMatrix: [Float]?
    /// Millimetres per layout unit of the device on the screen; every frame carries it.
    public var physicalScale: PhysicalScale
    /// Which of the screen's `devices` matchers took the device (nil: none, by `unmatchedDevices`);
    /// every frame carries it, for the field stage's per-matcher `filters`.
    public var matcherIndex: Int?

    /// Creates an assignment.
    public init(
        screen: String, width: Double, height: Double, calibrationMatrix: [Float]? = nil,
        physicalScale: PhysicalScale = .fallback, matcherIndex: Int? = nil
    ) {
        self.screen = screen
        self.width = width
        self.height = height
        self.calibrationMatrix = calibrationMatrix
        self.physicalScale = physicalScale
        self.matcherIndex = matcherIndex
    }
}

/// Decides, when a touch device is added, which screen it drives (nil: ignore the device). The
/// reader calls it on every (re)add, so a changed config applies to devices that come back.
/// `defaultCalibration` is the device's udev-provided matrix, for composing with a rotation.
public typealias DeviceAssigner =
    (_ device: LiveDeviceDescription, _ defaultCalibration: [Float]) -> ScreenAssignment?
