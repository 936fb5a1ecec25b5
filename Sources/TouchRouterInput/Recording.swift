/// Recorded touch devices and their raw evdev event streams, read from `libinput record` YAML or evemu
/// files. Parsing is pure (text in, values out); only `Recording.load(path:)` touches the file system.
import TouchRouterCore

/// Linux input event type and code numbers (linux/input-event-codes.h): the one table the readers, the
/// decoder, the injector and the gesture scripts use.
public enum EvdevCode {
    public static let evSyn: UInt16 = 0x00
    public static let evKey: UInt16 = 0x01
    public static let evAbs: UInt16 = 0x03

    public static let synReport: UInt16 = 0
    /// Ends one contact of a protocol-A frame (multitouch without slots).
    public static let synMtReport: UInt16 = 2
    public static let synDropped: UInt16 = 3

    public static let btnTouch: UInt16 = 0x14a

    public static let absX: UInt16 = 0x00
    public static let absY: UInt16 = 0x01
    public static let absMtSlot: UInt16 = 0x2f
    public static let absMtPositionX: UInt16 = 0x35
    public static let absMtPositionY: UInt16 = 0x36
    public static let absMtToolType: UInt16 = 0x37
    public static let absMtTrackingId: UInt16 = 0x39

    /// ABS_MT_TOOL_TYPE value of a palm.
    public static let mtToolPalm: Int32 = 2
    /// INPUT_PROP_DIRECT: the device is a touchscreen (touches land where they are made).
    public static let inputPropDirect: UInt16 = 0x01
    /// BUS_VIRTUAL: the bus type of a uinput device made by the injector.
    public static let busVirtual: UInt16 = 0x06
}

/// One absolute axis's description (the kernel's struct input_absinfo without the current value).
public struct AbsInfo: Hashable, Sendable {
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre (0 when the device does not say).
    public var resolution: Int32

    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    /// The axis range as ScreenMapping takes it.
    public var range: AxisRange { AxisRange(minimum: minimum, maximum: maximum) }
}

/// A device's struct input_id: bus type, vendor, product and version.
public struct InputId: Hashable, Sendable {
    public var bustype: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16

    public init(bustype: UInt16, vendor: UInt16, product: UInt16, version: UInt16) {
        self.bustype = bustype
        self.vendor = vendor
        self.product = product
        self.version = version
    }
}

/// A recorded input device: what the decoder needs to interpret its events, and what an injector
/// needs to recreate it.
public struct RecordedDevice: Hashable, Sendable {
    /// The kernel device name.
    public var name: String
    /// Absolute axes by ABS_* code.
    public var absinfo: [UInt16: AbsInfo]
    /// INPUT_PROP_* numbers the device has.
    public var properties: Set<UInt16>
    /// Event codes the device has, by event type (EV_KEY, EV_ABS, …); EV_SYN is left out.
    public var codes: [UInt16: Set<UInt16>]
    /// Bus, vendor, product and version, when the recording gives them.
    public var inputId: InputId?

    public init(
        name: String, absinfo: [UInt16: AbsInfo], properties: Set<UInt16>, codes: [UInt16: Set<UInt16>] = [:],
        inputId: InputId? = nil
    ) {
        self.name = name
        self.absinfo = absinfo
        self.properties = properties
        self.codes = codes
        self.inputId = inputId
    }

    /// The device speaks multitouch protocol B: it has ABS_MT_SLOT and both MT position axes.
    public var isMultitouch: Bool {
        absinfo[EvdevCode.absMtSlot] != nil && absinfo[EvdevCode.absMtPositionX] != nil
            && absinfo[EvdevCode.absMtPositionY] != nil
    }

    /// The device speaks multitouch protocol A: both MT position axes but no ABS_MT_SLOT. It lists
    /// every finger in every frame (each closed by SYN_MT_REPORT), with no slots; libinput, and the
    /// decoder, turn that into slots through libmtdev.
    public var isProtocolA: Bool {
        absinfo[EvdevCode.absMtSlot] == nil && absinfo[EvdevCode.absMtPositionX] != nil
            && absinfo[EvdevCode.absMtPositionY] != nil
    }

    /// The most slots a device has: the kernel refuses to make a device with more
    /// (`input_mt_init_slots`), so no real recording has more. The readers refuse a recording whose
    /// ABS_MT_SLOT says otherwise, which keeps a decoder's per-slot state small (tens of KB).
    public static let maximumSlotCount = 1024

