/// The daemon's stamp-to-written latency as a histogram with fixed buckets (docs/metrics.md).
/// Pure.

/// Counts of microsecond values in fixed buckets from 50 µs to 50 ms, plus one above, with their
/// sum. Recording is a scan of ten bounds and two additions: O(1), no allocation.
public struct LatencyHistogram: Hashable, Sendable {
    /// The buckets' upper bounds (inclusive), µs: 50 µs … 50 ms.
    public static let upperBoundsMicros: [UInt64] = [50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000]

    /// Per bucket, then one for values above the last bound.
    public private(set) var counts = [UInt64](repeating: 0, count: upperBoundsMicros.count + 1)
    /// Every value recorded.
    public private(set) var count: UInt64 = 0
    public private(set) var sumMicros: UInt64 = 0

    /// Empty.
    public init() {}

    /// One value.
    public mutating func record(_ micros: UInt64) {
        var bucket = 0
        while bucket < Self.upperBoundsMicros.count && micros > Self.upperBoundsMicros[bucket] { bucket += 1 }
        counts[bucket] &+= 1
        count &+= 1
        sumMicros &+= micros
    }

    /// The histogram as a metric sample: cumulative buckets in seconds, `+Inf` being `count`.
    public func sample(_ labels: [MetricLabel] = []) -> MetricSample {
        var cumulative: UInt64 = 0
        var buckets: [(upperBound: MetricValue, cumulativeCount: UInt64)] = []
        for (bound, bucketCount) in zip(Self.upperBoundsMicros, counts) {
            cumulative += bucketCount
            buckets.append((.micros(bound), cumulative))
        }
        return MetricSample(labels, buckets: buckets, count: count, sum: .micros(sumMicros))
    }
}
