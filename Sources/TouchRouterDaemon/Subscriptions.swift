/// Who subscribed to which view. Subscriptions are kept by view id, as the client asked for
/// them; what they cover (a subtree's descendants) is recomputed against every new layout, so a
/// view removed by a reload resumes its subscribers when it comes back.
import TouchRouterCore
import TouchRouterSystem

/// A connected client, as the subscription table knows it.
public typealias ClientID = Int

/// Every view id of a layout and the ids of its subtree (itself first).
public struct LayoutIndex: Sendable {
    /// View id → the ids of its subtree, itself first.
    public private(set) var subtreeIDs: [String: [String]] = [:]

    /// Indexes every view of `layout`.
    public init(_ layout: Layout) {
        for screen in layout.screens { _ = collect(screen.root) }
    }

    /// The layout has a view with this id.
    public func contains(_ viewID: String) -> Bool { subtreeIDs[viewID] != nil }

    private mutating func collect(_ view: View) -> [String] {
        var ids = [view.id]
        for child in view.children { ids += collect(child) }
        subtreeIDs[view.id] = ids
        return ids
    }
}

extension SubscriptionTable: SubscribedViews {
    /// Somebody receives this view's touches (the tracker's responder-chain question).
    public func hasSubscribers(_ viewID: String) -> Bool { subscribersByView[viewID] != nil }
}

/// The subscription table: requested subscriptions per client and, derived from them and the
/// current layout, the subscribers of every view.
public struct SubscriptionTable: Sendable {
    /// Per client: requested view id → whether the subscription includes its subtree.
    private var requested: [ClientID: [String: Bool]] = [:]
    /// Per view id: the clients receiving its touches under the current layout.
    public private(set) var subscribersByView: [String: [ClientID]] = [:]
    private var index: LayoutIndex
    /// Grows with every change of what clients asked for: a table re-expanded off the routing
    /// thread (`relayouted`) may replace this one only if no client changed its subscriptions since.
    public private(set) var version = 0

    /// An empty table for `layout`.
    public init(layout: Layout) {
        index = LayoutIndex(layout)
    }

    /// How many clients have at least one subscription (whether or not the layout has its view).
    public var subscribedClientCount: Int { requested.values.filter { !$0.isEmpty }.count }

    /// Subscribes `client` to `viewIDs` (and their subtrees when `subtree`). A view the client
    /// already subscribed to takes the new `subtree` setting (re-subscribing replaces). Returns
    /// the ids the current layout does not have; those are not subscribed, the others are.
    public mutating func subscribe(_ client: ClientID, to viewIDs: [String], subtree: Bool) -> [String] {
        var unknown: [String] = []
        for viewID in viewIDs {
            guard index.contains(viewID) else {
                unknown.append(viewID)
                continue
            }
            requested[client, default: [:]][viewID] = subtree
        }
        version += 1
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
        (requested[client] ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Forgets a disconnected client.
    public mutating func remove(_ client: ClientID) {
        guard requested.removeValue(forKey: client) != nil else { return }
        version += 1
        rebuild()
    }

    /// Recomputes coverage against a new layout; requested ids missing from it stay requested.
    public mutating func relayout(_ layout: Layout) {
        index = LayoutIndex(layout)
        rebuild()
    }

    /// This table re-expanded against `layout` (same requests, same `version`). Cost: linear in the
    /// layout plus what the subscriptions cover; meant for the reload worker.
    public func relayouted(_ layout: Layout) -> SubscriptionTable {
        var table = self
        table.relayout(layout)
        return table
    }

    private mutating func rebuild() {
        var subscribers: [String: [ClientID]] = [:]
        for (client, views) in requested.sorted(by: { $0.key < $1.key }) {
            var covered = Set<String>()
            for (viewID, subtree) in views {
                guard let ids = index.subtreeIDs[viewID] else { continue }
                if subtree { covered.formUnion(ids) } else { covered.insert(viewID) }
            }
            for viewID in covered { subscribers[viewID, default: []].append(client) }
        }
        subscribersByView = subscribers
    }
}
