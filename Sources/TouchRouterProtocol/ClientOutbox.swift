import TouchRouterModel

/// One client's bounded queue of outbound bytes, with the coalescing that lets a slow reader fall
/// behind without losing a touch's start or end. Pure: the daemon owns the socket and tells the
/// outbox how many bytes a write took.
///
/// Two parts:
/// - the *committed* bytes: handed to the socket, possibly partly written; never changed again
///   (a line may be half on the wire); at most about `commitChunkBytes` are committed at a time;
/// - the *pending* messages: each its encoded line (shared with the other subscribers of the same
///   view, not copied) and, for `touches`, its structured `ViewTouches`, so it can still be
///   coalesced. They sit in a linked list over reusable slots, so one can leave from the middle in
///   O(1).
///
/// Coalescing is incremental: every pending `touches` message is linked to the previous and the
/// next pending message of each of its touches (an index kept as messages arrive), and a message
/// whose touches have all come again later, all `moved`/`stationary`, joins a list of messages
/// that may go. Over budget, the oldest of those go, one at a time, only until the queue is back
/// within budget. No step ever walks the queue: the cost of an `enqueue` is O(its touches) plus,
/// over budget, O(touches) per message it removes, and it removes about as many bytes as it adds.
/// A client that never reads therefore costs the loop the same per message at any queue size.
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

    /// Bytes committed to the socket at a time at most (one message more when a single line is
    /// larger): committing copies the lines, so this bounds the work of one `bytesToWrite`, and what
    /// is not committed yet stays coalescable.
    public static let commitChunkBytes = 64 * 1024
    /// Pending messages left out of the coalescing index at most: a client that keeps up never
    /// holds more, so it never pays for the index; past this (or over budget) the messages are
    /// indexed, at most this many and one at a time. One frame of 10 fingers on views with every
    /// gesture kind queues up to 30 lines for a client before its write: at 16 such frames paid
    /// for the index (perf: the 99th percentile frame of the gesture rows 350 k → 330 k
    /// instructions, callgrind).
    static let indexingLag = 64

    /// The most bytes (committed and pending) the outbox holds before it coalesces, then overflows.
    public let byteBudget: Int
    private var committed: [UInt8] = []
    private var committedOffset = 0
    /// The pending messages' slots; `freeSlots` are reused.
    private var nodes = NodeSlots()
    private var freeSlots: [Int] = []
    private var first: Int?
    private var last: Int?
    /// The first pending message not yet indexed (the indexed ones are a prefix of the queue).
    private var firstUnindexed: Int?
    private var unindexedCount = 0
    private var pendingBytes = 0
    /// The latest pending message carrying each touch (indexed messages only).
    private var latest: [TouchKey: TouchRef] = [:]
    private var firstDroppable: Int?
    private var lastDroppable: Int?
    /// Set once the outbox overflowed (or was finished with an error): it accepts nothing more.
    public private(set) var hasOverflowed = false
    /// `touches` messages removed by coalescing so far (a status counter).
    public private(set) var coalescedMessageCount = 0
    /// The most messages one `enqueue` removed by coalescing (a status counter: how much one step
    /// of coalescing ever cost).
    public private(set) var mostCoalescedInOneStep = 0
    /// Messages pending (not yet committed to the socket).
    public private(set) var pendingMessageCount = 0
    /// Bytes of replies queued with `enqueue(reply:)` not yet written: they do not count against
    /// the budget (a reply never gets its requester cut off, however large; the daemon reads the
    /// client's next request only once the queue is at most half the budget again).
    private var exemptBytes = 0
    /// Bytes queued ahead of those replies, not yet written (written before them). Messages
    /// coalesced away ahead of a reply are not subtracted here: the exemption then ends later by
    /// at most the bytes coalesced away, which are fewer than the budget.
    private var bytesAheadOfExempt = 0
    /// A written buffer too large to keep (a large reply's), until `takeLargeBuffer`.
    private var largeBuffer: [UInt8]?

    /// Makes an empty outbox holding at most `byteBudget` bytes.
    public init(byteBudget: Int) {
        precondition(byteBudget > 0, "an outbox budget must be positive")
        self.byteBudget = byteBudget
    }

    /// Bytes queued and not yet written: the rest of the committed bytes plus every pending message.
    public var byteCount: Int { committed.count - committedOffset + pendingBytes }

    /// Nothing is waiting to be written.
    public var isEmpty: Bool { byteCount == 0 }

    /// Queues one view's touches of a frame.
    public mutating func enqueue(_ viewTouches: ViewTouches) -> EnqueueResult {
        guard !hasOverflowed else { return .overflow }
        return append(TouchesEncoder.encodedLine(viewTouches), touches: viewTouches)
    }

    /// Queues an already-encoded line (`\n` included): replies, errors, `layoutChanged`. The
    /// daemon encodes a `touches` message once and may pass the same bytes to every subscriber with
    /// `enqueue(encodedTouches:for:)` instead, which keeps them coalescable.
    public mutating func enqueue(line: [UInt8]) -> EnqueueResult {
        guard !hasOverflowed else { return .overflow }
        return append(line, touches: nil)
    }

    /// Queues the reply to one of the client's own requests (`\n` included): like `enqueue(line:)`,
    /// but its bytes do not count against the budget while they wait, so a reply as large as the
    /// layout is written in as many pieces as the socket takes and never overflows the queue;
    /// `touches` queued behind it still do. The line is kept, not copied (also when committed).
    public mutating func enqueue(reply line: [UInt8]) -> EnqueueResult {
        guard !hasOverflowed else { return .overflow }
        if exemptBytes == 0 {
            bytesAheadOfExempt = byteCount
            exemptBytes = line.count
        } else {
            // Another reply while one is on its way: exempt from the first one's start.
            exemptBytes = byteCount - bytesAheadOfExempt + line.count
        }
        return append(line, touches: nil)
    }

    /// Queues any daemon message, encoded straight into the queue (`touches` stay coalescable).
    public mutating func enqueue(_ message: DaemonMessage) -> EnqueueResult {
        guard !hasOverflowed else { return .overflow }
        if case .touches(let touches) = message { return enqueue(ViewTouches(wire: touches)) }
        return append(message.encodedLine(), touches: nil)
    }

    /// Queues a `touches` line the caller already encoded from `viewTouches` (so a view's message
    /// is encoded once per frame, not once per subscriber: the outbox keeps a reference to `line`,
    /// it does not copy it). `line` must be exactly `TouchesEncoder.appendLine(viewTouches)`'s
    /// output. Concrete `[UInt8]`, not generic: called for every subscriber of every frame from
    /// another module, where a generic would run unspecialized.
    public mutating func enqueue(encodedTouches line: [UInt8], for viewTouches: ViewTouches) -> EnqueueResult {
        guard !hasOverflowed else { return .overflow }
        return append(line, touches: viewTouches)
    }

    /// The bytes to hand to `write(2)` next, or an empty buffer when nothing waits. When the
    /// committed bytes are all written, the oldest pending messages are committed first, about
    /// `commitChunkBytes` of them (they can no longer be coalesced). Call `didWrite` with what the
    /// socket took. Cost: O(the bytes committed).
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
            while let node = first, committed.count < Self.commitChunkBytes { commit(node) }
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

    /// Ends the queue with `error` as its last line: everything not yet on the wire is dropped
    /// (except the rest of a line the socket already took part of), so one write of
    /// `bytesToWrite()` tells the client why it is disconnected, however much was queued. The
    /// outbox accepts nothing more.
    public mutating func finish(with error: ProtocolError) {
        hasOverflowed = true
        (exemptBytes, bytesAheadOfExempt) = (0, 0)
        let newline = UInt8(ascii: "\n")
        if committedOffset == 0 || committed[committedOffset - 1] == newline {
            committed.removeSubrange(committedOffset...)
        } else if let lineEnd = committed[committedOffset...].firstIndex(of: newline) {
            committed.removeSubrange((lineEnd + 1)...)
        }
        nodes = NodeSlots()
        freeSlots = []
        latest = [:]
        (first, last, firstUnindexed, firstDroppable, lastDroppable) = (nil, nil, nil, nil, nil)
        (unindexedCount, pendingBytes, pendingMessageCount) = (0, 0, 0)
        DaemonMessage.error(error).appendLine(to: &committed)
    }

    /// Removes at once every pending message that coalescing may remove (what `enqueue` does only
    /// as far as the budget needs): tests use it to check the rule message by message.
    mutating func coalesce() {
        indexPending()
        while let node = firstDroppable { drop(node) }
    }

    // MARK: The queue

    private mutating func append(_ line: [UInt8], touches: ViewTouches?) -> EnqueueResult {
        let node = allocate(Node(line: line, touches: touches, previous: last))
        if let last { nodes[last].next = node } else { first = node }
        last = node
        pendingMessageCount += 1
        pendingBytes += line.count
        if firstUnindexed == nil { firstUnindexed = node }
        unindexedCount += 1
        if unindexedCount > Self.indexingLag { indexPending() }
        return enforceBudget()
    }

    /// Over budget: the oldest droppable messages go until the queue is within budget again;
    /// if none is left to go, the client is cut off.
    private mutating func enforceBudget() -> EnqueueResult {
        guard byteCount - exemptBytes > byteBudget else { return .queued }
        indexPending()
        var removed = 0
        while byteCount - exemptBytes > byteBudget, let node = firstDroppable {
            drop(node)
            removed += 1
        }
        mostCoalescedInOneStep = max(mostCoalescedInOneStep, removed)
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

    private mutating func allocate(_ node: Node) -> Int {
        if let slot = freeSlots.popLast() {
            nodes[slot] = node
            return slot
        }
        return nodes.append(node)
    }

    /// Takes `node` out of the queue and gives its slot back.
    private mutating func remove(_ node: Int) {
        let (previous, next) = (nodes[node].previous, nodes[node].next)
        if let previous { nodes[previous].next = next } else { first = next }
        if let next { nodes[next].previous = previous } else { last = previous }
        pendingBytes -= nodes[node].line.count
        pendingMessageCount -= 1
        nodes[node] = .free
        if first == nil {
            // Empty: the slots start over (a client that keeps up uses one or two).
            nodes.removeAll()
            freeSlots.removeAll(keepingCapacity: freeSlots.capacity <= 64)
        } else {
            freeSlots.append(node)
        }
    }

    /// Moves the oldest pending message into the committed bytes.
    private mutating func commit(_ node: Int) {
        // A line of a chunk or more, first, is taken as it is: a large reply is never copied.
        if committed.isEmpty && nodes[node].line.count >= Self.commitChunkBytes {
            committed = nodes[node].line
        } else {
            committed.append(contentsOf: nodes[node].line)
        }
        if node == firstUnindexed {
            // Not indexed (nor is anything after it).
            firstUnindexed = nodes[node].next
            unindexedCount -= 1
        } else if let message = nodes[node].touches {
            for slot in message.touches.indices {
                if let next = nodes[node].links[slot].next {
                    nodes[next.node].links[next.slot].previous = nil
                } else {
                    let key = TouchKey(viewID: message.viewID, touchID: message.touches[slot].id)
                    if latest[key] == TouchRef(node: node, slot: slot) { latest[key] = nil }
                }
            }
            if nodes[node].isDroppable { removeDroppable(node) }
        }
        remove(node)
    }

    // MARK: Coalescing

    /// Indexes every pending message not indexed yet, oldest first.
    private mutating func indexPending() {
        while let node = firstUnindexed {
            index(node)
            firstUnindexed = nodes[node].next
        }
        unindexedCount = 0
    }

    /// Links `node`'s touches to the same touches' previous pending messages; an earlier message
    /// whose touches have now all come again, all moves, becomes droppable. Cost: O(its touches).
    private mutating func index(_ node: Int) {
        guard let message = nodes[node].touches else { return }
        let touches = message.touches
        nodes[node].isCoalescable =
            !touches.isEmpty && touches.allSatisfy { $0.phase == .moved || $0.phase == .stationary }
        nodes[node].links = [TouchLink](repeating: TouchLink(), count: touches.count)
        nodes[node].unsuperseded = touches.count
        for slot in touches.indices {
            let here = TouchRef(node: node, slot: slot)
            let key = TouchKey(viewID: message.viewID, touchID: touches[slot].id)
            // The same touch twice in one message links nothing: that message is never dropped.
            guard let earlier = latest.updateValue(here, forKey: key), earlier.node != node else { continue }
            nodes[node].links[slot].previous = earlier
            nodes[earlier.node].links[earlier.slot].next = here
            nodes[earlier.node].unsuperseded -= 1
            if nodes[earlier.node].unsuperseded == 0 && nodes[earlier.node].isCoalescable {
                appendDroppable(earlier.node)
            }
        }
    }

    /// Removes a droppable message: the next pending update of each of its touches inherits its
    /// `previousLocation` (so the client sees one move from the earliest known point to the latest)
    /// and is encoded again. Cost: O(its touches), plus encoding the messages that inherit.
    private mutating func drop(_ node: Int) {
        removeDroppable(node)
        let message = nodes[node].touches!
        var inheritors: [Int] = []
        for slot in message.touches.indices {
            let link = nodes[node].links[slot]
            let next = link.next!
            nodes[next.node].touches!.touches[next.slot].previousLocalPoint = message.touches[slot].previousLocalPoint
            nodes[next.node].links[next.slot].previous = link.previous
            if let previous = link.previous { nodes[previous.node].links[previous.slot].next = next }
            if !inheritors.contains(next.node) { inheritors.append(next.node) }
        }
        remove(node)
        coalescedMessageCount += 1
        for inheritor in inheritors {
            pendingBytes -= nodes[inheritor].line.count
            nodes[inheritor].line = TouchesEncoder.encodedLine(nodes[inheritor].touches!)
            pendingBytes += nodes[inheritor].line.count
        }
    }

    private mutating func appendDroppable(_ node: Int) {
        nodes[node].isDroppable = true
        nodes[node].droppablePrevious = lastDroppable
        if let lastDroppable { nodes[lastDroppable].droppableNext = node } else { firstDroppable = node }
        lastDroppable = node
    }

    private mutating func removeDroppable(_ node: Int) {
        let (previous, next) = (nodes[node].droppablePrevious, nodes[node].droppableNext)
        if let previous { nodes[previous].droppableNext = next } else { firstDroppable = next }
        if let next { nodes[next].droppablePrevious = previous } else { lastDroppable = previous }
        nodes[node].isDroppable = false
        nodes[node].droppablePrevious = nil
        nodes[node].droppableNext = nil
    }
}
