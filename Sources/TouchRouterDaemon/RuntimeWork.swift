/// Run-time work on the layout worker: one queued request (`RuntimeWork`) applied to the run-time
/// layout, the answers the loop sends once the build is live, the subscription and query part of a
/// build (`QueryPhase`), and the `owner` check. Everything here grows with the layout or the
/// request, so none of it runs on the loop (Daemon+Runtime.swift is the loop's side).
import Glibc
import TouchRouterCore
import TouchRouterProtocol
import TouchRouterSystem

/// One run-time request (or a departed client's undo) for the worker, with who asked.
struct RuntimeWork: Sendable {
    enum Kind: Sendable {
        /// The request as decoded on the loop (`setView`, `unmount`, a `mount` the loop had to
        /// decode whole); turned into Core's `RuntimeRequest` on the worker.
        case request(RequestMessage)
        /// A `mount` line as received: the loop read only its header; the worker decodes the rest.
        case mountLine(MountLineHeader, [UInt8])
        /// A client left: its mounts, resettable changes and subscriptions go.
        case clientLeft
        /// `subscribe`, `unsubscribe`, `layout`, `explain`: their cost grows with the layout, so
        /// they are answered by the build, from its final state (`QueryPhase`).
        case query(RequestMessage)

        /// A client's request (not a departure's undo): a client waits for its reply.
        var isRequest: Bool {
            if case .clientLeft = self { return false }
            return true
        }
    }

    var kind: Kind
    var clientID: ClientID
    var credentials: PeerCredentials?
    var seq: Int64?
    /// For queries: the client is root or the daemon's user (it sees everything).
    var isAdmin = false
    /// For `explain`: the live touches' views on the screen asked about, taken on the loop.
    var touchedViews: [HitTestExplanation.TouchedView] = []
    /// For an admin's `explain`: the connected clients' labels, to name the receivers.
    var clientLabels: [ClientID: String] = [:]

    /// The request's wire type, for replies and logs.
    var typeName: String {
        switch kind {
        case .request(let message), .query(let message): message.typeName
        case .mountLine: "mount"
        case .clientLeft: "clientLeft"
        }
    }

    /// The view ids the request names (for `unknownViews`), sorted.
    var namedViews: [String] {
        switch kind {
        case .request(.setView(let views)): views.keys.sorted()
        case .request(.mount(let viewID, _)), .request(.unmount(let viewID)): [viewID]
        case .mountLine(let header, _): [header.view]
        case .request, .clientLeft, .query: []
        }
    }

    /// Who asked, as Core checks owner and access lists: root passes every list, unknown
    /// credentials none.
    var runtimeClient: RuntimeClient {
        let credentials = self.credentials
        return RuntimeClient(id: clientID) { list in OwnerCheck.admits(credentials, list) }
    }

    /// Applies it to `runtime` (on the worker: owner names are resolved here, as for `access`).
    /// A `mount` line's decoded subtree is appended to `decoded` instead of being freed here: the
    /// caller frees it once the outcome is handed over (freeing a 1,000-view tree costs about a
    /// fifth of decoding it, and nobody waits for it).
    func run(on runtime: inout RuntimeLayout, limits: RuntimeLimits, decoded: inout [JSONNode]) -> RuntimeAnswer {
        let request: RuntimeRequest
        switch kind {
        case .request(let message):
            switch message {
            case .setView(let views):
                request = .setView(views.sorted { $0.key < $1.key }.map { ($0.key, $0.value.node) })
            case .mount(let viewID, let children): request = .mount(viewID: viewID, children: children.node)
            case .unmount(let viewID): request = .unmount(viewID: viewID)
            default: return .applied([])
            }
        case .mountLine(_, let line):
            switch MountRequest.decode(line: line) {
            case .success(let mount):
                request = .mount(viewID: mount.view, children: mount.children)
                decoded.append(mount.children)
            case .failure(let error): return .malformed(error)
            }
        case .clientLeft:
            return .applied(runtime.clientLeft(clientID))
        case .query:
            return .applied([])  // answered after the changes (`QueryPhase`)
        }
        switch runtime.apply(request, by: runtimeClient, limits: limits) {
        case .success(let views): return .applied(views)
        case .failure(let failures): return .refused(failures)
        }
    }
}

