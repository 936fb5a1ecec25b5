import Testing
import TouchRouterCore

@testable import TouchRouterProtocol

/// A reply larger than the queue's budget (`enqueue(reply:)`): queued whole, written in pieces,
/// never an overflow; what is queued behind it is still held to the budget.
@Suite("Client outbox: replies off the budget")
struct OutboxReplyTests {
    /// An `unsubscribed` reply of about `bytes` bytes.
    static func largeReply(_ bytes: Int, seq: Int64) -> [UInt8] {
        let views = (0..<bytes / 12).map { "view-\($0)" }
        return DaemonMessage.unsubscribed(Unsubscribed(views: views, seq: seq)).encodedLine()
    }

    static func began(_ id: UInt64) -> ViewTouches {
        ClientOutboxTests.message("v", id, [ClientOutboxTests.touch(id, .began, at: Double(id), from: Double(id))])
    }

    @Test("a reply four times the budget is queued and written whole, in order with what follows it")
    func largeReplyFits() throws {
        var outbox = ClientOutbox(byteBudget: 4096)
        let reply = Self.largeReply(20_000, seq: 1)
        #expect(reply.count > 4 * 4096)
        #expect(outbox.enqueue(reply: reply) == .queued)
        // Touches behind it count against the budget on their own: a few fit.
        for id in 1...10 { #expect(outbox.enqueue(Self.began(UInt64(id))) == .queued) }
        let messages = try ClientOutboxTests.drain(&outbox, chunk: 1000)
        #expect(messages.count == 11)
        #expect(messages.first?.seq == 1)
        #expect(outbox.takeLargeBuffer() != nil, "the written reply's buffer is handed out to be freed elsewhere")
    }

    @Test("moves coalesced behind a large reply: the reply's bytes do not turn the coalescing into an overflow")
    func coalescingBehindAReply() {
        var outbox = ClientOutbox(byteBudget: 4096)
        #expect(outbox.enqueue(reply: Self.largeReply(20_000, seq: 1)) == .queued)
        #expect(outbox.enqueue(Self.began(1)) == .queued)
        var results: Set<ClientOutbox.EnqueueResult> = []
        for step in 2...200 {
            let move = ClientOutboxTests.touch(1, .moved, at: Double(step), from: Double(step - 1))
            results.insert(outbox.enqueue(ClientOutboxTests.message("v", UInt64(step), [move])))
        }
        #expect(results.contains(.coalesced) && !results.contains(.overflow))
        #expect(!outbox.hasOverflowed)
    }

    @Test("touches behind a large reply still overflow past the budget; after it, the budget is as before")
    func budgetStillHolds() throws {
        var outbox = ClientOutbox(byteBudget: 4096)
        #expect(outbox.enqueue(reply: Self.largeReply(20_000, seq: 1)) == .queued)
        var result = ClientOutbox.EnqueueResult.queued
        var queued = 0
        while result == .queued && queued < 1000 {
            result = outbox.enqueue(Self.began(UInt64(queued)))
            queued += 1
        }
        #expect(result == .overflow)
        #expect(queued < 100, "about 4 KiB of began messages behind the reply")

        var fresh = ClientOutbox(byteBudget: 4096)
        #expect(fresh.enqueue(reply: Self.largeReply(20_000, seq: 2)) == .queued)
        _ = try ClientOutboxTests.drain(&fresh, chunk: 3000)
        var after = 0
        result = .queued
        while result == .queued && after < 1000 {
            result = fresh.enqueue(Self.began(UInt64(after)))
            after += 1
        }
        #expect(result == .overflow)
        #expect(after == queued, "the written reply leaves no exemption behind")
    }

    @Test("an error reply from an overflowed queue is refused like any line")
    func overflowedRefuses() {
        var outbox = ClientOutbox(byteBudget: 4096)
        outbox.finish(with: ProtocolError(code: .queueOverflow, message: "gone"))
        #expect(outbox.enqueue(reply: Self.largeReply(100, seq: 3)) == .overflow)
    }
}
