/// A view's recognisers in one heap block, read and written in place through an address.
///
/// Why not an `Array`: arbitration writes a recogniser's fields many times per step from mutating
/// methods that call one another, and an array element written there checks its bounds and that
/// its buffer is unique at every write (any call in between might have copied the array). Here a
/// write is a store: the bounds are asserted in debug builds (the tests'), and uniqueness is made
/// once per mutating entry point of `ViewGestures` (`makeUnique(_:)`), which copies the block only
/// if it is shared — so a `ViewGestures` keeps value semantics, as with an array.
///
/// `Recogniser` holds no reference (plain bytes), so copying the block or a template into it is a
/// copy of bytes. The block keeps its capacity when refilled with fewer recognisers.
final class RecogniserBlock: @unchecked Sendable {
    // @unchecked: the block is only ever written through a `ViewGestures` that made it unique
    // first (`makeUnique`), as an array's storage is; no two owners write one block.
    private(set) var count: Int
    private let capacity: Int
    private let base: UnsafeMutablePointer<Recogniser>

    init(_ recognisers: [Recogniser], capacity: Int = 0) {
        count = recognisers.count
        self.capacity = max(1, capacity, recognisers.count)
        base = .allocate(capacity: self.capacity)
        recognisers.withUnsafeBufferPointer { source in
            if let start = source.baseAddress { base.initialize(from: start, count: source.count) }
        }
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    var indices: Range<Int> { 0..<count }

    /// Recogniser `index`, in place (a field read or written is a load or a store).
    subscript(index: Int) -> Recogniser {
        unsafeAddress {
            assert(index >= 0 && index < count, "recogniser \(index) of \(count)")
            return UnsafePointer(base + index)
        }
        unsafeMutableAddress {
            assert(index >= 0 && index < count, "recogniser \(index) of \(count)")
            return base + index
        }
    }

    /// The recognisers of `template` in place of these, without allocating when they fit.
    /// Returns false (nothing changed) when they do not.
    func refill(from template: [Recogniser]) -> Bool {
        guard template.count <= capacity else { return false }
        base.deinitialize(count: count)
        template.withUnsafeBufferPointer { source in
            if let start = source.baseAddress { base.initialize(from: start, count: source.count) }
        }
        count = template.count
        return true
    }

    /// A copy of the block (its recognisers' bytes), for an owner that shares it.
    func copy() -> RecogniserBlock {
        let copy = RecogniserBlock([], capacity: capacity)
        copy.base.initialize(from: base, count: count)
        copy.count = count
        return copy
    }

    /// `block` unique to its owner: copied when shared (the owner's copy-on-write). Cost: one
    /// reference-count test; the copy only for a shared block.
    @inline(__always)
    static func makeUnique(_ block: inout RecogniserBlock) {
        if !isKnownUniquelyReferenced(&block) { block = block.copy() }
    }
}
