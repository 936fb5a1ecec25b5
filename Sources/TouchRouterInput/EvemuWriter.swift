/// Writes evemu text, the format `evemu-record` writes and `EvemuReader` reads: a device's
/// description, then its events. `touchrouterctl inject --output` saves a gesture script this way, so
/// a recording of known touches can be made without a touchscreen or `/dev/uinput`.
public enum EvemuWriter {
    /// The description of `spec` (`N:`, `I:`, `P:`, `B:`, `A:` lines) followed by `events` (`E:` lines),
    /// after a `#` line for each of `comments`.
    public static func text(spec: VirtualDeviceSpec, events: [EvdevEvent], comments: [String] = []) -> String {
        var lines = ["# EVEMU 1.3"] + comments.map { "# \($0)" }
        lines.append("N: \(spec.name)")
        lines.append("I: \([spec.bustype, spec.vendor, spec.product, spec.version].map(hex4).joined(separator: " "))")
        lines.append("P: \(bitmask(spec.properties))")
        var codes = spec.codes
        if !spec.absoluteAxes.isEmpty { codes[EvdevCode.evAbs, default: []] += spec.absoluteAxes.map(\.code) }
        for type in codes.keys.sorted() {
            lines.append("B: \(hex2(type)) \(bitmask(codes[type] ?? []))")
        }
        for axis in spec.absoluteAxes.sorted(by: { $0.code < $1.code }) {
            let numbers = [axis.minimum, axis.maximum, axis.fuzz, axis.flat, axis.resolution].map(String.init)
            lines.append("A: \(hex2(axis.code)) \(numbers.joined(separator: " "))")
        }
        for event in events {
            let seconds = event.timestampMicros / 1_000_000
            let micros = String(event.timestampMicros % 1_000_000)
            let fraction = String(repeating: "0", count: 6 - micros.count) + micros
            lines.append("E: \(seconds).\(fraction) \(hex4(event.type)) \(hex4(event.code)) \(event.value)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Little-endian bytes with these bit numbers set, in hex (`02 00` for bit 1).
    private static func bitmask(_ bits: [UInt16]) -> String {
        var bytes = [UInt8](repeating: 0, count: Int(bits.max() ?? 0) / 8 + 1)
        for bit in bits { bytes[Int(bit) / 8] |= 1 << (bit % 8) }
        return bytes.map(hex2).joined(separator: " ")
    }

    private static func hex2<Number: BinaryInteger>(_ value: Number) -> String { padded(value, 2) }
    private static func hex4<Number: BinaryInteger>(_ value: Number) -> String { padded(value, 4) }
    private static func padded<Number: BinaryInteger>(_ value: Number, _ width: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
