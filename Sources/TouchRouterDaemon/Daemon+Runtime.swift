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
        case clientLeft

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

    /// The request's wire type, for replies and logs.
    var typeName: String {
        switch kind {
        case .request(let message): message.typeName
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
        case .request, .clientLeft: []
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
            // Only ids the layout has: a client naming made-up ids must not grow this set.
            client.changedViewIDs.formUnion(views.keys.filter(runtime.contains))
        default: break
        }
        queueLayoutWork(RuntimeWork(kind: kind, clientID: client.id, credentials: client.credentials, seq: seq))
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

    /// A client left: its mounts and resettable changes are undone by the worker. A build is
    /// queued only when there may be something to undo: the client sent a `mount` (it may still
    /// have a subtree, or one on its way), or one of its `setView`s named a view that says
    /// `resetOnDisconnect` in the config in effect. A client that changed nothing costs nothing.
    /// Cost: O(the distinct views the client's `setView`s named), O(1) for most clients.
    func runtimeClientLeft(_ client: ClientConnection) {
        guard !isStopping else { return }
        let resets = runtime.base.runtime.resetsOnDisconnect
        guard client.sentMount || client.changedViewIDs.contains(where: resets.contains) else { return }
        queueLayoutWork(RuntimeWork(kind: .clientLeft, clientID: client.id, credentials: nil, seq: nil))
    }

    /// Sends each run-time request its reply (the change is live now) and lets its client go on.
    /// Cost: one line per request of the build.
    func answerRuntime(_ work: [RuntimeWork], _ answers: [RuntimeAnswer]) {
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
            }
            client.awaitsLayoutReply = false
            if client.outbox.enqueue(line: reply) == .overflow {
                cutOff(client)
                continue
            }
            backloggedClients.insert(client.id)
            client.hasBacklog = client.framer.bufferedByteCount > 0
            flush(client)
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
