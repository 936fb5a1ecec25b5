import TouchRouterModel

/// One client's bounded queue of outbound bytes, with the coalescing that lets a slow reader fall
/// behind without losing a touch's start or end. Pure: the daemon owns the socket and tells the
/// outbox how many bytes a write took.
///
/// Two parts:
/// - the *committed* bytes: handed to the socket, possibly partly written; never changed again
///   (a line may be half on the wire);
/// - the *pending* messages: encoded into one byte buffer as they arrive, each remembered with
///   its structured `ViewTouches`, so they can still be coalesced.
///
/// When the pending bytes are taken for writing they become the committed bytes in one swap, so
/// the common case (a client that keeps up) encodes each message once and makes one write per
/// frame with no copying and, once the buffers have grown, no allocation.
public struct ClientOutbox: Sendable {
    /// What `enqueue` did.
    public enum EnqueueResult: Hashable, Sendable {
        /// Queued within budget.
        case queued
        /// Over budget, coalescing brought the queue back within it.
        case coalesced
        /// Still over budget after coalescing: the client cannot keep up. The outbox has already
        /// dropped every message not yet on the wire and queued a final `queue-overflow` error
        /// line right behind the rest of a partly written line: one write of `bytesToWrite()`
        /// (if the socket takes it) tells the client why; then disconnect.
        case overflow
    }

    private enum Kind: Sendable {
        case touches(ViewTouches)
        /// A reply, error or `layoutChanged`: never dropped.
        case line
    }

    private struct Entry: Sendable {
        var kind: Kind
        var byteCount: Int
    }

    /// The most bytes (committed and pending) the outbox holds before it coalesces, then overflows.
    public let byteBudget: Int
    private var committed: [UInt8] = []
    private var committedOffset = 0
    private var pending: [UInt8] = []
    private var entries: [Entry] = []
    /// Set once the outbox overflowed (or was finished with an error): it accepts nothing more.
    public private(set) var hasOverflowed = false
    /// `touches` messages removed by coalescing so far (a status counter).
    public private(set) var coalescedMessageCount = 0
    /// Bytes of replies queued with `enqueue(reply:)` not yet written: they do not count against
    /// the budget (a reply never gets its requester cut off, however large; the daemon reads the
    /// client's next request only once the queue is at most half the budget again).
    private var exemptBytes = 0
    /// Bytes queued ahead of those replies, not yet written (written before them). Coalescing of
    /// messages ahead of a reply is not subtracted here: the exemption then ends later by at most
    /// the bytes coalesced away, which are fewer than the budget.
    private var bytesAheadOfExempt = 0
    /// A written buffer too large to keep (a large reply's), until `takeLargeBuffer`.
    private var largeBuffer: [UInt8]?

    /// Makes an empty outbox holding at most `byteBudget` bytes.
    public init(byteBudget: Int) {
        precondition(byteBudget > 0, "an outbox budget must be positive")
        self.byteBudget = byteBudget
    }

    /// Bytes queued and not yet written: the rest of the committed bytes plus every pending message.
    public var byteCount: Int { committed.count - committedOffset + pending.count }

    /// Nothing is waiting to be written.
    public var isEmpty: Bool { byteCount == 0 }

    /// Messages pending (not yet committed to the socket).
    public var pendingMessageCount: Int { entries.count }

    /// Queues one view's touches of a frame.
    public mutating func enqueue(_ viewTouches: ViewTouches) -> EnqueueResult {
        guard !hasOverflowed else { return .overflow }
        let before = pending.count
        TouchesEncoder.appendLine(viewTouches, to: &pending)
        entries.append(Entry(kind: .touches(viewTouches), byteCount: pending.count - before))
        return enforceBudget()
    }

    /// Queues an already-encoded line (`\n` included): replies, errors, `layoutChanged`. The
    /// daemon encodes a `touches` message once and may pass the same bytes to every subscriber with
    /// `enqueue(encodedTouches:for:)` instead, which keeps them coalescable.
    public mutating func enqueue(line: [UInt8]) -> EnqueueResult {
        guard !hasOverflowed else { return .overflow }
        pending.append(contentsOf: line)
        entries.append(Entry(kind: .line, byteCount: line.count))
        return enforceBudget()
    }

