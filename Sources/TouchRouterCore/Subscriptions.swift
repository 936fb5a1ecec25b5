/// Who subscribed to which view. Subscriptions are kept by view id, as the client asked for
/// them; what they cover (a subtree's descendants) is recomputed against every new layout, so a
/// config view removed by a reload resumes its subscribers when it comes back. Each subscription
/// is bound to its view's owner when it is made (the config file, or the client that mounted the
/// view): when a mounted view goes (unmounted, replaced, its owner gone) or its id comes back
/// under another owner, the subscription ends (`endStale`), so stale subscriptions do not pile
/// up and another owner's view never takes one over. A client holds at most `maxPerClient`.
///
/// The table is changed only off the routing thread (the daemon's layout worker): a change
/// re-expands coverage, which is linear in the layout; the `Router` takes the finished table.
///
/// Memory is flat in the number of views: the layout's views are numbered in pre-order (a subtree
/// is then one range of numbers), and coverage is one small integer per view naming a shared,
/// deduplicated list of clients. No per-view arrays, sets or strings are built, so a 100,000-view
/// layout costs a few megabytes here however many clients subscribe to all of it.
import TouchRouterModel

/// A connected client, as the subscription table knows it.
public typealias ClientID = Int

/// Every view of a layout numbered in pre-order across its screens, so that a view's subtree is
/// the range `number ..< subtreeEnd[number]`.
public struct LayoutIndex: Sendable {
    /// View ids in pre-order (screens in config order, each root first, children back to front).
    public private(set) var ids: ContiguousArray<String> = []
    /// For each view, one past the number of the last view of its subtree.
    private var subtreeEnd: ContiguousArray<Int32> = []
    /// View id → number (the first in pre-order wins; a valid config has unique ids).
    private var numberByID: [String: Int32] = [:]

    /// Numbers every view of `layout`. Cost: linear in the number of views, no recursion.
    /// `viewCount`, when the caller knows it, sizes the tables without counting the views first.
    public init(_ layout: Layout, viewCount: Int? = nil) {
        let count = viewCount ?? layout.viewCount
        ids.reserveCapacity(count)
        subtreeEnd.reserveCapacity(count)
        numberByID.reserveCapacity(count)
        for screen in layout.screens { add(screen.root) }
    }

    /// How many views the layout has.
    public var count: Int { ids.count }

    /// The layout has a view with this id.
    public func contains(_ viewID: String) -> Bool { numberByID[viewID] != nil }

    /// The view's pre-order number, or nil when the layout has no such view.
    public func number(of viewID: String) -> Int? { numberByID[viewID].map(Int.init) }

    /// The numbers of the view's subtree, itself first.
    public func subtree(of number: Int) -> Range<Int> { number..<Int(subtreeEnd[number]) }

    /// The ids of the view's subtree, itself first; nil when the layout has no such view.
    public func subtreeIDs(of viewID: String) -> ArraySlice<String>? {
        number(of: viewID).map { ids[subtree(of: $0)] }
    }

    /// Pre-order with an explicit stack (a 100,000-deep chain must not overflow the thread's stack).
    /// The stack holds one entry per open parent (its children and the next one to visit), and a
    /// view is read in place there: only its id and children are copied, never the whole view.
    private mutating func add(_ root: View) {
        var stack: [(children: [View], next: Int, number: Int32)] = []
        var id = root.id
        var children = root.children
        while true {
            let number = Int32(ids.count)
            ids.append(id)
            subtreeEnd.append(number + 1)
            // One hash per id: a second lookup only for a duplicate, to keep the first.
            if let first = numberByID.updateValue(number, forKey: id) { numberByID[id] = first }
            if !children.isEmpty { stack.append((children, 0, number)) }
            // The next view: the open parent's next child, closing every parent whose children are done.
            while let top = stack.indices.last, stack[top].next == stack[top].children.count {
                subtreeEnd[Int(stack[top].number)] = Int32(ids.count)
                stack.removeLast()
            }
            guard let top = stack.indices.last else { return }
            let next = stack[top].next
            id = stack[top].children[next].id
            children = stack[top].children[next].children
            stack[top].next = next + 1
        }
    }
}

