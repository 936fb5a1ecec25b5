/// Turns a touch device's raw evdev events into the tracker's input frames, the way the kernel and
/// libinput 1.22 (its "fallback" touchscreen dispatch) would for the same events. Pure: no I/O.
import TouchRouterCore

/// A stateful decoder for one touchscreen: feed it events one at a time, get a frame whenever libinput
/// would end one with TOUCH_FRAME.
///
/// Rules (docs/input.md explains them for integrators):
/// - The kernel's filtering is applied first, as a uinput replay would see it: an ABS or key event whose
///   value equals the current one is dropped, ABS_MT_SLOT only selects the slot.
/// - Multitouch (protocol B, the device has ABS_MT_SLOT and ABS_MT_POSITION_X/Y): ABS_MT_SLOT selects a
///   slot; ABS_MT_TRACKING_ID ≥ 0 begins a contact, -1 ends it; ABS_MT_POSITION_X/Y move it. Every slot
///   touched since the last SYN_REPORT is flushed at SYN_REPORT in slot order: down, motion or up. A
///   second begin on a slot whose contact is still down is ignored (libinput logs a kernel bug); a palm
///   (ABS_MT_TOOL_TYPE = MT_TOOL_PALM, when the device has that axis) cancels the contact.
/// - Single-touch (no MT slots): BTN_TOUCH 1/0 is down/up, ABS_X/ABS_Y move the one contact.
/// - Contacts are numbered by seat slot as libinput does: the lowest number not in use (per decoder).
/// - Positions: `ScreenMapping.mapDevice`, i.e. libinput's transformed coordinates for the screen.
/// - SYN_DROPPED: pending changes are flushed (libinput dispatches one extra SYN_REPORT), everything up to
///   and including the next SYN_REPORT is discarded, then every contact still down is cancelled (a
///   recording cannot be asked for the device's real state, so whether it lifted is unknown). Until a slot
///   sends a tracking id again, a position on it means a finger is down there: it begins a new contact.
public struct MultitouchDecoder: Sendable {
    public let device: RecordedDevice
    public let inputDevice: InputDevice
    public let screen: String
    public let mapping: ScreenMapping

    /// SYN_DROPPED events seen so far.
    public private(set) var droppedCount = 0

    private enum SlotState: Sendable { case none, begin, update, end }
    private enum PalmState: Sendable { case none, new, isPalm, wasPalm }

    private struct Slot: Sendable {
        var x: Int32 = 0
        var y: Int32 = 0
        var seatSlot: Int32 = -1
        var state = SlotState.none
        var dirty = false
        var palm = PalmState.none
        /// State unknown since SYN_DROPPED: a position before any tracking id means a finger is down there.
        var orphaned = false
        // The kernel's view, for dropping unchanged values (nil: unknown after SYN_DROPPED).
        var kernelTrackingId: Int32? = -1
        var kernelX: Int32? = 0
        var kernelY: Int32? = 0
        var kernelToolType: Int32? = 0
    }

    private let isMultitouch: Bool
    private let hasPalm: Bool
    private let xAxis: AxisRange
    private let yAxis: AxisRange
    private var slots: [Slot]
    private var currentSlot = 0
    private var pendingMultitouch = false
    // Single-touch state.
    private var single = Slot()
    private var kernelButtonTouch: Int32? = 0
    private var pendingSingleDown = false
    private var pendingSingleUp = false
    private var pendingSingleMotion = false
    /// Seat slots in use (bit n = seat slot n), as libinput's seat slot map.
    private var seatSlotMap: UInt32 = 0
    /// Discarding events after SYN_DROPPED until the next SYN_REPORT.
    private var dropping = false
    /// Contact events produced without a TOUCH_FRAME yet (libinput then carries them into the next frame).
    private var unframed: [ContactEvent] = []

    /// A decoder for `device`'s events, producing frames for `inputDevice` on `screen` through `mapping`.
    /// A device without position axes gets a one-unit range, so every position maps to the origin.
    public init(device: RecordedDevice, inputDevice: InputDevice, screen: String, mapping: ScreenMapping) {
        self.device = device
        self.inputDevice = inputDevice
        self.screen = screen
        self.mapping = mapping
        isMultitouch = device.isMultitouch
        hasPalm = device.absinfo[EvdevCode.absMtToolType] != nil
        xAxis = device.xAxis?.range ?? AxisRange(minimum: 0, maximum: 0)
        yAxis = device.yAxis?.range ?? AxisRange(minimum: 0, maximum: 0)
        slots = Array(repeating: Slot(), count: device.slotCount)
    }

    /// Seat slots of the contacts currently down, ascending.
    public var activeSeatSlots: [Int32] {
        (0..<32).filter { seatSlotMap & (1 << UInt32($0)) != 0 }.map { Int32($0) }
    }

