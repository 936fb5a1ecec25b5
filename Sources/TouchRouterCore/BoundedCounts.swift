/// Counts by key with a hard bound on the keys kept: the metrics' per-view, per-screen and
/// per-device tables (docs/metrics.md, "Label bounds"). Pure.

/// At most `capacity` keys, each with its count since it was first added, in the order they came;
/// a key that comes once the table is full is not kept (`add` says so, and the caller counts it in
/// an overflow of its own). A kept key is never evicted, so every count only grows: what a metric's
/// counter needs. Cost of `add`: one hash lookup of the key.
public struct BoundedCounts<Key: Hashable & Sendable>: Sendable {
    /// The most keys kept.
    public let capacity: Int
    @usableFromInline var slots: [Key: Int] = [:]
    /// The kept keys and their counts, in the order they were first added.
    public var entries: [(key: Key, count: UInt64)] { kept }
    @usableFromInline var kept: [(key: Key, count: UInt64)] = []

    /// An empty table for at most `capacity` keys.
    public init(capacity: Int) {
        self.capacity = capacity
        // Room for every key up front: the routing loop's `add` never grows a table.
        slots.reserveCapacity(capacity)
        kept.reserveCapacity(capacity)
    }

    /// Adds `amount` to `key`'s count; false, counting nothing, when the key is new and the table
    /// is full.
    @discardableResult @inlinable
    public mutating func add(_ key: Key, _ amount: UInt64 = 1) -> Bool {
        if let slot = slots[key] {
            kept[slot].count &+= amount
            return true
        }
        guard kept.count < capacity else { return false }
        slots[key] = kept.count
        kept.append((key, amount))
        return true
    }

    /// The count of `key`, 0 when it is not kept.
    public subscript(key: Key) -> UInt64 {
        slots[key].map { entries[$0].count } ?? 0
    }
}