/// What became of one piece of run-time work.
enum RuntimeAnswer: Sendable {
    /// Applied; these views changed (empty: nothing did).
    case applied([String])
    /// Refused by Core; nothing of it was applied.
    case refused(RuntimeFailures)
    /// The line was not a valid request (a `mount` line decoded on the worker): the error the loop
    /// would have sent had it decoded the line itself.
    case malformed(ProtocolError)
    /// A query's reply, encoded on the worker.
    case reply(QueryReply)
}

/// A query's reply line and what the loop logs and counts for it.
struct QueryReply: Sendable {
    var line: [UInt8]
    /// An access list refused part of the request (`accessDenials`).
    var accessDenied = false
    /// For the log, after the client's label (info, or notice for a refusal by an access list).
    var log: String?
    var notice: String?
    /// A `subscribe` added subscriptions (a replay waiting for subscribers may start).
    var subscribed = false
}

/// The part of a build after the run-time changes: stale subscriptions ended, then subscription
/// changes and departures applied in order, coverage re-expanded once, then `layout` and
/// `explain` answered from the final state. Everything here grows with the layout or the
/// subscriptions, so it runs on the worker; the loop only swaps the table in and sends the lines.
struct QueryPhase {
    var table: SubscriptionTable
    var access: AccessPolicy
    /// The generation the build's layout has once it is live.
    var generation: UInt64
    /// Per client, the subscriptions that ended and why.
    var ended: [ClientID: [SubscriptionTable.EndReason: [String]]] = [:]
    var tableChanged = false

    /// Runs the phase over `work` (whose run-time parts `runtime` has applied), filling in the
    /// queries' answers. `layoutChanged`: the effective layout differs from the build's start.
    mutating func run(
        _ work: [RuntimeWork], answers: inout [RuntimeAnswer], runtime: RuntimeLayout, layoutChanged: Bool
    ) {
        if layoutChanged {
            let departed = Set(work.filter { if case .clientLeft = $0.kind { true } else { false } }.map(\.clientID))
            ended = table.endStale(owner: runtime.owner(of:), departed: departed)
            for client in departed { ended[client] = nil }
            tableChanged = !ended.isEmpty
        }
        for (index, item) in work.enumerated() {
            switch item.kind {
            case .clientLeft:
                if table.forget(item.clientID) { tableChanged = true }
            case .query(.subscribe(let ids, let subtree, _)):
                answers[index] = .reply(subscribe(item, ids: ids, subtree: subtree, runtime: runtime))
            case .query(.unsubscribe(let target)):
                let viewIDs: [String]? = if case .views(let ids) = target { ids } else { nil }
                let removed = table.remove(item.clientID, from: viewIDs)
                if !removed.isEmpty { tableChanged = true }
                answers[index] = .reply(
                    QueryReply(line: line(.unsubscribed(Unsubscribed(views: removed, seq: item.seq)))))
            default: break
            }
        }
        if layoutChanged {
            table.relayout(runtime.effective.layout, viewCount: runtime.viewCount)
        } else if tableChanged {
            table.reexpand()
        }
        for (index, item) in work.enumerated() {
            switch item.kind {
            case .query(.layout):
                let layout = runtime.effective.layout
                let visible = item.isAdmin ? layout : access.visibleLayout(layout, to: item.credentials)
                answers[index] = .reply(
                    QueryReply(line: line(.layout(LayoutReply(generation: generation, layout: visible, seq: item.seq))))
                )
            case .query(.explain(let screenName, let screenPoint)):
                let explain = ExplainRequest(
                    layout: runtime.effective.layout, subscriptions: table, access: access,
                    passthrough: runtime.effective.viewPassthrough, clientLabels: item.clientLabels,
                    touchedViews: item.touchedViews)
                let reply = explain.reply(
                    screenName: screenName, screenPoint: screenPoint, credentials: item.credentials, seq: item.seq)
                var answer = QueryReply(line: line(reply))
                if case .error(let error) = reply, error.code == .permissionDenied { answer.accessDenied = true }
                answers[index] = .reply(answer)
            default: break
            }
        }
    }