    /// Feeds one event; returns the frame libinput would end here, if any.
    public mutating func feed(_ event: EvdevEvent) -> InputFrame? {
        if dropping {
            if event.type == EvdevCode.evSyn && event.code == EvdevCode.synReport {
                dropping = false
                return resynchronise(timestampMicros: event.timestampMicros)
            }
            return nil
        }
        switch event.type {
        case EvdevCode.evSyn:
            if event.code == EvdevCode.synReport {
                return handleState(timestampMicros: event.timestampMicros)
            }
            if event.code == EvdevCode.synDropped {
                droppedCount += 1
                dropping = true
                return handleState(timestampMicros: event.timestampMicros)
            }
            return nil
        case EvdevCode.evAbs:
            if isMultitouch {
                processMultitouch(event)
            } else {
                processSingleTouchAxis(event)
            }
            return nil
        case EvdevCode.evKey:
            if event.code == EvdevCode.btnTouch && !isMultitouch {
                guard kernelButtonTouch != event.value else { return nil }
                kernelButtonTouch = event.value
                if event.value == 2 { return nil }  // key repeat
                if event.value != 0 { pendingSingleDown = true } else { pendingSingleUp = true }
            }
            return nil
        default:
            return nil
        }
    }

    /// Cancels every contact still down (e.g. the replay stops or loops mid-gesture); nil if none was.
    public mutating func cancelAll(timestampMicros: UInt64) -> InputFrame? {
        var contacts = unframed
        unframed = []
        for index in slots.indices where slots[index].seatSlot >= 0 {
            contacts.append(ContactEvent(kind: .cancel, slot: slots[index].seatSlot))
            releaseSeatSlot(slots[index].seatSlot)
            slots[index].seatSlot = -1
            slots[index].state = .none
            slots[index].dirty = false
        }
        if single.seatSlot >= 0 {
            contacts.append(ContactEvent(kind: .cancel, slot: single.seatSlot))
            releaseSeatSlot(single.seatSlot)
            single.seatSlot = -1
        }
        return frame(contacts, timestampMicros: timestampMicros)
    }

    /// Decodes a whole recording. With `cancelRemainingAtEnd`, contacts still down after the last event
    /// are cancelled in a final frame (at the last event's time), so the frames can be looped.
    public static func decode(
        _ recording: Recording, inputDevice: InputDevice, screen: String, mapping: ScreenMapping,
        cancelRemainingAtEnd: Bool = true
    ) -> [InputFrame] {
        var decoder = MultitouchDecoder(
            device: recording.device, inputDevice: inputDevice, screen: screen, mapping: mapping)
        var frames: [InputFrame] = []
        for event in recording.events {
            if let frame = decoder.feed(event) { frames.append(frame) }
        }
        if cancelRemainingAtEnd, let last = recording.events.last,
            let frame = decoder.cancelAll(timestampMicros: last.timestampMicros)
        {
            frames.append(frame)
        }
        return frames
    }

    // MARK: - Event processing

    private mutating func processMultitouch(_ event: EvdevEvent) {
        if event.code == EvdevCode.absMtSlot {
            // The kernel ignores slot numbers outside the device's range.
            if event.value >= 0 && Int(event.value) < slots.count { currentSlot = Int(event.value) }
            return
        }
        var slot = slots[currentSlot]
        defer { slots[currentSlot] = slot }
        switch event.code {
        case EvdevCode.absMtTrackingId:
            guard slot.kernelTrackingId != event.value else { return }
            slot.kernelTrackingId = event.value
            slot.orphaned = false
            pendingMultitouch = true
            if event.value >= 0 {
                slot.state = .begin
                slot.palm = hasPalm && slot.kernelToolType == EvdevCode.mtToolPalm ? .wasPalm : .none
            } else {
                slot.state = .end
            }
            slot.dirty = true
        case EvdevCode.absMtPositionX, EvdevCode.absMtPositionY:
            let isX = event.code == EvdevCode.absMtPositionX
            guard (isX ? slot.kernelX : slot.kernelY) != event.value else { return }
            if isX {
                slot.kernelX = event.value
                slot.x = event.value
            } else {
                slot.kernelY = event.value
                slot.y = event.value
            }
            if slot.orphaned {
                // The finger outlived the dropped events: it comes back as a new contact.
                slot.orphaned = false
                slot.state = .begin
                slot.palm = .none
            }
            pendingMultitouch = true
            slot.dirty = true
        case EvdevCode.absMtToolType:
            guard hasPalm, slot.kernelToolType != event.value else { return }
            slot.kernelToolType = event.value
            if event.value == EvdevCode.mtToolPalm {
                if slot.palm == .none { slot.palm = .new }
            } else if slot.palm == .isPalm {
                slot.palm = .wasPalm
            }
            pendingMultitouch = true
            slot.dirty = true
        default:
            break
        }
    }

    private mutating func processSingleTouchAxis(_ event: EvdevEvent) {
        switch event.code {
        case EvdevCode.absX:
            guard single.kernelX != event.value else { return }
            single.kernelX = event.value
            single.x = event.value
        case EvdevCode.absY:
            guard single.kernelY != event.value else { return }
            single.kernelY = event.value
            single.y = event.value
        default:
            return
        }
        if single.orphaned {
            single.orphaned = false
            pendingSingleDown = true
        }
        pendingSingleMotion = true
    }

    // MARK: - Flushing at SYN_REPORT

