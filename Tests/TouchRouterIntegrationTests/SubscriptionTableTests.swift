import Testing
import TouchRouterCore
import TouchRouterDaemon

/// The subscription table against the obvious answer: for every view, the clients that asked for it
/// or for one of its ancestors with `subtree`, computed by walking the tree.
@Suite("Subscription table: coverage by pre-order ranges")
struct SubscriptionTableTests {
    /// root ─┬─ a ─┬─ a1
    ///       │     └─ a2 ── a2x
    ///       └─ b
    /// second screen: other ── o1
    static let layout = Layout(screens: [
        Screen(
            name: "main", width: 100, height: 100,
            root: View(
                id: "root", frame: Rect(x: 0, y: 0, width: 100, height: 100),
                children: [
                    View(
                        id: "a", frame: Rect(x: 0, y: 0, width: 50, height: 50),
                        children: [
                            View(id: "a1", frame: Rect(x: 0, y: 0, width: 10, height: 10)),
                            View(
                                id: "a2", frame: Rect(x: 10, y: 0, width: 10, height: 10),
                                children: [View(id: "a2x", frame: Rect(x: 0, y: 0, width: 5, height: 5))]),
                        ]),
                    View(id: "b", frame: Rect(x: 50, y: 0, width: 50, height: 50)),
                ])),
        Screen(
            name: "side", width: 10, height: 10,
            root: View(
                id: "other", frame: Rect(x: 0, y: 0, width: 10, height: 10),
                children: [View(id: "o1", frame: Rect(x: 0, y: 0, width: 5, height: 5))])),
    ])

    @Test("a subtree subscription covers the view and its descendants, a plain one the view only")
    func coverage() {
        var table = SubscriptionTable(layout: Self.layout)
        #expect(table.subscribe(1, to: ["a"], subtree: true) == [])
        #expect(table.subscribe(2, to: ["a2", "b"], subtree: false) == [])
        #expect(table.subscribe(3, to: ["other", "nope"], subtree: true) == ["nope"])
        #expect(table.subscribers(of: "root") == [])
        #expect(table.subscribers(of: "a") == [1])
        #expect(table.subscribers(of: "a1") == [1])
        #expect(table.subscribers(of: "a2") == [1, 2])
        #expect(table.subscribers(of: "a2x") == [1])
        #expect(table.subscribers(of: "b") == [2])
        #expect(table.subscribers(of: "other") == [3])
        #expect(table.subscribers(of: "o1") == [3])
        #expect(table.subscribers(of: "nope") == [])
        #expect(table.hasSubscribers("a2x") && !table.hasSubscribers("root"))
        #expect(table.subscribedViewCount == 7)
        #expect(table.subscribedClientCount == 3)
    }

    @Test("overlapping subscriptions of one client list it once; unsubscribe and remove take it away")
    func overlapAndRemoval() {
        var table = SubscriptionTable(layout: Self.layout)
        _ = table.subscribe(1, to: ["root"], subtree: true)
        _ = table.subscribe(1, to: ["a2"], subtree: true)
        _ = table.subscribe(1, to: ["a2x"], subtree: false)
        #expect(table.subscribers(of: "a2x") == [1])
        #expect(table.unsubscribe(1, from: ["root"]) == ["root"])
        #expect(table.subscribers(of: "a") == [])
        #expect(table.subscribers(of: "a2x") == [1])
        #expect(table.subscribedViewCount == 2)
        table.remove(1)
        #expect(table.subscribers(of: "a2x") == [])
        #expect(table.subscribedViewCount == 0)
        #expect(table.subscribedClientCount == 0)
    }

    @Test("a view missing from a new layout loses its coverage and gets it back when it returns")
    func relayout() {
        var table = SubscriptionTable(layout: Self.layout)
        _ = table.subscribe(7, to: ["a2"], subtree: true)
        let without = Layout(screens: [
            Screen(
                name: "main", width: 100, height: 100,
                root: View(id: "root", frame: Rect(x: 0, y: 0, width: 100, height: 100)))
        ])
        table.relayout(without)
        #expect(table.subscribers(of: "a2") == [])
        #expect(table.subscribedViewCount == 0)
        #expect(table.requestedViews(of: 7).map(\.viewID) == ["a2"])
        let back = table.relayouted(Self.layout)
        #expect(back.subscribers(of: "a2x") == [7])
        #expect(back.version == table.version)
    }

