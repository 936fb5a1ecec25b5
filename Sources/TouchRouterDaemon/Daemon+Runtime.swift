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
import TouchRouterCore
import TouchRouterProtocol
import TouchRouterSystem

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
            let resets = current.runtime.base.runtime.resetsOnDisconnect
            client.changedViewIDs.formUnion(
                reloading.readsFileSoon ? Array(views.keys) : views.keys.filter(resets.contains))
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
            if work.isAdmin { work.clientLabels = clients.connected.mapValues(\.label) }
        default: break
        }
        client.awaitsLayoutReply = true
        queueLayoutWork(work)
        return nil
    }

    /// Queues run-time work behind the build in progress (merged with what waits there), or
    /// starts a build. Cost: O(1).
    func queueLayoutWork(_ work: RuntimeWork) {
        guard !isStopping, let job = reloading.layoutWork(work) else { return }
        startReload(job)
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
        let resets = current.runtime.base.runtime.resetsOnDisconnect
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
            guard let client = clients.connected[item.clientID], client.closing == nil else { continue }
            let reply: [UInt8]
            switch answer {
            case .applied(let views):
                let message = LayoutChangeReply(generation: current.generation, views: views, seq: item.seq)
                reply = line(
                    type == "mount" ? .mounted(message) : type == "unmount" ? .unmounted(message) : .viewsSet(message))
                logger.info("\(client.label) \(type) \(excerptList(views)): generation \(current.generation)")
            case .refused(let failures):
                // A view the client may not see is named as unknown, as one that does not exist is.
                let asker = item.runtimeClient
                let unknown = item.namedViews.filter {
                    !current.runtime.contains($0) || !current.runtime.isVisible($0, to: asker)
                }
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
                client.retireLargeBuffer = { [worker = reloading.worker] in worker.retire($0, trim: false) }
            }
            if client.outbox.enqueue(reply: reply) == .overflow {
                cutOff(client)
                continue
            }
            clients.backlogged.insert(client.id)
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
            guard let client = clients.connected[clientID], client.closing == nil else { continue }
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
