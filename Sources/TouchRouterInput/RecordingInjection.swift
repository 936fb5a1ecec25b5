/// A recording file the injector cannot use, with the line that is wrong.
public struct InjectionFileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var reason: String
    public var description: String { line > 0 ? "\(path):\(line): \(reason)" : "\(path): \(reason)" }
}

/// What the injector plays: the device (an evemu `.desc`, read here to keep its ids and key bits,
/// or a libinput record YAML) and a recording's events (through the shared `Recording` readers).
public enum RecordingInjection {
    /// The device described by an evemu `.desc` (or the header of an `.events` file), exactly (ids,
    /// properties, every event code); for a libinput record `.yml`, see `deviceSpec(recorded:)`.
    public static func deviceSpec(path: String) throws(InjectionFileError) -> VirtualDeviceSpec {
        if path.hasSuffix(".yml") || path.hasSuffix(".yaml") {
            do {
                return deviceSpec(recorded: try Recording.load(path: path).device)
            } catch {
                throw InjectionFileError(path: path, line: error.line, reason: error.message)
            }
        }
        var spec = VirtualDeviceSpec(name: "", properties: [], codes: [:], absoluteAxes: [])
        var bitmaskBytes: [UInt16: [UInt8]] = [:]
        var propertyBytes: [UInt8] = []
        for (number, line) in try lines(path) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            func hex(_ text: String) throws(InjectionFileError) -> UInt32 {
                guard let value = UInt32(text, radix: 16) else {
                    throw InjectionFileError(path: path, line: number, reason: "'\(text)' is not hexadecimal")
                }
                return value
            }
            switch fields.first {
            case "N:":
                spec.name = String(line.dropFirst(2).drop { $0 == " " })
            case "I:":
                guard fields.count == 5 else {
                    throw InjectionFileError(path: path, line: number, reason: "I: needs 4 ids")
                }
                spec.bustype = UInt16(truncatingIfNeeded: try hex(fields[1]))
                spec.vendor = UInt16(truncatingIfNeeded: try hex(fields[2]))
                spec.product = UInt16(truncatingIfNeeded: try hex(fields[3]))
                spec.version = UInt16(truncatingIfNeeded: try hex(fields[4]))
            case "P:":
                for field in fields.dropFirst() {
                    propertyBytes.append(UInt8(truncatingIfNeeded: try hex(field)))
                }
            case "B:":
                guard fields.count >= 2 else {
                    throw InjectionFileError(path: path, line: number, reason: "B: needs a type")
                }
                let type = UInt16(truncatingIfNeeded: try hex(fields[1]))
                for field in fields.dropFirst(2) {
                    bitmaskBytes[type, default: []].append(UInt8(truncatingIfNeeded: try hex(field)))
                }
            case "A:":
                // The resolution is optional, as for the replay's reader (RecordingEvemu.swift): 0.
                let numbers = fields.dropFirst(2).compactMap { Int32($0) }
                guard fields.count == 6 || fields.count == 7, numbers.count == fields.count - 2 else {
                    throw InjectionFileError(
                        path: path, line: number, reason: "A: needs CODE MIN MAX FUZZ FLAT [RES]")
                }
                spec.absoluteAxes.append(
                    AbsoluteAxis(
                        code: UInt16(truncatingIfNeeded: try hex(fields[1])), minimum: numbers[0],
                        maximum: numbers[1],
                        fuzz: numbers[2], flat: numbers[3], resolution: numbers.count == 5 ? numbers[4] : 0))
            default:
                continue
            }
        }
        guard !spec.name.isEmpty else {
            throw InjectionFileError(path: path, line: 0, reason: "no 'N:' (device name) line")
        }
        spec.properties = setBits(propertyBytes)
        for (type, bytes) in bitmaskBytes where type != 0 && type != EvdevCode.evAbs {
            let codes = setBits(bytes)
            if !codes.isEmpty { spec.codes[type] = codes }
        }
        return spec
    }

    /// The events of a recording (libinput record YAML, or evemu `.events` with its `.desc` given
    /// or found beside it), with times relative to the first event.
    public static func events(path: String, descriptionPath: String? = nil) throws(RecordingError)
        -> [EvdevEvent]
    {
        let recording: Recording
        if let descriptionPath {
            recording = try Recording.loadEvemu(descriptionPath: descriptionPath, eventsPath: path)
        } else {
            recording = try Recording.load(path: path)
        }
        guard let start = recording.events.first?.timestampMicros else {
            throw RecordingError(file: path, line: 0, message: "the recording has no events")
        }
        return recording.events.map { event in
            EvdevEvent(
                timestampMicros: event.timestampMicros >= start ? event.timestampMicros - start : 0,
                type: event.type,
                code: event.code, value: event.value)
        }
    }

    /// The uinput device for a device known only from a recording's description (libinput record
    /// YAML keeps name, axes and properties): a touchscreen with those axes and BTN_TOUCH.
    public static func deviceSpec(recorded device: RecordedDevice) -> VirtualDeviceSpec {
        VirtualDeviceSpec(
            name: device.name, properties: device.properties.sorted(),
            codes: [EvdevCode.evKey: [EvdevCode.btnTouch]],
            absoluteAxes: device.absinfo.sorted { $0.key < $1.key }.map { code, info in
                AbsoluteAxis(
                    code: code, minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz,
                    flat: info.flat,
                    resolution: info.resolution)
            })
    }

    private static func lines(_ path: String) throws(InjectionFileError) -> [(Int, String)] {
        let text: String
        switch TextFile.read(path) {
        case .success(let read): text = read
        case .failure(.unreadable): throw InjectionFileError(path: path, line: 0, reason: "cannot read the file")
        case .failure(.notUTF8): throw InjectionFileError(path: path, line: 0, reason: "not UTF-8 text")
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
            index, line in
            // Everything after a '#' is a comment, but a name keeps its own ("Panel #2"), as in
            // the replay's reader.
            let isName = line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("N:")
            let content = isName ? line[...] : line.firstIndex(of: "#").map { line[..<$0] } ?? line[...]
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
            let trimmed = String(content.drop(while: blank).reversed().drop(while: blank).reversed())
            return trimmed.isEmpty ? nil : (index + 1, trimmed)
        }
    }

    /// The bit numbers set in a little-endian byte mask.
    private static func setBits(_ bytes: [UInt8]) -> [UInt16] {
        var bits: [UInt16] = []
        for (index, byte) in bytes.enumerated() {
            for bit in 0..<8 where byte & (1 << bit) != 0 { bits.append(UInt16(index * 8 + bit)) }
        }
        return bits
    }
}
