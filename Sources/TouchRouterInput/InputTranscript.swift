import Glibc
import TouchRouterCore

/// A plain-text transcript of input events, one line per frame or removal: what the hidden
/// `touchrouterctl input-events` prints and what the VM suite compares between the live libinput
/// path and the replay decoder.
///
/// Lines:
/// - `frame SCREEN TIME_US dev=ID KIND:SLOT:X:Y …` (KIND is down, motion, up, cancel; X, Y in
///   the screen's layout units with 3 decimals)
/// - `removed dev=ID TIME_US`
public enum InputTranscript {
    /// One event as a transcript line.
    public static func line(_ event: InputEvent) -> String {
        switch event {
        case .frame(let frame):
            let contacts = frame.contacts.map { contact in
                "\(contact.kind.word):\(contact.slot):\(format(contact.screenPoint.x)):\(format(contact.screenPoint.y))"
            }
            return
                (["frame", frame.screen, String(frame.timestampMicros), "dev=\(frame.device.id)"] + contacts)
                .joined(separator: " ")
        case .deviceRemoved(let device, let timestampMicros):
            return "removed dev=\(device.id) \(timestampMicros)"
        }
    }

    /// One contact of a parsed frame line.
    public struct Contact: Hashable, Sendable {
        public var kind: String
        public var slot: Int32
        public var x: Double
        public var y: Double
    }

    /// The frames of a transcript (other lines are skipped): screen and contacts.
    public static func frames(_ text: String) -> [(screen: String, contacts: [Contact])] {
        text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count >= 4, words[0] == "frame" else { return nil }
            let contacts = words.dropFirst(4).compactMap { word -> Contact? in
                let parts = word.split(separator: ":")
                guard parts.count == 4, let slot = Int32(parts[1]), let x = Double(parts[2]),
                    let y = Double(parts[3])
                else { return nil }
                return Contact(kind: String(parts[0]), slot: slot, x: x, y: y)
            }
            return (String(words[1]), contacts)
        }
    }

    /// Compares two transcripts contact by contact: same frames, same kinds, positions within
    /// `tolerance` layout units, and the same contact identity (slots may be numbered differently,
    /// so each `actual` slot is paired with the `expected` slot it went down with). Returns the
    /// differences, at most `limit`; empty when they agree.
    public static func differences(
        expected: String, actual: String, tolerance: Double, limit: Int = 10
    ) -> [String] {
        let expectedFrames = frames(expected)
        let actualFrames = frames(actual)
        var problems: [String] = []
        if expectedFrames.count != actualFrames.count {
            problems.append("frame count: expected \(expectedFrames.count), got \(actualFrames.count)")
        }
        var slotPairs: [Int32: Int32] = [:]
        for (index, (wanted, got)) in zip(expectedFrames, actualFrames).enumerated() {
            guard problems.count < limit else { break }
            let label = "frame \(index + 1)"
            if wanted.screen != got.screen {
                problems.append("\(label): screen \(got.screen), expected \(wanted.screen)")
            }
            guard wanted.contacts.count == got.contacts.count else {
                problems.append("\(label): \(got.contacts.count) contacts, expected \(wanted.contacts.count)")
                continue
            }
            // Within a frame the order of slots may differ: match each expected contact by slot.
            for gotContact in got.contacts {
                if gotContact.kind == "down" {
                    let candidates = wanted.contacts.filter {
                        $0.kind == "down" && !slotPairs.values.contains($0.slot)
                    }
                    slotPairs[gotContact.slot] =
                        candidates.min {
                            hypot($0.x - gotContact.x, $0.y - gotContact.y)
                                < hypot($1.x - gotContact.x, $1.y - gotContact.y)
                        }?.slot
                }
                guard let expectedSlot = slotPairs[gotContact.slot],
                    let wantedContact = wanted.contacts.first(where: { $0.slot == expectedSlot })
                else {
                    problems.append(
                        "\(label): slot \(gotContact.slot) (\(gotContact.kind)) has no expected contact")
                    continue
                }
                if wantedContact.kind != gotContact.kind {
                    problems.append(
                        "\(label): slot \(gotContact.slot) \(gotContact.kind), expected \(wantedContact.kind)"
                    )
                } else if gotContact.kind == "down" || gotContact.kind == "motion",
                    abs(wantedContact.x - gotContact.x) > tolerance
                        || abs(wantedContact.y - gotContact.y) > tolerance
                {
                    problems.append(
                        "\(label): slot \(gotContact.slot) at (\(gotContact.x), \(gotContact.y)), "
                            + "expected (\(wantedContact.x), \(wantedContact.y))")
                }
                if gotContact.kind == "up" || gotContact.kind == "cancel" { slotPairs[gotContact.slot] = nil }
            }
        }
        return Array(problems.prefix(limit))
    }

    private static func format(_ value: Double) -> String {
        let scaled = (value * 1000).rounded()
        let sign = scaled < 0 ? "-" : ""
        let magnitude = Int64(abs(scaled))
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}

extension ContactEvent.Kind {
    /// The transcript word for the kind.
    public var word: String {
        switch self {
        case .down: "down"
        case .motion: "motion"
        case .up: "up"
        case .cancel: "cancel"
        }
    }
}
