import TouchRouterCore

/// Collects one device's contact changes until libinput's TOUCH_FRAME, with a bound: a device
/// that never sends a frame still yields a frame every `capacity` contacts, so memory stays
/// bounded and nothing is lost.
public struct TouchFrameAccumulator: Sendable {
    /// The most contact changes one frame can hold before it is handed on early.
    public let capacity: Int
    /// The contacts collected since the last frame.
    public private(set) var pendingContacts: [ContactEvent] = []
    /// The event time of the first pending contact, in microseconds.
    public private(set) var firstTimestampMicros: UInt64?
    /// Each slot's last known screen point, so up and cancel carry where the finger was.
    private var lastPointBySlot: [Int32: Point] = [:]

    /// Creates an empty accumulator holding at most `capacity` contacts per frame.
    public init(capacity: Int = 64) {
        precondition(capacity > 0, "a frame must hold at least one contact")
        self.capacity = capacity
    }

    /// Adds one contact change; returns an early frame's contacts when the bound was reached.
    /// Up and cancel get the slot's last known position (libinput gives them none).
    public mutating func add(
        _ contact: ContactEvent, timestampMicros: UInt64
    ) -> (contacts: [ContactEvent], timestampMicros: UInt64)? {
        var contact = contact
        switch contact.kind {
        case .down, .motion:
            lastPointBySlot[contact.slot] = contact.screenPoint
        case .up, .cancel:
            contact.screenPoint = lastPointBySlot.removeValue(forKey: contact.slot) ?? contact.screenPoint
        }
        var early: (contacts: [ContactEvent], timestampMicros: UInt64)?
        if pendingContacts.count >= capacity {
            early = (pendingContacts, firstTimestampMicros ?? timestampMicros)
            pendingContacts.removeAll(keepingCapacity: true)
            firstTimestampMicros = nil
        }
        if firstTimestampMicros == nil { firstTimestampMicros = timestampMicros }
        pendingContacts.append(contact)
        return early
    }

    /// Contacts of the device down now (as libinput reported them, before any filter).
    public var contactsDown: Int { lastPointBySlot.count }

    /// Ends the frame: returns the pending contacts (possibly none) and starts a new frame.
    public mutating func flush() -> [ContactEvent] {
        let contacts = pendingContacts
        pendingContacts.removeAll(keepingCapacity: true)
        firstTimestampMicros = nil
        return contacts
    }

    /// Forgets everything, e.g. when the device is removed.
    public mutating func reset() {
        pendingContacts.removeAll()
        firstTimestampMicros = nil
        lastPointBySlot.removeAll()
    }
}
