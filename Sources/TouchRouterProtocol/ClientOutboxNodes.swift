import TouchRouterModel

/// What a `ClientOutbox` keeps per pending message: the message, its place in the queue and in the
/// coalescing index (each touch's neighbours in the chain of messages carrying it), and the
/// chunked slots the messages live in.
extension ClientOutbox {

    /// A touch of a pending message: the message's slot and the touch's index in it.
    struct TouchRef: Equatable, Sendable {
        var node: Int
        var slot: Int
    }

    /// One view's touch: what coalescing merges.
    struct TouchKey: Hashable, Sendable {
        var viewID: String
        var touchID: UInt64
    }

    /// A touch's neighbours in the chain of pending messages that carry it.
    struct TouchLink: Sendable {
        var previous: TouchRef?
        var next: TouchRef?
    }

    /// One pending message.
    struct Node: Sendable {
        /// The encoded line, `\n` included.
        var line: [UInt8]
        /// A `touches` message's content; nil for a reply, error or other line (never dropped).
        var touches: ViewTouches?
        /// Queue order.
        var previous: Int?
        var next: Int?
        /// Per touch of `touches`, once indexed.
        var links: [TouchLink] = []
        /// Touches of `touches` not yet seen in a later pending message.
        var unsuperseded = 0
        /// Every touch is `moved`/`stationary` (and there is one).
        var isCoalescable = false
        /// In the list of messages that may go, in the order they became droppable.
        var isDroppable = false
        var droppablePrevious: Int?
        var droppableNext: Int?

        static let free = Node(line: [], touches: nil)
    }

    /// The slots, in chunks of a fixed size: growing adds a chunk and never copies the slots
    /// already there (an array that doubled would copy a full queue's slots in one step, for every
    /// stalled client at once, since they fill in step).
    struct NodeSlots: Sendable {
        private static let chunkShift = 6
        private static let chunkMask = (1 << chunkShift) - 1
        private var chunks: [[Node]] = []
        private var count = 0

        subscript(index: Int) -> Node {
            get { chunks[index >> Self.chunkShift][index & Self.chunkMask] }
            _modify { yield &chunks[index >> Self.chunkShift][index & Self.chunkMask] }
        }

        /// Adds a slot holding `node`; returns its index.
        mutating func append(_ node: Node) -> Int {
            // A new chunk, unless it is the one `removeAll` kept.
            if count & Self.chunkMask == 0 && chunks.count == count >> Self.chunkShift {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(Self.chunkMask + 1)
            }
            chunks[count >> Self.chunkShift].append(node)
            count += 1
            return count - 1
        }

        /// Forgets every slot (all free), keeping the first chunk's storage: a client that keeps up
        /// uses one or two slots, every frame.
        mutating func removeAll() {
            if chunks.count > 1 { chunks.removeSubrange(1...) }
            if !chunks.isEmpty { chunks[0].removeAll(keepingCapacity: true) }
            count = 0
        }
    }
}
