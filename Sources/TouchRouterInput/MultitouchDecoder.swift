/// Turns a touch device's raw evdev events into the tracker's input frames, the way the kernel and
/// libinput 1.22 (its "fallback" touchscreen dispatch) would for the same events. Pure: no I/O.
///
/// One file over 400 lines on purpose: the decoder is one state machine (slots, pending flags, seat
/// slots, the SYN_DROPPED state) read in the order an event flows: feed, protocol A, processing, the
/// flush at SYN_REPORT. Its state is private to it; split across files, every slot field would be open
/// to the whole module. The pure arithmetic it applies (the kernel's defuzz, libinput's hysteresis) is
/// in `EvdevFilters.swift`.
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
///   second begin on a slot whose contact is still down is ignored and counted as a kernel bug (logged,
///   rate-limited, as libinput does); a palm
///   (ABS_MT_TOOL_TYPE = MT_TOOL_PALM, when the device has that axis) cancels the contact.
/// - Multitouch protocol A (MT position axes, no ABS_MT_SLOT): the kernel passes the MT events unfiltered;
///   libmtdev (`MtdevConverter`, the library libinput runs such devices through) matches each frame's
///   fingers to the previous ones and turns them into slots, tracking ids and changed positions, which
///   then take the protocol-B path above without the kernel's filtering. libinput gives such a device 10
///   slots: an mtdev slot beyond them lands in the last one (libinput logs "exceeded slot count").
/// - Single-touch (no MT axes): BTN_TOUCH 1/0 is down/up, ABS_X/ABS_Y move the one contact.
/// - Contacts are numbered by seat slot as libinput does: the lowest number not in use (per decoder).
/// - Positions: `ScreenMapping.mapDevice`, i.e. libinput's transformed coordinates for the screen.
/// - SYN_DROPPED: pending changes are flushed (libinput dispatches one extra SYN_REPORT), everything up to
///   and including the next SYN_REPORT is discarded, then every contact still down is cancelled (a
///   recording cannot be asked for the device's real state, so whether it lifted is unknown). Until a slot
///   sends a tracking id again, a position on it means a finger is down there: it begins a new contact.
///   Protocol A: the partial frame before SYN_DROPPED never reaches libmtdev (it would read the fingers
///   missing from it as lifted), and libmtdev starts afresh: every finger of the next whole frame begins
///   a new contact.
public struct MultitouchDecoder: Sendable {
    /// Slots libinput gives a protocol-A device ("pick 10 slots as default for type A devices").
    public static let protocolASlotCount = 10
    /// Fingers of one protocol-A frame handed to libmtdev: libmtdev 1.1 never returns from a frame of 32
    /// or more (its 32-bit slot masks overflow), so the decoder drops the fingers after the 31st.
    public static let protocolAFingerLimit = 31

    public let device: RecordedDevice
    public let inputDevice: InputDevice
    public let screen: String
    public let mapping: ScreenMapping

    /// SYN_DROPPED events seen so far.
    public private(set) var droppedCount = 0
    /// Kernel bugs seen so far (a touch-down on a slot whose contact is still down): ignored, as
    /// libinput does, and counted.
    public private(set) var kernelBugCount = 0
    /// The first `kernelBugMessageLimit` kernel bugs in words, for the log (libinput's
    /// `log_bug_kernel`, rate-limited the same way: the rest are only counted).
    public private(set) var kernelBugMessages: [String] = []
    /// How many kernel bugs are described before the rest are only counted.
    public static let kernelBugMessageLimit = 5
    /// Contact events that may wait for a TOUCH_FRAME: at this many a frame ends anyway. libinput
    /// carries a report's contacts into the next frame when the report's last slot sent nothing;
    /// a crafted recording doing that report after report would otherwise pile a whole file's
    /// contacts into one frame (one loop turn in the daemon). A real report has at most a few per
    /// seat slot (32).
    public static let unframedContactLimit = 256

    private enum SlotState: Sendable { case none, begin, update, end }
    private enum PalmState: Sendable { case none, new, isPalm, wasPalm }

