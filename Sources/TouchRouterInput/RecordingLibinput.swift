import TouchRouterCore

// `libinput record` YAML (version 1), read with libyaml (`RecordingYAML`, the `CYAML` target).
//
// From the tree it takes: `version` (must be 1), and per entry of `devices`: `evdev.name`,
// `evdev.id`, `evdev.codes`, `evdev.absinfo` (`code: [min, max, fuzz, flat, resolution]`),
// `evdev.properties`, and `events`, whose items are `evdev:` lists of `[sec, usec, type, code, value]`
// or `libinput:` lists of interpreted events (touch events are kept for cross-checks). YAML errors
// and shape errors alike name the file and line.

/// Reads `libinput record` output.
public enum LibinputRecordReader {
    /// Parses the text into one recording per recorded device; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(RecordingError) -> [Recording] {
        func fail(_ node: RecordingYAML.Node, _ message: String) -> RecordingError {
            RecordingError(file: file, line: node.line, message: message)
        }
        // Each row of `devices[i].events[j].evdev` (or `.libinput`), then its item, is read as soon
        // as libyaml has finished it and left out of the tree: the tree holds the descriptions and
        // at most one row, never the stream.
        var streams: [Int: EventStream] = [:]
        let root = try RecordingYAML.parse(text, file: file) { (path, node) throws(RecordingError) -> Bool in
            guard path.count == 4 || path.count == 6, path[0] == .key("devices"), case .index(let device) = path[1],
                path[2] == .key("events"), case .index = path[3]
            else { return false }
            if path.count == 4 {
                try streams[device, default: EventStream()].read(item: node, fail: fail)
                return true
            }
            guard case .key(let kind) = path[4], case .index = path[5] else { return false }
            return try streams[device, default: EventStream()].read(row: node, of: kind, fail: fail)
        }
        guard case .mapping(let top) = root.value else { throw fail(root, "the top level must be a mapping") }
        guard let version = top["version"] else {
            throw RecordingError(
                file: file, line: 1, message: "missing 'version' (not a libinput record file?)")
        }
        guard version.scalar == "1" else {
            throw fail(version, "unsupported libinput record version '\(Excerpt.of(version.scalar ?? "?"))' (want 1)")
        }
        guard let devicesNode = top["devices"] else {
            throw RecordingError(file: file, line: 1, message: "missing 'devices'")
        }
        guard case .sequence(let devices) = devicesNode.value, !devices.isEmpty else {
            throw fail(devicesNode, "'devices' must be a non-empty list")
        }
        var recordings: [Recording] = []
        for (index, deviceNode) in devices.enumerated() {
            recordings.append(try parseDevice(deviceNode, stream: streams[index] ?? EventStream(), fail: fail))
        }
        return recordings
    }

    /// One device's events so far, read row by row as the parser finishes each.
    private struct EventStream {
        var events: [EvdevEvent] = []
        var touches: [RecordedLibinputTouch] = []

        /// One row of an item's `kind` list: an `evdev:` row `[sec, usec, type, code, value]` or a
        /// `libinput:` event; false for a row of another kind (left in the tree, then dropped with
        /// its item).
        mutating func read(
            row: RecordingYAML.Node, of kind: String, fail: (RecordingYAML.Node, String) -> RecordingError
        ) throws(RecordingError) -> Bool {
            switch kind {
            case "evdev":
                let event = try LibinputRecordReader.evdevEvent(row, fail: fail)
                if let last = events.last, event.timestampMicros < last.timestampMicros {
                    throw fail(row, "event time goes backwards")
                }
                events.append(event)
            case "libinput":
                if let touch = try LibinputRecordReader.libinputTouch(row, fail: fail) { touches.append(touch) }
            default:
                return false
            }
            return true
        }

        /// One item of `events`, once its rows were read: an `evdev:` list and/or a `libinput:` list
        /// (`libinput record --with-libinput` writes a frame's evdev events and libinput's
        /// interpretation of them as two keys of one item, in that order). Rows still in it are
        /// those that are not lists or mappings: each is an error.
        mutating func read(
            item: RecordingYAML.Node, fail: (RecordingYAML.Node, String) -> RecordingError
        ) throws(RecordingError) {
            guard case .mapping(let entry) = item.value, !entry.entries.isEmpty else {
                throw fail(item, "an events item must be an 'evdev:' and/or 'libinput:' entry")
            }
            for (kind, body) in entry.entries {
                switch kind {
                case "evdev":
                    guard case .sequence(let rows) = body.value else {
                        throw fail(body, "'evdev:' must be a list of [sec, usec, type, code, value]")
                    }
                    for row in rows { _ = try read(row: row, of: kind, fail: fail) }
                case "libinput":
                    guard case .sequence(let rows) = body.value else {
                        throw fail(body, "'libinput:' must be a list of events")
                    }
                    for row in rows { _ = try read(row: row, of: kind, fail: fail) }
                default:
                    // Other event kinds a newer libinput may write (e.g. hid reports) are not needed.
                    break
                }
            }
        }
    }

    private static func parseDevice(
        _ deviceNode: RecordingYAML.Node, stream: EventStream, fail: (RecordingYAML.Node, String) -> RecordingError
    ) throws(RecordingError) -> Recording {
        guard case .mapping(let device) = deviceNode.value else {
            throw fail(deviceNode, "a device must be a mapping")
        }
        guard let evdevNode = device["evdev"], case .mapping(let evdev) = evdevNode.value else {
            throw fail(deviceNode, "device without an 'evdev:' mapping")
        }
        guard let nameNode = evdev["name"], let name = nameNode.scalar, !name.isEmpty else {
            throw fail(evdevNode, "evdev without a 'name'")
        }
        var absinfo: [UInt16: AbsInfo] = [:]
        if let absNode = evdev["absinfo"] {
            switch absNode.value {
            case .mapping(let axes):
                for (key, axisNode) in axes.entries {
                    guard let code = UInt16(key), code <= 0x3f else {
                        throw fail(axisNode, "absinfo key '\(Excerpt.of(key))' is not an ABS code (0…63)")
                    }
                    let numbers = try integers(axisNode, count: 5, what: "absinfo \(Excerpt.of(key))", fail: fail)
                    guard numbers[0] <= numbers[1] else {
                        throw fail(
                            axisNode, "absinfo \(Excerpt.of(key)): minimum \(numbers[0]) > maximum \(numbers[1])")
                    }
                    let info = AbsInfo(
                        minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
                        resolution: numbers[4])
                    if let problem = RecordedDevice.axisProblem(code: code, info) {
                        throw fail(axisNode, "absinfo \(Excerpt.of(key)): \(problem)")
                    }
                    absinfo[code] = info
                }
            case .null: break
            default: throw fail(absNode, "'absinfo' must be a mapping of code: [min, max, fuzz, flat, res]")
            }
        }
        var properties = Set<UInt16>()
        if let propertiesNode = evdev["properties"] {
            if case .null = propertiesNode.value {
            } else {
                let numbers = try integers(propertiesNode, count: nil, what: "properties", fail: fail)
                for number in numbers {
                    guard let property = UInt16(exactly: number) else {
                        throw fail(propertiesNode, "property \(number) out of range")
                    }
                    properties.insert(property)
                }
            }
        }
        var codes: [UInt16: Set<UInt16>] = [:]
        if let codesNode = evdev["codes"] {
            switch codesNode.value {
            case .mapping(let types):
                for (key, listNode) in types.entries {
                    guard let type = UInt16(key), type <= 0x1f else {
                        throw fail(listNode, "codes key '\(Excerpt.of(key))' is not an event type (0…31)")
                    }
                    let numbers = try integers(listNode, count: nil, what: "codes \(Excerpt.of(key))", fail: fail)
                    var set = Set<UInt16>()
                    for number in numbers {
                        guard let code = UInt16(exactly: number), code <= 0x2ff else {
                            throw fail(listNode, "codes \(Excerpt.of(key)): \(number) is not an event code")
                        }
                        set.insert(code)
                    }
                    if type != EvdevCode.evSyn && !set.isEmpty { codes[type] = set }
                }
            case .null: break
            default: throw fail(codesNode, "'codes' must be a mapping of type: [codes]")
            }
        }
        var inputId: InputId?
        if let idNode = evdev["id"] {
            let numbers = try integers(
                idNode, count: 4, what: "id [bus, vendor, product, version]", fail: fail)
            guard numbers.allSatisfy({ UInt16(exactly: $0) != nil }) else {
                throw fail(idNode, "id out of range")
            }
            inputId = InputId(
                bustype: UInt16(numbers[0]), vendor: UInt16(numbers[1]), product: UInt16(numbers[2]),
                version: UInt16(numbers[3]))
        }
        var stream = stream
        if let eventsNode = device["events"] {
            switch eventsNode.value {
            case .sequence(let items):
                // The items the parser did not take: not mappings, so each is an error.
                for item in items { try stream.read(item: item, fail: fail) }
            case .null: break
            default: throw fail(eventsNode, "'events' must be a list")
            }
        }
        return Recording(
            device: RecordedDevice(
                name: name, absinfo: absinfo, properties: properties, codes: codes, inputId: inputId),
            events: stream.events,
            libinputTouches: stream.touches)
    }

    private static func evdevEvent(
        _ row: RecordingYAML.Node, fail: (RecordingYAML.Node, String) -> RecordingError
    ) throws(RecordingError) -> EvdevEvent {
        let numbers = try integers(
            row, count: 5, what: "evdev event [sec, usec, type, code, value]", fail: fail)
        guard numbers[0] >= 0, (0..<1_000_000).contains(numbers[1]) else {
            throw fail(row, "evdev event time \(numbers[0]).\(numbers[1]) is not seconds and microseconds")
        }
        guard let type = UInt16(exactly: numbers[2]), let code = UInt16(exactly: numbers[3]) else {
            throw fail(row, "evdev event type/code out of range")
        }
        return EvdevEvent(
            timestampMicros: UInt64(numbers[0]) * 1_000_000 + UInt64(numbers[1]), type: type, code: code,
            value: numbers[4])
    }

    private static func libinputTouch(
        _ row: RecordingYAML.Node, fail: (RecordingYAML.Node, String) -> RecordingError
    ) throws(RecordingError) -> RecordedLibinputTouch? {
        guard case .mapping(let fields) = row.value else {
            throw fail(row, "a libinput event must be a mapping such as {time: …, type: …}")
        }
        guard let type = fields["type"]?.scalar else { throw fail(row, "libinput event without 'type'") }
        guard type.hasPrefix("TOUCH_") else { return nil }
        guard let timeText = fields["time"]?.scalar, let seconds = Double(timeText), seconds >= 0 else {
            throw fail(row, "libinput event without a valid 'time'")
        }
        func optionalInt(_ key: String) throws(RecordingError) -> Int32? {
            guard let node = fields[key] else { return nil }
            guard let text = node.scalar, let value = Int32(text) else {
                throw fail(node, "'\(key)' is not an integer")
            }
            return value
        }
        var point: Point?
        if let pointNode = fields["point"] {
            guard case .sequence(let items) = pointNode.value, items.count == 2,
                let x = items[0].scalar.flatMap(Double.init), let y = items[1].scalar.flatMap(Double.init)
            else { throw fail(pointNode, "'point' must be [x, y]") }
            point = Point(x, y)
        }
        return RecordedLibinputTouch(
            type: type, timestampMicros: UInt64((seconds * 1_000_000).rounded()),
            slot: try optionalInt("slot"),
            seatSlot: try optionalInt("seat_slot"), pointMillimetres: point)
    }

    private static func integers(
        _ node: RecordingYAML.Node, count: Int?, what: String, fail: (RecordingYAML.Node, String) -> RecordingError
    ) throws(RecordingError) -> [Int32] {
        guard case .sequence(let items) = node.value else { throw fail(node, "\(what) must be a list [ … ]") }
        if let count, items.count != count {
            throw fail(node, "\(what) must have \(count) numbers, found \(items.count)")
        }
        var numbers: [Int32] = []
        for item in items {
            guard let text = item.scalar, let number = Int32(text) else {
                throw fail(node, "\(what): '\(Excerpt.of(item.scalar ?? "…"))' is not an integer")
            }
            numbers.append(number)
        }
        return numbers
    }
}
