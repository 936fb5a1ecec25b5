/// Run-time layout changes (`setView`, `mount`, `unmount`, and a departing client's undo).
///
/// Where the work happens: the loop only decodes a request (bounded by the 64 KiB line limit),
/// takes its change tokens and queues it; turning its JSON into Core's nodes, checking it against
/// the layout, rebuilding the layout,
/// the hit-test index, access lists and subscriptions all grow with the layout, so they run on the
/// layout worker in the same queue as reloads (`ReloadWorker`). The loop swaps the result in as
/// it swaps a reload in: O(live touches) plus one line per client. Requests are applied in the
/// order they arrived, each whole or not at all; a reload and run-time changes queued together
/// are built together (the file first, then the changes on top), so neither loses the other.
/// A client waiting for such a reply has its further requests held (not read) until it comes, so
/// its replies stay in order.
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
                    clientLabels: item.clientLabels, touchedViews: item.touchedViews)
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

extension Daemon {
    /// A client's changes per second: bursts of 200, 100 per second sustained. Every view of a
    /// `setView` counts one, a `mount` or `unmount` one.
    static let changeBudget = RequestBudget(capacity: 200, refillPerSecond: 100)

    /// `setView`, `mount`, `unmount`: checked against the change budget, then queued for the
    /// worker; the reply comes when the change is live (`answerRuntime`), and the client's later
    /// requests wait for it. Cost on the loop: O(views named) for the change tokens; the request
    /// was decoded already (linear in its line, at most the 64 KiB line limit).
    func handleRuntimeRequest(_ request: RequestMessage, seq: Int64?, from client: ClientConnection) -> [UInt8]? {
        let changes: Int
        switch request {
        case .setView(let views): changes = max(views.count, 1)
        case .mount, .unmount: changes = 1
        default: return nil
        }
        return queueRuntimeRequest(.request(request), changes: changes, seq: seq, from: client)
    }

    /// A `mount` line the loop did not decode (`MountLineHeader.find` read its header): one change
    /// token, then the raw line is queued for the worker, which decodes and checks it and answers
    /// with the same errors a decode on the loop would give. A line past the change budget is
    /// refused without being read further. Cost on the loop: the header's skim (one pass over the
    /// line, no allocation) and one copy of the line (at most the 64 KiB line limit).
    func handleMountLine(_ header: MountLineHeader, _ line: ArraySlice<UInt8>, from client: ClientConnection)
        -> [UInt8]?
    {
        queueRuntimeRequest(.mountLine(header, Array(line)), changes: 1, seq: header.seq, from: client)
    }

    /// The change budget, then the worker's queue. Cost: O(changes).
    private func queueRuntimeRequest(
        _ kind: RuntimeWork.Kind, changes: Int, seq: Int64?, from client: ClientConnection
    ) -> [UInt8]? {
        let typeName = RuntimeWork(kind: kind, clientID: client.id, seq: seq).typeName
        let now = monotonicMicros()
        for _ in 0..<changes where !client.changeBudget.take(atMicros: now) {
            stats.changesRefused += 1
            logger.notice("\(client.label): too many layout changes; \(typeName) refused")
            let budget = Self.changeBudget
            return errorLine(
                code: .tooManyChanges,
                message: "more than \(budget.refillPerSecond) view changes per second (bursts of \(budget.capacity));"
                    + " this request was not applied",
                seq: seq)
        }
        if isStopping {
            return errorLine(code: .shuttingDown, message: "the daemon is stopping", seq: seq)
        }
        client.awaitsLayoutReply = true
        switch kind {
        case .mountLine, .request(.mount): client.sentMount = true
        case .request(.setView(let views)):
            // Only ids whose change its departure must undo (`resetOnDisconnect` in the file; also
            // views a mount hides now, which an unmount queued before this may bring back), so
            // made-up ids do not grow this set; while a reload is on its way, every id: the new
            // file may say `resetOnDisconnect` for it.
            let reloading = reloadInFlight?.readsFile == true || reloadQueued?.readsFile == true
            let resets = runtime.base.runtime.resetsOnDisconnect
            client.changedViewIDs.formUnion(reloading ? Array(views.keys) : views.keys.filter(resets.contains))
        default: break
        }
        queueLayoutWork(RuntimeWork(kind: kind, clientID: client.id, credentials: client.credentials, seq: seq))
        return nil
    }