    /// Number of kernel slots: ABS_MT_SLOT's maximum + 1 for a multitouch device, 1 otherwise;
    /// never more than `maximumSlotCount`.
    public var slotCount: Int {
        guard isMultitouch, let slot = absinfo[EvdevCode.absMtSlot] else { return 1 }
        return min(Self.maximumSlotCount, max(1, Int(slot.maximum) + 1))
    }

    /// Why a recorded axis is refused, or nil: an ABS_MT_SLOT whose maximum is outside
    /// 0…`maximumSlotCount` - 1 (a device the kernel would not make). The readers check it where
    /// the axis is read, so the error names its line.
    static func axisProblem(code: UInt16, _ info: AbsInfo) -> String? {
        guard code == EvdevCode.absMtSlot, !(0..<Int32(maximumSlotCount)).contains(info.maximum) else { return nil }
        return "ABS_MT_SLOT maximum \(info.maximum) is out of range: a device has 1 to \(maximumSlotCount) "
            + "slots (maximum 0…\(maximumSlotCount - 1)), as the kernel allows"
    }

    /// INPUT_PROP_DIRECT is set: a touchscreen rather than a touchpad.
    public var isDirect: Bool { properties.contains(EvdevCode.inputPropDirect) }

    /// Whether the device has the event code (from the recorded code lists; ABS axes also count when
    /// only their absinfo is known).
    public func has(type: UInt16, code: UInt16) -> Bool {
        codes[type]?.contains(code) == true || (type == EvdevCode.evAbs && absinfo[code] != nil)
    }

    /// The panel's size as libinput computes it (`libinput_device_get_size`: ABS_X and ABS_Y, range
    /// over resolution); nil when either axis is missing or has resolution 0 (many touchscreens).
    public var physicalSize: PhysicalSize? {
        guard let x = absinfo[EvdevCode.absX], let y = absinfo[EvdevCode.absY] else { return nil }
        return PhysicalSize.ofAxes(x: x.range, xResolution: x.resolution, y: y.range, yResolution: y.resolution)
    }

    /// The x axis libinput uses for positions: ABS_MT_POSITION_X on multitouch devices (protocol A
    /// or B), else ABS_X.
    public var xAxis: AbsInfo? {
        isMultitouch || isProtocolA ? absinfo[EvdevCode.absMtPositionX] : absinfo[EvdevCode.absX]
    }

    /// The y axis libinput uses for positions: ABS_MT_POSITION_Y on multitouch devices (protocol A
    /// or B), else ABS_Y.
    public var yAxis: AbsInfo? {
        isMultitouch || isProtocolA ? absinfo[EvdevCode.absMtPositionY] : absinfo[EvdevCode.absY]
    }
}

/// One raw kernel input event with its timestamp in microseconds: absolute in a recording, relative
/// to the first event in what the injector plays (the one event type for both).
public struct EvdevEvent: Hashable, Sendable, CustomStringConvertible {
    public var timestampMicros: UInt64
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(timestampMicros: UInt64, type: UInt16, code: UInt16, value: Int32) {
        self.timestampMicros = timestampMicros
        self.type = type
        self.code = code
        self.value = value
    }

    public var description: String { "\(timestampMicros)µs \(type)/\(code)=\(value)" }
}

/// A touch event that libinput itself interpreted, as `libinput record` writes it next to the raw events
/// (only present when the recording was made with libinput interpreting the device).
public struct RecordedLibinputTouch: Hashable, Sendable {
    /// TOUCH_DOWN, TOUCH_MOTION, TOUCH_UP, TOUCH_CANCEL or TOUCH_FRAME.
    public var type: String
    public var timestampMicros: UInt64
    /// Kernel slot (-1 for single-touch), when given.
    public var slot: Int32?
    public var seatSlot: Int32?
    /// Position in millimetres as libinput record prints it, when given.
    public var pointMillimetres: Point?

    public init(
        type: String, timestampMicros: UInt64, slot: Int32?, seatSlot: Int32?, pointMillimetres: Point?
    ) {
        self.type = type
        self.timestampMicros = timestampMicros
        self.slot = slot
        self.seatSlot = seatSlot
        self.pointMillimetres = pointMillimetres
    }
}

/// A recorded device with its event stream.
public struct Recording: Hashable, Sendable {
    public var device: RecordedDevice
    /// Raw evdev events in recorded order (SYN_REPORT closes each kernel frame).
    public var events: [EvdevEvent]
    /// libinput's own interpreted touch events, when the recording has them (libinput record only).
    public var libinputTouches: [RecordedLibinputTouch]

    public init(device: RecordedDevice, events: [EvdevEvent], libinputTouches: [RecordedLibinputTouch] = []) {
        self.device = device
        self.events = events
        self.libinputTouches = libinputTouches
    }

