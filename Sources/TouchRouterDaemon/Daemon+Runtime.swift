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
        /// The request as decoded; turned into Core's `RuntimeRequest` on the worker.
        case request(RequestMessage)
        case clientLeft
    }

    var kind: Kind
    var clientID: ClientID
    var credentials: PeerCredentials?
    var seq: Int64?

    /// Applies it to `runtime` (on the worker: owner names are resolved here, as for `access`).
    func run(on runtime: inout RuntimeLayout, limits: RuntimeLimits) -> Result<[String], RuntimeFailures> {
        switch kind {
        case .request(let message):
            let request: RuntimeRequest
            switch message {
            case .setView(let views):
                request = .setView(views.sorted { $0.key < $1.key }.map { ($0.key, $0.value.node) })
            case .mount(let viewID, let children): request = .mount(viewID: viewID, children: children.node)
            case .unmount(let viewID): request = .unmount(viewID: viewID)
            default: return .success([])
            }
            let credentials = self.credentials
            let client = RuntimeClient(id: clientID) { list in OwnerCheck.admits(credentials, list) }
            return runtime.apply(request, by: client, limits: limits)
        case .clientLeft:
            return .success(runtime.clientLeft(clientID))
        }
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
        let now = monotonicMicros()
        for _ in 0..<changes where !client.changeBudget.take(atMicros: now) {
            stats.changesRefused += 1
            logger.notice("\(client.label): too many layout changes; \(request.typeName) refused")
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
        queueLayoutWork(
            RuntimeWork(
                kind: .request(request), clientID: client.id,
                credentials: client.credentials, seq: seq))
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

    /// A client left: its mounts and resettable changes are undone by the worker. Nothing is
    /// queued when the config lets nobody change anything.
    func runtimeClientLeft(_ clientID: ClientID) {
        guard !runtime.base.runtime.isEmpty, !isStopping else { return }
        queueLayoutWork(RuntimeWork(kind: .clientLeft, clientID: clientID, credentials: nil, seq: nil))
    }

    /// Sends each run-time request its reply (the change is live now) and lets its client go on.
    /// Cost: one line per request of the build.
    func answerRuntime(_ work: [RuntimeWork], _ answers: [Result<[String], RuntimeFailures>]) {
        for (item, answer) in zip(work, answers) {
            guard case .request(let request) = item.kind else { continue }
            let type = request.typeName
            guard let client = clients[item.clientID], client.closing == nil else { continue }
            let reply: [UInt8]
            switch answer {
            case .success(let views):
                let message = LayoutChangeReply(generation: layoutGeneration, views: views, seq: item.seq)
                reply = line(
                    type == "mount" ? .mounted(message) : type == "unmount" ? .unmounted(message) : .viewsSet(message))
                logger.info("\(client.label) \(type) \(excerptList(views)): generation \(layoutGeneration)")
            case .failure(let failures):
                var unknown: [String] = []
                if case .setView(let views) = request {
                    unknown = views.keys.sorted().filter { !runtime.contains($0) }
                } else if case .mount(let viewID, _) = request, !runtime.contains(viewID) {
                    unknown = [viewID]
                } else if case .unmount(let viewID) = request, !runtime.contains(viewID) {
                    unknown = [viewID]
                }
                let error = ProtocolError.refused(failures, unknownViews: unknown, seq: item.seq)
                if error.code == .permissionDenied { stats.accessDenials += 1 }
                logger.info("\(client.label) \(type) refused: \(Excerpt.of(error.message))")
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
    static func changedViews(_ answers: [Result<[String], RuntimeFailures>]) -> [String] {
        var views: Set<String> = []
        for case .success(let changed) in answers { views.formUnion(changed) }
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
