import Testing
import TouchRouterCore

@testable import TouchRouterProtocol

@Suite("Client outbox")
struct ClientOutboxTests {
    static let device = InputDevice(id: 1, name: "panel")

    static func touch(_ id: UInt64, _ phase: TouchPhase, at x: Double, from previousX: Double) -> RoutedTouch {
        RoutedTouch(
            id: id, phase: phase, localPoint: Point(x, 0), screenPoint: Point(x, 0),
            previousLocalPoint: Point(previousX, 0), timestampMicros: UInt64(x), tapCount: 1, device: device,
            cancelReason: phase == .cancelled ? .shutdown : nil)
    }

    static func message(_ view: String, _ time: UInt64, _ touches: [RoutedTouch]) -> ViewTouches {
        ViewTouches(viewID: view, screen: "main", timestampMicros: time, touches: touches)
    }

    /// Writes everything the outbox holds, `chunk` bytes at a time, and decodes the lines.
    static func drain(_ outbox: inout ClientOutbox, chunk: Int = .max) throws -> [DaemonMessage] {
        var bytes: [UInt8] = []
        while true {
            let next = outbox.bytesToWrite()
            if next.isEmpty { break }
            let taken = min(chunk, next.count)
            bytes.append(contentsOf: next.prefix(taken))
            outbox.didWrite(taken)
        }
        return try lines(bytes)
    }

    static func lines(_ bytes: [UInt8]) throws -> [DaemonMessage] {
        var framer = LineFramer(maxLineBytes: 1 << 20)
        framer.append(bytes)
        var messages: [DaemonMessage] = []
        while case .line(let line) = framer.nextLine() {
            messages.append(try DaemonMessageDecoder.decode(line: line).get())
        }
        #expect(framer.bufferedByteCount == 0, "no partial line left")
        return messages
    }

