/// A minimal stand-in for a part another branch is building (the protocol's outbox), so the daemon's glue runs end to end before they land. Each is replaced by the
/// real part as soon as it is merged; the seams are the names used in Daemon.swift.
import Foundation
import TouchRouterCore

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

