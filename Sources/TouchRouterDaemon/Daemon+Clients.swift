/// The daemon's side of each client connection: accepting, reading with a per-turn bound and a
/// request budget, backpressure, writing, lingering closes and disconnection.
import Glibc
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

extension Daemon {
    /// The socket side: the listener, the clients connected through it by id, those with request
    /// lines left over from a turn, and the fan-out's storage reused from frame to frame. Changed
    /// on the loop only: accept, backlog and disconnect in this file, the fan-out in
    /// Daemon+Routing.swift, the listener at start-up and stop (Daemon.swift).
    struct Clients {
        /// The listening socket; nil once the daemon is stopping.
        var listener: Listener?
        /// accept(2) ran out of descriptors; the listener is out of the loop until a client leaves.
        private(set) var isAcceptPaused = false
        var connected: [ClientID: ClientConnection] = [:]
        /// The id the next client gets: ids are never reused.
        private(set) var nextID: ClientID = 1
        /// Clients with buffered request lines left over from a turn (see `serveBacklog`).
        var backlogged: Set<ClientID> = []
        /// Clients given their first bytes by the frame being delivered (storage reused).
        var toFlush: [ClientConnection] = []
        /// One view's touches line, encoded once per frame for all its subscribers (buffer reused).
        var encodedTouches: [UInt8] = []

        /// An id for a client just accepted.
        mutating func takeID() -> ClientID {
            defer { nextID += 1 }
            return nextID
        }

        /// Accept ran out of descriptors: the listener is out of the loop until a client leaves.
        mutating func pauseAccepting() { isAcceptPaused = true }

        /// A client left: the listener to put back in the loop, if accepting was paused.
        mutating func resumeAccepting() -> Listener? {
            guard isAcceptPaused, let listener else { return nil }
            isAcceptPaused = false
            return listener
        }

        /// Forgets a client that left.
        mutating func remove(_ clientID: ClientID) {
            backlogged.remove(clientID)
            connected[clientID] = nil
        }
    }

    func acceptClients() {
        guard let listener = clients.listener else { return }
        while true {
            let fd: FileDescriptor
            do {
                guard let accepted = try listener.accept() else { return }
                fd = accepted
            } catch let error as SystemError where error.errno == EMFILE || error.errno == ENFILE {
                // Out of descriptors: the pending connection would wake the loop forever. Stop
                // accepting until a client leaves.
                logger.error("\(error); not accepting until a client disconnects")
                loop.deregister(listener.fd)
                clients.pauseAccepting()
                return
            } catch {
                logger.error("\(error)")
                return
            }
            let credentials = try? PeerCredentials(socket: fd)
            let client = ClientConnection(
                id: clients.takeID(), fd: fd, credentials: credentials,
                queueCapacityBytes: options.clientQueueBytes)
            if clients.connected.count >= options.maxClients || isStopping {
                // Best effort: one write of the final error line, then close.
                client.outbox.finish(
                    with: ProtocolError(
                        code: .tooManyClients, message: "the daemon serves at most \(options.maxClients) clients"))
                _ = client.writePending()
                fd.close()
                metrics.clientsRefused += 1
                logger.warning("\(client.label) refused: already \(clients.connected.count) clients (--max-clients)")
                continue
            }
            do {
                try loop.register(fd, for: .readable) { [unowned self, unowned client] events in
                    handleClientEvents(client, events)
                }
            } catch {
                logger.error("\(client.label): \(error)")
                fd.close()
                continue
            }
            clients.connected[client.id] = client
            metrics.clientsConnected += 1
            logger.info("\(client.label) connected")
        }
    }

