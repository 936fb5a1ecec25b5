import TouchRouterCore

// `libinput record` YAML (version 1), read without a YAML library.
//
// A small, strict reader of the block-YAML subset `libinput record` writes: nested `key: value`
// mappings, `- item` sequences (also at the same indentation as their key), flow sequences `[1, 2]`
// and flow mappings `{a: 1, b: [2, 3]}`, double-quoted strings and `#` comments. Anything outside that
// subset is an error naming the line. From the tree it takes: `version` (must be 1), and per entry of
// `devices`: `evdev.name`, `evdev.id`, `evdev.codes`, `evdev.absinfo` (`code: [min, max, fuzz, flat,
// resolution]`), `evdev.properties`, and `events`, whose items are `evdev:` lists of
// `[sec, usec, type, code, value]` or `libinput:` lists of interpreted events (touch events are kept
// for cross-checks).

/// Reads `libinput record` output.
public enum LibinputRecordReader {
    /// Parses the text into one recording per recorded device; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(RecordingError) -> [Recording] {
        let root = try MiniYAML.parse(text, file: file)
        func fail(_ node: MiniYAML.Node, _ message: String) -> RecordingError {
            RecordingError(file: file, line: node.line, message: message)
        }
        guard case .mapping(let top) = root.value else { throw fail(root, "the top level must be a mapping") }
        guard let version = top["version"] else {
            throw RecordingError(
                file: file, line: 1, message: "missing 'version' (not a libinput record file?)")
        }
        guard version.scalar == "1" else {
            throw fail(version, "unsupported libinput record version '\(version.scalar ?? "?")' (want 1)")
        }
        guard let devicesNode = top["devices"] else {
            throw RecordingError(file: file, line: 1, message: "missing 'devices'")
        }
        guard case .sequence(let devices) = devicesNode.value, !devices.isEmpty else {
            throw fail(devicesNode, "'devices' must be a non-empty list")
        }
        var recordings: [Recording] = []
        for deviceNode in devices {
            recordings.append(try parseDevice(deviceNode, fail: fail))
        }
        return recordings
    }

    private static func parseDevice(
        _ deviceNode: MiniYAML.Node, fail: (MiniYAML.Node, String) -> RecordingError
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
                        throw fail(axisNode, "absinfo key '\(key)' is not an ABS code (0…63)")
                    }
                    let numbers = try integers(axisNode, count: 5, what: "absinfo \(key)", fail: fail)
                    guard numbers[0] <= numbers[1] else {
                        throw fail(axisNode, "absinfo \(key): minimum \(numbers[0]) > maximum \(numbers[1])")
                    }
                    absinfo[code] = AbsInfo(
                        minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
                        resolution: numbers[4])
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
                        throw fail(listNode, "codes key '\(key)' is not an event type (0…31)")
                    }
                    let numbers = try integers(listNode, count: nil, what: "codes \(key)", fail: fail)
                    var set = Set<UInt16>()
                    for number in numbers {
                        guard let code = UInt16(exactly: number), code <= 0x2ff else {
                            throw fail(listNode, "codes \(key): \(number) is not an event code")
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
        var events: [EvdevEvent] = []
        var touches: [RecordedLibinputTouch] = []
        if let eventsNode = device["events"] {
            switch eventsNode.value {
            case .sequence(let items):
                // `libinput record --with-libinput` writes a frame's evdev events and libinput's
                // interpretation of them as two keys of one item, in that order.
                for item in items {
                    guard case .mapping(let entry) = item.value, !entry.entries.isEmpty else {
                        throw fail(item, "an events item must be an 'evdev:' and/or 'libinput:' entry")
                    }
                    for (kind, body) in entry.entries {
                        switch kind {
                        case "evdev":
                            guard case .sequence(let rows) = body.value else {
                                throw fail(body, "'evdev:' must be a list of [sec, usec, type, code, value]")
                            }
                            for row in rows {
                                let event = try evdevEvent(row, fail: fail)
                                if let last = events.last, event.timestampMicros < last.timestampMicros {
                                    throw fail(row, "event time goes backwards")
                                }
                                events.append(event)
                            }
                        case "libinput":
                            guard case .sequence(let rows) = body.value else {
                                throw fail(body, "'libinput:' must be a list of events")
                            }
                            for row in rows {
                                if let touch = try libinputTouch(row, fail: fail) { touches.append(touch) }
                            }
                        default:
                            // Other event kinds a newer libinput may write (e.g. hid reports) are not needed.
                            break
                        }
                    }
                }
            case .null: break
            default: throw fail(eventsNode, "'events' must be a list")
            }
        }
        return Recording(
            device: RecordedDevice(
                name: name, absinfo: absinfo, properties: properties, codes: codes, inputId: inputId),
            events: events,
            libinputTouches: touches)
    }

    private static func evdevEvent(
        _ row: MiniYAML.Node, fail: (MiniYAML.Node, String) -> RecordingError
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
        _ row: MiniYAML.Node, fail: (MiniYAML.Node, String) -> RecordingError
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
        _ node: MiniYAML.Node, count: Int?, what: String, fail: (MiniYAML.Node, String) -> RecordingError
    ) throws(RecordingError) -> [Int32] {
        guard case .sequence(let items) = node.value else { throw fail(node, "\(what) must be a list [ … ]") }
        if let count, items.count != count {
            throw fail(node, "\(what) must have \(count) numbers, found \(items.count)")
        }
        var numbers: [Int32] = []
        for item in items {
            guard let text = item.scalar, let number = Int32(text) else {
                throw fail(node, "\(what): '\(item.scalar ?? "…")' is not an integer")
            }
            numbers.append(number)
        }
        return numbers
    }
}