    @Test("a client that keeps up gets every message, once, in order")
    func keepingUp() throws {
        var outbox = ClientOutbox(byteBudget: 1 << 20)
        let first = Self.message("a", 1, [Self.touch(1, .began, at: 1, from: 1)])
        let second = Self.message("a", 2, [Self.touch(1, .moved, at: 2, from: 1)])
        #expect(outbox.enqueue(first) == .queued)
        #expect(outbox.enqueue(line: DaemonMessage.layoutChanged(generation: 2).encodedLine()) == .queued)
        let encoded = TouchesEncoder.encodedLine(second)
        #expect(outbox.enqueue(encodedTouches: encoded, for: second) == .queued)
        #expect(outbox.byteCount == TouchesEncoder.encodedLine(first).count + encoded.count + 40)
        #expect(outbox.enqueue(.status(StatusReply(counters: [:], seq: 1))) == .queued)
        #expect(outbox.enqueue(.touches(TouchesMessage(first))) == .queued)
        #expect(outbox.pendingMessageCount == 5)
        #expect(
            try Self.drain(&outbox) == [
                .touches(TouchesMessage(first)), .layoutChanged(generation: 2),
                .touches(TouchesMessage(second)),
                .status(StatusReply(counters: [:], seq: 1)), .touches(TouchesMessage(first)),
            ])
        #expect(outbox.pendingMessageCount == 0)
        #expect(outbox.isEmpty)
        #expect(outbox.bytesToWrite().isEmpty)
    }

    @Test("over budget, moves of the same touch merge: earliest previous point, latest location")
    func coalescesMoves() throws {
        var outbox = ClientOutbox(byteBudget: 2000)
        #expect(outbox.enqueue(Self.message("a", 0, [Self.touch(7, .began, at: 0, from: 0)])) == .queued)
        var results: [ClientOutbox.EnqueueResult] = []
        for x in 1...30 {
            results.append(
                outbox.enqueue(
                    Self.message("a", UInt64(x), [Self.touch(7, .moved, at: Double(x), from: Double(x - 1))]))
            )
        }
        results.append(outbox.enqueue(Self.message("a", 31, [Self.touch(7, .ended, at: 31, from: 30)])))
        #expect(results.contains(.coalesced))
        #expect(!results.contains(.overflow))
        #expect(outbox.coalescedMessageCount > 0)
        let delivered = try Self.drain(&outbox).compactMap { message -> WireTouch? in
            guard case .touches(let touches) = message else { return nil }
            return touches.touches.first
        }
        #expect(delivered.first?.phase == .began)
        #expect(delivered.last?.phase == .ended)
        #expect(delivered.count < 32)
        for (earlier, later) in zip(delivered, delivered.dropFirst()) {
            #expect(
                later.previousLocalPoint == earlier.localPoint, "each delivery starts where the last ended")
        }
    }

    /// The coalescing contract itself, message by message: a pending message goes only when every
    /// touch in it is moved/stationary *and* each of them appears again later for the same view.
    @Test("coalescing drops a message only when every one of its touches is updated later")
    func coalescingNeedsEveryTouchAgain() throws {
        var outbox = ClientOutbox(byteBudget: 1 << 20)
        let began = Self.message(
            "a", 0, [Self.touch(1, .began, at: 0, from: 0), Self.touch(2, .began, at: 0, from: 0)])
        let bothMoved = Self.message(
            "a", 1, [Self.touch(1, .moved, at: 1, from: 0), Self.touch(2, .moved, at: 5, from: 0)])
        let firstMoved = Self.message("a", 2, [Self.touch(1, .moved, at: 2, from: 1)])
        // The same touch ids on another view are other touches.
        let otherView = Self.message("b", 2, [Self.touch(2, .moved, at: 9, from: 5)])
        for message in [began, bothMoved, firstMoved, otherView] { _ = outbox.enqueue(message) }
        outbox.coalesce()
        // Touch 2's move to 5 on "a" is in no later message of "a": nothing may go.
        #expect(outbox.pendingMessageCount == 4)
        #expect(outbox.coalescedMessageCount == 0)

        // Now both touches of "a" come again (touch 2 stationary): the two earlier moves go, and
        // the survivor carries the earliest previous points.
        let later = Self.message(
            "a", 3, [Self.touch(1, .moved, at: 3, from: 2), Self.touch(2, .stationary, at: 5, from: 5)])
        _ = outbox.enqueue(later)
        outbox.coalesce()
        #expect(outbox.coalescedMessageCount == 2)
        var merged = later
        merged.touches[0].previousLocalPoint = Point(0, 0)
        merged.touches[1].previousLocalPoint = Point(0, 0)
        #expect(
            try Self.drain(&outbox) == [
                .touches(TouchesMessage(began)), .touches(TouchesMessage(otherView)),
                .touches(TouchesMessage(merged)),
            ])
    }

    @Test("a message with a began, ended or cancelled touch, or with no touch, is never coalesced")
    func coalescingKeepsPhaseChanges() throws {
        for phase in [TouchPhase.began, .ended, .cancelled] {
            var outbox = ClientOutbox(byteBudget: 1 << 20)
            let changing = Self.message(
                "a", 1, [Self.touch(1, .moved, at: 1, from: 0), Self.touch(2, phase, at: 4, from: 4)])
            let later = Self.message(
                "a", 2, [Self.touch(1, .moved, at: 2, from: 1), Self.touch(2, .stationary, at: 4, from: 4)])
            _ = outbox.enqueue(changing)
            _ = outbox.enqueue(later)
            outbox.coalesce()
            #expect(outbox.pendingMessageCount == 2, "\(phase)")
            #expect(
                try Self.drain(&outbox) == [
                    .touches(TouchesMessage(changing)), .touches(TouchesMessage(later)),
                ],
                "\(phase)")
        }
        var outbox = ClientOutbox(byteBudget: 1 << 20)
        let empty = Self.message("a", 1, [])
        let moved = Self.message("a", 2, [Self.touch(1, .moved, at: 2, from: 1)])
        _ = outbox.enqueue(empty)
        _ = outbox.enqueue(moved)
        outbox.coalesce()
        #expect(outbox.pendingMessageCount == 2)
    }

    @Test("bytes already handed to the socket are never rewritten, even mid-line")
    func committedBytesStay() throws {
        var outbox = ClientOutbox(byteBudget: 1500)
        _ = outbox.enqueue(Self.message("a", 0, [Self.touch(7, .began, at: 0, from: 0)]))
        _ = outbox.enqueue(Self.message("a", 1, [Self.touch(7, .moved, at: 1, from: 0)]))
        let firstChunk = Array(outbox.bytesToWrite())
        outbox.didWrite(10)  // half a line on the wire
        for x in 2...40 {
            #expect(
                outbox.enqueue(
                    Self.message("a", UInt64(x), [Self.touch(7, .moved, at: Double(x), from: Double(x - 1))]))
                    != .overflow)
        }
        let rest = Array(outbox.bytesToWrite())
        #expect(rest == Array(firstChunk.dropFirst(10)))
        let messages = try Self.lines(firstChunk + (try Self.drainBytes(&outbox)))
        #expect(messages.count >= 3)
    }

    @Test("on overflow, one write finishes the half-written line and carries the final error")
    func overflowAfterPartialWrite() throws {
        var outbox = ClientOutbox(byteBudget: 3000)
        _ = outbox.enqueue(Self.message("a", 0, [Self.touch(1, .began, at: 0, from: 0)]))
        _ = outbox.enqueue(Self.message("a", 1, [Self.touch(2, .began, at: 0, from: 0)]))
        let firstLines = Array(outbox.bytesToWrite())
        outbox.didWrite(25)  // part of the first line is on the wire
        var id: UInt64 = 2
        while !outbox.hasOverflowed {
            id += 1
            _ = outbox.enqueue(Self.message("a", id, [Self.touch(id, .began, at: 1, from: 1)]))
        }
        let finalWrite = Array(outbox.bytesToWrite())
        let firstLineEnd = firstLines.firstIndex(of: UInt8(ascii: "\n"))!
        #expect(Array(finalWrite.prefix(firstLineEnd + 1 - 25)) == Array(firstLines[25...firstLineEnd]))
        let messages = try Self.lines(Array(firstLines.prefix(25)) + finalWrite)
        #expect(messages.count == 2)
        guard case .error(let error) = messages.last else {
            Issue.record("no final error: \(messages)")
            return
        }
        #expect(error.code == .queueOverflow)
    }

    static func drainBytes(_ outbox: inout ClientOutbox) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var first = true
        while true {
            let next = outbox.bytesToWrite()
            if next.isEmpty { break }
            if !first { bytes.append(contentsOf: next) }
            first = false
            outbox.didWrite(next.count)
        }
        return bytes
    }

    @Test("began and ended are never dropped: a flood of them overflows, with a final error line")
    func overflow() throws {
        var outbox = ClientOutbox(byteBudget: 3000)
        var result = ClientOutbox.EnqueueResult.queued
        var id: UInt64 = 0
        while result != .overflow {
            id += 1
            result = outbox.enqueue(
                Self.message("a", id, [Self.touch(id, id % 2 == 0 ? .ended : .began, at: 1, from: 1)]))
            #expect(id < 1000)
        }
        #expect(outbox.hasOverflowed)
        #expect(outbox.enqueue(line: Array("{}\n".utf8)) == .overflow)
        let messages = try Self.drain(&outbox)
        guard case .error(let error) = messages.last else {
            Issue.record("no final error: \(messages)")
            return
        }
        #expect(error.code == .queueOverflow)
        #expect(messages.count == 1, "pending touches are dropped once the client is cut off")
    }

    /// A client that never reads: the queue sits at its budget, and each message that arrives
    /// removes about one older move, never a walk over the queue; every began, ended, cancelled and
    /// reply is still there, in order, when the client finally reads.
    @Test("a reader that stops: each enqueue removes a bounded number of moves, nothing else is lost")
    func neverReadingReaderCostsBoundedWork() throws {
        var outbox = ClientOutbox(byteBudget: 64 * 1024)
        // One finger drags for good on "a"; short taps come and go on "b"; a reply now and then.
        var expected: [String] = []
        _ = outbox.enqueue(Self.message("a", 0, [Self.touch(1, .began, at: 0, from: 0)]))
        expected.append("a1 began")
        var tapID: UInt64 = 100
        var results: Set<ClientOutbox.EnqueueResult> = []
        for frame in 1...20_000 {
            let x = Double(frame)
            results.insert(
                outbox.enqueue(Self.message("a", UInt64(frame), [Self.touch(1, .moved, at: x, from: x - 1)])))
            if frame % 500 == 0 {
                tapID += 1
                let phase: TouchPhase = tapID % 2 == 0 ? .ended : .cancelled
                _ = outbox.enqueue(Self.message("b", UInt64(frame), [Self.touch(tapID, .began, at: 1, from: 1)]))
                _ = outbox.enqueue(Self.message("b", UInt64(frame), [Self.touch(tapID, phase, at: 1, from: 1)]))
                _ = outbox.enqueue(line: DaemonMessage.reloaded(generation: UInt64(frame), seq: nil).encodedLine())
                expected += ["b\(tapID) began", "b\(tapID) \(phase)", "reloaded \(frame)"]
            }
            #expect(outbox.byteCount <= outbox.byteBudget)
        }
        #expect(!results.contains(.overflow))
        #expect(results.contains(.coalesced))
        #expect(outbox.coalescedMessageCount > 15_000)
        #expect(outbox.mostCoalescedInOneStep <= 3, "one step removed \(outbox.mostCoalescedInOneStep)")
        let messages = try Self.drain(&outbox)
        var kept: [String] = []
        var dragPoints: [WireTouch] = []
        for message in messages {
            switch message {
            case .touches(let touches):
                for touch in touches.touches {
                    if touches.viewID == "a" && touch.phase == .moved {
                        dragPoints.append(touch)
                    } else {
                        kept.append("\(touches.viewID)\(touch.id) \(touch.phase)")
                    }
                }
            case .reloaded(let generation, _): kept.append("reloaded \(generation)")
            default: Issue.record("unexpected \(message)")
            }
        }
        #expect(kept == expected)
        #expect(dragPoints.last?.localPoint.x == 20_000)
        #expect(dragPoints.first?.previousLocalPoint.x == 0, "the first move the client sees starts at began")
        for (earlier, later) in zip(dragPoints, dragPoints.dropFirst()) {
            #expect(later.previousLocalPoint == earlier.localPoint)
        }
    }
}