extension SubscriptionTable: SubscribedViews {
    /// The client asked for a view of the screen at this index (in layout order): it gets that
    /// screen's `idle` and `active`. Cost: the client's requested views.
    public func isSubscribed(_ client: ClientID, toAnyViewOfScreenAt screenIndex: Int) -> Bool {
        guard let requested = requested[client], !requested.isEmpty else { return false }
        var root = 0
        for _ in 0..<screenIndex where root < index.count { root = index.subtree(of: root).upperBound }
        guard root < index.count else { return false }
        let screen = index.subtree(of: root)
        return requested.keys.contains { index.number(of: $0).map(screen.contains) ?? false }
    }

    /// Somebody receives this view's touches (the tracker's responder-chain question).
    /// Cost: one dictionary lookup.
    public func hasSubscribers(_ viewID: String) -> Bool { !subscribers(of: viewID).isEmpty }
}

/// The subscription table: requested subscriptions per client and, derived from them and the
/// current layout, the subscribers of every view.
public struct SubscriptionTable: Sendable {
    /// One requested subscription: whether it includes the view's subtree, and whose the view was
    /// when it was made.
    struct Requested: Hashable, Sendable {
        var subtree: Bool
        var owner: RuntimeLayout.ViewOwner
    }

    /// Most subscriptions one client may hold at once (each a view id, with or without its
    /// subtree); docs/operations.md, "Limits".
    public static let maxPerClient = 10_000

    /// Per client: requested view id → the subscription.
    private var requested: [ClientID: [String: Requested]] = [:]
    private var index: LayoutIndex
    /// Per view number: an index into `clientLists`; 0 is the empty list.
    private var coverage: ContiguousArray<UInt32> = []
    /// The distinct lists of subscribers, each sorted by client id; `clientLists[0]` is empty.
    private var clientLists: [[ClientID]] = [[]]
    /// How many views have at least one subscriber.
    public private(set) var subscribedViewCount = 0
    /// Grows with every change of what clients asked for: a table re-expanded off the routing
    /// thread (`relayouted`) may replace this one only if no client changed its subscriptions since.
    public private(set) var version = 0

    /// An empty table for `layout`.
    public init(layout: Layout) {
        index = LayoutIndex(layout)
        coverage = ContiguousArray(repeating: 0, count: index.count)
    }

    /// The clients receiving this view's touches under the current layout, sorted by client id
    /// (empty for an unknown view). Cost: one dictionary lookup; nothing is allocated.
    public func subscribers(of viewID: String) -> [ClientID] {
        guard let number = index.number(of: viewID) else { return [] }
        return clientLists[Int(coverage[number])]
    }

    /// How many clients have at least one subscription (whether or not the layout has its view).
    public var subscribedClientCount: Int { requested.values.filter { !$0.isEmpty }.count }

    /// Subscribes `client` to `viewIDs` (and their subtrees when `subtree`) as config views, and
    /// re-expands coverage: `add` and `reexpand` in one step, for callers without a run-time
    /// layout (benchmarks, tests). A view the client already subscribed to takes the new `subtree`
    /// setting (re-subscribing replaces). Returns the ids the current layout does not have; those
    /// are not subscribed, the others are (none beyond `maxPerClient`).
    public mutating func subscribe(_ client: ClientID, to viewIDs: [String], subtree: Bool) -> [String] {
        let index = self.index
        let (unknown, _) = add(client, to: viewIDs, subtree: subtree) { index.contains($0) ? .config : nil }
        rebuild()
        return unknown
    }

