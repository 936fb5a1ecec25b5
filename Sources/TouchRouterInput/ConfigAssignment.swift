import TouchRouterCore

extension Config {
    /// The screen a live device drives under this config, with the matrix that maps it there:
    /// the screen's `devices` matchers (else `unmatchedDevices`), its rotation composed after its
    /// `calibration` — or after the device's udev LIBINPUT_CALIBRATION_MATRIX (`defaultCalibration`)
    /// when the config gives none — its millimetres per unit (`physicalScale(forScreen:deviceSize:)`)
    /// and the matcher that took it (whose `filters` the field stage applies). Nil: the device is ignored.
    public func screenAssignment(
        for device: LiveDeviceDescription, defaultCalibration: [Float]
    ) -> ScreenAssignment? {
        guard
            let match = screenMatch(
                forDeviceNamed: device.name, udevProperties: device.udevProperties, node: device.node),
            let screen = layout.screen(named: match.screen)
        else { return nil }
        let screenName = screen.name
        let input = input(forScreen: screenName)
        let rotation = input?.rotationDegrees ?? 0
        var matrix: [Float]?
        if let calibration = input?.calibration {
            matrix = ScreenMapping.libinputMatrix(rotation: rotation, calibration: calibration)
        } else if rotation != 0 {
            let udevCalibration =
                defaultCalibration.count == 6
                ? defaultCalibration.map(Double.init) : ScreenMapping.identityCalibration
            matrix = ScreenMapping.libinputMatrix(rotation: rotation, calibration: udevCalibration)
        }
        return ScreenAssignment(
            screen: screen.name, width: screen.width, height: screen.height, calibrationMatrix: matrix,
            physicalScale: physicalScale(forScreen: screen.name, deviceSize: device.physicalSize),
            matcherIndex: match.matcherIndex)
    }

    /// A `DeviceAssigner` for `LibinputReader` that follows this config.
    public var deviceAssigner: DeviceAssigner {
        { device, defaultCalibration in
            self.screenAssignment(for: device, defaultCalibration: defaultCalibration)
        }
    }
}
