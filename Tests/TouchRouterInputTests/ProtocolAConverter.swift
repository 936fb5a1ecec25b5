import Foundation

@testable import TouchRouterInput

/// Makes a protocol-A recording (multitouch without slots, as older and cheaper panels send it) out
/// of a slotted protocol-B one: what `Tests/Fixtures/recordings/protocol-a/` holds.
///
/// Each kernel frame of the source becomes, at its SYN_REPORT's time: every finger down, in slot
/// order, as ABS_MT_POSITION_X, ABS_MT_POSITION_Y, SYN_MT_REPORT (no slots, no tracking ids); a lone
/// SYN_MT_REPORT when no finger is down (what protocol-A drivers send when the last one lifts); then
/// the frame's single-touch emulation (BTN_TOUCH, ABS_X, ABS_Y) as recorded; then SYN_REPORT.
/// The device is the source's without ABS_MT_SLOT, ABS_MT_TRACKING_ID and the other MT axes.
/// `ProtocolAFixtureTests` checks that the committed files are this converter's output and rewrites
/// them when run with `TOUCHROUTER_WRITE_FIXTURES=1`.
enum ProtocolAConverter {
    /// The ABS_MT axes a protocol-A fixture keeps: the two positions.
    static let keptMultitouchCodes: Set<UInt16> = [EvdevCode.absMtPositionX, EvdevCode.absMtPositionY]

    /// The protocol-A events of a slotted recording's events.
    static func convert(_ events: [EvdevEvent]) -> [EvdevEvent] {
        var output: [EvdevEvent] = []
        var slot: Int32 = 0
        var down: [Int32: (x: Int32, y: Int32)] = [:]
        var positions: [Int32: (x: Int32, y: Int32)] = [:]
        var singleTouch: [EvdevEvent] = []
        for event in events {
            switch (event.type, event.code) {
            case (EvdevCode.evAbs, EvdevCode.absMtSlot):
                slot = event.value
            case (EvdevCode.evAbs, EvdevCode.absMtTrackingId):
                down[slot] = event.value >= 0 ? positions[slot, default: (0, 0)] : nil
            case (EvdevCode.evAbs, EvdevCode.absMtPositionX):
                positions[slot, default: (0, 0)].x = event.value
                if down[slot] != nil { down[slot]!.x = event.value }
            case (EvdevCode.evAbs, EvdevCode.absMtPositionY):
                positions[slot, default: (0, 0)].y = event.value
                if down[slot] != nil { down[slot]!.y = event.value }
            case (EvdevCode.evKey, EvdevCode.btnTouch), (EvdevCode.evAbs, EvdevCode.absX),
                (EvdevCode.evAbs, EvdevCode.absY):
                singleTouch.append(event)
            case (EvdevCode.evSyn, EvdevCode.synReport):
                let time = event.timestampMicros
                func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
                    output.append(EvdevEvent(timestampMicros: time, type: type, code: code, value: value))
                }
                for (_, point) in down.sorted(by: { $0.key < $1.key }) {
                    emit(EvdevCode.evAbs, EvdevCode.absMtPositionX, point.x)
                    emit(EvdevCode.evAbs, EvdevCode.absMtPositionY, point.y)
                    emit(EvdevCode.evSyn, EvdevCode.synMtReport, 0)
                }
                if down.isEmpty { emit(EvdevCode.evSyn, EvdevCode.synMtReport, 0) }
                for single in singleTouch { emit(single.type, single.code, single.value) }
                singleTouch = []
                emit(EvdevCode.evSyn, EvdevCode.synReport, 0)
            default:
                break
            }
        }
        return output
    }

    /// The evemu `.events` text of protocol-A events.
    static func eventsText(_ events: [EvdevEvent], source: String) -> String {
        var text = """
            # EVEMU 1.3
            # Protocol-A (no slots, no tracking ids) conversion of evemu/\(source),
            # made by Tests/TouchRouterInputTests/ProtocolAConverter.swift. Do not edit.

            """
        for event in events {
            let seconds = event.timestampMicros / 1_000_000
            let micros = String(event.timestampMicros % 1_000_000)
            text +=
                "E: \(seconds).\(String(repeating: "0", count: 6 - micros.count))\(micros) "
                + "\(hex4(event.type)) \(hex4(event.code)) \(decimal4(event.value))\n"
        }
        return text
    }

    /// The evemu `.desc` text of the protocol-A device made from a slotted device's `.desc`: renamed,
    /// ABS_MT_* other than the positions taken out of the ABS bitmask and the axis list.
    static func descriptionText(sourceDescription: String, source: String, name: String) -> String {
        // evemu reads six-number A: lines only from a file that says it is version 1.3.
        var lines = [
            "# EVEMU 1.3",
            "# The protocol-A twin of evemu/\(source): no ABS_MT_SLOT, no MT axis but the positions,",
            "# made by Tests/TouchRouterInputTests/ProtocolAConverter.swift. Do not edit.",
        ]
        for line in sourceDescription.split(separator: "\n").map(String.init) where !line.hasPrefix("#") {
            var fields = line.split(separator: " ").map(String.init)
            switch fields.first {
            case "N:":
                lines.append("N: \(name)")
            case "B:" where fields.count > 2 && fields[1] == "03":
                for index in 2..<fields.count {
                    var byte = UInt8(fields[index], radix: 16)!
                    for bit in 0..<8 where removed(UInt16((index - 2) * 8 + bit)) { byte &= ~(1 << bit) }
                    fields[index] = hex2(byte)
                }
                lines.append(fields.joined(separator: " "))
            case "A:" where removed(UInt16(fields[1], radix: 16)!):
                continue
            default:
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// ABS_MT_SLOT and every ABS_MT axis but the positions.
    private static func removed(_ code: UInt16) -> Bool {
        (EvdevCode.absMtSlot...0x3d).contains(code) && !keptMultitouchCodes.contains(code)
    }

    private static func hex2(_ value: UInt8) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 2 - digits.count) + digits
    }

    private static func hex4(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// evemu's `%04d`.
    private static func decimal4(_ value: Int32) -> String {
        let digits = String(Swift.abs(Int64(value)))
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: Swift.max(0, 4 - sign.count - digits.count)) + digits
    }
}
