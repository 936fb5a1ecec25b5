import Testing

@testable import TouchRouterCore

/// A recogniser's participants: the first two ids in fields of their own, the rest in an inline
/// array (performance.md, "Gestures", "Sixth pass"). Every id is found wherever it is stored, in
/// began order, and a 17th is not followed.
@Suite("Touch id list")
struct TouchIDListTests {
    @Test("ids in every position are found, listed in order, and the list stops at its capacity")
    func everyPosition() {
        var list = TouchIDList()
        #expect(!list.contains(0))  // an empty list holds nothing, not even the storage's zeros
        for count in 1...TouchIDList.capacity + 1 {
            list.append(UInt64(100 + count))
            let stored = min(count, TouchIDList.capacity)
            #expect(list.count == stored)
            #expect(Array(list) == (1...stored).map { UInt64(100 + $0) })
            for id in 101...(100 + stored) { #expect(list.contains(UInt64(id)), "\(id) of \(count)") }
            #expect(!list.contains(UInt64(100 + stored + 1)))
            #expect(!list.contains(0))
        }
    }

    @Test("append(to:) adds every id in order, after what the array holds")
    func appendTo() {
        for count in 0...TouchIDList.capacity {
            var list = TouchIDList()
            for id in 0..<count { list.append(UInt64(10 + id)) }
            var ids: [UInt64] = [1]
            list.append(to: &ids)
            #expect(ids == [1] + (0..<count).map { UInt64(10 + $0) })
        }
    }

    @Test("after removeAll the old ids are gone, whatever is left in the storage")
    func removeAll() {
        var list = TouchIDList()
        for id in 1...5 { list.append(UInt64(id)) }
        list.removeAll()
        #expect(list.isEmpty)
        for id in 1...5 { #expect(!list.contains(UInt64(id))) }
        list.append(9)
        #expect(Array(list) == [9])
        #expect(!list.contains(2))
    }
}
