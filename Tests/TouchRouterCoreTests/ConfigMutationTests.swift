import Foundation
import Testing

@testable import TouchRouterCore

/// Corrupted copies of the example config (a flipped byte, a cut, a duplicated or deleted span, as a
/// damaged SD card or a bad edit would make) must each be accepted or rejected with located errors,
/// never crash or hang.
///
/// Each run draws a new seed and prints it before it starts; replay one with
/// `TOUCHROUTER_CONFIG_MUTATION_SEED=<seed> swift test --filter ConfigMutationTests`.
@Suite("Config mutations")
struct ConfigMutationTests {
    /// The seed given in the environment, else a fresh one.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["TOUCHROUTER_CONFIG_MUTATION_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
    }

    @Test("random corruptions of the example never crash and always explain themselves")
    func corruptions() throws {
        let original = try [UInt8](Data(contentsOf: RepositoryPaths.exampleConfig))
        let seed = Self.seed
        print("config mutations: seed \(seed) (replay: TOUCHROUTER_CONFIG_MUTATION_SEED=\(seed))")
        var random = SeededRandom(seed: seed)
        var rejected = 0
        for iteration in 0..<400 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<5, using: &random) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes[at] = Array("{}[],:\"'/*-.0eE".utf8).randomElement(using: &random)!
                case 2:
                    bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...40, using: &random)))
                case 3: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 30)], at: at)
                default: bytes.removeSubrange(at...)
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "{")] }
            }
            do {
                _ = try Config.parse(Data(bytes), fileName: "mutated.json5")
            } catch {
                rejected += 1
                #expect(!error.errors.isEmpty, "seed \(seed), iteration \(iteration)")
                for configError in error.errors {
                    #expect(!configError.message.isEmpty, "seed \(seed), iteration \(iteration)")
                    #expect(configError.file == "mutated.json5")
                }
            }
        }
        // Most corruptions must be caught; a few (inside a comment) are harmless.
        #expect(rejected > 200, "seed \(seed): only \(rejected) of 400 rejected")
    }
}
