/// libmtdev fed from memory: turns a protocol-A device's events (every finger in every frame, each
/// closed by SYN_MT_REPORT, no slots) into slotted protocol-B events, exactly as libinput has the same
/// library do it for a live device of that kind. The decoder uses it for protocol-A recordings.
import CMtdev

/// One libmtdev converter for one device, configured from the recorded axes instead of a device node.
///
/// libmtdev keeps its state in C memory that cannot be copied, so the converter also keeps every event
/// it was given: `copy()` replays them into a new converter. The decoder copies on write (a shared
/// converter is never changed), which is what makes `@unchecked Sendable` hold.
final class MtdevConverter: @unchecked Sendable {
    private let device: RecordedDevice
    private let handle: UnsafeMutablePointer<mtdev>
    /// Every event put since the converter was made, for `copy()`.
    private var history: [input_event] = []

    /// libmtdev's ABS_MT codes (ABS_MT_TOUCH_MAJOR … ABS_MT_DISTANCE): the axes it converts.
    static let multitouchCodes: ClosedRange<UInt16> = 0x30...0x3b

    /// A converter set up as `mtdev_configure` would set it up from a device node with `device`'s axes.
    init(device: RecordedDevice) {
        self.device = device
        guard let handle = mtdev_new() else { fatalError("mtdev_new: out of memory") }
        guard mtdev_init(handle) == 0 else { fatalError("mtdev_init: out of memory") }
        self.handle = handle
        configure()
    }

    deinit { mtdev_close_delete(handle) }

    /// Hands one kernel event to libmtdev (SYN_REPORT makes it convert the frame).
    func put(_ event: EvdevEvent) {
        var raw = input_event()
        raw.time.tv_sec = Int(event.timestampMicros / 1_000_000)
        raw.time.tv_usec = Int(event.timestampMicros % 1_000_000)
        raw.type = event.type
        raw.code = event.code
        raw.value = event.value
        history.append(raw)
        mtdev_put_event(handle, &raw)
    }

    /// The converted events waiting since the last call (slots, tracking ids, positions, and the
    /// SYN_REPORT that ends them; nothing when the frame changed nothing).
    func drain() -> [EvdevEvent] {
        var events: [EvdevEvent] = []
        while mtdev_empty(handle) == 0 {
            var raw = input_event()
            mtdev_get_event(handle, &raw)
            events.append(
                EvdevEvent(
                    timestampMicros: UInt64(raw.time.tv_sec) * 1_000_000 + UInt64(raw.time.tv_usec),
                    type: raw.type, code: raw.code, value: raw.value))
        }
        return events
    }

    /// A converter in the same state, independent of this one.
    func copy() -> MtdevConverter {
        let copy = MtdevConverter(device: device)
        for var raw in history {
            copy.history.append(raw)
            mtdev_put_event(copy.handle, &raw)
            if raw.type == EvdevCode.evSyn && raw.code == EvdevCode.synReport { _ = copy.drain() }
        }
        _ = copy.drain()
        return copy
    }

    /// What `mtdev_configure` reads from a device node, taken from the recording: which ABS_MT axes
    /// exist and their ranges, then libmtdev's own defaults (tracking ids 0…65535, a fuzz of
    /// range/250 on positions that have none, range/100 on sizes, range/10 on orientation).
    private func configure() {
        let absSlot: UInt16 = EvdevCode.absMtSlot
        for code in [absSlot] + Array(Self.multitouchCodes) {
            guard let info = device.absinfo[code] else {
                mtdev_set_mt_event(handle, Int32(code), 0)
                continue
            }
            mtdev_set_mt_event(handle, Int32(code), 1)
            set(code, info)
        }
        let absPressure: UInt16 = 0x18
        let absMtPressure: UInt16 = 0x3a
        if device.absinfo[absMtPressure] == nil, let pressure = device.absinfo[absPressure] {
            set(absMtPressure, pressure)  // the range only: the axis stays absent
        }
        if device.absinfo[EvdevCode.absMtTrackingId] == nil {
            mtdev_set_abs_minimum(handle, Int32(EvdevCode.absMtTrackingId), 0)
            mtdev_set_abs_maximum(handle, Int32(EvdevCode.absMtTrackingId), 65535)
        }
        // libmtdev's signal-to-noise defaults for axes whose fuzz is 0.
        let defaults: [(code: UInt16, ratio: Int32)] = [
            (EvdevCode.absMtPositionX, 250), (EvdevCode.absMtPositionY, 250),
            (0x30, 100), (0x31, 100), (0x32, 100), (0x33, 100), (0x34, 10),
        ]
        for (code, ratio) in defaults {
            guard let info = device.absinfo[code], info.fuzz == 0 else { continue }
            // In 64 bits: a range from Int32.min to Int32.max overflows 32 (found by fuzzing).
            let fuzz = (Int64(info.maximum) - Int64(info.minimum)) / Int64(ratio)
            mtdev_set_abs_fuzz(handle, Int32(code), Int32(clamping: fuzz))
        }
    }

    private func set(_ code: UInt16, _ info: AbsInfo) {
        mtdev_set_abs_minimum(handle, Int32(code), info.minimum)
        mtdev_set_abs_maximum(handle, Int32(code), info.maximum)
        mtdev_set_abs_fuzz(handle, Int32(code), info.fuzz)
        mtdev_set_abs_resolution(handle, Int32(code), info.resolution)
    }
}