    func handleClientEvents(_ client: ClientConnection, _ events: IOEvents) {
        if events.contains(.writable) { flush(client) }
        if let reason = client.closing {
            // Lingering for its final line; a client that hangs up is closed at once.
            if events.contains(.failed) { disconnect(client, reason) }
            return
        }
        guard clients.connected[client.id] != nil else { return }
        guard !events.isDisjoint(with: [.readable, .peerClosed, .failed]) else { return }
        if client.inputClosed {
            // Only a full close (EPOLLHUP/ERR) can wake a half-closed client.
            disconnect(client, .closedByPeer)
            return
        }
        if client.hasBacklog {
            // Not reading while earlier lines wait; only a full close (EPOLLHUP/ERR) gets here.
            if events.contains(.failed) { disconnect(client, .closedByPeer) }
            return
        }
        let endOfInput = client.readAvailable()
        handleLines(of: client)
        guard client.closing == nil else { return }
        switch endOfInput {
        case .closedByPeer? where !events.contains(.failed):
            client.inputClosed = true
            flush(client)
        case let reason?:
            disconnect(client, reason)
        case nil:
            flush(client)
        }
    }

    /// Handles the client's buffered lines, at most `ClientConnection.linesPerTurn` of them, and
    /// none while its queue is over half full (backpressure: the rest wait in the framer, and the
    /// socket is not read, until the queue drains). Lines left over put the client in the backlog
    /// that `serveBacklog` works through between loop turns. Every line, blank or not, takes a token
    /// from the client's request budget; a client out of tokens is cut off as flooding.
    /// Cost per call: at most `linesPerTurn` requests, of which at most one whose cost grows with
    /// the layout (`layout`, `explain`, `subscribe`, `unsubscribe`: it ends the turn).
    func handleLines(of client: ClientConnection) {
        var handled = 0
        let now = monotonicMicros()
        client.hasBacklog = false
        defer { if client.hasBacklog && client.closing == nil { clients.backlogged.insert(client.id) } }
        while client.closing == nil {
            guard handled < ClientConnection.linesPerTurn, client.canTakeRequests else {
                client.hasBacklog = client.framer.bufferedByteCount > 0
                return
            }
            switch client.framer.nextLine() {
            case .lineTooLong(let limit):
                closeAfterFinalLine(
                    client, ProtocolError(code: .lineTooLong, message: "a request line may be at most \(limit) bytes"),
                    reason: .lineTooLong)
            case .line(let bytes):
                handled += 1
                guard client.requestBudget.take(atMicros: now) else {
                    stats.clientsFlooding += 1
                    let budget = client.requestBudget
                    closeAfterFinalLine(
                        client,
                        ProtocolError(
                            code: .tooManyRequests,
                            message: "more than \(budget.capacity) lines at once "
                                + "(at most \(budget.refillPerSecond) per second); disconnecting"),
                        reason: .flooding(budget))
                    return
                }
                if isStopping { continue }
                let reply: [UInt8]
                // A mount's subtree is read on the layout worker, not here.
                if let header = MountLineHeader.find(in: bytes) {
                    guard let answer = handleMountLine(header, bytes, from: client) else { continue }
                    reply = answer
                } else {
                    switch RequestDecoder.decode(line: bytes) {
                    case .emptyLine: continue
                    case .request(let request):
                        // A request whose cost grows with the layout ends the client's turn.
                        if request.message.costGrowsWithLayout { handled = ClientConnection.linesPerTurn }
                        guard let answer = handle(request.message, seq: request.seq, from: client) else { continue }
                        reply = answer
                    case .error(let error):
                        logger.debug("\(client.label): \(error)")
                        reply = line(.error(error))
                    }
                }
                if client.outbox.enqueue(reply: reply) == .overflow { cutOff(client) }
            case .needMoreData:
                return
            }
        }
    }

    /// Works through the clients whose buffered lines a turn left over, one bounded slice each
    /// (`handleLines`), skipping those waiting for their queue to drain. Returns whether any is
    /// left that can go on at once (the loop then polls without sleeping).
    /// Cost per call: at most `linesPerTurn` requests per backlogged client.
    func serveBacklog() -> Bool {
        guard !clients.backlogged.isEmpty else { return false }
        var canContinue = false
        for clientID in clients.backlogged.sorted() {
            guard let client = clients.connected[clientID], client.closing == nil else {
                clients.backlogged.remove(clientID)
                continue
            }
            guard client.canTakeRequests else { continue }  // its EPOLLOUT brings it back
            clients.backlogged.remove(clientID)
            handleLines(of: client)
            guard client.closing == nil else { continue }
            flush(client)
            if client.hasBacklog && client.canTakeRequests { canContinue = true }
        }
        return canContinue
    }