    /// `subscribe`, `unsubscribe`, `layout`, `explain`: queued for the layout worker, which answers
    /// them from the build's final state (their walks, the coverage's re-expansion and the reply
    /// grow with the layout); the client's later requests wait for the reply, as for `setView`.
    /// Cost on the loop: O(1), plus for `explain` the live touches' views (O(touches)) and, for an
    /// admin, the clients' labels (O(clients), at most `--max-clients`). The request was decoded
    /// already (at most the 64 KiB line limit).
    func queueQuery(_ request: RequestMessage, seq: Int64?, from client: ClientConnection) -> [UInt8]? {
        if isStopping { return errorLine(code: .shuttingDown, message: "the daemon is stopping", seq: seq) }
        var work = RuntimeWork(kind: .query(request), clientID: client.id, credentials: client.credentials, seq: seq)
        work.isAdmin = isAdmin(client)
        switch request {
        case .subscribe(_, _, let delivery):
            if let touches = delivery.touches { client.receivesTouches = touches }
            if let gestures = delivery.gestures { client.receivesGestures = gestures }
            client.hasSubscribed = true
        case .explain(let screenName, _):
            if let name = screenName ?? layout.screens.first?.name {
                work.touchedViews = router.tracker.touchedViews(screen: name)
            }
            if work.isAdmin { work.clientLabels = clients.mapValues(\.label) }
        default: break
        }
        client.awaitsLayoutReply = true
        queueLayoutWork(work)
        return nil
    }

    /// Queues run-time work behind the build in progress (merged with what waits there), or
    /// starts a build. Cost: O(1).
    func queueLayoutWork(_ work: RuntimeWork) {
        guard !isStopping else { return }
        if reloadInFlight != nil {
            var queued = reloadQueued ?? ReloadJob(readsFile: false)
            queued.runtime.append(work)
            reloadQueued = queued
        } else {
            startReload(ReloadJob(readsFile: false, runtime: [work]))
        }
    }

    /// A client left: its mounts, resettable changes and subscriptions are undone by the worker. A
    /// build is queued only when there may be something to undo: the client sent a `mount` (it may
    /// still have a subtree, or one on its way) or a `subscribe`, or one of its `setView`s named a
    /// view that says `resetOnDisconnect` in the config in effect. A client that changed nothing
    /// costs nothing. Until the build is live, the old subscription table still names the client:
    /// delivery skips it (it is no longer connected).
    /// Cost: O(the distinct views the client's `setView`s named), O(1) for most clients.
    func runtimeClientLeft(_ client: ClientConnection) {
        guard !isStopping else { return }
        let resets = runtime.base.runtime.resetsOnDisconnect
        guard client.sentMount || client.hasSubscribed || client.changedViewIDs.contains(where: resets.contains)
        else { return }
        queueLayoutWork(RuntimeWork(kind: .clientLeft, clientID: client.id, credentials: nil, seq: nil))
    }

