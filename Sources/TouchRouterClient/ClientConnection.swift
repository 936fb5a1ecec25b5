import Synchronization
import TouchRouterModel
import TouchRouterProtocol
import TouchRouterSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The socket, the reader thread and the table of requests waiting for replies.
final class Connection: Sendable {
    private struct State {
        var nextSeq: Int64 = 0
        var pending: [Int64: CheckedContinuation<DaemonMessage, any Error>] = [:]
        /// Set once: why the connection ended.
        var closedReason: ClientError?
        /// The last error the daemon sent without a seq (it explains a disconnect).
        var finalError: ProtocolError?
        /// The reader thread closed the descriptor: its number may already belong to another file.
        var descriptorClosed = false
    }

    private let fd: Int32
    private let state = Mutex(State())
    /// Held for a whole line's write, and while the descriptor is closed. Taken before `state`.
    private let writeLock = Mutex(())
    private let events: AsyncStream<ClientEvent>.Continuation
    /// Daemon lines can be long (a big layout); the cap only bounds a broken peer.
    private static let maxLineBytes = 64 << 20

    init(fd: Int32, events: AsyncStream<ClientEvent>.Continuation) {
        self.fd = fd
        self.events = events
    }

    static func connectSocket(path: String) throws(ClientError) -> Int32 {
        guard let address = UnixSocketAddress(path: path) else { throw .pathTooLong(path) }
        do {
            return try address.connectStream().rawValue
        } catch {
            throw .connectFailed(path: path, call: error.call, errno: error.errno)
        }
    }

    /// Starts the reader thread, a detached pthread that holds the connection until the socket ends.
    func startReading() throws(ClientError) {
        var thread = pthread_t()
        let connection = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { argument in
                let connection = Unmanaged<Connection>.fromOpaque(argument!).takeRetainedValue()
                connection.readLoop()
                return nil
            }, connection)
        guard created == 0 else {
            Unmanaged<Connection>.fromOpaque(connection).release()
            throw .disconnected(reason: "cannot start the reader thread: \(String(cString: strerror(created)))")
        }
        pthread_detach(thread)
    }

    /// Sends a request with a fresh seq and waits for the line that echoes it.
    func request(_ message: RequestMessage) async throws(ClientError) -> DaemonMessage {
        let reply: DaemonMessage
        do {
            reply = try await withCheckedThrowingContinuation { continuation in
                let seqOrError: Result<Int64, ClientError> = state.withLock { state in
                    if let reason = state.closedReason { return .failure(reason) }
                    let seq = state.nextSeq
                    state.nextSeq += 1
                    state.pending[seq] = continuation
                    return .success(seq)
                }
                switch seqOrError {
                case .failure(let error):
                    continuation.resume(throwing: error)
                case .success(let seq):
                    // A failed write means the socket is broken: the reader thread will see the end
                    // and fail this request with the reason, including an error line the daemon
                    // sent before it closed (e.g. too-many-clients), which a write error would hide.
                    _ = write(ClientRequest(message, seq: seq).encodedLine())
                }
            }
        } catch let error as ClientError {
            throw error
        } catch {
            throw .disconnected(reason: "\(error)")
        }
        if case .error(let error) = reply { throw .daemon(error) }
        return reply
    }

    /// Writes a whole line; nil on success. MSG_NOSIGNAL: a closed peer is an error, not SIGPIPE.
    @discardableResult
    private func write(_ bytes: [UInt8]) -> ClientError? {
        writeLock.withLock { _ in
            if state.withLock({ $0.descriptorClosed }) {
                return .disconnected(reason: "the connection is closed")
            }
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes { raw in
                    Result { () throws(SystemError) in
                        try FileDescriptor(rawValue: fd).send(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                    }
                }
                switch sent {
                case .success(let count): offset += count ?? 0
                case .failure(let error): return .disconnected(reason: "\(error)")
                }
            }
            return nil
        }
    }

    /// Runs on the reader thread until the socket ends, then closes it.
    private func readLoop() {
        var framer = LineFramer(maxLineBytes: Self.maxLineBytes)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var endReason = "the daemon closed the connection"
        reading: while true {
            let read = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try FileDescriptor(rawValue: fd).read(into: raw) ?? 0 }
            }
            guard case .success(let count) = read else {
                if case .failure(let error) = read { endReason = "\(error)" }
                break
            }
            if count == 0 { break }
            framer.append(chunk[0..<count])
            while true {
                switch framer.nextLine() {
                case .needMoreData: continue reading
                case .lineTooLong(let limit):
                    endReason = "the daemon sent a line longer than \(limit) bytes"
                    break reading
                case .line(let line):
                    handle(line)
                }
            }
        }
        finish(reason: endReason)
        writeLock.withLock { _ in
            state.withLock { state in
                state.descriptorClosed = true
                Glibc.close(fd)
            }
        }
    }

    private func handle(_ line: ArraySlice<UInt8>) {
        guard case .success(let message) = DaemonMessageDecoder.decode(line: line) else {
            return  // an unknown message type from a newer daemon, or a line we cannot read: skip it
        }
        if let seq = message.seq, let waiting = state.withLock({ $0.pending.removeValue(forKey: seq) }) {
            waiting.resume(returning: message)
            return
        }
        switch message {
        case .touches(let touches): events.yield(.touches(touches))
        case .gesture(let gesture): events.yield(.gesture(gesture))
        case .layoutChanged(let generation): events.yield(.layoutChanged(generation: generation))
        case .viewsChanged(let generation, let views): events.yield(.viewsChanged(generation: generation, views: views))
        case .screenState(let change): events.yield(.screenState(change))
        case .subscriptionEnded(let views, let reason): events.yield(.subscriptionEnded(views: views, reason: reason))
        case .calibrationSample(let sample): events.yield(.calibrationSample(sample))
        case .calibrationRefused(let screen, let reason, let message):
            events.yield(.calibrationRefused(screen: screen, reason: reason, message: message))
        case .calibrationEnded(let screen, let reason, _):
            events.yield(.calibrationEnded(screen: screen, reason: reason))
        case .error(let error):
            state.withLock { $0.finalError = error }
            events.yield(.error(error))
        default: break  // a reply nobody waits for
        }
    }

    /// Fails every waiting request and ends the event stream, once.
    private func finish(reason: String) {
        let waiting = state.withLock { state in
            if state.closedReason == nil {
                state.closedReason = state.finalError.map(ClientError.daemon) ?? .disconnected(reason: reason)
            }
            let waiting = state.pending
            state.pending.removeAll()
            return (waiting.values, state.closedReason!)
        }
        for continuation in waiting.0 { continuation.resume(throwing: waiting.1) }
        events.finish()
    }

    /// Shuts the socket down; the reader thread then sees the end, fails what waits, and closes
    /// the descriptor (so it is never closed while a read still uses it).
    func close() {
        state.withLock { state in
            if state.closedReason == nil {
                state.closedReason = .disconnected(reason: "closed by the client")
            }
            if !state.descriptorClosed { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}