    /// Reads a recording file, choosing the format by its extension: `.yml`/`.yaml` is libinput record
    /// (the first device with events, or the first device), `.events` is evemu (its own description
    /// header, or else the `.desc` beside it whose name is the longest prefix of the events file's name),
    /// `.desc` is an evemu description with no events.
    public static func load(path: String) throws(RecordingError) -> Recording {
        let text = try readText(path: path)
        let fileName = lastPathComponent(of: path)
        let ext = pathExtension(of: path).lowercased()
        switch ext {
        case "yml", "yaml":
            let recordings = try LibinputRecordReader.parse(text, file: fileName)
            return recordings.first(where: { !$0.events.isEmpty }) ?? recordings[0]
        case "desc":
            let parsed = try EvemuReader.parse(text, file: fileName)
            guard let device = parsed.device else {
                throw RecordingError(file: fileName, line: 0, message: "no device description (N:/A: lines)")
            }
            return Recording(device: device, events: parsed.events)
        case "events":
            let parsed = try EvemuReader.parse(text, file: fileName)
            if let device = parsed.device {
                return Recording(device: device, events: parsed.events)
            }
            guard let descPath = siblingDescription(forEventsPath: path) else {
                throw RecordingError(
                    file: fileName, line: 0,
                    message: "no device description in the file and no matching .desc beside it")
            }
            let descText = try readText(path: descPath)
            let desc = try EvemuReader.parse(descText, file: lastPathComponent(of: descPath))
            guard let device = desc.device else {
                throw RecordingError(
                    file: lastPathComponent(of: descPath), line: 0, message: "no device description")
            }
            return Recording(device: device, events: parsed.events)
        default:
            throw RecordingError(
                file: fileName, line: 0,
                message: "unknown recording type '.\(ext)' (want .yml, .events, .desc)")
        }
    }

    /// Every device of a recording file: all devices of a `libinput record` file (recorded with `--all`
    /// or several device nodes), or the one device of an evemu file.
    public static func loadAll(path: String) throws(RecordingError) -> [Recording] {
        let ext = pathExtension(of: path).lowercased()
        guard ext == "yml" || ext == "yaml" else { return [try load(path: path)] }
        return try LibinputRecordReader.parse(
            try readText(path: path), file: lastPathComponent(of: path))
    }

    /// Reads an evemu description file and an evemu events file as one recording.
    public static func loadEvemu(descriptionPath: String, eventsPath: String) throws(RecordingError)
        -> Recording
    {
        let descName = lastPathComponent(of: descriptionPath)
        let desc = try EvemuReader.parse(try readText(path: descriptionPath), file: descName)
        guard let device = desc.device else {
            throw RecordingError(file: descName, line: 0, message: "no device description (N:/A: lines)")
        }
        let eventsName = lastPathComponent(of: eventsPath)
        let parsed = try EvemuReader.parse(try readText(path: eventsPath), file: eventsName)
        return Recording(device: device, events: parsed.events)
    }

    private static func readText(path: String) throws(RecordingError) -> String {
        let fileName = lastPathComponent(of: path)
        switch TextFile.read(path) {
        case .success(let text): return text
        case .failure(.unreadable): throw RecordingError(file: fileName, line: 0, message: "cannot read \(path)")
        case .failure(.notUTF8): throw RecordingError(file: fileName, line: 0, message: "not UTF-8 text")
        }
    }

    private static func siblingDescription(forEventsPath path: String) -> String? {
        let directory = pathDirectory(of: path)
        let eventsName = lastPathComponent(of: path)
        let names = TextFile.names(inDirectory: directory.isEmpty ? "." : directory)
        let candidates = names.filter { name in
            name.hasSuffix(".desc") && eventsName.hasPrefix(String(name.dropLast(".desc".count)) + ".")
        }
        guard let best = candidates.max(by: { $0.count < $1.count }) else { return nil }
        return directory.isEmpty ? best : directory + "/" + best
    }
}

/// A recording that could not be read: which file, which line (1-based; 0 for the file as a whole), why.
public struct RecordingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

/// The last component of a path (`/a/b.yml` → `b.yml`).
func lastPathComponent(of path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}

/// A path's extension without the dot (`b.yml` → `yml`; none → empty).
func pathExtension(of path: String) -> String {
    let name = lastPathComponent(of: path)
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
    return String(name[name.index(after: dot)...])
}

/// The directory part of a path (`/a/b.yml` → `/a`; `b.yml` → empty).
func pathDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
