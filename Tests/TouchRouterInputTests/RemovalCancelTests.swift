import Testing
import TouchRouterCore

@testable import TouchRouterInput

/// libinput cancels a removed device's touches just before reporting it removed; the reader turns
/// that into one removal, so the tracker cancels with reason `device-removed` (seen in the VM).
@Suite("Cancels caused by a device's removal")
struct RemovalCancelTests {
    static let panel = InputDevice(id: 7, name: "panel")
    static let other = InputDevice(id: 8, name: "other")

    static func frame(_ device: InputDevice, _ kinds: [ContactEvent.Kind], at micros: UInt64) -> InputEvent {
        .frame(
            InputFrame(
                device: device, screen: "main", timestampMicros: micros,
                contacts: kinds.enumerated().map { ContactEvent(kind: $1, slot: Int32($0)) }))
    }

    @Test("the cancel frame right before the removal is dropped; other devices' frames stay")
    func cancelsBeforeRemovalDropped() {
        let events: [InputEvent] = [
            Self.frame(Self.panel, [.motion, .motion], at: 1),
            Self.frame(Self.other, [.cancel], at: 2),
            Self.frame(Self.panel, [.cancel, .cancel], at: 3),
            .deviceRemoved(Self.panel, timestampMicros: 4),
        ]
        #expect(
            LibinputReader.droppingRemovalCancels(events) == [
                Self.frame(Self.panel, [.motion, .motion], at: 1),
                Self.frame(Self.other, [.cancel], at: 2),
                .deviceRemoved(Self.panel, timestampMicros: 4),
            ])
    }

    @Test("a cancel with the device's other activity after it is the hardware's, and stays")
    func earlierCancelKept() {
        let events: [InputEvent] = [
            Self.frame(Self.panel, [.cancel], at: 1),
            Self.frame(Self.panel, [.down], at: 2),
            .deviceRemoved(Self.panel, timestampMicros: 3),
        ]
        #expect(LibinputReader.droppingRemovalCancels(events) == events)
    }

    @Test("a mixed frame and a device that is not removed are left alone")
    func nothingElseChanges() {
        let events: [InputEvent] = [
            Self.frame(Self.panel, [.cancel, .up], at: 1),
            .deviceRemoved(Self.panel, timestampMicros: 2),
            Self.frame(Self.other, [.cancel], at: 3),
        ]
        #expect(LibinputReader.droppingRemovalCancels(events) == events)
    }
}
