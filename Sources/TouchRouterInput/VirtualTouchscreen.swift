/// The description of a virtual input device and the raw evdev events played into it: what the
/// uinput injector needs, independent of where it came from (a recording or a script).

/// One absolute axis: its evdev code and the kernel's absinfo.
public struct AbsoluteAxis: Hashable, Sendable {
    /// The ABS_* code.
    public var code: UInt16
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre (0 when unknown).
    public var resolution: Int32

    /// Creates an axis description.
    public init(
        code: UInt16, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0
    ) {
        self.code = code
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

/// Everything the kernel needs to create a uinput device: name, ids, properties, event codes and
/// absolute axes.
public struct VirtualDeviceSpec: Hashable, Sendable {
    public var name: String
    public var bustype: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16
    /// INPUT_PROP_* bits, e.g. INPUT_PROP_DIRECT for a touchscreen.
    public var properties: [UInt16]
    /// Non-absolute event codes by event type (EV_KEY: [BTN_TOUCH], …).
    public var codes: [UInt16: [UInt16]]
    /// The absolute axes (EV_ABS is enabled when this is not empty).
    public var absoluteAxes: [AbsoluteAxis]

    /// Creates a device description.
    public init(
        name: String, bustype: UInt16 = 0x06, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0,
        properties: [UInt16], codes: [UInt16: [UInt16]], absoluteAxes: [AbsoluteAxis]
    ) {
        self.name = name
        self.bustype = bustype
        self.vendor = vendor
        self.product = product
        self.version = version
        self.properties = properties
        self.codes = codes
        self.absoluteAxes = absoluteAxes
    }

    /// The axis with this code, if the device has it.
    public func axis(_ code: UInt16) -> AbsoluteAxis? {
        absoluteAxes.first { $0.code == code }
    }

    /// The default injected device: a direct (touchscreen) multitouch device with `slots` slots
    /// and axes 0..<width × 0..<height, so that on a screen of the same size in layout units one
    /// axis unit is one layout unit. With `protocolA`, the same device without slots and tracking
    /// ids (multitouch protocol A: every finger in every frame, closed by SYN_MT_REPORT).
    public static func defaultTouchscreen(
        name: String = "touchrouter virtual touchscreen", width: Int32 = 1920, height: Int32 = 1080,
        slots: Int32 = 10, protocolA: Bool = false
    ) -> VirtualDeviceSpec {
        var spec = VirtualDeviceSpec(
            name: name, bustype: LinuxInputCode.busVirtual, vendor: 0x7472, product: 0x0001, version: 1,
            properties: [LinuxInputCode.inputPropDirect],
            codes: [LinuxInputCode.evKey: [LinuxInputCode.btnTouch]],
            absoluteAxes: [
                AbsoluteAxis(code: LinuxInputCode.absX, minimum: 0, maximum: width - 1, resolution: 10),
                AbsoluteAxis(code: LinuxInputCode.absY, minimum: 0, maximum: height - 1, resolution: 10),
                AbsoluteAxis(code: LinuxInputCode.absMTSlot, minimum: 0, maximum: slots - 1),
                AbsoluteAxis(
                    code: LinuxInputCode.absMTPositionX, minimum: 0, maximum: width - 1, resolution: 10),
                AbsoluteAxis(
                    code: LinuxInputCode.absMTPositionY, minimum: 0, maximum: height - 1, resolution: 10),
                AbsoluteAxis(code: LinuxInputCode.absMTTrackingID, minimum: 0, maximum: 65535),
            ])
        if protocolA {
            spec.absoluteAxes.removeAll {
                $0.code == LinuxInputCode.absMTSlot || $0.code == LinuxInputCode.absMTTrackingID
            }
        }
        return spec
    }

    /// A uinput keyboard (a few keys, no touch): used to prove that non-touch devices are ignored.
    public static func keyboard(name: String = "touchrouter virtual keyboard") -> VirtualDeviceSpec {
        VirtualDeviceSpec(
            name: name, bustype: LinuxInputCode.busVirtual, vendor: 0x7472, product: 0x0002, version: 1,
            properties: [], codes: [LinuxInputCode.evKey: Array(1...58)], absoluteAxes: [])
    }
}

/// One raw evdev event, at a time relative to the start of playback.
public struct InjectedEvent: Hashable, Sendable {
    /// Microseconds since the first event of the sequence.
    public var timeMicros: UInt64
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    /// Creates an event.
    public init(timeMicros: UInt64, type: UInt16, code: UInt16, value: Int32) {
        self.timeMicros = timeMicros
        self.type = type
        self.code = code
        self.value = value
    }
}

/// The few evdev constants the injector and gestures use (linux/input-event-codes.h), named.
public enum LinuxInputCode {
    public static let evSyn: UInt16 = 0x00
    public static let evKey: UInt16 = 0x01
    public static let evAbs: UInt16 = 0x03
    public static let synReport: UInt16 = 0
    public static let synMTReport: UInt16 = 2
    public static let btnTouch: UInt16 = 0x14a
    public static let absX: UInt16 = 0x00
    public static let absY: UInt16 = 0x01
    public static let absMTSlot: UInt16 = 0x2f
    public static let absMTPositionX: UInt16 = 0x35
    public static let absMTPositionY: UInt16 = 0x36
    public static let absMTTrackingID: UInt16 = 0x39
    public static let inputPropDirect: UInt16 = 0x01
    public static let busVirtual: UInt16 = 0x06
}
