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
    private static let deviceIDCounter = Atomic<UInt32>(0)

    private struct DeviceState {
        var device: InputDevice
        var description: LiveDeviceDescription
        var assignment: ScreenAssignment
        var accumulator: TouchFrameAccumulator
    }

    private let context: OpaquePointer
    private let udev: OpaquePointer?
    private let callbacks: Unmanaged<ReaderCallbacks>
    private let interface: UnsafeMutablePointer<libinput_interface>
    private let assigner: DeviceAssigner
    private let log: InputLogHandler
    private let framesCapacity: Int
    /// The touch devices in use, keyed by libinput's device (which we hold a reference on).
    private var devices: [OpaquePointer: DeviceState] = [:]
    /// Non-touch or unassigned devices seen, so each is logged once.
    private var ignoredDevices: Set<OpaquePointer> = []
    /// Touch devices no screen takes now, referenced so that a config reload can take them.
    private var unassignedTouchDevices: [OpaquePointer: LiveDeviceDescription] = [:]

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
        if kind == .down || kind == .motion {
            screenPoint = Point(
                Self.transformed(touch, libinput_event_touch_get_x_transformed, state.assignment.width),
                Self.transformed(touch, libinput_event_touch_get_y_transformed, state.assignment.height))
        }
        let slot = libinput_event_touch_get_seat_slot(touch)
        let contact = ContactEvent(kind: kind, slot: slot, screenPoint: screenPoint)
        if let early = state.accumulator.add(contact, timestampMicros: timestampMicros) {
            log(
                .warning,
                "touch device \(describe(state)) sent \(early.contacts.count) contacts without a frame")
            output.append(.frame(frame(state, early.timestampMicros, early.contacts)))
        }
        devices[pointer] = state
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
            contacts: contacts, physicalScale: state.assignment.physicalScale)
    }

    // MARK: - Devices

    private func deviceAdded(_ pointer: OpaquePointer) {
        let description = describeDevice(pointer)
        guard description.hasTouch else {
            if ignoredDevices.insert(pointer).inserted {
                log(
                    .info,
                    "ignoring \(description.name) (\(description.node ?? description.sysname)): not a touch device"
                )
            }
            return
        }
        guard let assignment = assigner(description, defaultMatrix(pointer)) else {
            if unassignedTouchDevices[pointer] == nil {
                libinput_device_ref(pointer)
                unassignedTouchDevices[pointer] = description
                log(
                    .info,
                    "ignoring touch device \(description.name) (\(description.node ?? description.sysname)): "
                        + "it matches no screen")
            }
            return
        }
        libinput_device_ref(pointer)
        take(pointer, description, assignment)
    }

    /// Starts using a touch device (whose reference the caller holds) on its assigned screen.
    private func take(
        _ pointer: OpaquePointer, _ description: LiveDeviceDescription, _ assignment: ScreenAssignment
    ) {
        let id = Self.deviceIDCounter.add(1, ordering: .relaxed).newValue
        let device = InputDevice(id: id, name: description.name)
        let state = DeviceState(
            device: device, description: description, assignment: assignment,
            accumulator: TouchFrameAccumulator(capacity: framesCapacity))
        devices[pointer] = state
        apply(assignment, to: pointer, device)
        log(
            .info,
            "touch device \(describe(state)) added, drives screen \(assignment.screen), "
                + "\(assignment.physicalScale)")
    }

    private func deviceRemoved(_ pointer: OpaquePointer, into output: inout [InputEvent]) {
        ignoredDevices.remove(pointer)
        if unassignedTouchDevices.removeValue(forKey: pointer) != nil { libinput_device_unref(pointer) }
        guard let state = devices.removeValue(forKey: pointer) else { return }
        libinput_device_unref(pointer)
        log(.info, "touch device \(describe(state)) removed")
        output.append(.deviceRemoved(state.device, timestampMicros: monotonicMicros()))
    }

    private func apply(_ assignment: ScreenAssignment, to pointer: OpaquePointer, _ device: InputDevice) {
        guard libinput_device_config_calibration_has_matrix(pointer) != 0 else {
            if assignment.calibrationMatrix != nil {
                log(
                    .warning,
                    "device \(device.id) \(device.name) has no calibration support; rotation/calibration ignored"
                )
            }
            return
        }
        var matrix = assignment.calibrationMatrix ?? defaultMatrix(pointer)
        guard matrix.count == 6 else {
            log(.error, "device \(device.id): calibration matrix needs 6 numbers, got \(matrix.count)")
            return
        }
        let status = libinput_device_config_calibration_set_matrix(pointer, &matrix)
        if status != LIBINPUT_CONFIG_STATUS_SUCCESS {
            log(.error, "device \(device.id) \(device.name): calibration matrix \(matrix) rejected")
        }
    }

    private func defaultMatrix(_ pointer: OpaquePointer) -> [Float] {
        var matrix = [Float](repeating: 0, count: 6)
        _ = libinput_device_config_calibration_get_default_matrix(pointer, &matrix)
        return matrix
    }

    private func describeDevice(_ pointer: OpaquePointer) -> LiveDeviceDescription {
        let name = String(cString: libinput_device_get_name(pointer))
        let sysname = String(cString: libinput_device_get_sysname(pointer))
        var node: String?
        var properties: [String: String] = [:]
        if let udevDevice = libinput_device_get_udev_device(pointer) {
            if let devnode = udev_device_get_devnode(udevDevice) { node = String(cString: devnode) }
            var entry = udev_device_get_properties_list_entry(udevDevice)
            while let current = entry {
                if let key = udev_list_entry_get_name(current) {
                    properties[String(cString: key)] =
                        udev_list_entry_get_value(current).map { String(cString: $0) } ?? ""
                }
                entry = udev_list_entry_get_next(current)
            }
            udev_device_unref(udevDevice)
        }
        let hasTouch = libinput_device_has_capability(pointer, LIBINPUT_DEVICE_CAP_TOUCH) != 0
        // Nonzero when the kernel gives no resolution: libinput's mm (get_x) are invented then.
        var widthMM = 0.0
        var heightMM = 0.0
        let physicalSize =
            libinput_device_get_size(pointer, &widthMM, &heightMM) == 0
            ? PhysicalSize(widthMM: widthMM, heightMM: heightMM) : nil
        return LiveDeviceDescription(
            name: name, sysname: sysname, node: node, udevProperties: properties, hasTouch: hasTouch,
            physicalSize: physicalSize)
    }

    private func describe(_ state: DeviceState) -> String {
        "\(state.device.id) \"\(state.device.name)\" (\(state.description.node ?? state.description.sysname))"
    }

}