    /// The numbering walks no view twice and copies none onto its stack; whatever it is told of the
    /// view count (a capacity hint), it numbers exactly as a recursive pre-order walk.
    @Test("random trees: the layout index numbers views and subtrees as a recursive walk", arguments: 0..<20)
    func layoutIndexAgainstWalk(seed: UInt64) {
        var random = SeededRandom(seed: 0x1d_0000 + seed)
        var counter = 0
        func tree(depth: Int) -> View {
            counter += 1
            let childCount = depth > 6 ? 0 : Int(random.next() % 4)
            return View(
                id: "v\(counter)", frame: Rect(x: 0, y: 0, width: 10, height: 10),
                children: (0..<childCount).map { _ in tree(depth: depth + 1) })
        }
        let layout = Layout(screens: [
            Screen(name: "s1", width: 10, height: 10, root: tree(depth: 0)),
            Screen(name: "s2", width: 10, height: 10, root: tree(depth: 5)),
        ])
        var order: [String] = []
        var subtrees: [String: [String]] = [:]
        func walk(_ view: View) {
            let start = order.count
            order.append(view.id)
            view.children.forEach(walk)
            subtrees[view.id] = Array(order[start...])
        }
        layout.screens.forEach { walk($0.root) }
        for hint in [nil, 0, order.count, 3 * order.count] {
            let index = LayoutIndex(layout, viewCount: hint)
            #expect(Array(index.ids) == order)
            for id in order { #expect(index.subtreeIDs(of: id).map(Array.init) == subtrees[id]) }
        }
    }

    @Test("random trees and random subscriptions: the table equals a walk of the tree", arguments: 0..<40)
    func randomAgainstWalk(seed: UInt64) {
        var random = SeededRandom(seed: 0x5eed_0000 + seed)
        var counter = 0
        func tree(depth: Int) -> View {
            counter += 1
            let id = "v\(counter)"
            let childCount = depth > 5 ? 0 : Int(random.next() % 4)
            return View(
                id: id, frame: Rect(x: 0, y: 0, width: 10, height: 10),
                children: (0..<childCount).map { _ in tree(depth: depth + 1) })
        }
        let layout = Layout(screens: [
            Screen(name: "s1", width: 10, height: 10, root: tree(depth: 0)),
            Screen(name: "s2", width: 10, height: 10, root: tree(depth: 3)),
        ])
        var all: [View] = []
        var parentOf: [String: String] = [:]
        func walk(_ view: View) {
            all.append(view)
            for child in view.children {
                parentOf[child.id] = view.id
                walk(child)
            }
        }
        layout.screens.forEach { walk($0.root) }
        var table = SubscriptionTable(layout: layout)
        var asked: [Int: [String: Bool]] = [:]
        for _ in 0..<Int(random.next() % 12) {
            let client = Int(random.next() % 5)
            let view = all[Int(random.next() % UInt64(all.count))].id
            let subtree = random.next() % 2 == 0
            if random.next() % 5 == 0 {
                _ = table.unsubscribe(client, from: [view])
                asked[client]?[view] = nil
            } else {
                _ = table.subscribe(client, to: [view], subtree: subtree)
                asked[client, default: [:]][view] = subtree
            }
        }
        var covered = 0
        for view in all {
            var expected: [Int] = []
            for (client, views) in asked {
                var takes = views[view.id] != nil
                var ancestor = parentOf[view.id]
                while !takes, let id = ancestor {
                    takes = views[id] == true
                    ancestor = parentOf[id]
                }
                if takes { expected.append(client) }
            }
            if !expected.isEmpty { covered += 1 }
            #expect(table.subscribers(of: view.id) == expected.sorted(), "seed \(seed), view \(view.id)")
        }
        #expect(table.subscribedViewCount == covered, "seed \(seed)")
    }
}
