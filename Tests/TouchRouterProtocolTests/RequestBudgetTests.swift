import Testing
import TouchRouterProtocol

@Suite("Request budget: a burst is fine, a flood is not")
struct RequestBudgetTests {
    @Test("a full bucket allows exactly its capacity at one instant")
    func burst() {
        var budget = RequestBudget(capacity: 5, refillPerSecond: 10)
        let taken = (0..<7).map { _ in budget.take(atMicros: 1_000) }
        #expect(taken == [true, true, true, true, true, false, false])
    }

    @Test("tokens come back at the refill rate, never above capacity")
    func refill() {
        var budget = RequestBudget(capacity: 2, refillPerSecond: 10)  // one token per 100 ms
        let taken = [0, 0, 99_999, 100_000, 100_000, 10_100_000, 10_100_000, 10_100_000].map {
            budget.take(atMicros: UInt64($0))
        }
        // Two at once, none before 100 ms, one at 100 ms; after ten seconds idle the bucket is
        // full again but holds no more than its capacity.
        #expect(taken == [true, true, false, true, false, true, true, false])
    }

    @Test("a refill that earns a token keeps the part of the next one already earned")
    func remainderKeptAcrossARefill() {
        var budget = RequestBudget(capacity: 3, refillPerSecond: 10)  // one token per 100 ms
        // Empty at 0; at 150 ms one token is earned and 50 ms of the next; at 200 ms the next.
        let taken = [0, 0, 0, 150_000, 200_000].map { budget.take(atMicros: UInt64($0)) }
        #expect(taken == [true, true, true, true, true])
    }

    @Test("a token earned halfway stays half earned")
    func remainderKept() {
        var budget = RequestBudget(capacity: 1, refillPerSecond: 10)
        let taken = [0, 50_000, 100_000].map { budget.take(atMicros: UInt64($0)) }
        #expect(taken == [true, false, true], "the first 50 ms still count")
    }

    @Test("the daemon's budget: a client asking every millisecond for 10 s stays within it")
    func standardSustains() {
        var budget = RequestBudget.standard
        var refused = 0
        for millisecond in 0..<10_000 where !budget.take(atMicros: UInt64(millisecond) * 1_000) { refused += 1 }
        // 1,000 at once plus 500 per second: 1 kHz drains it after 2 s, then half are refused.
        #expect(refused > 0)
        var polite = RequestBudget.standard
        var politeRefused = 0
        for step in 0..<10_000 where !polite.take(atMicros: UInt64(step) * 5_000) { politeRefused += 1 }
        #expect(politeRefused == 0, "a status every 5 ms is always answered")
    }
}