    /// Ends a misbehaving client's connection with `error` as its last line: its queue is cut to
    /// that line (nothing else queued is sent), nothing more is read or queued, and the connection
    /// closes once the line is written, or after 2 s if the client does not take it.
    func closeAfterFinalLine(_ client: ClientConnection, _ error: ProtocolError, reason: DisconnectReason) {
        client.outbox.finish(with: error)
        client.closing = reason
        client.hasBacklog = false
        clients.backlogged.remove(client.id)
        housekeeping.lingerDeadlines[client.id] = monotonicMicros() + 2_000_000
        armHousekeepingTimer()
        flush(client)
    }

    /// Writes what the client has queued and watches for writability only while bytes remain.
    func flush(_ client: ClientConnection) {
        if let failure = client.writePending() {
            disconnect(client, failure)
            return
        }
        let wantsWritable = !client.outbox.isEmpty
        if let reason = client.closing {
            // Lingering for its final line: close once it is written.
            if wantsWritable {
                if client.watchedEvents != .writable, (try? loop.modify(client.fd, for: .writable)) != nil {
                    client.watchedEvents = .writable
                }
            } else {
                disconnect(client, reason)
            }
            return
        }
        if isStopping && !wantsWritable {
            disconnect(client, .daemonStopping)
            return
        }
        var interest: IOEvents = client.inputClosed || client.hasBacklog ? [] : .readable
        if wantsWritable { interest.insert(.writable) }
        guard interest != client.watchedEvents else { return }
        do {
            try loop.modify(client.fd, for: interest)
            client.watchedEvents = interest
        } catch {
            disconnect(
                client, .writeFailed(error))
        }
    }

    /// The client's queue overflowed even after coalescing: the outbox has queued the final
    /// `queue-overflow` error; write it if the socket takes it, and drop the client.
    func cutOff(_ client: ClientConnection) {
        guard client.closing == nil else { return }
        stats.clientsCutOff += 1
        _ = client.writePending()
        disconnect(client, .queueOverflow(queueBytes: options.clientQueueBytes))
    }

    func disconnect(_ client: ClientConnection, _ reason: DisconnectReason) {
        guard clients.connected[client.id] != nil else { return }
        housekeeping.lingerDeadlines[client.id] = nil
        client.closing = reason
        stats.coalescedByGoneClients += client.outbox.coalescedMessageCount
        stats.coalescedMostInOneStepByGoneClients = max(
            stats.coalescedMostInOneStepByGoneClients, client.outbox.mostCoalescedInOneStep)
        loop.deregister(client.fd)
        client.fd.close()
        clients.remove(client.id)
        runtimeClientLeft(client)  // its subscriptions too, on the worker
        if calibrating.client == client.id { endCalibrationSession() }  // silently: nobody to tell
        switch reason {
        case .closedByPeer, .daemonStopping: logger.info("\(client.label) disconnected: \(reason)")
        default: logger.warning("\(client.label) disconnected: \(reason)")
        }
        if isStopping && clients.connected.isEmpty { loop.stop() }
        if let listener = clients.resumeAccepting() {
            try? loop.register(listener.fd, for: .readable) { [unowned self] _ in acceptClients() }
        }
    }
}

extension RequestMessage {
    /// Answering it costs time proportional to the layout (the whole tree encoded, walked or
    /// re-expanded), so a client gets at most one of these per loop turn.
    var costGrowsWithLayout: Bool {
        switch self {
        case .layout, .explain, .subscribe, .unsubscribe: true
        default: false
        }
    }
}