    private struct Slot: Sendable {
        var x: Int32 = 0
        var y: Int32 = 0
        /// libinput's hysteresis centre (devices whose position axes have a fuzz).
        var centreX: Int32 = 0
        var centreY: Int32 = 0
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
    /// libmtdev, for a protocol-A device (copied on write: see `MtdevConverter`).
    private var mtdev: MtdevConverter?
    /// This protocol-A frame's fingers so far (with both positions, as libmtdev counts them), and
    /// which positions the current one has.
    private var framedFingers = 0
    private var fingerHasX = false
    private var fingerHasY = false
    private let hasPalm: Bool
    /// libinput's hysteresis margin (fuzz / 2 of the position axes), nil when both fuzzes are 0.
    private let hysteresisMargin: (x: Int32, y: Int32)?
    private let xAxis: AxisRange
    private let yAxis: AxisRange
    private let physicalScale: PhysicalScale
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

    /// A decoder for `device`'s events, producing frames for `inputDevice` on `screen` through `mapping`,
    /// each carrying `physicalScale`. A device without position axes gets a one-unit range, so every
    /// position maps to the origin.
    public init(
        device: RecordedDevice, inputDevice: InputDevice, screen: String, mapping: ScreenMapping,
        physicalScale: PhysicalScale = .fallback
    ) {
        self.device = device
        self.physicalScale = physicalScale
        self.inputDevice = inputDevice
        self.screen = screen
        self.mapping = mapping
        isMultitouch = device.isMultitouch || device.isProtocolA
        mtdev = device.isProtocolA ? MtdevConverter(device: device) : nil
        hasPalm = device.absinfo[EvdevCode.absMtToolType] != nil
        let xFuzz = device.xAxis?.fuzz ?? 0
        let yFuzz = device.yAxis?.fuzz ?? 0
        hysteresisMargin = isMultitouch && (xFuzz != 0 || yFuzz != 0) ? (xFuzz / 2, yFuzz / 2) : nil
        xAxis = device.xAxis?.range ?? AxisRange(minimum: 0, maximum: 0)
        yAxis = device.yAxis?.range ?? AxisRange(minimum: 0, maximum: 0)
        slots = Array(
            repeating: Slot(), count: device.isProtocolA ? Self.protocolASlotCount : device.slotCount)
    }

    /// Seat slots of the contacts currently down, ascending.
    public var activeSeatSlots: [Int32] {
        (0..<32).filter { seatSlotMap & (1 << UInt32($0)) != 0 }.map { Int32($0) }
    }

    /// Feeds one event; returns the frame libinput would end here, if any.
    public mutating func feed(_ event: EvdevEvent) -> InputFrame? {
        if mtdev != nil { return feedProtocolA(event) }
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
                // The kernel passes a key only when its pressed state changes (2, a repeat, is pressed).
                let pressed: Int32 = event.value != 0 ? 1 : 0
                guard kernelButtonTouch != pressed else { return nil }
                kernelButtonTouch = pressed
                if pressed != 0 { pendingSingleDown = true } else { pendingSingleUp = true }
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
        physicalScale: PhysicalScale = .fallback, cancelRemainingAtEnd: Bool = true,
        logKernelBug: (String) -> Void = { _ in }
    ) -> [InputFrame] {
        var decoder = MultitouchDecoder(
            device: recording.device, inputDevice: inputDevice, screen: screen, mapping: mapping,
            physicalScale: physicalScale)
        var frames: [InputFrame] = []
        for event in recording.events {
            if let frame = decoder.feed(event) { frames.append(frame) }
        }
        if cancelRemainingAtEnd, let last = recording.events.last,
            let frame = decoder.cancelAll(timestampMicros: last.timestampMicros)
        {
            frames.append(frame)
        }
        decoder.kernelBugMessages.forEach(logKernelBug)
        if decoder.kernelBugCount > kernelBugMessageLimit {
            let name = Excerpt.of(recording.device.name)
            logKernelBug("kernel bug: \(decoder.kernelBugCount) in all from device \"\(name)\"")
        }
        return frames
    }

    // MARK: - Protocol A, through libmtdev

