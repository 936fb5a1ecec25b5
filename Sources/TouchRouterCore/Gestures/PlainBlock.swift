/// A list of plain values (no reference inside) in one heap block, read and written in place
/// through an address: a view's recognisers (`ViewGestures.recognisers`).
///
/// Why not an `Array`: arbitration writes a recogniser's fields many times per step from mutating
/// methods that call one another, and an array element written there checks its bounds and that
/// its buffer is unique at every write (any call in between might have copied the array). Here a
/// write is a store: the bounds are asserted in debug builds (the tests'), and uniqueness is made
/// once per mutating entry point of `ViewGestures` (`makeUnique(_:)`), which copies the block only
/// if it is shared — so its owner keeps value semantics, as with an array. Every write below
/// assumes that was done. (The view's touches stay an array: in a block they cost more, 1.3 k
/// instructions per down+up pair of the benchmark; performance.md, "Sixth pass".)
final class PlainBlock<Element: BitwiseCopyable>: @unchecked Sendable {
    // @unchecked: a block is only ever written through an owner that made it unique first
    // (`makeUnique`), as an array's storage is; no two owners write one block.
    private(set) var count = 0
    private var capacity: Int
    private var base: UnsafeMutablePointer<Element>

    init(capacity: Int = 4) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    /// A block holding `elements` (one copy of their bytes).
    convenience init(_ elements: [Element]) {
        self.init(capacity: elements.count)
        refill(from: elements)
    }

    deinit { base.deallocate() }  // plain values: nothing to deinitialise

    var isEmpty: Bool { count == 0 }

    var indices: Range<Int> { 0..<count }

    /// Element `index`, in place (a field read or written is a load or a store).
    subscript(index: Int) -> Element {
        unsafeAddress {
            assert(index >= 0 && index < count, "element \(index) of \(count)")
            return UnsafePointer(base + index)
        }
        unsafeMutableAddress {
            assert(index >= 0 && index < count, "element \(index) of \(count)")
            return base + index
        }
    }

    /// The elements of `array` in place of these: one copy of bytes (a new block only when they
    /// do not fit).
    func refill(from array: [Element]) {
        if array.count > capacity { grow(to: array.count) }
        array.withUnsafeBufferPointer { source in
            if let start = source.baseAddress { base.initialize(from: start, count: source.count) }
        }
        count = array.count
    }

    private func grow(to newCapacity: Int) {
        base.deallocate()  // its elements are about to be replaced
        base = .allocate(capacity: newCapacity)
        capacity = newCapacity
    }

    /// A copy of the block (its elements' bytes), for an owner that shares it.
    func copy() -> PlainBlock {
        let copy = PlainBlock(capacity: capacity)
        copy.base.initialize(from: base, count: count)
        copy.count = count
        return copy
    }

    /// `block` unique to its owner: copied when shared (the owner's copy-on-write). Cost: one
    /// reference-count test; the copy only for a shared block.
    @inline(__always)
    static func makeUnique(_ block: inout PlainBlock) {
        if !isKnownUniquelyReferenced(&block) { block = block.copy() }
    }
}
