/// How many lines a client may send: a token bucket, so a burst is fine and a flood is not.

/// A token bucket over request lines. Every line a client sends — a request, a blank line, or
/// garbage — takes one token; tokens come back at `refillPerSecond` up to `capacity`. A client with
/// no token left is flooding: the daemon disconnects it with `too-many-requests`. Pure: the caller
/// passes the time (CLOCK_MONOTONIC µs).
public struct RequestBudget: Sendable, Equatable {
    /// The most lines a client may send at once (the bucket's size).
    public let capacity: Int
    /// Lines per second a client may send for as long as it likes.
    public let refillPerSecond: Int
    private var tokens: Int
    private var lastRefillMicros: UInt64?

    /// The daemon's budget: bursts of 1,000 lines, 500 lines per second sustained. A client that
    /// asks `status` every millisecond stays within it; one writing blank lines as fast as it can
    /// runs out within a few milliseconds.
    public static let standard = RequestBudget(capacity: 1000, refillPerSecond: 500)

    /// A full bucket of `capacity` tokens refilled at `refillPerSecond`.
    public init(capacity: Int, refillPerSecond: Int) {
        precondition(capacity > 0 && refillPerSecond > 0, "a request budget must be positive")
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
        tokens = capacity
    }

    /// Takes one token at `nowMicros`; false when none is left (the client is flooding).
    public mutating func take(atMicros nowMicros: UInt64) -> Bool {
        refill(atMicros: nowMicros)
        guard tokens > 0 else { return false }
        tokens -= 1
        return true
    }

    private mutating func refill(atMicros nowMicros: UInt64) {
        guard let last = lastRefillMicros else {
            lastRefillMicros = nowMicros
            return
        }
        guard nowMicros > last else { return }
        let microsPerToken = UInt64(1_000_000 / refillPerSecond)
        let earned = (nowMicros - last) / max(microsPerToken, 1)
        guard earned > 0 else { return }
        tokens = Int(min(UInt64(capacity), UInt64(tokens) + earned))
        // Keep the remainder: a token earned halfway stays half earned.
        lastRefillMicros = tokens == capacity ? nowMicros : last + earned * microsPerToken
    }
}
