import CLibinput
import CUdev
import Glibc
import Synchronization
import TouchRouterCore
import TouchRouterSystem

/// A failed libinput/udev call: the call's name, the errno it left (0 when it sets none) and what
/// it was asked to do.
public struct InputReaderError: Error, Equatable, CustomStringConvertible {
    /// The C function that failed.
    public var call: String
    /// The errno value, 0 when the call reports none.
    public var errno: Int32
    /// What was being attempted (the seat, the device path).
    public var detail: String

    public var description: String {
        errno == 0
            ? "\(call) failed: \(detail)" : "\(call) failed: \(detail): \(String(cString: strerror(errno)))"
    }
}

/// Which devices the reader takes from libinput.
public enum LibinputBackend: Hashable, Sendable {
    /// Every device of a udev seat, with hotplug (the normal case; the seat is usually "seat0").
    case udev(seat: String)
    /// Exactly these device nodes (libinput's path backend; no hotplug).
    case paths([String])
}

/// Reads touch devices through libinput and turns their events into `InputEvent`s: one frame per
/// TOUCH_FRAME with libinput's microsecond time, the seat slot and coordinates in the assigned
/// screen's layout units, and `deviceRemoved` when a device goes away.
///
/// Single-threaded: put `fileDescriptor` into the event loop and call `dispatch()` when it is
/// readable. Nothing here polls or blocks.
public final class LibinputReader {
    /// Device ids are unique for the process lifetime, across readers.
    static let deviceIDCounter = Atomic<UInt32>(0)

    struct DeviceState {
        var device: InputDevice
        var description: LiveDeviceDescription
        var assignment: ScreenAssignment
        var accumulator: TouchFrameAccumulator
    }

    let context: OpaquePointer
    private let udev: OpaquePointer?
    private let callbacks: Unmanaged<ReaderCallbacks>
    private let interface: UnsafeMutablePointer<libinput_interface>
    let assigner: DeviceAssigner
    let log: InputLogHandler
    let framesCapacity: Int
    /// The touch devices in use, keyed by libinput's device (which we hold a reference on).
    var devices: [OpaquePointer: DeviceState] = [:]
    /// Non-touch or unassigned devices seen, so each is logged once.
    var ignoredDevices: Set<OpaquePointer> = []
    /// Touch devices no screen takes now, referenced so that a config reload can take them.
    var unassignedTouchDevices: [OpaquePointer: LiveDeviceDescription] = [:]
    /// Touch devices removed and taken again (controller resets), for the metrics.
    public internal(set) var churn = DeviceChurn()

    /// Opens libinput on `backend`. `assigner` picks each touch device's screen (nil: ignore it);
    /// `log` receives the reader's and libinput's own messages at `logLevel` and above.
    /// Devices already present are reported by the first `dispatch()`.
    public init(
        backend: LibinputBackend = .udev(seat: "seat0"),
        logLevel: LogLevel = .info,
        maxContactsPerFrame: Int = 64,
        assigner: @escaping DeviceAssigner,
        log: @escaping InputLogHandler
    ) throws(InputReaderError) {
        self.assigner = assigner
        self.log = log
        self.framesCapacity = maxContactsPerFrame
        let callbacks = Unmanaged.passRetained(ReaderCallbacks(log: log))
        let interface = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
        interface.initialize(
            to: libinput_interface(open_restricted: openRestricted, close_restricted: closeRestricted))

        var udev: OpaquePointer?
        let context: OpaquePointer?
        switch backend {
        case .udev:
            udev = udev_new()
            context = udev.flatMap { libinput_udev_create_context(interface, callbacks.toOpaque(), $0) }
        case .paths:
            context = libinput_path_create_context(interface, callbacks.toOpaque())
        }
        guard let context else {
            let savedErrno = errno
            if let udev { udev_unref(udev) }
            interface.deallocate()
            callbacks.release()
            throw InputReaderError(call: "libinput_create_context", errno: savedErrno, detail: "\(backend)")
        }
        self.context = context
        self.udev = udev
        self.callbacks = callbacks
        self.interface = interface

        libinput_log_set_handler(context, libinputLogHandler)
        libinput_log_set_priority(context, logLevel.libinputPriority)

        switch backend {
        case .udev(let seat):
            guard libinput_udev_assign_seat(context, seat) == 0 else {
                throw InputReaderError(call: "libinput_udev_assign_seat", errno: 0, detail: "seat \(seat)")
            }
        case .paths(let paths):
            for path in paths where libinput_path_add_device(context, path) == nil {
                throw InputReaderError(call: "libinput_path_add_device", errno: 0, detail: path)
            }
        }
    }

