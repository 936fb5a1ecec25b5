import TouchRouterCore

// The evemu text format (evemu-describe / evemu-record output), read strictly.
//
// Lines: `# comment`, blank, `N: name`, `I: bus vendor product version` (hex), `P: bytes` (property
// bitmask, hex bytes, continued over several lines), `B: type bytes` (event code bitmasks, hex),
// `A: code min max fuzz flat [resolution]` (code hex, numbers decimal), `L:`/`S:` (LED/switch states,
// ignored) and `E: sec.usec type code value` (type and code hex, value decimal, optional `# comment`).

/// Reads evemu `.desc` and `.events` text.
public enum EvemuReader {
    /// What one evemu text holds: the device when it has a description, and its events (maybe none).
    public struct Parsed: Hashable, Sendable {
        public var device: RecordedDevice?
        public var events: [EvdevEvent]
    }

    /// Parses evemu text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(RecordingError) -> Parsed {
        var name: String?
        var absinfo: [UInt16: AbsInfo] = [:]
        var properties = Set<UInt16>()
        var propertyByteIndex = 0
        var codeBytes: [UInt16: [UInt8]] = [:]
        var inputId: InputId?
        var sawDescription = false
        var events: [EvdevEvent] = []
        var lineNumber = 0

        var rest = text[...]
        while let line = nextLine(&rest) {
            lineNumber += 1
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            func fail(_ message: String) -> RecordingError {
                RecordingError(file: file, line: lineNumber, message: message)
            }
            guard trimmed.count >= 2, trimmed.dropFirst().first == ":" else {
                throw fail("expected a tag such as 'E:', 'A:' or 'N:', found '\(quoted(trimmed))'")
            }
            let tag = trimmed.first!
            let body = trimmed.dropFirst(2)
            // Everything after a '#' is a comment (E: lines carry one); names keep theirs.
            let withoutComment =
                tag == "N"
                ? body : body.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let fields = withoutComment.split(whereSeparator: { $0 == " " || $0 == "\t" })
            switch tag {
            case "N":
                guard name == nil else { throw fail("second device name (N:) in one file") }
                let value = body.trimmingSpaces()
                guard !value.isEmpty else { throw fail("empty device name") }
                name = String(value)
                sawDescription = true
            case "I":
                let numbers = fields.compactMap { UInt16($0, radix: 16) }
                guard fields.count == 4, numbers.count == 4 else {
                    throw fail("I: wants four hex numbers (bus vendor product version)")
                }
                inputId = InputId(
                    bustype: numbers[0], vendor: numbers[1], product: numbers[2], version: numbers[3])
                sawDescription = true
            case "P":
                for field in fields {
                    guard let byte = UInt8(field, radix: 16) else {
                        throw fail("P: '\(quoted(field))' is not a hex byte")
                    }
                    for bit in 0..<8 where byte & (1 << bit) != 0 {
                        properties.insert(UInt16(propertyByteIndex * 8 + bit))
                    }
                    propertyByteIndex += 1
                }
                sawDescription = true
            case "B":
                let bytes = fields.compactMap { UInt8($0, radix: 16) }
                guard !fields.isEmpty, bytes.count == fields.count else {
                    throw fail("B: wants an event type and bitmask bytes, all hex")
                }
                // Lines for the same type continue its bitmask.
                codeBytes[UInt16(bytes[0]), default: []] += bytes.dropFirst()
                sawDescription = true
            case "L", "S":
                sawDescription = true
            case "A":
                guard fields.count == 5 || fields.count == 6 else {
                    throw fail("A: wants 'code min max fuzz flat [resolution]', found \(fields.count) fields")
                }
                guard let code = UInt16(fields[0], radix: 16), code <= 0x3f else {
                    throw fail("A: '\(quoted(fields[0]))' is not an ABS code in hex (00…3f)")
                }
                var numbers: [Int32] = []
                for field in fields.dropFirst() {
                    guard let number = Int32(field) else {
                        throw fail("A: '\(quoted(field))' is not a decimal integer")
                    }
                    numbers.append(number)
                }
                guard numbers[0] <= numbers[1] else {
                    throw fail("A: minimum \(numbers[0]) > maximum \(numbers[1])")
                }
                guard absinfo[code] == nil else { throw fail("A: axis \(quoted(fields[0])) described twice") }
                let info = AbsInfo(
                    minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
                    resolution: numbers.count == 5 ? numbers[4] : 0)
                if let problem = RecordedDevice.axisProblem(code: code, info) { throw fail("A: \(problem)") }
                absinfo[code] = info
                sawDescription = true
            case "E":
                guard fields.count == 4 else {
                    throw fail("E: wants 'sec.usec type code value', found \(fields.count) fields")
                }
                guard let time = parseTimestamp(fields[0]) else {
                    throw fail("E: '\(quoted(fields[0]))' is not a timestamp 'seconds.microseconds'")
                }
                guard let type = UInt16(fields[1], radix: 16) else {
                    throw fail("E: type '\(quoted(fields[1]))' is not hex")
                }
                guard let code = UInt16(fields[2], radix: 16) else {
                    throw fail("E: code '\(quoted(fields[2]))' is not hex")
                }
                guard let value = Int32(fields[3]) else {
                    throw fail("E: value '\(quoted(fields[3]))' is not a decimal integer")
                }
                if let last = events.last, time < last.timestampMicros {
                    throw fail("E: time goes backwards (\(time)µs after \(last.timestampMicros)µs)")
                }
                events.append(EvdevEvent(timestampMicros: time, type: type, code: code, value: value))
            default:
                throw fail("unknown tag '\(quoted(trimmed.prefix(1))):'")
            }
        }