    /// What reaches libmtdev is what the kernel passes for a protocol-A device: its ABS_MT events
    /// unfiltered (the kernel filters MT values only per slot), SYN_MT_REPORT, and BTN_TOUCH when it
    /// changes (libmtdev reads it as "this frame is about touches"). Other events cannot change
    /// libmtdev's slots and libinput ignores them on a multitouch device. At SYN_REPORT the converted
    /// events go through the protocol-B path as libinput's fallback dispatch gets them.
    private mutating func feedProtocolA(_ event: EvdevEvent) -> InputFrame? {
        if dropping {
            if event.type == EvdevCode.evSyn && event.code == EvdevCode.synReport {
                dropping = false
                return resynchronise(timestampMicros: event.timestampMicros)
            }
            return nil
        }
        switch event.type {
        case EvdevCode.evSyn:
            switch event.code {
            case EvdevCode.synReport:
                framedFingers = 0
                fingerHasX = false
                fingerHasY = false
                converter().put(event)
                var frame: InputFrame?
                for converted in converter().drain() {
                    if converted.type == EvdevCode.evSyn && converted.code == EvdevCode.synReport {
                        frame = handleState(timestampMicros: converted.timestampMicros)
                    } else if converted.type == EvdevCode.evAbs {
                        processMultitouch(converted, fromMtdev: true)
                    }
                }
                return frame
            case EvdevCode.synMtReport:
                guard framedFingers < Self.protocolAFingerLimit else { return nil }
                if fingerHasX && fingerHasY { framedFingers += 1 }
                fingerHasX = false
                fingerHasY = false
                converter().put(event)
            case EvdevCode.synDropped:
                droppedCount += 1
                dropping = true
                return handleState(timestampMicros: event.timestampMicros)
            default:
                break
            }
        case EvdevCode.evAbs:
            if MtdevConverter.multitouchCodes.contains(event.code), device.absinfo[event.code] != nil,
                framedFingers < Self.protocolAFingerLimit
            {
                if event.code == EvdevCode.absMtPositionX { fingerHasX = true }
                if event.code == EvdevCode.absMtPositionY { fingerHasY = true }
                converter().put(event)
            }
        case EvdevCode.evKey:
            guard event.code == EvdevCode.btnTouch, device.has(type: event.type, code: event.code) else {
                return nil
            }
            let pressed: Int32 = event.value != 0 ? 1 : 0
            guard kernelButtonTouch != pressed else { return nil }
            kernelButtonTouch = pressed
            converter().put(
                EvdevEvent(
                    timestampMicros: event.timestampMicros, type: event.type, code: event.code, value: pressed))
        default:
            break
        }
        return nil
    }

    /// The decoder's own libmtdev, copied first if another decoder value shares it.
    private mutating func converter() -> MtdevConverter {
        if !isKnownUniquelyReferenced(&mtdev!) { mtdev = mtdev!.copy() }
        return mtdev!
    }

    // MARK: - Event processing

