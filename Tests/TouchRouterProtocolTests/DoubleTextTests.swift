import Testing
import TouchRouterCore

@testable import TouchRouterProtocol

/// Every number on the wire is written as Swift's `description` writes it (the shortest text that
/// reads back as the value): the writer's fast path for values with few decimals must give the
/// very same text, and leave every other value to `description`.
@Suite("Doubles on the wire: the fast path writes what description writes")
struct DoubleTextTests {
    static func written(_ value: Double) -> String {
        var buffer: [UInt8] = []
        JSONWriter.appendDouble(value, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// What the wire must hold: `description`, but 0.0 for -0.0.
    static func expected(_ value: Double) -> String { value == 0 ? "0.0" : value.description }

    @Test(
        "values at the fast path's edges and of every shape are written as description writes them",
        arguments: [
            0.001, 0.0009999999999999998, 0.00100000000000000002, 1e9, 999_999_999.999_999_9, 999_999_999.5,
            1e9.nextDown, 0.5, 62.5, 12.0, 100.0, 0.1, 0.2, 0.30000000000000004, 1.0 / 3.0, 2.0 / 3.0,
            123_456.789_012, 0.000_123, 1e-7, 1e16, 9_007_199_254_740_993.0, 1.000_000_1, 1.000_001, 0.123_456_7,
            8.881_784_197_001_252e-16, 1_234_567.5, 199.999_999_9, 5e-324, .greatestFiniteMagnitude,
        ])
    func edges(value: Double) {
        for signed in [value, -value] {
            #expect(Self.written(signed) == Self.expected(signed))
        }
    }

    @Test("decimals with up to 8 places, over the whole range the fast path takes and beyond")
    func fewDecimals() {
        var random = SeededRandom(seed: 11)
        for _ in 0..<200_000 {
            let places = Int.random(in: 0...8, using: &random)
            let digits = UInt64.random(in: 0..<(1 << 50), using: &random) >> UInt64.random(in: 0...49, using: &random)
            let value = Double(digits) / Self.powerOfTen(places) * (Bool.random(using: &random) ? 1 : -1)
            #expect(Self.written(value) == Self.expected(value), "\(digits) / 10^\(places)")
        }
    }

    @Test("random values in the fast path's range and random bit patterns")
    func anyValue() {
        var random = SeededRandom(seed: 12)
        for _ in 0..<100_000 {
            let inRange = Double.random(in: 0.000_5...2e9, using: &random)
            let anyBits = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random))
            for value in [inRange, -inRange, anyBits] where value.isFinite {
                #expect(Self.written(value) == Self.expected(value), "\(value.bitPattern)")
            }
        }
    }

    @Test("the neighbours of short decimals (one unit in the last place away) are written as description writes them")
    func neighbours() {
        var random = SeededRandom(seed: 13)
        for _ in 0..<50_000 {
            let places = Int.random(in: 0...6, using: &random)
            let value = Double(UInt64.random(in: 1..<1_000_000_000_000, using: &random)) / Self.powerOfTen(places)
            for neighbour in [value.nextUp, value.nextDown, value] {
                #expect(Self.written(neighbour) == Self.expected(neighbour), "\(neighbour.bitPattern)")
            }
        }
    }

    /// 10^places, exact (places ≤ 22), by repeated multiplication as a reader would write it.
    static func powerOfTen(_ places: Int) -> Double {
        (0..<places).reduce(1.0) { power, _ in power * 10 }
    }
}
