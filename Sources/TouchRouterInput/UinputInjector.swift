import CEvdev
import Glibc
import TouchRouterSystem

/// A virtual input device created through libevdev's uinput API. Failures are `SystemError`s naming
/// the libevdev call and the errno it returned (EACCES or ENOENT from
/// `libevdev_uinput_create_from_device`: /dev/uinput is missing or not writable, `uinputHint`). The kernel removes it when
/// `destroy()` is called or the object goes away (and when the process exits, as the fd closes).
public final class UinputInjector {
    private var evdev: OpaquePointer?
    private var uinput: OpaquePointer?

    /// Creates the device described by `spec` (needs write access to /dev/uinput).
    public init(spec: VirtualDeviceSpec) throws(SystemError) {
        guard let evdev = libevdev_new() else { throw SystemError(call: "libevdev_new", errno: ENOMEM) }
        self.evdev = evdev
        libevdev_set_name(evdev, spec.name)
        libevdev_set_id_bustype(evdev, Int32(spec.bustype))
        libevdev_set_id_vendor(evdev, Int32(spec.vendor))
        libevdev_set_id_product(evdev, Int32(spec.product))
        libevdev_set_id_version(evdev, Int32(spec.version))
        for property in spec.properties { libevdev_enable_property(evdev, UInt32(property)) }
        for (type, codes) in spec.codes.sorted(by: { $0.key < $1.key }) {
            libevdev_enable_event_type(evdev, UInt32(type))
            for code in codes { libevdev_enable_event_code(evdev, UInt32(type), UInt32(code), nil) }
        }
        for axis in spec.absoluteAxes {
            var absinfo = input_absinfo(
                value: axis.minimum, minimum: axis.minimum, maximum: axis.maximum, fuzz: axis.fuzz,
                flat: axis.flat, resolution: axis.resolution)
            libevdev_enable_event_code(evdev, UInt32(EvdevCode.evAbs), UInt32(axis.code), &absinfo)
        }
        var uinput: OpaquePointer?
        let result = libevdev_uinput_create_from_device(evdev, LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue, &uinput)
        guard result == 0, let uinput else {
            libevdev_free(evdev)
            self.evdev = nil
            throw SystemError(call: "libevdev_uinput_create_from_device", errno: -result)
        }
        self.uinput = uinput
    }

    deinit { destroy() }

    /// What to do about `error` when it says /dev/uinput is missing or not writable; nil otherwise.
    public static func uinputHint(for error: SystemError) -> String? {
        guard error.call.hasPrefix("libevdev_uinput"), error.errno == EACCES || error.errno == ENOENT else {
            return nil
        }
        return "is the uinput module loaded (modprobe uinput) and /dev/uinput writable?"
    }

    /// The device node the kernel gave the device (e.g. /dev/input/event7), when known.
    public var deviceNode: String? {
        guard let uinput, let node = libevdev_uinput_get_devnode(uinput) else { return nil }
        return String(cString: node)
    }

    /// The sysfs path of the device (/sys/devices/virtual/input/inputN).
    public var syspath: String? {
        guard let uinput, let path = libevdev_uinput_get_syspath(uinput) else { return nil }
        return String(cString: path)
    }

    /// Writes one event into the kernel now (the kernel stamps it with the current time).
    public func write(type: UInt16, code: UInt16, value: Int32) throws(SystemError) {
        guard let uinput else { throw SystemError(call: "libevdev_uinput_write_event", errno: ENODEV) }
        let result = libevdev_uinput_write_event(uinput, UInt32(type), UInt32(code), value)
        guard result == 0 else { throw SystemError(call: "libevdev_uinput_write_event", errno: -result) }
    }

    /// Writes `events` into the kernel in one write(2) (the kernel stamps them with the current
    /// time). uinput hands them to the input core at once, which never waits for readers: a reader
    /// that falls behind gets SYN_DROPPED in its own queue, the writer is not held up.
    public func write(_ events: [EvdevEvent]) throws(SystemError) {
        guard let uinput else { throw SystemError(call: "write (uinput)", errno: ENODEV) }
        let fd = libevdev_uinput_get_fd(uinput)
        let buffer = events.map { event -> input_event in
            var raw = input_event()
            raw.type = event.type
            raw.code = event.code
            raw.value = event.value
            return raw
        }
        let byteCount = buffer.count * MemoryLayout<input_event>.stride
        let written = try systemCall("write (uinput)") {
            buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, byteCount) }
        }
        guard written == byteCount else { throw SystemError(call: "write (uinput): short", errno: EIO) }
    }

    /// The kernel's name of the device's event node (e.g. event7), as libinput and udev call it.
    public var sysname: String? {
        deviceNode.flatMap { $0.split(separator: "/").last.map(String.init) }
    }

    /// Plays `events` with their timing divided by `speed` (0: as fast as possible). Returns false
    /// when a stop signal ended playback early (see `StopSignals`).
    @discardableResult
    public func play(_ events: [EvdevEvent], speed: Double = 1, stop: StopSignals? = nil)
        throws(SystemError) -> Bool
    {
        let startMicros = monotonicMicros()
        for event in events {
            if speed > 0 {
                let dueMicros = startMicros + UInt64(Double(event.timestampMicros) / speed)
                let nowMicros = monotonicMicros()
                if dueMicros > nowMicros {
                    if let stop {
                        if !stop.sleep(micros: dueMicros - nowMicros) { return false }
                    } else {
                        sleepUntil(monotonicNanos: dueMicros * 1000)
                    }
                }
            } else if let stop, stop.pending() {
                return false
            }
            try write(type: event.type, code: event.code, value: event.value)
        }
        return true
    }

    /// Removes the device from the kernel. Safe to call more than once.
    public func destroy() {
        if let uinput { libevdev_uinput_destroy(uinput) }
        if let evdev { libevdev_free(evdev) }
        uinput = nil
        evdev = nil
    }
}

/// SIGINT and SIGTERM, blocked and waited for synchronously, so a sleeping injector wakes up
/// and removes its device cleanly instead of dying with it half-played.
public struct StopSignals {
    private var signals = sigset_t()

    /// Blocks SIGINT and SIGTERM for this thread (call before other threads start).
    public init() {
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Sleeps up to `micros`; false when a stop signal arrived.
    public func sleep(micros: UInt64) -> Bool {
        var set = signals
        var timeout = timespec(tv_sec: Int(micros / 1_000_000), tv_nsec: Int(micros % 1_000_000) * 1000)
        // A signal arrived: false. The time ran out (EAGAIN, nil) or the call failed: true.
        let signal = try? systemCall("sigtimedwait", wouldBlockIsNil: true) { sigtimedwait(&set, nil, &timeout) }
        return (signal ?? nil) == nil
    }

    /// Waits until a stop signal arrives.
    public func wait() {
        var set = signals
        var signal: Int32 = 0
        while sigwait(&set, &signal) != 0 {}
    }

    /// Whether a stop signal is pending (consumes it).
    public func pending() -> Bool { !sleep(micros: 0) }
}
