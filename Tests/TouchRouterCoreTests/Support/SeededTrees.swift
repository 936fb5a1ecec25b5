import Foundation

/// The driver of the seeded tree property tests: block `block` checks `treesPerBlock` trees whose
/// seeds count up from `seedBase` (blocks run in parallel), stopping at the first tree `check`
/// fails; with the environment variable `replay` set to a seed, block 0 checks only that tree, with
/// `replayPoints` points, and the other blocks do nothing.
enum SeededTrees {
    static func run(
        block: Int, treesPerBlock: Int, seedBase: UInt64, points: Int, replay: String, replayPoints: Int,
        check: (_ seed: UInt64, _ pointCount: Int) -> Bool
    ) {
        if let seed = ProcessInfo.processInfo.environment[replay].flatMap({ UInt64($0) }) {
            if block == 0 { _ = check(seed, replayPoints) }
            return
        }
        for tree in 0..<treesPerBlock {
            if !check(seedBase + UInt64(block * treesPerBlock + tree), points) { return }
        }
    }
}