    /// Queues the reply to one of the client's own requests (`\n` included): like `enqueue(line:)`,
    /// but its bytes do not count against the budget while they wait, so a reply as large as the
    /// layout is written in as many pieces as the socket takes and never overflows the queue;
    /// `touches` queued behind it still do. Into an empty queue the line is taken without a copy.
    public mutating func enqueue(reply line: [UInt8]) -> EnqueueResult {
        guard !hasOverflowed else { return .overflow }
        if exemptBytes == 0 {
            bytesAheadOfExempt = byteCount
            exemptBytes = line.count
        } else {
            // Another reply while one is on its way: exempt from the first one's start.
            exemptBytes = byteCount - bytesAheadOfExempt + line.count
        }
        if pending.isEmpty { pending = line } else { pending.append(contentsOf: line) }
        entries.append(Entry(kind: .line, byteCount: line.count))
        return enforceBudget()
    }

    /// Queues any daemon message, encoded straight into the queue (`touches` stay coalescable).
    public mutating func enqueue(_ message: DaemonMessage) -> EnqueueResult {
        guard !hasOverflowed else { return .overflow }
        let before = pending.count
        let kind: Kind
        if case .touches(let touches) = message {
            let viewTouches = ViewTouches(wire: touches)
            TouchesEncoder.appendLine(viewTouches, to: &pending)
            kind = .touches(viewTouches)
        } else {
            message.appendLine(to: &pending)
            kind = .line
        }
        entries.append(Entry(kind: kind, byteCount: pending.count - before))
        return enforceBudget()
    }

    /// Queues a `touches` line the caller already encoded from `viewTouches` (so a view's message
    /// is encoded once per frame, not once per subscriber). `line` must be exactly
    /// `TouchesEncoder.appendLine(viewTouches)`'s output.
    /// Concrete `[UInt8]`, not generic: called for every subscriber of every frame from another
    /// module, where a generic would run unspecialized (witness-table calls per byte run).
    public mutating func enqueue(encodedTouches line: [UInt8], for viewTouches: ViewTouches) -> EnqueueResult {
        guard !hasOverflowed else { return .overflow }
        pending.append(contentsOf: line)
        entries.append(Entry(kind: .touches(viewTouches), byteCount: line.count))
        return enforceBudget()
    }

    /// The bytes to hand to `write(2)` next, or an empty buffer when nothing waits. When the
    /// committed bytes are all written, every pending message is committed first (they can no
    /// longer be coalesced). Call `didWrite` with what the socket took.
    public mutating func bytesToWrite() -> ArraySlice<UInt8> {
        if committedOffset == committed.count {
            // A large reply's buffer is not kept once written: handed out (`takeLargeBuffer`).
            if committed.capacity > 2 * byteBudget {
                largeBuffer = committed
                committed = []
            } else {
                committed.removeAll(keepingCapacity: true)
            }
            committedOffset = 0
            swap(&committed, &pending)
            entries.removeAll(keepingCapacity: true)
        }
        return committed[committedOffset...]
    }

    /// A buffer of a large reply, written, that the outbox no longer keeps: the caller frees it
    /// where freeing megabytes costs the routing loop nothing (the daemon: on its worker).
    public mutating func takeLargeBuffer() -> [UInt8]? {
        defer { largeBuffer = nil }
        return largeBuffer
    }

    /// Records that the socket accepted the first `byteCount` bytes of `bytesToWrite()`.
    public mutating func didWrite(_ byteCount: Int) {
        precondition(
            byteCount >= 0 && committedOffset + byteCount <= committed.count, "wrote more than offered")
        committedOffset += byteCount
        let ahead = min(byteCount, bytesAheadOfExempt)
        bytesAheadOfExempt -= ahead
        exemptBytes = max(0, exemptBytes - (byteCount - ahead))
    }

    private mutating func enforceBudget() -> EnqueueResult {
        guard byteCount - exemptBytes > byteBudget else { return .queued }
        coalesce()
        guard byteCount - exemptBytes > byteBudget else { return .coalesced }
        overflow()
        return .overflow
    }