    /// Sends each run-time request and query its reply (the change is live now) and lets its
    /// client go on. Replies go through `ClientOutbox.enqueue(reply:)`: however large (a `layout`
    /// of every view), they never get their requester cut off. Cost: one line per request of the
    /// build (the lines were encoded on the worker).
    func answerRuntime(_ work: [RuntimeWork], _ answers: [RuntimeAnswer]) {
        var subscribed = false
        for (item, answer) in zip(work, answers) {
            if case .clientLeft = item.kind { continue }
            let type = item.typeName
            guard let client = clients[item.clientID], client.closing == nil else { continue }
            let reply: [UInt8]
            switch answer {
            case .applied(let views):
                let message = LayoutChangeReply(generation: layoutGeneration, views: views, seq: item.seq)
                reply = line(
                    type == "mount" ? .mounted(message) : type == "unmount" ? .unmounted(message) : .viewsSet(message))
                logger.info("\(client.label) \(type) \(excerptList(views)): generation \(layoutGeneration)")
            case .refused(let failures):
                // A view the client may not see is named as unknown, as one that does not exist is.
                let asker = item.runtimeClient
                let unknown = item.namedViews.filter { !runtime.contains($0) || !runtime.isVisible($0, to: asker) }
                let error = ProtocolError.refused(failures, unknownViews: unknown, seq: item.seq)
                if error.code == .permissionDenied { stats.accessDenials += 1 }
                logger.info("\(client.label) \(type) refused: \(Excerpt.of(error.message))")
                reply = line(.error(error))
            case .malformed(let error):
                logger.debug("\(client.label): \(error)")
                reply = line(.error(error))
            case .reply(let answer):
                reply = answer.line
                if answer.accessDenied { stats.accessDenials += 1 }
                if let notice = answer.notice { logger.notice("\(client.label) \(notice)") }
                if let log = answer.log { logger.info("\(client.label) \(log)") }
                subscribed = subscribed || answer.subscribed
            }
            client.awaitsLayoutReply = false
            if reply.count > client.outbox.byteBudget && client.retireLargeBuffer == nil {
                client.retireLargeBuffer = { [reloadWorker] in reloadWorker.retire($0, trim: false) }
            }
            if client.outbox.enqueue(reply: reply) == .overflow {
                cutOff(client)
                continue
            }
            backloggedClients.insert(client.id)
            client.hasBacklog = client.framer.bufferedByteCount > 0
            flush(client)
        }
        if subscribed && options.replayWaitsForSubscriber
            && subscriptions.subscribedClientCount >= options.replayWaitSubscriberCount
        {
            startReplay()
        }
    }

    /// Tells each client whose subscriptions a build ended which and why (`subscriptionEnded`, one
    /// line per reason). Only the subscriber itself is told, of ids it subscribed to. The line is
    /// queued as a reply (it lists at most the client's own subscriptions). Cost: the lines.
    func announceEndedSubscriptions(_ ended: [ClientID: [SubscriptionTable.EndReason: [String]]]) {
        for (clientID, reasons) in ended.sorted(by: { $0.key < $1.key }) {
            guard let client = clients[clientID], client.closing == nil else { continue }
            for (reason, views) in reasons.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                logger.info("\(client.label): subscriptions ended (\(reason.rawValue)): \(excerptList(views))")
                let ended = line(.subscriptionEnded(views: views, reason: reason.rawValue))
                if client.outbox.enqueue(reply: ended) == .overflow {
                    cutOff(client)
                    break
                }
            }
            if client.closing == nil { flush(client) }
        }
    }

    /// The views run-time work changed, for `layoutChanged` (sorted, each once).
    static func changedViews(_ answers: [RuntimeAnswer]) -> [String] {
        var views: Set<String> = []
        for case .applied(let changed) in answers { views.formUnion(changed) }
        return views.sorted()
    }
}

extension ProtocolFailure {
    /// A Core failure in wire form.
    init(_ failure: RuntimeFailure) {
        let code: String =
            switch failure.code {
            case .config(let configCode): configCode.rawValue
            case .unknownView: "unknownView"
            case .permissionDenied: "permissionDenied"
            case .notMountPoint: "notMountPoint"
            case .mountTooLarge: "mountTooLarge"
            case .tooManyMountedViews: "tooManyMountedViews"
            }
        self.init(code: code, view: failure.viewPath, field: failure.field, message: failure.message)
    }
}

extension ProtocolError {
    /// The one error for a refused run-time request: every failure listed, under the code of the
    /// gravest (permission, unknown view, not a mount point, a limit, then invalid values).
    static func refused(_ failures: RuntimeFailures, unknownViews: [String], seq: Int64?) -> ProtocolError {
        let codes = failures.failures.map(\.code)
        let code: ErrorCode =
            if codes.contains(.permissionDenied) {
                .permissionDenied
            } else if codes.contains(.unknownView) {
                .unknownViews
            } else if codes.contains(.notMountPoint) {
                .notMountPoint
            } else if codes.contains(.mountTooLarge) {
                .mountTooLarge
            } else if codes.contains(.tooManyMountedViews) {
                .tooManyMountedViews
            } else {
                .invalidLayout
            }
        let first = failures.failures.first.map(\.description) ?? "refused"
        let more = failures.failures.count > 1 ? " (and \(failures.failures.count - 1) more)" : ""
        var error = ProtocolError(
            code: code, message: first + more, seq: seq, views: code == .unknownViews ? unknownViews : [])
        error.failures = failures.failures.prefix(100).map(ProtocolFailure.init)
        return error
    }
}