    /// Removes `viewIDs` from `client`'s subscriptions, or all of them when nil. Returns the
    /// requested ids that were removed.
    public mutating func unsubscribe(_ client: ClientID, from viewIDs: [String]?) -> [String] {
        let before = requested[client] ?? [:]
        if let viewIDs {
            for viewID in viewIDs { requested[client]?[viewID] = nil }
        } else {
            requested[client] = nil
        }
        version += 1
        rebuild()
        return before.keys.filter { requested[client]?[$0] == nil }.sorted()
    }

    /// The subscriptions `client` asked for, sorted by view id.
    public func requestedViews(of client: ClientID) -> [(viewID: String, subtree: Bool)] {
        (requested[client] ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value.subtree) }
    }

    /// Forgets a disconnected client.
    public mutating func remove(_ client: ClientID) {
        guard requested.removeValue(forKey: client) != nil else { return }
        version += 1
        rebuild()
    }

    /// Recomputes coverage against a new layout; requested ids missing from it stay requested.
    /// `viewCount`, when known, saves counting the layout's views.
    public mutating func relayout(_ layout: Layout, viewCount: Int? = nil) {
        index = LayoutIndex(layout, viewCount: viewCount)
        rebuild()
    }

    /// This table re-expanded against `layout` (same requests, same `version`). Cost: linear in the
    /// layout plus the number of subscriptions; meant for the reload worker.
    public func relayouted(_ layout: Layout, viewCount: Int? = nil) -> SubscriptionTable {
        var table = self
        table.relayout(layout, viewCount: viewCount)
        return table
    }

    // MARK: Batched changes (the layout worker): requests change, coverage waits for `reexpand`.

    /// Subscribes `client` to the `viewIDs` that `owner` knows (each bound to that owner), or to
    /// none when that would give it more than `maxPerClient` subscriptions. Returns the ids
    /// `owner` does not know, and whether the limit refused the request. Coverage is not
    /// re-expanded: call `reexpand` (or `relayout`) after the batch. Cost: O(ids).
    public mutating func add(
        _ client: ClientID, to viewIDs: [String], subtree: Bool, owner: (String) -> RuntimeLayout.ViewOwner?
    ) -> (unknown: [String], overLimit: Bool) {
        var unknown: [String] = []
        var known: [(String, RuntimeLayout.ViewOwner)] = []
        for viewID in viewIDs {
            if let viewOwner = owner(viewID) { known.append((viewID, viewOwner)) } else { unknown.append(viewID) }
        }
        let own = requested[client] ?? [:]
        let added = known.filter { own[$0.0] == nil }.count
        if own.count + added > Self.maxPerClient { return (unknown, true) }
        guard !known.isEmpty else { return (unknown, false) }
        for (viewID, viewOwner) in known {
            requested[client, default: [:]][viewID] = Requested(subtree: subtree, owner: viewOwner)
        }
        version += 1
        return (unknown, false)
    }

    /// Removes `viewIDs` from `client`'s subscriptions (all of them when nil) without re-expanding
    /// coverage. Returns the ids removed, sorted. Cost: O(ids), or O(the client's subscriptions).
    public mutating func remove(_ client: ClientID, from viewIDs: [String]?) -> [String] {
        guard var own = requested[client] else { return [] }
        var removed: [String] = []
        if let viewIDs {
            for viewID in viewIDs where own.removeValue(forKey: viewID) != nil { removed.append(viewID) }
        } else {
            removed = Array(own.keys)
            own = [:]
        }
        requested[client] = own.isEmpty ? nil : own
        if !removed.isEmpty { version += 1 }
        return removed.sorted()
    }

    /// Forgets a departed client without re-expanding coverage. Returns whether it had any.
    public mutating func forget(_ client: ClientID) -> Bool {
        guard requested.removeValue(forKey: client) != nil else { return false }
        version += 1
        return true
    }

    /// Why a subscription ended (`subscriptionEnded`'s `reason`).
    public enum EndReason: String, Sendable {
        /// The mounted view went: unmounted, or left out of a new mount, or dropped by a reload.
        case unmounted
        /// The client that mounted the view left.
        case ownerLeft
        /// The id now names another owner's view.
        case replaced
    }

    /// Ends every subscription whose view is no longer the one it was made to: a mounted view that
    /// is gone, or an id that now names another owner's view. A config view that is gone keeps its
    /// subscription (it resumes if a reload brings it back). `departed`: clients that left in this
    /// build (their mounts' subscribers are told `ownerLeft`). Returns, per client, the ended ids
    /// (sorted) by reason. Coverage is not re-expanded. Cost: O(subscriptions) owner lookups.
    public mutating func endStale(
        owner: (String) -> RuntimeLayout.ViewOwner?, departed: Set<ClientID>
    ) -> [ClientID: [EndReason: [String]]] {
        var ended: [ClientID: [EndReason: [String]]] = [:]
        for (client, own) in requested {
            var kept = own
            for (viewID, request) in own {
                let now = owner(viewID)
                let reason: EndReason
                switch (request.owner, now) {
                case (_, now) where now == request.owner: continue
                case (.config, nil): continue
                case (.client(let mounter), nil): reason = departed.contains(mounter) ? .ownerLeft : .unmounted
                default: reason = .replaced
                }
                kept[viewID] = nil
                ended[client, default: [:]][reason, default: []].append(viewID)
            }
            if kept.count != own.count { requested[client] = kept.isEmpty ? nil : kept }
        }
        if !ended.isEmpty { version += 1 }
        for client in ended.keys {
            for reason in ended[client]!.keys { ended[client]![reason]!.sort() }
        }
        return ended
    }

    /// Re-expands coverage after batched changes. Cost: linear in the layout plus the subscriptions.
    public mutating func reexpand() { rebuild() }

    /// How many subscriptions all clients hold together.
    public var requestedCount: Int { requested.values.reduce(0) { $0 + $1.count } }

    /// Coverage from the requests: each request is a range of view numbers (a subtree, or one view)
    /// for one client. A sweep over the numbers keeps how many of each client's ranges are open and
    /// gives every run of views with the same subscribers one shared list. Cost: O(views + ranges ×
    /// log ranges + distinct lists × clients); one allocation per distinct list, never per view.
    private mutating func rebuild() {
        // (number, client, +1 opening / -1 closing), sorted by number.
        var edges: [(number: Int, client: ClientID, delta: Int)] = []
        for (client, views) in requested {
            for (viewID, request) in views {
                guard let number = index.number(of: viewID) else { continue }
                let end = request.subtree ? index.subtree(of: number).upperBound : number + 1
                edges.append((number, client, 1))
                edges.append((end, client, -1))
            }
        }
        edges.sort { $0.number < $1.number }
        if coverage.count != index.count {
            coverage = ContiguousArray(repeating: 0, count: index.count)
        }
        clientLists = [[]]
        var listNumbers: [[ClientID]: UInt32] = [[]: 0]
        var open: [ClientID: Int] = [:]
        var current: UInt32 = 0
        var covered = 0
        var next = 0
        var position = 0
        while position < index.count {
            var changed = false
            while next < edges.count && edges[next].number == position {
                open[edges[next].client, default: 0] += edges[next].delta
                if open[edges[next].client] == 0 { open[edges[next].client] = nil }
                next += 1
                changed = true
            }
            if changed {
                let clients = open.keys.sorted()
                if let known = listNumbers[clients] {
                    current = known
                } else {
                    current = UInt32(clientLists.count)
                    clientLists.append(clients)
                    listNumbers[clients] = current
                }
            }
            // The run up to the next edge shares one list.
            let runEnd = next < edges.count ? min(edges[next].number, index.count) : index.count
            for number in position..<runEnd { coverage[number] = current }
            if current != 0 { covered += runEnd - position }
            position = runEnd
        }
        subscribedViewCount = covered
    }
}
