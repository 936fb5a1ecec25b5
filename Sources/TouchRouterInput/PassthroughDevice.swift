/// Passthrough's virtual devices, the pure part (docs/passthrough.md, "Devices, grab and
/// compositors"): what a screen's virtual touchscreen and virtual pointer look like to the kernel,
/// and how a `PassthroughFrame` becomes their evdev events. The daemon creates the devices through
/// `UinputInjector` and writes what the encoders make; nothing here does I/O.
import TouchRouterCore

/// The descriptions of a screen's virtual devices: a direct multitouch touchscreen (udev:
/// `ID_INPUT_TOUCHSCREEN=1`) and an absolute pointer (udev: `ID_INPUT_MOUSE=1`; libinput: absolute
/// pointer motion), both spanning the screen's layout size so libinput maps them to the whole output.
public enum PassthroughDevice {
    /// Axis units per layout unit: a position keeps 1/16 of a unit, and a screen as wide as the
    /// config allows (10⁷ units) still fits the kernel's 32-bit axes.
    public static let axisUnitsPerLayoutUnit = 16.0
    /// Slots of a virtual touchscreen: the contacts it can carry at once.
    public static let slotCount = 10
    /// What every virtual device's name starts with; the live reader ignores devices named so
    /// (the daemon never reads its own output).
    public static let namePrefix = "touchrouter passthrough"
    /// The kernel keeps at most 79 bytes of a uinput device's name (UINPUT_MAX_NAME_SIZE).
    static let maxNameBytes = 79
    /// ABS_MT_TOOL_TYPE values: a finger, and a palm (libinput cancels a touch that turns into one).
    static let mtToolFinger: Int32 = 0
    /// BTN_LEFT and BTN_RIGHT.
    public static let btnLeft: UInt16 = 0x110
    public static let btnRight: UInt16 = 0x111

    /// "touchrouter passthrough SCREEN", cut to what the kernel keeps.
    public static func touchscreenName(screen: String) -> String {
        truncated("\(namePrefix) \(screen)")
    }

    /// "touchrouter passthrough pointer SCREEN", cut to what the kernel keeps.
    public static func pointerName(screen: String) -> String {
        truncated("\(namePrefix) pointer \(screen)")
    }

    /// Whether a device is one of passthrough's own (by name), which the live reader must not read.
    public static func isOwn(name: String) -> Bool { name.hasPrefix(namePrefix) }

    /// The virtual touchscreen of a screen `width` × `height` layout units: INPUT_PROP_DIRECT,
    /// BTN_TOUCH, ABS_X/Y and the slotted multitouch axes (with ABS_MT_TOOL_TYPE, for cancels),
    /// ranges of `axisUnitsPerLayoutUnit` per unit, resolution from `physicalSize` (units per mm;
    /// without one, 96 layout units per inch, the density the rest of touchrouter assumes).
    public static func touchscreenSpec(
        screen: String, width: Double, height: Double, physicalSize: PhysicalSize?
    ) -> VirtualDeviceSpec {
        let (xAxis, yAxis) = positionAxes(width: width, height: height, physicalSize: physicalSize)
        return VirtualDeviceSpec(
            name: touchscreenName(screen: screen), bustype: EvdevCode.busVirtual, vendor: 0x7472, product: 0x0010,
            version: 1, properties: [EvdevCode.inputPropDirect], codes: [EvdevCode.evKey: [EvdevCode.btnTouch]],
            absoluteAxes: [
                AbsoluteAxis(code: EvdevCode.absX, info: xAxis),
                AbsoluteAxis(code: EvdevCode.absY, info: yAxis),
                AbsoluteAxis(code: EvdevCode.absMtSlot, minimum: 0, maximum: Int32(slotCount - 1)),
                AbsoluteAxis(code: EvdevCode.absMtPositionX, info: xAxis),
                AbsoluteAxis(code: EvdevCode.absMtPositionY, info: yAxis),
                AbsoluteAxis(code: EvdevCode.absMtToolType, minimum: 0, maximum: EvdevCode.mtToolPalm),
                AbsoluteAxis(code: EvdevCode.absMtTrackingId, minimum: 0, maximum: Int32.max),
            ])
    }