    /// A `subscribe`: the ids the client may see and the layout has, bound to their owners, or
    /// nothing when the client would hold more than `SubscriptionTable.maxPerClient`.
    private mutating func subscribe(_ item: RuntimeWork, ids: [String], subtree: Bool, runtime: RuntimeLayout)
        -> QueryReply
    {
        let seq = item.seq
        var seen = Set<String>()
        let uniqueIDs = ids.filter { seen.insert($0).inserted }
        let denied = Set(uniqueIDs.filter { !access.permits(item.credentials, viewID: $0) })
        let viewIDs = uniqueIDs.filter { !denied.contains($0) }
        let (missingIDs, overLimit) = table.add(
            item.clientID, to: viewIDs, subtree: subtree, owner: runtime.owner(of:))
        if overLimit {
            let limit = SubscriptionTable.maxPerClient
            return QueryReply(
                line: errorLine(
                    code: .tooManySubscriptions,
                    message: "a client may hold at most \(limit) subscriptions; this request was not applied",
                    seq: seq),
                notice: "subscribe refused: more than \(limit) subscriptions")
        }
        // A view the client may not see is answered as one that does not exist: the same code,
        // the same words, in the request's order (one answer for "no such view" and "not yours").
        let missing = Set(missingIDs)
        let unknown = uniqueIDs.filter { denied.contains($0) || missing.contains($0) }
        var answer = QueryReply(line: [])
        answer.subscribed = viewIDs.count > missing.count
        if answer.subscribed { tableChanged = true }
        if !denied.isEmpty {
            answer.accessDenied = true
            answer.notice = "denied (access list): \(excerptList(denied.sorted()))"
        }
        answer.log =
            "subscribed to \(excerptList(viewIDs))" + (subtree ? " (subtree)" : "")
            + (missing.isEmpty ? "" : "; unknown: \(excerptList(missing.sorted()))")
        if !unknown.isEmpty {
            answer.line = errorLine(
                code: .unknownViews, message: "no such view: \(excerptList(unknown))", seq: seq, views: unknown)
        } else {
            answer.line = line(.subscribed(Subscribed(views: viewIDs, subtree: subtree, seq: seq)))
        }
        return answer
    }
}

/// Owner lists against a client's credentials, names resolved with the system's databases
/// (`getpwnam`, `getgrnam`) as access lists are. Root passes every list; unknown credentials none.
enum OwnerCheck {
    static func admits(_ credentials: PeerCredentials?, _ list: AccessList) -> Bool {
        guard let credentials else { return false }
        if credentials.uid == 0 { return true }
        let uids = list.users.compactMap { resolve($0, isGroup: false) }
        let gids = list.groups.compactMap { resolve($0, isGroup: true) }
        return uids.contains(credentials.uid) || gids.contains(credentials.gid)
            || credentials.groups.contains(where: gids.contains)
    }

    /// The names in the config's owner lists that match no user or group on this system (such a
    /// name admits nobody), as `user "kiosk" (view app)`, by view id: for the log at load, as
    /// access lists' are. Cost: one lookup per name (on the worker for a reload).
    static func unknownNames(in settings: RuntimeSettings) -> [String] {
        var unknown: [String] = []
        for (viewID, list) in settings.owners.sorted(by: { $0.key < $1.key }) {
            let principals = list.users.map { ($0, false) } + list.groups.map { ($0, true) }
            for (principal, isGroup) in principals {
                guard case .name(let name) = principal, resolve(principal, isGroup: isGroup) == nil else { continue }
                unknown.append("\(isGroup ? "group" : "user") \"\(Excerpt.of(name))\" (view \(Excerpt.of(viewID)))")
            }
        }
        return unknown
    }

    private static func resolve(_ principal: AccessList.Principal, isGroup: Bool) -> UInt32? {
        switch principal {
        case .id(let id): return id
        case .name(let name):
            if isGroup { return getgrnam(name).map { $0.pointee.gr_gid } }
            return getpwnam(name).map { $0.pointee.pw_uid }
        }
    }
}
