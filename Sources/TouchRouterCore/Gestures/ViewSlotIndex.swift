/// View id → slot, for the stage's look-up of a message's view when it is not the next active one
/// (a view touched again after its state was released, a view without gestures): an
/// open-addressing table hashed with FNV-1a over the id's UTF-8 bytes, a few instructions per
/// byte where `String`'s hashing (SipHash, through `Hasher`) costs a few hundred per id.
///
/// The seed comes from `Hasher` once per table, so it is random per process like a
/// `Dictionary`'s (and fixed under `SWIFT_DETERMINISTIC_HASHING`). Only ASCII ids are hashed
/// here: `String` equality is canonical equivalence, so two spellings of a non-ASCII id can be
/// equal with different bytes; `find` answers `.unknown` for such an id and the caller asks the
/// dictionary. Cost: the id's bytes once, then one comparison per probe; the table is at most half
/// full, so a probe sequence is short unless ids collide, and then at worst linear in the ids.
struct ViewSlotIndex {
    /// What `find` knows of an id.
    enum Lookup: Equatable {
        case slot(Int)
        /// Not noted: no view of that id has gestures.
        case absent
        /// Not all ASCII: the dictionary knows.
        case unknown
    }

    /// Per bucket, a slot + 1 (0: empty, -1: an id removed, which probes go past).
    private var buckets: [Int32]
    private var mask: Int
    private let seed: UInt64

    /// A table for up to `capacity` ids with nothing in it.
    init(capacity: Int) {
        var size = 8
        while size < capacity * 2 { size *= 2 }
        buckets = Array(repeating: 0, count: size)
        mask = size - 1
        var hasher = Hasher()
        hasher.combine(size)
        seed = UInt64(UInt(bitPattern: hasher.finalize()))
    }

    /// The id's hash, or nil when it is not all ASCII (see the type's comment).
    @inline(__always)
    private func hash(_ id: String) -> Int? {
        var id = id  // `withUTF8` is mutating (a native or small id is read where it is)
        return id.withUTF8 { utf8 in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
            var bytes: UInt8 = 0
            for byte in utf8 {
                bytes |= byte
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            guard bytes < 0x80 else { return nil }
            return Int(truncatingIfNeeded: hash ^ (hash >> 29))
        }
    }

    /// Notes `id` at `slot` (ids: every slot's id, `id` at `slot` among them). A non-ASCII id is
    /// not noted (the dictionary has it); nor is an id noted already (the first slot keeps it).
    /// The table grows when half full.
    mutating func insert(_ id: String, slot: Int, ids: [String]) {
        guard let hash = hash(id) else { return }
        if (slot + 1) * 2 > buckets.count {
            self = Self(rebuilding: ids, upTo: slot, capacity: slot + 1)
            return
        }
        var bucket = hash & mask
        while buckets[bucket] != 0 {
            if buckets[bucket] > 0 && ids[Int(buckets[bucket]) - 1] == id { return }
            bucket = (bucket + 1) & mask
        }
        buckets[bucket] = Int32(slot + 1)
    }

    /// Forgets `id` (its view lost its slot); its bucket stays in probe sequences.
    mutating func remove(_ id: String, ids: [String]) {
        guard let hash = hash(id) else { return }
        var bucket = hash & mask
        while buckets[bucket] != 0 {
            if buckets[bucket] > 0 && ids[Int(buckets[bucket]) - 1] == id {
                buckets[bucket] = -1
                return
            }
            bucket = (bucket + 1) & mask
        }
    }

    /// A table twice as large with the ids of slots up to `last` noted again.
    private init(rebuilding ids: [String], upTo last: Int, capacity: Int) {
        self.init(capacity: capacity * 2)
        for slot in 0...last { insert(ids[slot], slot: slot, ids: ids) }
    }

    /// The slot of `id` (ids: every slot's id).
    @inline(__always)
    func find(_ id: String, ids: [String]) -> Lookup {
        guard let hash = hash(id) else { return .unknown }
        var bucket = hash & mask
        while buckets[bucket] != 0 {
            let slot = Int(buckets[bucket]) - 1
            if slot >= 0 && ids[slot] == id { return .slot(slot) }
            bucket = (bucket + 1) & mask
        }
        return .absent
    }
}