    /// The virtual pointer of a screen: ABS_X/Y as the touchscreen's, BTN_LEFT and BTN_RIGHT, not
    /// direct. udev's input_id tags absolute axes with mouse buttons and no touch or pen as a mouse,
    /// and libinput gives such a device absolute pointer motion mapped to the output.
    public static func pointerSpec(
        screen: String, width: Double, height: Double, physicalSize: PhysicalSize?
    ) -> VirtualDeviceSpec {
        let (xAxis, yAxis) = positionAxes(width: width, height: height, physicalSize: physicalSize)
        return VirtualDeviceSpec(
            name: pointerName(screen: screen), bustype: EvdevCode.busVirtual, vendor: 0x7472, product: 0x0011,
            version: 1, properties: [], codes: [EvdevCode.evKey: [btnLeft, btnRight]],
            absoluteAxes: [
                AbsoluteAxis(code: EvdevCode.absX, info: xAxis), AbsoluteAxis(code: EvdevCode.absY, info: yAxis),
            ])
    }

    /// A layout coordinate on an axis of `size` layout units: 0 ... size × factor − 1, which
    /// libinput maps back to exactly the coordinate (it scales by the axis's maximum − minimum + 1).
    static func axisValue(_ coordinate: Double, size: Double) -> Int32 {
        let maximum = axisMaximum(size)
        guard coordinate.isFinite else { return 0 }
        return Int32(min(max((coordinate * axisUnitsPerLayoutUnit).rounded(), 0), Double(maximum)))
    }

    static func axisMaximum(_ size: Double) -> Int32 {
        Int32(min(max((size * axisUnitsPerLayoutUnit).rounded(), 1), Double(Int32.max))) - 1
    }

    private static func positionAxes(width: Double, height: Double, physicalSize: PhysicalSize?)
        -> (AbsInfo, AbsInfo)
    {
        let fallbackUnitsPerMM = 96 / 25.4
        func axis(_ size: Double, _ millimetres: Double?) -> AbsInfo {
            let unitsPerMM = millimetres.map { size / $0 } ?? fallbackUnitsPerMM
            let resolution = Int32(min(max((unitsPerMM * axisUnitsPerLayoutUnit).rounded(), 1), 1_000_000))
            return AbsInfo(minimum: 0, maximum: axisMaximum(size), resolution: resolution)
        }
        return (axis(width, physicalSize?.widthMM), axis(height, physicalSize?.heightMM))
    }

    private static func truncated(_ name: String) -> String {
        var result = ""
        var bytes = 0
        for character in name {
            bytes += character.utf8.count
            if bytes > maxNameBytes { break }
            result.append(character)
        }
        return result
    }
}

/// Turns one screen's `PassthroughFrame`s into its virtual touchscreen's evdev events, with the
/// slots' state between frames.
///
/// Per contact: ABS_MT_SLOT, then for a down ABS_MT_TOOL_TYPE finger, a tracking id and the
/// position; for a move the position; for an up tracking id −1; for a cancel ABS_MT_TOOL_TYPE palm
/// and then tracking id −1 — libinput (1.14 and later, Debian 12's 1.22) reports a touch whose tool
/// turns into a palm as TOUCH_CANCEL and its release as nothing, so a compositor cancels rather
/// than clicks. Then BTN_TOUCH when the first contact lands or the last leaves, ABS_X/Y of the
/// lowest slot down, and SYN_REPORT.
///
/// **The gate.** While `isOpen` is false (the screen's physical devices are not all grabbed: the
/// compositor still reads them) a down is not written, and neither is the rest of that contact's
/// life: no contact is ever passed on half-way. Contacts already written go on to their end.
public struct PassthroughEncoder: Sendable {
    /// A slot's contact: written (`live`) or held back for its whole life (`skipped`).
    enum SlotState: Hashable, Sendable {
        case free
        case live(trackingID: Int32, x: Int32, y: Int32)
        case skipped(trackingID: Int32)
    }

    public let width: Double
    public let height: Double
    /// Whether new contacts are written (the screen's devices are grabbed).
    public var isOpen = false
    private(set) var slots = [SlotState](repeating: .free, count: PassthroughDevice.slotCount)
    /// Contacts not written: they began while the gate was shut, or their slot is out of range.
    public private(set) var heldBackCount = 0

    /// An encoder for a screen of `width` × `height` layout units, its gate shut.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Contacts written and not yet ended.
    public var liveContactCount: Int {
        slots.count { if case .live = $0 { true } else { false } }
    }

