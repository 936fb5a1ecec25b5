import Testing
import TouchRouterCore

@testable import TouchRouterInput

@Suite("TouchFrameAccumulator")
struct TouchFrameAccumulatorTests {
    @Test("a frame holds its contacts in order with the first contact's time")
    func collectsUntilFlush() {
        var accumulator = TouchFrameAccumulator(capacity: 8)
        #expect(
            accumulator.add(ContactEvent(kind: .down, slot: 0, screenPoint: Point(1, 2)), timestampMicros: 10)
                == nil)
        #expect(
            accumulator.add(ContactEvent(kind: .down, slot: 1, screenPoint: Point(3, 4)), timestampMicros: 11)
                == nil)
        #expect(accumulator.firstTimestampMicros == 10)
        let contacts = accumulator.flush()
        #expect(contacts.map(\.slot) == [0, 1])
        #expect(accumulator.pendingContacts.isEmpty)
        #expect(accumulator.firstTimestampMicros == nil)
    }

    @Test("up and cancel carry the slot's last position")
    func upCarriesLastPosition() {
        var accumulator = TouchFrameAccumulator()
        _ = accumulator.add(ContactEvent(kind: .down, slot: 3, screenPoint: Point(5, 6)), timestampMicros: 1)
        _ = accumulator.add(
            ContactEvent(kind: .motion, slot: 3, screenPoint: Point(7, 8)), timestampMicros: 2)
        _ = accumulator.flush()
        _ = accumulator.add(ContactEvent(kind: .up, slot: 3), timestampMicros: 3)
        #expect(accumulator.flush() == [ContactEvent(kind: .up, slot: 3, screenPoint: Point(7, 8))])
        // Lifted, the slot is no longer down (passthrough grabs a panel only with nothing down).
        #expect(accumulator.contactsDown == 0)
        _ = accumulator.add(ContactEvent(kind: .down, slot: 1, screenPoint: Point(1, 1)), timestampMicros: 4)
        _ = accumulator.add(ContactEvent(kind: .down, slot: 2, screenPoint: Point(2, 2)), timestampMicros: 4)
        _ = accumulator.add(ContactEvent(kind: .cancel, slot: 1), timestampMicros: 5)
        #expect(accumulator.contactsDown == 1)
    }

    @Test("a device that never sends a frame yields early frames and stays bounded")
    func floodIsBounded() {
        var accumulator = TouchFrameAccumulator(capacity: 4)
        var earlyFrames: [[ContactEvent]] = []
        for index in 0..<1000 {
            let contact = ContactEvent(
                kind: .motion, slot: Int32(index % 10), screenPoint: Point(Double(index), 0))
            if let early = accumulator.add(contact, timestampMicros: UInt64(index)) {
                #expect(early.contacts.count == 4)
                #expect(early.timestampMicros == UInt64(index - 4))
                earlyFrames.append(early.contacts)
            }
            #expect(accumulator.pendingContacts.count <= 4)
        }
        #expect(earlyFrames.count == 249)
        #expect(earlyFrames.joined().count + accumulator.flush().count == 1000)
    }
}