/// What libinput's C callbacks reach through their user-data pointer.
private final class ReaderCallbacks {
    let log: InputLogHandler
    init(log: @escaping InputLogHandler) { self.log = log }
}

/// Opens a device node for libinput, close-on-exec and non-blocking; failures are logged with the
/// path and errno and returned as a negative errno, as libinput expects.
private func openRestricted(path: UnsafePointer<CChar>?, flags: Int32, userData: UnsafeMutableRawPointer?)
    -> Int32
{
    guard let path else { return -EINVAL }
    let fd = open(path, flags | O_CLOEXEC | O_NONBLOCK)
    if fd < 0 {
        let savedErrno = errno
        if let userData {
            let callbacks = Unmanaged<ReaderCallbacks>.fromOpaque(userData).takeUnretainedValue()
            callbacks.log(
                .error,
                "cannot open \(String(cString: path)): \(String(cString: strerror(savedErrno))) "
                    + "(errno \(savedErrno))")
        }
        return -savedErrno
    }
    return fd
}

private func closeRestricted(fd: Int32, userData: UnsafeMutableRawPointer?) {
    close(fd)
}

/// Formats libinput's printf-style message and hands it to the reader's log with its priority.
private func libinputLogHandler(
    context: OpaquePointer?, priority: libinput_log_priority, format: UnsafePointer<CChar>?,
    arguments: CVaListPointer?
) {
    guard let context, let format, let arguments, let userData = libinput_get_user_data(context) else {
        return
    }
    var buffer = [CChar](repeating: 0, count: 1024)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    let length = buffer.firstIndex(of: 0) ?? buffer.count
    var message = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    while message.last == "\n" { message.removeLast() }
    let callbacks = Unmanaged<ReaderCallbacks>.fromOpaque(userData).takeUnretainedValue()
    callbacks.log(LogLevel(libinputPriority: priority), "libinput: \(message)")
}

extension LogLevel {
    init(libinputPriority: libinput_log_priority) {
        switch libinputPriority {
        case LIBINPUT_LOG_PRIORITY_DEBUG: self = .debug
        case LIBINPUT_LOG_PRIORITY_INFO: self = .info
        default: self = .error
        }
    }

    var libinputPriority: libinput_log_priority {
        switch self {
        case .debug: LIBINPUT_LOG_PRIORITY_DEBUG
        case .info: LIBINPUT_LOG_PRIORITY_INFO
        case .notice, .warning, .error: LIBINPUT_LOG_PRIORITY_ERROR
        }
    }
}