    deinit {
        for pointer in devices.keys { libinput_device_unref(pointer) }
        for pointer in unassignedTouchDevices.keys { libinput_device_unref(pointer) }
        libinput_unref(context)
        if let udev { udev_unref(udev) }
        interface.deallocate()
        callbacks.release()
    }

    /// libinput's file descriptor: register it for EPOLLIN and call `dispatch()` when readable.
    public var fileDescriptor: Int32 { libinput_get_fd(context) }

    /// The touch devices in use now, with their screens.
    public var activeDevices: [(device: InputDevice, screen: String)] {
        devices.values.map { ($0.device, $0.assignment.screen) }.sorted { $0.device.id < $1.device.id }
    }

    /// The millimetres per layout unit of the first touch device in use on `screen` (by id), nil
    /// when none is.
    public func physicalScale(ofScreen screen: String) -> PhysicalScale? {
        devices.values.filter { $0.assignment.screen == screen }.min { $0.device.id < $1.device.id }?.assignment
            .physicalScale
    }

    /// Reads everything libinput has and returns the frames and removals, in order.
    public func dispatch() -> [InputEvent] {
        if libinput_dispatch(context) != 0 {
            log(.warning, "libinput_dispatch failed: \(String(cString: strerror(errno)))")
        }
        var output: [InputEvent] = []
        while let event = libinput_get_event(context) {
            handle(event, into: &output)
            libinput_event_destroy(event)
        }
        return Self.droppingRemovalCancels(output)
    }

    /// libinput answers a device's removal by first cancelling each of its touches still down (one
    /// frame of cancels), then reporting the device removed, both within the same dispatch. The
    /// tracker must see that as what it is, a removal (cancel reason `device-removed`), not as
    /// touches the hardware cancelled: so a device's frames made only of cancels, with nothing
    /// else from that device between them and its removal in `events`, are dropped; the removal
    /// cancels those touches.
    static func droppingRemovalCancels(_ events: [InputEvent]) -> [InputEvent] {
        var removedLater: Set<UInt32> = []
        var kept: [InputEvent] = []
        kept.reserveCapacity(events.count)
        for event in events.reversed() {
            switch event {
            case .deviceRemoved(let device, _):
                removedLater.insert(device.id)
            case .frame(let frame) where removedLater.contains(frame.device.id):
                if frame.contacts.allSatisfy({ $0.kind == .cancel }) { continue }
                removedLater.remove(frame.device.id)
            case .frame:
                break
            }
            kept.append(event)
        }
        return kept.reversed()
    }

    /// Asks the assigner again for every touch device (after a config reload), applying the new
    /// screen and calibration; a device that is now unassigned is reported removed, one that no
    /// screen took before and one does now is taken (with a new id).
    public func reassignDevices() -> [InputEvent] {
        var output: [InputEvent] = []
        for (pointer, state) in devices {
            guard let assignment = assigner(state.description, defaultMatrix(pointer)) else {
                log(.info, "touch device \(describe(state)) matches no screen any more; ignoring it")
                output.append(.deviceRemoved(state.device, timestampMicros: monotonicMicros()))
                devices[pointer] = nil
                unassignedTouchDevices[pointer] = state.description  // keeps the reference
                continue
            }
            if assignment.physicalScale != state.assignment.physicalScale {
                log(.info, "touch device \(describe(state)): now \(assignment.physicalScale)")
            }
            devices[pointer]?.assignment = assignment
            apply(assignment, to: pointer, state.device)
        }
        for (pointer, description) in unassignedTouchDevices {
            guard let assignment = assigner(description, defaultMatrix(pointer)) else { continue }
            unassignedTouchDevices[pointer] = nil
            take(pointer, description, assignment)  // the reference moves to `devices`
        }
        return output
    }

    // MARK: - Events