    /// Appends `frame`'s events to `events` (nothing when none of its contacts is written).
    public mutating func encode(_ frame: PassthroughFrame, into events: inout [EvdevEvent]) {
        let start = events.count
        let wasTouching = liveContactCount > 0
        let firstBefore = firstLive()
        for contact in frame.contacts {
            guard contact.slot >= 0, contact.slot < slots.count else {
                if contact.phase == .down { heldBackCount += 1 }
                continue
            }
            encode(contact, at: frame.timestampMicros, into: &events)
        }
        guard events.count > start else { return }
        finishFrame(at: frame.timestampMicros, wasTouching: wasTouching, firstBefore: firstBefore, into: &events)
    }

    /// Ends every written contact as a cancel (shutdown, the device going away), in one frame.
    public mutating func cancelAll(timestampMicros: UInt64, into events: inout [EvdevEvent]) {
        var frame = PassthroughFrame(screen: "", timestampMicros: timestampMicros)
        for (index, state) in slots.enumerated() {
            switch state {
            case .live(let trackingID, _, _):
                frame.contacts.append(
                    PassthroughContact(slot: index, trackingID: trackingID, phase: .cancel, location: Point(0, 0)))
            case .skipped: slots[index] = .free
            case .free: break
            }
        }
        encode(frame, into: &events)
    }

    private mutating func encode(_ contact: PassthroughContact, at time: UInt64, into events: inout [EvdevEvent]) {
        func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(EvdevEvent(timestampMicros: time, type: type, code: code, value: value))
        }
        let slot = contact.slot
        let x = PassthroughDevice.axisValue(contact.location.x, size: width)
        let y = PassthroughDevice.axisValue(contact.location.y, size: height)
        switch (contact.phase, slots[slot]) {
        case (.down, .live):
            // A down on a slot still in use: the old contact is withdrawn first, in its own frame.
            var cancel = [EvdevEvent]()
            let wasTouching = liveContactCount > 0
            let firstBefore = firstLive()
            emitEnd(slot: slot, cancelled: true, at: time, into: &cancel)
            finishFrame(at: time, wasTouching: wasTouching, firstBefore: firstBefore, into: &cancel)
            events.append(contentsOf: cancel)
            encode(contact, at: time, into: &events)
        case (.down, _):
            guard isOpen else {
                slots[slot] = .skipped(trackingID: contact.trackingID)
                heldBackCount += 1
                return
            }
            emit(EvdevCode.evAbs, EvdevCode.absMtSlot, Int32(slot))
            emit(EvdevCode.evAbs, EvdevCode.absMtToolType, PassthroughDevice.mtToolFinger)
            emit(EvdevCode.evAbs, EvdevCode.absMtTrackingId, contact.trackingID)
            emit(EvdevCode.evAbs, EvdevCode.absMtPositionX, x)
            emit(EvdevCode.evAbs, EvdevCode.absMtPositionY, y)
            slots[slot] = .live(trackingID: contact.trackingID, x: x, y: y)
        case (.move, .live(let trackingID, _, _)) where trackingID == contact.trackingID:
            emit(EvdevCode.evAbs, EvdevCode.absMtSlot, Int32(slot))
            emit(EvdevCode.evAbs, EvdevCode.absMtPositionX, x)
            emit(EvdevCode.evAbs, EvdevCode.absMtPositionY, y)
            slots[slot] = .live(trackingID: trackingID, x: x, y: y)
        case (.up, .live(let trackingID, _, _)) where trackingID == contact.trackingID:
            emitEnd(slot: slot, cancelled: false, at: time, into: &events)
        case (.cancel, .live(let trackingID, _, _)) where trackingID == contact.trackingID:
            emitEnd(slot: slot, cancelled: true, at: time, into: &events)
        case (.up, .skipped(let trackingID)), (.cancel, .skipped(let trackingID)):
            if trackingID == contact.trackingID { slots[slot] = .free }
        default:
            break  // a held-back contact's move, or a step for a contact this device never had
        }
    }

    private mutating func emitEnd(slot: Int, cancelled: Bool, at time: UInt64, into events: inout [EvdevEvent]) {
        events.append(
            EvdevEvent(timestampMicros: time, type: EvdevCode.evAbs, code: EvdevCode.absMtSlot, value: Int32(slot)))
        if cancelled {
            events.append(
                EvdevEvent(
                    timestampMicros: time, type: EvdevCode.evAbs, code: EvdevCode.absMtToolType,
                    value: EvdevCode.mtToolPalm))
        }
        events.append(
            EvdevEvent(timestampMicros: time, type: EvdevCode.evAbs, code: EvdevCode.absMtTrackingId, value: -1))
        slots[slot] = .free
    }

    /// BTN_TOUCH if touching changed, ABS_X/Y if the lowest live slot or its position changed,
    /// SYN_REPORT.
    private func finishFrame(
        at time: UInt64, wasTouching: Bool, firstBefore: (Int32, Int32)?, into events: inout [EvdevEvent]
    ) {
        let first = firstLive()
        if (first != nil) != wasTouching {
            events.append(
                EvdevEvent(
                    timestampMicros: time, type: EvdevCode.evKey, code: EvdevCode.btnTouch, value: first == nil ? 0 : 1)
            )
        }
        if let first, firstBefore.map({ $0 != first }) ?? true {
            events.append(
                EvdevEvent(timestampMicros: time, type: EvdevCode.evAbs, code: EvdevCode.absX, value: first.0))
            events.append(
                EvdevEvent(timestampMicros: time, type: EvdevCode.evAbs, code: EvdevCode.absY, value: first.1))
        }
        events.append(EvdevEvent(timestampMicros: time, type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0))
    }

    /// The position of the lowest slot with a written contact.
    private func firstLive() -> (Int32, Int32)? {
        for state in slots { if case .live(_, let x, let y) = state { return (x, y) } }
        return nil
    }
}