    private mutating func handleState(timestampMicros: UInt64) -> InputFrame? {
        var contacts: [ContactEvent] = []
        var needFrame = false

        if pendingSingleDown {
            if let event = singleDown() {
                contacts.append(event)
                needFrame = true
            }
        } else if pendingSingleMotion, single.seatSlot >= 0 {
            contacts.append(ContactEvent(kind: .motion, slot: single.seatSlot, screenPoint: point(single)))
            needFrame = true
        }
        if pendingSingleUp, single.seatSlot >= 0 {
            contacts.append(ContactEvent(kind: .up, slot: single.seatSlot))
            releaseSeatSlot(single.seatSlot)
            single.seatSlot = -1
            needFrame = true
        }
        pendingSingleDown = false
        pendingSingleUp = false
        pendingSingleMotion = false

        if pendingMultitouch {
            // libinput keeps only the last slot's result as "a frame is needed".
            needFrame = flushMultitouch(into: &contacts)
            pendingMultitouch = false
        }

        unframed += contacts
        guard needFrame else { return nil }
        let all = unframed
        unframed = []
        return frame(all, timestampMicros: timestampMicros)
    }

    private mutating func singleDown() -> ContactEvent? {
        guard single.seatSlot < 0, let seatSlot = claimSeatSlot() else { return nil }
        single.seatSlot = seatSlot
        return ContactEvent(kind: .down, slot: seatSlot, screenPoint: point(single))
    }

    private mutating func flushMultitouch(into contacts: inout [ContactEvent]) -> Bool {
        var sent = false
        for index in slots.indices where slots[index].dirty {
            var slot = slots[index]
            slot.dirty = false
            if slot.palm == .new {
                if slot.state != .begin {
                    sent = cancel(&slot, into: &contacts)
                }
                slot.palm = .isPalm
            } else if slot.palm == .none {
                switch slot.state {
                case .begin:
                    if slot.seatSlot >= 0 {
                        sent = false  // "driver sent multiple touch down for the same slot"
                    } else if let seatSlot = claimSeatSlot() {
                        slot.seatSlot = seatSlot
                        contacts.append(ContactEvent(kind: .down, slot: seatSlot, screenPoint: point(slot)))
                        sent = true
                    } else {
                        sent = false
                    }
                case .update:
                    if slot.seatSlot >= 0 {
                        contacts.append(ContactEvent(kind: .motion, slot: slot.seatSlot, screenPoint: point(slot)))
                        sent = true
                    } else {
                        sent = false
                    }
                case .end:
                    if slot.seatSlot >= 0 {
                        contacts.append(ContactEvent(kind: .up, slot: slot.seatSlot))
                        releaseSeatSlot(slot.seatSlot)
                        slot.seatSlot = -1
                        sent = true
                    } else {
                        sent = false
                    }
                case .none:
                    break
                }
            }
            switch slot.state {
            case .begin: slot.state = .update
            case .end: slot.state = .none
            case .update, .none: break
            }
            slots[index] = slot
        }
        return sent
    }

    private mutating func cancel(_ slot: inout Slot, into contacts: inout [ContactEvent]) -> Bool {
        guard slot.seatSlot >= 0 else { return false }
        contacts.append(ContactEvent(kind: .cancel, slot: slot.seatSlot))
        releaseSeatSlot(slot.seatSlot)
        slot.seatSlot = -1
        return true
    }

    /// After the events following SYN_DROPPED were discarded: cancel what is down, forget the kernel view.
    private mutating func resynchronise(timestampMicros: UInt64) -> InputFrame? {
        for index in slots.indices {
            slots[index].orphaned = true
            slots[index].kernelTrackingId = nil
            slots[index].kernelX = nil
            slots[index].kernelY = nil
            slots[index].kernelToolType = nil
            slots[index].palm = .none
        }
        single.orphaned = true
        single.kernelX = nil
        single.kernelY = nil
        kernelButtonTouch = nil
        pendingMultitouch = false
        pendingSingleDown = false
        pendingSingleUp = false
        pendingSingleMotion = false
        return cancelAll(timestampMicros: timestampMicros)
    }

    // MARK: - Helpers

    private func point(_ slot: Slot) -> Point {
        mapping.mapDevice(x: slot.x, y: slot.y, xAxis: xAxis, yAxis: yAxis)
    }

    private mutating func claimSeatSlot() -> Int32? {
        guard seatSlotMap != UInt32.max else { return nil }
        let free = (~seatSlotMap).trailingZeroBitCount
        seatSlotMap |= 1 << UInt32(free)
        return Int32(free)
    }

    private mutating func releaseSeatSlot(_ seatSlot: Int32) {
        guard (0..<32).contains(seatSlot) else { return }
        seatSlotMap &= ~(1 << UInt32(seatSlot))
    }

    private func frame(_ contacts: [ContactEvent], timestampMicros: UInt64) -> InputFrame? {
        guard !contacts.isEmpty else { return nil }
        return InputFrame(device: inputDevice, screen: screen, timestampMicros: timestampMicros, contacts: contacts)
    }
}
