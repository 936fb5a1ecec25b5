import Testing
import TouchRouterCore
import TouchRouterModel

/// A client holds at most `SubscriptionTable.maxPerClient` subscriptions: a request that would go
/// past it is refused whole; one that reaches it exactly, or names views already held, is not.
@Suite("Subscriptions: the per-client limit")
struct SubscriptionLimitTests {
    @Test("exactly the limit is allowed, one more is refused whole; views already held count once")
    func limit() {
        var table = SubscriptionTable(layout: Layout(screens: []))
        let limit = SubscriptionTable.maxPerClient
        let known: (String) -> RuntimeLayout.ViewOwner? = { _ in .config }
        let first = table.add(1, to: (0..<(limit - 1)).map { "v\($0)" }, subtree: false, owner: known)
        #expect(!first.overLimit && first.unknown.isEmpty)
        // The last one reaches the limit exactly, with one already held in the same request.
        let last = table.add(1, to: ["v0", "v\(limit - 1)"], subtree: false, owner: known)
        #expect(!last.overLimit)
        #expect(table.requestedCount == limit)
        // One more view is refused, and nothing of that request is applied.
        let over = table.add(1, to: ["v0", "extra"], subtree: true, owner: known)
        #expect(over.overLimit)
        #expect(table.requestedCount == limit)
        #expect(table.requestedViews(of: 1).first { $0.viewID == "v0" }?.subtree == false)
        // Another client has its own limit.
        #expect(!table.add(2, to: ["extra"], subtree: false, owner: known).overLimit)
    }

    /// A screen's `idle` and `active` go to the clients subscribed to a view of that screen, not
    /// of another: three screens, one client on each.
    @Test("a client subscribed on one screen is subscribed to that screen only")
    func screenOfASubscription() {
        let screens = ["a", "b", "c"].map { name in
            Screen(
                name: name, width: 10, height: 10,
                root: View(
                    id: name, frame: Rect(x: 0, y: 0, width: 10, height: 10),
                    children: [View(id: name + "-child", frame: Rect(x: 0, y: 0, width: 5, height: 5))]))
        }
        var table = SubscriptionTable(layout: Layout(screens: screens))
        #expect(table.subscribe(1, to: ["a-child"], subtree: false).isEmpty)
        #expect(table.subscribe(2, to: ["b"], subtree: false).isEmpty)
        #expect(table.subscribe(3, to: ["c-child"], subtree: false).isEmpty)
        for (client, screen) in [(1, 0), (2, 1), (3, 2)] {
            #expect(
                (0..<3).map { table.isSubscribed(ClientID(client), toAnyViewOfScreenAt: $0) }
                    == (0..<3).map { $0 == screen }, "client \(client)")
        }
    }
}
