import Testing
import TouchRouterCore

@testable import TouchRouterProtocol

/// Seeded random multi-touch streams through an outbox: only superseded moves are lost.
extension ClientOutboxTests {
    @Test("random multi-touch streams: nothing but superseded moves is lost, continuity holds")
    func property() throws {
        let seed: UInt64 = 0x0B0_5EED
        var random = SeededRandom(seed: seed)
        var overflowRounds = 0
        var coalescedMessages = 0
        let rounds = 30
        defer {
            // The stream must exercise both outcomes, or the test proves little.
            #expect(
                overflowRounds > 0 && overflowRounds < rounds, "seed \(seed): \(overflowRounds) overflowed")
            #expect(coalescedMessages > 100, "seed \(seed)")
        }
        for round in 0..<rounds {
            var outbox = ClientOutbox(byteBudget: Int.random(in: 3000...20000, using: &random))
            var wire: [UInt8] = []
            // The tracker's truth: per touch, its view and every update sent.
            var active: [UInt64: (view: String, x: Double)] = [:]
            var nextID: UInt64 = 1
            var lastSent: [UInt64: (phase: TouchPhase, x: Double)] = [:]
            var terminalIDs: Set<UInt64> = []
            var replies = 0
            var overflowed = false
            frames: for frame in 0..<400 {
                // Change the touches.
                if active.count < 4, Int.random(in: 0..<6, using: &random) == 0 {
                    active[nextID] = (["a", "b", "c"].randomElement(using: &random)!, Double(frame))
                    lastSent[nextID] = nil
                    nextID += 1
                }
                var byView: [String: [RoutedTouch]] = [:]
                for (id, state) in active.sorted(by: { $0.key < $1.key }) {
                    let phase: TouchPhase
                    if lastSent[id] == nil {
                        phase = .began
                    } else {
                        phase = [.moved, .moved, .moved, .stationary, .ended, .cancelled].randomElement(
                            using: &random)!
                    }
                    let previous = lastSent[id]?.x ?? state.x
                    let x = phase == .moved ? previous + Double.random(in: 0.5...3, using: &random) : previous
                    byView[state.view, default: []].append(Self.touch(id, phase, at: x, from: previous))
                    lastSent[id] = (phase, x)
                    if phase.isTerminal {
                        active[id] = nil
                        terminalIDs.insert(id)
                    }
                }
                for view in byView.keys.sorted() {
                    if outbox.enqueue(Self.message(view, UInt64(frame), byView[view]!)) == .overflow {
                        overflowed = true
                        break frames
                    }
                }
                if Int.random(in: 0..<20, using: &random) == 0 {
                    replies += 1
                    _ = outbox.enqueue(
                        line: DaemonMessage.reloaded(generation: UInt64(replies), seq: nil).encodedLine())
                }
                // A slow, irregular reader.
                if Int.random(in: 0..<3, using: &random) == 0 {
                    let next = outbox.bytesToWrite()
                    let taken = Int.random(in: 0...min(next.count, 700), using: &random)
                    wire.append(contentsOf: next.prefix(taken))
                    outbox.didWrite(taken)
                }
            }
            while true {
                let next = outbox.bytesToWrite()
                if next.isEmpty { break }
                wire.append(contentsOf: next)
                outbox.didWrite(next.count)
            }
            let messages = try Self.lines(wire)
            coalescedMessages += outbox.coalescedMessageCount
            if overflowed {
                overflowRounds += 1
                guard case .error(let error) = messages.last else {
                    Issue.record("seed \(seed) round \(round): overflow without a final error")
                    continue
                }
                #expect(error.code == .queueOverflow)
                continue
            }
            // Every reply arrives; per touch, deliveries chain and end where the tracker ended.
            var delivered: [UInt64: [WireTouch]] = [:]
            var replyCount = 0
            for message in messages {
                switch message {
                case .touches(let touches):
                    for touch in touches.touches { delivered[touch.id, default: []].append(touch) }
                case .reloaded: replyCount += 1
                default: Issue.record("seed \(seed) round \(round): unexpected \(message)")
                }
            }
            #expect(replyCount == replies, "seed \(seed) round \(round)")
            for (id, truth) in lastSent {
                let updates = delivered[id] ?? []
                #expect(updates.first?.phase == .began, "seed \(seed) round \(round) touch \(id)")
                #expect(updates.last?.localPoint.x == truth.x, "seed \(seed) round \(round) touch \(id)")
                if terminalIDs.contains(id) {
                    #expect(updates.last?.phase == truth.phase, "seed \(seed) round \(round) touch \(id)")
                }
                #expect(
                    updates.filter { $0.phase.isTerminal || $0.phase == .began }.count
                        == (terminalIDs.contains(id) ? 2 : 1), "seed \(seed) round \(round) touch \(id)")
                for (earlier, later) in zip(updates, updates.dropFirst()) {
                    #expect(
                        later.previousLocalPoint == earlier.localPoint,
                        "seed \(seed) round \(round) touch \(id)")
                }
            }
        }
    }
}