/// The YAML subset `libinput record` writes, parsed into a tree whose nodes remember their line.
enum MiniYAML {
    struct Mapping: Sendable {
        var entries: [(key: String, node: Node)] = []
        subscript(key: String) -> Node? { entries.first(where: { $0.key == key })?.node }
    }

    indirect enum Value: Sendable {
        case null
        case scalar(String)
        case sequence([Node])
        case mapping(Mapping)
    }

    struct Node: Sendable {
        var value: Value
        var line: Int
        var scalar: String? { if case .scalar(let text) = value { text } else { nil } }
    }

    /// One meaningful line: its number, indentation (spaces) and text without the comment.
    struct Line {
        var number: Int
        var indent: Int
        var text: Substring
    }

    static func parse(_ text: String, file: String) throws(RecordingError) -> Node {
        var lines: [Line] = []
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if line.contains("\t") {
                let beforeText = line.prefix(while: { $0 == " " || $0 == "\t" })
                if beforeText.contains("\t") {
                    throw RecordingError(file: file, line: number, message: "tab in indentation")
                }
            }
            let content = try stripComment(line, file: file, line: number)
            let indent = content.prefix(while: { $0 == " " }).count
            let body = content.dropFirst(indent).trimmingSpaces()
            if body.isEmpty { continue }
            lines.append(Line(number: number, indent: indent, text: body))
        }
        var parser = Parser(lines: lines, file: file)
        guard !lines.isEmpty else { throw RecordingError(file: file, line: 1, message: "empty file") }
        let root = try parser.block(indent: lines[0].indent)
        if parser.index < parser.lines.count {
            let line = parser.lines[parser.index]
            throw RecordingError(file: file, line: line.number, message: "unexpected indentation")
        }
        return root
    }

    /// The line without a `#` comment (a `#` at the start or after a space, outside double quotes).
    static func stripComment(_ line: Substring, file: String, line number: Int) throws(RecordingError)
        -> Substring
    {
        var inQuotes = false
        var previous: Character = " "
        var escaped = false
        for index in line.indices {
            let character = line[index]
            if inQuotes {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inQuotes = false
                }
            } else if character == "\"" {
                inQuotes = true
            } else if character == "#" && (previous == " " || previous == "\t") {
                return line[..<index]
            }
            previous = character
        }
        if inQuotes { throw RecordingError(file: file, line: number, message: "unterminated string") }
        return line
    }

    struct Parser {
        var lines: [Line]
        var file: String
        var index = 0

        func fail(_ line: Line, _ message: String) -> RecordingError {
            RecordingError(file: file, line: line.number, message: message)
        }

        /// A mapping or sequence whose lines start at exactly `indent`.
        mutating func block(indent: Int) throws(RecordingError) -> Node {
            let first = lines[index]
            if isSequenceItem(first.text) { return try sequence(indent: indent) }
            return try mapping(indent: indent)
        }

        func isSequenceItem(_ text: Substring) -> Bool { text == "-" || text.hasPrefix("- ") }

        mutating func sequence(indent: Int) throws(RecordingError) -> Node {
            let startLine = lines[index].number
            var items: [Node] = []
            while index < lines.count, lines[index].indent == indent, isSequenceItem(lines[index].text) {
                let line = lines[index]
                let rest = line.text.dropFirst(1).drop(while: { $0 == " " })
                if rest.isEmpty {
                    index += 1
                    if index < lines.count, lines[index].indent > indent {
                        items.append(try block(indent: lines[index].indent))
                    } else {
                        items.append(Node(value: .null, line: line.number))
                    }
                } else if rest.first == "[" || rest.first == "{" || rest.first == "\""
                    || keyValueSplit(rest) == nil
                {
                    items.append(try flowValue(rest, line: line))
                    index += 1
                } else {
                    // "- key: value" opens a mapping whose keys sit at the column after "- ".
                    let column = indent + (line.text.count - rest.count)
                    lines[index] = Line(number: line.number, indent: column, text: rest)
                    items.append(try mapping(indent: column))
                }
            }
            if index < lines.count, lines[index].indent > indent {
                throw fail(lines[index], "unexpected indentation")
            }
            return Node(value: .sequence(items), line: startLine)
        }

        mutating func mapping(indent: Int) throws(RecordingError) -> Node {
            let startLine = lines[index].number
            var mapping = Mapping()
            while index < lines.count, lines[index].indent == indent, !isSequenceItem(lines[index].text) {
                let line = lines[index]
                guard let (key, value) = keyValueSplit(line.text) else {
                    throw fail(line, "expected 'key: value', found '\(line.text.prefix(40))'")
                }
                guard mapping[key] == nil else { throw fail(line, "duplicate key '\(key)'") }
                index += 1
                let node: Node
                if !value.isEmpty {
                    node = try flowValue(value, line: line)
                } else if index < lines.count, lines[index].indent > indent {
                    node = try block(indent: lines[index].indent)
                } else if index < lines.count, lines[index].indent == indent,
                    isSequenceItem(lines[index].text)
                {
                    node = try sequence(indent: indent)
                } else {
                    node = Node(value: .null, line: line.number)
                }
                mapping.entries.append((key, node))
            }
            if index < lines.count, lines[index].indent > indent {
                throw fail(lines[index], "unexpected indentation")
            }
            return Node(value: .mapping(mapping), line: startLine)
        }

        /// Splits `key: value` / `key:` at the first `:` followed by a space or the end, outside quotes.
        func keyValueSplit(_ text: Substring) -> (String, Substring)? {
            var inQuotes = false
            for index in text.indices {
                let character = text[index]
                if character == "\"" { inQuotes.toggle() }
                if inQuotes || character != ":" { continue }
                let after = text.index(after: index)
                guard after == text.endIndex || text[after] == " " else { continue }
                var key = text[..<index].trimmingSpaces()
                if key.hasPrefix("\"") && key.hasSuffix("\"") && key.count >= 2 {
                    key = key.dropFirst().dropLast()
                }
                guard !key.isEmpty, !key.contains(where: { "[]{},".contains($0) }) else { return nil }
                return (String(key), text[after...].trimmingSpaces())
            }
            return nil
        }

        func flowValue(_ text: Substring, line: Line) throws(RecordingError) -> Node {
            var flow = Flow(text: text, position: text.startIndex, line: line.number)
            guard let value = flow.value(), flow.atEnd() else {
                throw fail(line, "malformed value '\(text.prefix(40))'")
            }
            return Node(value: value, line: line.number)
        }
    }

    /// A flow value on one line: scalar, "string", [a, b], {k: v}.
    struct Flow {
        var text: Substring
        var position: Substring.Index
        /// The line every node of this value is on.
        var line: Int

        mutating func skipSpaces() {
            while position < text.endIndex, text[position] == " " { position = text.index(after: position) }
        }

        mutating func atEnd() -> Bool {
            skipSpaces()
            return position == text.endIndex
        }

        mutating func value(inFlow: Bool = false) -> Value? {
            skipSpaces()
            guard position < text.endIndex else { return nil }
            switch text[position] {
            case "[":
                position = text.index(after: position)
                var items: [Node] = []
                skipSpaces()
                if position < text.endIndex, text[position] == "]" {
                    position = text.index(after: position)
                    return .sequence(items)
                }
                while true {
                    guard let item = value(inFlow: true) else { return nil }
                    items.append(Node(value: item, line: line))
                    skipSpaces()
                    guard position < text.endIndex else { return nil }
                    let character = text[position]
                    position = text.index(after: position)
                    if character == "]" { return .sequence(items) }
                    guard character == "," else { return nil }
                }
            case "{":
                position = text.index(after: position)
                var mapping = Mapping()
                skipSpaces()
                if position < text.endIndex, text[position] == "}" {
                    position = text.index(after: position)
                    return .mapping(mapping)
                }
                while true {
                    skipSpaces()
                    let keyStart = position
                    while position < text.endIndex, text[position] != ":" {
                        position = text.index(after: position)
                    }
                    guard position < text.endIndex else { return nil }
                    let key = text[keyStart..<position].trimmingSpaces()
                    guard !key.isEmpty, !key.contains(where: { "[]{},\"".contains($0) }) else { return nil }
                    position = text.index(after: position)
                    guard let item = value(inFlow: true) else { return nil }
                    mapping.entries.append((String(key), Node(value: item, line: line)))
                    skipSpaces()
                    guard position < text.endIndex else { return nil }
                    let character = text[position]
                    position = text.index(after: position)
                    if character == "}" { return .mapping(mapping) }
                    guard character == "," else { return nil }
                }
            case "\"":
                position = text.index(after: position)
                var result = ""
                while position < text.endIndex {
                    let character = text[position]
                    position = text.index(after: position)
                    if character == "\"" { return .scalar(result) }
                    if character == "\\" {
                        guard position < text.endIndex else { return nil }
                        let escaped = text[position]
                        position = text.index(after: position)
                        switch escaped {
                        case "n": result.append("\n")
                        case "t": result.append("\t")
                        case "\"", "\\", "/": result.append(escaped)
                        default: return nil
                        }
                    } else {
                        result.append(character)
                    }
                }
                return nil
            case "]", "}", ",":
                return nil
            default:
                let start = position
                while position < text.endIndex {
                    let character = text[position]
                    if inFlow && (character == "," || character == "]" || character == "}") { break }
                    if !inFlow && (character == "[" || character == "{") { return nil }
                    position = text.index(after: position)
                }
                let scalar = text[start..<position].trimmingSpaces()
                return scalar.isEmpty ? nil : .scalar(String(scalar))
            }
        }
    }
}