        guard sawDescription else { return Parsed(device: nil, events: events) }
        guard let name else {
            throw RecordingError(file: file, line: 0, message: "device description without a name (N:)")
        }
        var codes: [UInt16: Set<UInt16>] = [:]
        for (type, bytes) in codeBytes where type != EvdevCode.evSyn {
            var set = Set<UInt16>()
            for (index, byte) in bytes.enumerated() {
                for bit in 0..<8 where byte & (1 << bit) != 0 { set.insert(UInt16(index * 8 + bit)) }
            }
            if !set.isEmpty { codes[type] = set }
        }
        let device = RecordedDevice(
            name: name, absinfo: absinfo, properties: properties, codes: codes, inputId: inputId)
        return Parsed(device: device, events: events)
    }

    /// A piece of a line as an error quotes it: an excerpt (`Excerpt`), however long the line.
    static func quoted(_ text: Substring) -> String {
        Excerpt.of(String(text.unicodeScalars.prefix(Excerpt.limit + 1)))
    }

    /// The text before the next newline (without a `\r` before it), taken off `rest` with the
    /// newline; nil when nothing is left. Found by UTF-8 byte, one line at a time: no array of lines
    /// is ever made (it took 32 bytes per line, 30 times the size of a file of empty lines).
    static func nextLine(_ rest: inout Substring) -> Substring? {
        guard !rest.isEmpty else { return nil }
        let end = rest.utf8.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
        var line = rest[..<end]
        rest = end == rest.endIndex ? rest[end...] : rest[rest.utf8.index(after: end)...]
        if line.utf8.last == UInt8(ascii: "\r") { line = line[..<line.utf8.index(before: line.endIndex)] }
        return line
    }

    /// `seconds.microseconds` (the fraction is read as a decimal fraction of a second, up to 6 digits).
    static func parseTimestamp(_ text: Substring) -> UInt64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let seconds = UInt64(parts[0]), !parts[1].isEmpty, parts[1].count <= 6,
            parts[1].allSatisfy(\.isASCII), let fraction = UInt64(parts[1])
        else { return nil }
        var micros = fraction
        for _ in parts[1].count..<6 { micros *= 10 }
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        let (sum, overflowAgain) = product.addingReportingOverflow(micros)
        guard !overflow, !overflowAgain else { return nil }
        return sum
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
