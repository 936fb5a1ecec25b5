/// The description of a virtual input device and the raw evdev events played into it: what the
/// uinput injector needs, independent of where it came from (a recording or a script).

/// One absolute axis of a virtual device: its ABS_* code and the kernel's absinfo — the same
/// `AbsInfo` the recordings carry (`axis.minimum` reads through to it).
@dynamicMemberLookup
public struct AbsoluteAxis: Hashable, Sendable {
    /// The ABS_* code.
    public var code: UInt16
    /// Range, fuzz, flat and resolution.
    public var info: AbsInfo

    /// An axis from its code and description.
    public init(code: UInt16, info: AbsInfo) {
        self.code = code
        self.info = info
    }

    /// An axis from its code and the description's fields.
    public init(
        code: UInt16, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0
    ) {
        self.init(
            code: code,
            info: AbsInfo(minimum: minimum, maximum: maximum, fuzz: fuzz, flat: flat, resolution: resolution))
    }

    /// The description's fields (`minimum`, `maximum`, `fuzz`, `flat`, `resolution`).
    public subscript<Value>(dynamicMember field: KeyPath<AbsInfo, Value>) -> Value { info[keyPath: field] }
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
            name: name, bustype: EvdevCode.busVirtual, vendor: 0x7472, product: 0x0001, version: 1,
            properties: [EvdevCode.inputPropDirect],
            codes: [EvdevCode.evKey: [EvdevCode.btnTouch]],
            absoluteAxes: [
                AbsoluteAxis(code: EvdevCode.absX, minimum: 0, maximum: width - 1, resolution: 10),
                AbsoluteAxis(code: EvdevCode.absY, minimum: 0, maximum: height - 1, resolution: 10),
                AbsoluteAxis(code: EvdevCode.absMtSlot, minimum: 0, maximum: slots - 1),
                AbsoluteAxis(
                    code: EvdevCode.absMtPositionX, minimum: 0, maximum: width - 1, resolution: 10),
                AbsoluteAxis(
                    code: EvdevCode.absMtPositionY, minimum: 0, maximum: height - 1, resolution: 10),
                AbsoluteAxis(code: EvdevCode.absMtTrackingId, minimum: 0, maximum: 65535),
            ])
        if protocolA {
            spec.absoluteAxes.removeAll {
                $0.code == EvdevCode.absMtSlot || $0.code == EvdevCode.absMtTrackingId
            }
        }
        return spec
    }

    /// A uinput keyboard (a few keys, no touch): used to prove that non-touch devices are ignored.
    public static func keyboard(name: String = "touchrouter virtual keyboard") -> VirtualDeviceSpec {
        VirtualDeviceSpec(
            name: name, bustype: EvdevCode.busVirtual, vendor: 0x7472, product: 0x0002, version: 1,
            properties: [], codes: [EvdevCode.evKey: Array(1...58)], absoluteAxes: [])
    }
}