    /// One slotted event: from the kernel (filtered as the kernel filters a protocol-B device's
    /// values) or from libmtdev (already only the changes; a slot beyond libinput's is clamped).
    private mutating func processMultitouch(_ event: EvdevEvent, fromMtdev: Bool = false) {
        if event.code == EvdevCode.absMtSlot {
            if fromMtdev {
                currentSlot = Swift.max(0, Swift.min(Int(event.value), slots.count - 1))
            } else if event.value >= 0 && Int(event.value) < slots.count {
                // The kernel ignores slot numbers outside the device's range.
                currentSlot = Int(event.value)
            }
            return
        }
        var slot = slots[currentSlot]
        defer { slots[currentSlot] = slot }
        /// The kernel's filter on a protocol-B device; libmtdev's output is taken as it comes.
        func filter(_ old: inout Int32?) -> Int32? {
            fromMtdev ? event.value : kernelFilter(event, old: &old)
        }
        switch event.code {
        case EvdevCode.absMtTrackingId:
            guard let value = filter(&slot.kernelTrackingId) else { return }
            slot.orphaned = false
            pendingMultitouch = true
            if value >= 0 {
                slot.state = .begin
                // libinput reads the tool from libevdev's slot state, which a device without slots lacks.
                slot.palm =
                    hasPalm && !fromMtdev && slot.kernelToolType == EvdevCode.mtToolPalm ? .wasPalm : .none
            } else {
                slot.state = .end
            }
            slot.dirty = true
        case EvdevCode.absMtPositionX, EvdevCode.absMtPositionY:
            if event.code == EvdevCode.absMtPositionX {
                guard let value = filter(&slot.kernelX) else { return }
                slot.x = value
            } else {
                guard let value = filter(&slot.kernelY) else { return }
                slot.y = value
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
            guard hasPalm, let value = filter(&slot.kernelToolType) else { return }
            if value == EvdevCode.mtToolPalm {
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
            guard let value = kernelFilter(event, old: &single.kernelX) else { return }
            single.x = value
        case EvdevCode.absY:
            guard let value = kernelFilter(event, old: &single.kernelY) else { return }
            single.y = value
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
            contacts.append(
                ContactEvent(
                    kind: .motion, slot: single.seatSlot, screenPoint: point(single),
                    atDeviceLimit: atLimit(single.x, single.y)))
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
        guard needFrame || unframed.count >= Self.unframedContactLimit else { return nil }
        let all = unframed
        unframed = []
        return frame(all, timestampMicros: timestampMicros)
    }

    private mutating func singleDown() -> ContactEvent? {
        guard single.seatSlot < 0, let seatSlot = claimSeatSlot() else { return nil }
        single.seatSlot = seatSlot
        return ContactEvent(
            kind: .down, slot: seatSlot, screenPoint: point(single), atDeviceLimit: atLimit(single.x, single.y))
    }

    /// Counts a kernel bug and describes it while under the limit.
    private mutating func kernelBug(_ what: String) {
        kernelBugCount += 1
        guard kernelBugCount <= Self.kernelBugMessageLimit else { return }
        var message = "kernel bug: device \"\(Excerpt.of(device.name))\" \(what)"
        if kernelBugCount == Self.kernelBugMessageLimit { message += "; further kernel bugs are only counted" }
        kernelBugMessages.append(message)
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
                        // libinput: "driver sent multiple touch down for the same slot"; ignored.
                        kernelBug("sent a second touch-down on slot \(index) while its contact was down (ignored)")
                        sent = false
                    } else if let seatSlot = claimSeatSlot() {
                        slot.seatSlot = seatSlot
                        slot.centreX = slot.x
                        slot.centreY = slot.y
                        contacts.append(
                            ContactEvent(
                                kind: .down, slot: seatSlot, screenPoint: point(slot),
                                atDeviceLimit: atLimit(slot.x, slot.y)))
                        sent = true
                    } else {
                        sent = false
                    }
                case .update:
                    // libinput reports the raw position; the hysteresis only decides whether to report.
                    let raw = point(slot)
                    let rawAtLimit = atLimit(slot.x, slot.y)
                    if slot.seatSlot >= 0, !withinHysteresis(&slot) {
                        contacts.append(
                            ContactEvent(
                                kind: .motion, slot: slot.seatSlot, screenPoint: raw, atDeviceLimit: rawAtLimit))
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
        if mtdev != nil {
            // A fresh libmtdev (the partial frame it held is gone) and fresh slots to match it: the next
            // whole frame lists every finger still down, and each begins a new contact.
            let cancelled = cancelAll(timestampMicros: timestampMicros)
            mtdev = MtdevConverter(device: device)
            slots = Array(repeating: Slot(), count: slots.count)
            currentSlot = 0
            kernelButtonTouch = nil
            pendingMultitouch = false
            framedFingers = 0
            fingerHasX = false
            fingerHasY = false
            return cancelled
        }
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

    /// The kernel's handling of an ABS value before a client sees it (`EvdevFilters.kernelFilter`
    /// with the axis's fuzz). Updates `old`.
    private func kernelFilter(_ event: EvdevEvent, old: inout Int32?) -> Int32? {
        EvdevFilters.kernelFilter(event.value, fuzz: Int64(device.absinfo[event.code]?.fuzz ?? 0), old: &old)
    }

    /// libinput's touch hysteresis (`EvdevFilters.hysteresis`): true when the motion stays inside the
    /// margin (libinput drops it); the slot's position becomes the dragged centre either way.
    private func withinHysteresis(_ slot: inout Slot) -> Bool {
        guard let margin = hysteresisMargin else { return false }
        let filtered = EvdevFilters.hysteresis(
            x: slot.x, y: slot.y, centreX: slot.centreX, centreY: slot.centreY, margin: margin)
        slot.x = filtered.x
        slot.y = filtered.y
        if filtered.x == slot.centreX && filtered.y == slot.centreY { return true }
        slot.centreX = filtered.x
        slot.centreY = filtered.y
        return false
    }

    /// Both raw coordinates at an end of their axis: a corner of the sensor (`filters.dropStuckPoints`).
    private func atLimit(_ x: Int32, _ y: Int32) -> Bool {
        (x == xAxis.minimum || x == xAxis.maximum) && (y == yAxis.minimum || y == yAxis.maximum)
    }

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
        return InputFrame(
            device: inputDevice, screen: screen, timestampMicros: timestampMicros, contacts: contacts,
            physicalScale: physicalScale)
    }
}
