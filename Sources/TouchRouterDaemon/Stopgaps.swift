/// Minimal stand-ins for parts other branches are building (the protocol's outbox, recordings), so the daemon's glue runs end to end before they land. Each is replaced by the
/// real part as soon as it is merged; the seams are the names used in Daemon.swift.
import Foundation
import TouchRouterCore

/// A recording that cannot be replayed.
public struct RecordingLoadError: Error, CustomStringConvertible {
    public var description: String
}

// MARK: - Protocol's outbound queue (stand-in until the protocol branch has one)

/// A client's bounded outbound queue: whole lines, written in order.
struct Outbox {
    let capacityBytes: Int
    private(set) var pending: [UInt8] = []
    private var sent = 0

    init(capacityBytes: Int) { self.capacityBytes = capacityBytes }

    var pendingBytes: Int { pending.count - sent }

    /// False when the line does not fit: the client is too slow.
    mutating func enqueue(_ line: [UInt8]) -> Bool {
        guard pendingBytes + line.count <= capacityBytes else { return false }
        pending.append(contentsOf: line)
        return true
    }

    mutating func enqueue(touches: ViewTouches, encoded line: [UInt8]) -> Bool { enqueue(line) }

    func withPendingBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try pending.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
    }

    /// Drops every whole unsent line, keeps the rest of a partly sent one (so the stream stays
    /// line-aligned) and queues `line`: the last thing a client cut off is told.
    mutating func replaceUnsent(with line: [UInt8]) {
        let partEnd = pending[sent...].firstIndex(of: 0x0A).map { $0 + 1 } ?? pending.count
        let partial = sent > 0 && sent < pending.count && pending[sent - 1] != 0x0A
        pending = (partial ? Array(pending[sent..<partEnd]) : []) + line
        sent = 0
    }

    mutating func consume(_ count: Int) {
        sent += count
        if sent == pending.count {
            pending.removeAll(keepingCapacity: true)
            sent = 0
        }
    }
}

// MARK: - Recordings (stand-in for the recordings branch)

enum RecordingLoader {
    /// Reads an evemu `.events` file (device description beside it or at `devicePath`) into frames
    /// on the layout's first screen.
    static func load(path: String, devicePath: String?, layout: Layout) throws -> [InputEvent] {
        func fail(_ message: String) -> RecordingLoadError { RecordingLoadError(description: "\(path): \(message)") }
        guard let screen = layout.screens.first else { throw fail("the layout has no screen") }
        let descPath = devicePath ?? (path.components(separatedBy: ".").dropLast(2).joined(separator: ".") + ".desc")
        guard let events = try? String(contentsOfFile: path, encoding: .utf8),
            let desc = try? String(contentsOfFile: descPath, encoding: .utf8)
        else { throw fail("cannot read the recording or \(descPath)") }
        var ranges: [Int: (Double, Double)] = [:]  // ABS code → min, max
        for line in desc.split(separator: "\n") where line.hasPrefix("A: ") {
            let parts = line.split(whereSeparator: \.isWhitespace)
            if parts.count >= 4, let code = Int(parts[1], radix: 16), let low = Double(parts[2]),
                let high = Double(parts[3])
            {
                ranges[code] = (low, high)
            }
        }
        let name = desc.split(separator: "\n").first { $0.hasPrefix("N: ") }.map { String($0.dropFirst(3)) } ?? "replay"
        let device = InputDevice(id: 1, name: name)
        var result: [InputEvent] = []
        var slot: Int32 = 0
        var points: [Int32: Point] = [:]
        var contacts: [Int32: ContactEvent.Kind] = [:]
        var live = Set<Int32>()
        for line in events.split(separator: "\n") where line.hasPrefix("E: ") {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count >= 5, let time = Double(fields[1]), let type = Int(fields[2], radix: 16),
                let code = Int(fields[3], radix: 16), let value = Int(fields[4])
            else { continue }
            func scaled(_ code: Int, _ size: Double) -> Double {
                let (lo, hi) = ranges[code] ?? (0, 1)
                return (Double(value) - lo) / (hi - lo + 1) * size
            }
            switch (type, code) {
            case (3, 0x2F): slot = Int32(value)
            case (3, 0x39):
                if value < 0 { contacts[slot] = .up; live.remove(slot) } else { contacts[slot] = .down; live.insert(slot) }
            case (3, 0x35): points[slot, default: Point(0, 0)].x = scaled(code, screen.width); if contacts[slot] == nil { contacts[slot] = .motion }
            case (3, 0x36): points[slot, default: Point(0, 0)].y = scaled(code, screen.height); if contacts[slot] == nil { contacts[slot] = .motion }
            case (0, 0):
                let changes = contacts.sorted { $0.key < $1.key }.map {
                    ContactEvent(kind: $0.value, slot: $0.key, screenPoint: points[$0.key] ?? Point(0, 0))
                }
                contacts = [:]
                if !changes.isEmpty {
                    result.append(.frame(InputFrame(
                        device: device, screen: screen.name, timestampMicros: UInt64(time * 1_000_000),
                        contacts: changes)))
                }
            default: break
            }
        }
        return result
    }
}
