import CLibinput
import TouchRouterCore
import TouchRouterSystem

/// `LibinputReader`'s devices: a device added is described, offered to the assigner and taken (its
/// calibration and rotation applied) or logged once as ignored; a device removed cancels its touches.
extension LibinputReader {
    func deviceAdded(_ pointer: OpaquePointer) {
        let description = describeDevice(pointer)
        if let reason = Self.ignoreReason(description) {
            if ignoredDevices.insert(pointer).inserted {
                log(.info, "ignoring \(description.name) (\(description.node ?? description.sysname)): \(reason)")
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

    /// Why a device is not read at all, or nil: not a touch device, or one of passthrough's own
    /// virtual devices (the daemon never reads its own output; they are known by their name).
    static func ignoreReason(_ description: LiveDeviceDescription) -> String? {
        if PassthroughDevice.isOwn(name: description.name) { return "touchrouter's own passthrough device" }
        return description.hasTouch ? nil : "not a touch device"
    }

    /// Starts using a touch device (whose reference the caller holds) on its assigned screen.
    func take(
        _ pointer: OpaquePointer, _ description: LiveDeviceDescription, _ assignment: ScreenAssignment
    ) {
        let id = Self.deviceIDCounter.add(1, ordering: .relaxed).newValue
        let device = InputDevice(id: id, name: description.name)
        let state = DeviceState(
            device: device, description: description, assignment: assignment,
            accumulator: TouchFrameAccumulator(capacity: framesCapacity))
        devices[pointer] = state
        if grabScreens.contains(assignment.screen) { grabsPending = true }
        churn.taken(description.name)
        apply(assignment, to: pointer, device)
        log(
            .info,
            "touch device \(describe(state)) added, drives screen \(assignment.screen)"
                + (assignment.matcherIndex.map { " (its devices[\($0)])" } ?? "") + ", \(assignment.physicalScale)")
    }

    func deviceRemoved(_ pointer: OpaquePointer, into output: inout [InputEvent]) {
        ignoredDevices.remove(pointer)
        if unassignedTouchDevices.removeValue(forKey: pointer) != nil { libinput_device_unref(pointer) }
        guard let state = devices.removeValue(forKey: pointer) else { return }
        libinput_device_unref(pointer)
        log(.info, "touch device \(describe(state)) removed")
        churn.removed(state.device.name)
        output.append(.deviceRemoved(state.device, timestampMicros: monotonicMicros()))
    }

    func apply(_ assignment: ScreenAssignment, to pointer: OpaquePointer, _ device: InputDevice) {
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

    func defaultMatrix(_ pointer: OpaquePointer) -> [Float] {
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

    func describe(_ state: DeviceState) -> String {
        "\(state.device.id) \"\(state.device.name)\" (\(state.description.node ?? state.description.sysname))"
    }
}
