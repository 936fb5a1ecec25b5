import Testing

@testable import TouchRouterCore

/// The stage's view id → slot table: every id noted is found at its slot, others are absent,
/// ids that are not all ASCII are left to the dictionary.
@Suite("View slot index")
struct ViewSlotIndexTests {
    /// A table made for `ids` with each noted at its slot, in order.
    static func noting(_ ids: [String]) -> ViewSlotIndex {
        var index = ViewSlotIndex(capacity: ids.count)
        for slot in ids.indices { index.insert(ids[slot], slot: slot, ids: ids) }
        return index
    }

    @Test("1000 ids noted into a table made for 10 (it grows): each found at its slot, others absent")
    func growsAndFinds() {
        let ids = (0..<1000).map { "view-\($0)" }
        var index = ViewSlotIndex(capacity: 10)
        for slot in ids.indices { index.insert(ids[slot], slot: slot, ids: Array(ids[0...slot])) }
        for slot in ids.indices { #expect(index.find(ids[slot], ids: ids) == .slot(slot)) }
        #expect(index.find("view-1000", ids: ids) == .absent)
        #expect(index.find("", ids: ids) == .absent)
        #expect(index.find("view-1", ids: ids) == .slot(1))
    }

    @Test("an id that is not all ASCII is unknown to the table, noted or not")
    func nonASCII() {
        let ids = ["caf\u{E9}", "plain"]
        let index = Self.noting(ids)
        #expect(index.find("caf\u{E9}", ids: ids) == .unknown)
        #expect(index.find("cafe\u{301}", ids: ids) == .unknown)
        #expect(index.find("plain", ids: ids) == .slot(1))
    }

    @Test("a removed id is absent; the ids probed past it are still found")
    func removal() {
        let ids = (0..<64).map { "v\($0)" }
        var index = Self.noting(ids)
        for slot in stride(from: 0, to: 64, by: 2) { index.remove(ids[slot], ids: ids) }
        for slot in ids.indices {
            #expect(index.find(ids[slot], ids: ids) == (slot % 2 == 0 ? .absent : .slot(slot)))
        }
    }

    @Test("an id noted twice keeps its first slot")
    func firstSlotKept() {
        let ids = ["same", "same"]
        let index = Self.noting(ids)
        #expect(index.find("same", ids: ids) == .slot(0))
    }
}
