/// Gesture recognition in the daemon: the tracker's output goes through `GestureStage` when any
/// view has gestures, `gesture` messages go to the clients that asked for them, and recognition's
/// deadlines ride on the housekeeping timer (no timer of their own, nothing polls).
import TouchRouterCore
import TouchRouterProtocol
import TouchRouterSystem

extension Daemon {
    /// The tracker's output for one input event, through recognition when any view has gestures.
    func recognise(_ batches: [ViewTouches], of event: InputEvent) {
        guard !gestures.isEmpty else { return deliver(batches) }
        switch event {
        case .frame(let frame):
            inputClockOffsetMicros = Int64(bitPattern: frame.timestampMicros &- monotonicMicros())
            deliverTracked(batches, scale: frame.physicalScale, timestampMicros: frame.timestampMicros)
        case .deviceRemoved(_, let timestampMicros):
            deliverTracked(batches, scale: .fallback, timestampMicros: timestampMicros)
        }
    }

    /// A tracker output (a frame's, a reload's, a shutdown's) through recognition, then to clients.
    /// Without gestures in the config it is exactly `deliver(_:)` of the tracker's messages.
    /// Cost: `GestureStage.process` (one lookup per message, recognisers × touches on gesture views).
    func deliverTracked(
        _ batches: [ViewTouches], scale: PhysicalScale = .fallback, timestampMicros: UInt64? = nil
    ) {
        guard !gestures.isEmpty else { return deliver(batches) }
        let time = timestampMicros ?? inputMicros(monotonicMicros())
        let output = gestures.process(batches, scale: scale, timestampMicros: time)
        deliver(output.touches)
        deliverGestures(of: output)
        armHousekeepingTimer()
    }

    /// A CLOCK_MONOTONIC time on the input's clock (the frames' times; a recording's in a replay).
    func inputMicros(_ monotonic: UInt64) -> UInt64 {
        UInt64(bitPattern: Int64(bitPattern: monotonic) &+ inputClockOffsetMicros)
    }

    /// When the next recognition deadline is due on CLOCK_MONOTONIC; nil when none waits.
    var gestureDeadlineMonotonicMicros: UInt64? {
        guard let deadline = gestures.nextDeadlineMicros else { return nil }
        let monotonic = Int64(bitPattern: deadline) &- inputClockOffsetMicros
        return monotonic < 0 ? 0 : UInt64(monotonic)
    }

    /// Fires the recognition deadlines due at `monotonic` (the housekeeping timer's wake-up).
    /// Cost: one pass over the views with recognition state, plus the messages.
    func advanceGestures(monotonicMicros monotonic: UInt64) {
        let output = gestures.advance(to: inputMicros(monotonic))
        deliver(output.touches)
        deliverGestures(of: output)
    }

    /// Queues each gesture message of `output` to the subscribers of its view that asked for
    /// gestures (and may see the view), then writes once per client. Cost: per record, one
    /// subscriber lookup; the public event and its wire line are made once per record that some
    /// subscriber takes (none when no subscriber of the view asked for gestures), one enqueue per
    /// such subscriber.
    func deliverGestures(of output: GestureOutput) {
        guard !output.records.isEmpty else { return }
        clientsToFlush.removeAll(keepingCapacity: true)
        for record in output.records {
            let viewID = output.viewID(of: record)
            let subscribers = subscriptions.subscribers(of: viewID)
            if subscribers.isEmpty { continue }
            let message = GestureMessage(output.event(record))
            guard message.isFinite else {
                stats.nonFiniteMessagesDropped += 1
                continue
            }
            var encoded: [UInt8]?
            let checksAccess = !access.isEmpty && !access.permits(nil, viewID: viewID)
            for clientID in subscribers {
                guard let client = clients[clientID], client.closing == nil, client.receivesGestures else { continue }
                if checksAccess && !access.permits(client.credentials, viewID: viewID) { continue }
                if encoded == nil { encoded = line(.gesture(message)) }
                let bytes = encoded!
                let wasEmpty = client.outbox.isEmpty
                switch client.outbox.enqueue(line: bytes) {
                case .queued, .coalesced:
                    if wasEmpty { clientsToFlush.append(client) }
                case .overflow:
                    cutOff(client)
                }
                stats.gestureMessagesQueued += 1
            }
        }
        for client in clientsToFlush where client.closing == nil { flush(client) }
        clientsToFlush.removeAll(keepingCapacity: true)
    }
}