    private func handle(_ event: OpaquePointer, into output: inout [InputEvent]) {
        let type = libinput_event_get_type(event)
        guard let pointer = libinput_event_get_device(event) else { return }
        switch type {
        case LIBINPUT_EVENT_DEVICE_ADDED:
            deviceAdded(pointer)
        case LIBINPUT_EVENT_DEVICE_REMOVED:
            deviceRemoved(pointer, into: &output)
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION, LIBINPUT_EVENT_TOUCH_UP,
            LIBINPUT_EVENT_TOUCH_CANCEL, LIBINPUT_EVENT_TOUCH_FRAME:
            guard devices[pointer] != nil, let touch = libinput_event_get_touch_event(event) else { return }
            touchEvent(touch, type: type, device: pointer, into: &output)
        default:
            break
        }
    }

    private func touchEvent(
        _ touch: OpaquePointer, type: libinput_event_type, device pointer: OpaquePointer,
        into output: inout [InputEvent]
    ) {
        guard var state = devices[pointer] else { return }
        let timestampMicros = libinput_event_touch_get_time_usec(touch)
        let kind: ContactEvent.Kind
        switch type {
        case LIBINPUT_EVENT_TOUCH_FRAME:
            let startMicros = state.accumulator.firstTimestampMicros
            let contacts = state.accumulator.flush()
            devices[pointer] = state
            if !contacts.isEmpty {
                output.append(.frame(frame(state, startMicros ?? timestampMicros, contacts)))
            }
            return
        case LIBINPUT_EVENT_TOUCH_DOWN: kind = .down
        case LIBINPUT_EVENT_TOUCH_MOTION: kind = .motion
        case LIBINPUT_EVENT_TOUCH_UP: kind = .up
        default: kind = .cancel
        }
        var screenPoint = Point(0, 0)
        var atLimit = false
        if kind == .down || kind == .motion {
            screenPoint = Point(
                Self.transformed(touch, libinput_event_touch_get_x_transformed, state.assignment.width),
                Self.transformed(touch, libinput_event_touch_get_y_transformed, state.assignment.height))
            atLimit = Self.atSensorCorner(touch, size: state.description.physicalSize)
        }
        let slot = libinput_event_touch_get_seat_slot(touch)
        let contact = ContactEvent(kind: kind, slot: slot, screenPoint: screenPoint, atDeviceLimit: atLimit)
        if let early = state.accumulator.add(contact, timestampMicros: timestampMicros) {
            log(
                .warning,
                "touch device \(describe(state)) sent \(early.contacts.count) contacts without a frame")
            output.append(.frame(frame(state, early.timestampMicros, early.contacts)))
        }
        devices[pointer] = state
    }

    /// Both raw coordinates at an end of their axis (`filters.dropStuckPoints`): libinput's position
    /// in mm is `(raw - minimum) / resolution`, and the device's size `(maximum - minimum) /
    /// resolution`, so the minimum is 0 mm and the maximum the size. Without a size (no resolution)
    /// only the minimum corner is known. libinput's position is the calibrated one.
    private static func atSensorCorner(_ touch: OpaquePointer, size: PhysicalSize?) -> Bool {
        func atEnd(_ millimetres: Double, _ length: Double?) -> Bool {
            let tolerance = 1e-6
            return abs(millimetres) <= tolerance || length.map { abs(millimetres - $0) <= tolerance } == true
        }
        return atEnd(libinput_event_touch_get_x(touch), size?.widthMM)
            && atEnd(libinput_event_touch_get_y(touch), size?.heightMM)
    }

    /// libinput's transformed coordinate for a screen `size` layout units across. libinput scales
    /// linearly by the integer range it is given; a fractional size is scaled here from 0..<1.
    private static func transformed(
        _ touch: OpaquePointer, _ get: (OpaquePointer?, UInt32) -> Double, _ size: Double
    ) -> Double {
        if size == size.rounded(), size >= 1, size <= Double(UInt32.max) { return get(touch, UInt32(size)) }
        return get(touch, 1) * size
    }

    private func frame(_ state: DeviceState, _ timestampMicros: UInt64, _ contacts: [ContactEvent])
        -> InputFrame
    {
        InputFrame(
            device: state.device, screen: state.assignment.screen, timestampMicros: timestampMicros,
            contacts: contacts, physicalScale: state.assignment.physicalScale,
            matcherIndex: state.assignment.matcherIndex)
    }
}