    /// Drops everything not yet on the wire except the rest of a line the socket already took
    /// part of, puts the final `queue-overflow` error right after it (so a single write can still
    /// tell the client why) and accepts no more.
    private mutating func overflow() {
        let error = ProtocolError(
            code: .queueOverflow,
            message: "the client read too slowly: more than \(byteBudget) bytes queued; disconnecting")
        finish(with: error)
    }

    /// Ends the queue with `error` as its last line: everything not yet on the wire is dropped
    /// (except the rest of a line the socket already took part of), so one write of
    /// `bytesToWrite()` tells the client why it is disconnected, however much was queued. The
    /// outbox accepts nothing more.
    public mutating func finish(with error: ProtocolError) {
        hasOverflowed = true
        exemptBytes = 0
        bytesAheadOfExempt = 0
        let newline = UInt8(ascii: "\n")
        if committedOffset == 0 || committed[committedOffset - 1] == newline {
            committed.removeSubrange(committedOffset...)
        } else if let lineEnd = committed[committedOffset...].firstIndex(of: newline) {
            committed.removeSubrange((lineEnd + 1)...)
        }
        pending.removeAll(keepingCapacity: false)
        entries.removeAll(keepingCapacity: false)
        DaemonMessage.error(error).appendLine(to: &committed)
    }

    /// Removes every pending `touches` message whose touches are all `moved`/`stationary` and each
    /// appear again in a later pending message of the same view; the next later update of each of
    /// its touches inherits its `previousLocation` (so the client sees one move from the earliest
    /// known point to the latest). Messages with a `began`, `ended` or `cancelled` touch, and
    /// every non-touches line, are kept; the order of what remains is unchanged.
    mutating func coalesce() {
        struct TouchKey: Hashable {
            var viewID: String
            var touchID: UInt64
        }
        // Newest to oldest: which messages are superseded.
        var seenLater: Set<TouchKey> = []
        var dropped = [Bool](repeating: false, count: entries.count)
        for index in entries.indices.reversed() {
            guard case .touches(let message) = entries[index].kind else { continue }
            let keys = message.touches.map { TouchKey(viewID: message.viewID, touchID: $0.id) }
            let droppable =
                !message.touches.isEmpty
                && message.touches.allSatisfy { $0.phase == .moved || $0.phase == .stationary }
                && keys.allSatisfy { seenLater.contains($0) }
            dropped[index] = droppable
            seenLater.formUnion(keys)
        }
        guard dropped.contains(true) else { return }
        // Oldest to newest: carry each dropped update's previous point forward, re-encode the rest.
        var carriedPrevious: [TouchKey: Point] = [:]
        var kept: [Entry] = []
        var rebuilt: [UInt8] = []
        rebuilt.reserveCapacity(pending.count)
        var offset = 0
        for (index, entry) in entries.enumerated() {
            defer { offset += entry.byteCount }
            guard case .touches(var message) = entry.kind else {
                rebuilt.append(contentsOf: pending[offset..<offset + entry.byteCount])
                kept.append(entry)
                continue
            }
            var changed = false
            for touchIndex in message.touches.indices {
                let key = TouchKey(viewID: message.viewID, touchID: message.touches[touchIndex].id)
                if let previous = carriedPrevious.removeValue(forKey: key) {
                    message.touches[touchIndex].previousLocalPoint = previous
                    changed = true
                }
                if dropped[index] {
                    carriedPrevious[key] = message.touches[touchIndex].previousLocalPoint
                }
            }
            if dropped[index] {
                coalescedMessageCount += 1
                continue
            }
            if changed {
                let before = rebuilt.count
                TouchesEncoder.appendLine(message, to: &rebuilt)
                kept.append(Entry(kind: .touches(message), byteCount: rebuilt.count - before))
            } else {
                rebuilt.append(contentsOf: pending[offset..<offset + entry.byteCount])
                kept.append(entry)
            }
        }
        pending = rebuilt
        entries = kept
    }
}