/// Turns one screen's pointer actions into its virtual pointer's evdev events: each action is
/// ABS_X/Y, the button if it changes, and SYN_REPORT (one report per action, so a press and its
/// release in one frame stay two). Gated like `PassthroughEncoder`: a press while the gate is shut
/// is held back with its release; a release only for a button this device pressed.
public struct PointerEncoder: Sendable {
    public let width: Double
    public let height: Double
    /// Whether new presses are written (the screen's devices are grabbed).
    public var isOpen = false
    /// The buttons this device holds down.
    public private(set) var buttonsDown: Set<PointerButton> = []

    /// An encoder for a screen of `width` × `height` layout units, its gate shut.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Appends the events of `actions` to `events`.
    public mutating func encode(_ actions: [PointerAction], at time: UInt64, into events: inout [EvdevEvent]) {
        for action in actions {
            switch action {
            case .move(let point):
                guard isOpen || !buttonsDown.isEmpty else { continue }
                report(point, button: nil, at: time, into: &events)
            case .press(let point, let button):
                guard isOpen, buttonsDown.insert(button).inserted else { continue }
                report(point, button: (button, 1), at: time, into: &events)
            case .release(let point, let button):
                guard buttonsDown.remove(button) != nil else { continue }
                report(point, button: (button, 0), at: time, into: &events)
            }
        }
    }

    /// Releases every button still down (shutdown): a pointer has no cancel.
    public mutating func releaseAll(timestampMicros: UInt64, into events: inout [EvdevEvent]) {
        for button in [PointerButton.left, .right] where buttonsDown.remove(button) != nil {
            events.append(
                EvdevEvent(timestampMicros: timestampMicros, type: EvdevCode.evKey, code: Self.code(button), value: 0))
            events.append(
                EvdevEvent(timestampMicros: timestampMicros, type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0)
            )
        }
    }

    private func report(
        _ point: Point, button: (PointerButton, Int32)?, at time: UInt64, into events: inout [EvdevEvent]
    ) {
        events.append(
            EvdevEvent(
                timestampMicros: time, type: EvdevCode.evAbs, code: EvdevCode.absX,
                value: PassthroughDevice.axisValue(point.x, size: width)))
        events.append(
            EvdevEvent(
                timestampMicros: time, type: EvdevCode.evAbs, code: EvdevCode.absY,
                value: PassthroughDevice.axisValue(point.y, size: height)))
        if let (which, value) = button {
            events.append(
                EvdevEvent(timestampMicros: time, type: EvdevCode.evKey, code: Self.code(which), value: value))
        }
        events.append(EvdevEvent(timestampMicros: time, type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0))
    }

    static func code(_ button: PointerButton) -> UInt16 {
        button == .left ? PassthroughDevice.btnLeft : PassthroughDevice.btnRight
    }
}
