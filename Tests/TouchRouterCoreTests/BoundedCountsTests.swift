import Testing
import TouchRouterCore

/// The metrics' bounded tables: at most `capacity` keys, first come, never evicted, so every count
/// only grows; 10,000 keys leave the table at its bound.
@Suite("Bounded counts")
struct BoundedCountsTests {
    @Test("keys are kept in the order they came until the table is full; a full table refuses new keys only")
    func firstComeKept() {
        var counts = BoundedCounts<String>(capacity: 2)
        let kept = [counts.add("a"), counts.add("b", 3), counts.add("a"), counts.add("c", 5), counts.add("b")]
        #expect(kept == [true, true, true, false, true])
        #expect(counts.entries.map(\.key) == ["a", "b"] && counts.entries.map(\.count) == [2, 4])
        #expect(counts["c"] == 0 && counts["b"] == 4)
    }

    @Test("10,000 keys: the table stays at its bound and what it kept never shrinks")
    func tenThousandKeys() {
        var counts = BoundedCounts<Int>(capacity: 128)
        var refused: UInt64 = 0
        for round in 0..<3 {
            for key in 0..<10_000 where !counts.add(key) { refused += 1 }
            #expect(counts.entries.count == 128)
            #expect(counts.entries.allSatisfy { $0.count == UInt64(round + 1) })
        }
        #expect(refused == 3 * (10_000 - 128))
    }
}
