/// Turns a recording file into the input events the daemon replays, mapped onto the screen the
/// config assigns to the recorded device, exactly as live input would be.
import TouchRouterCore
import TouchRouterInput
import TouchRouterSystem

enum ReplaySource {
    /// Reads `path` (libinput record YAML, or evemu `.events` with its `.desc` beside it or at
    /// `devicePath`) and decodes it into frames. Contacts still down at the end are cancelled in
    /// a last frame, so the recording can loop. `logScale` hears the device's millimetres per unit
    /// once (`PhysicalScale`'s description names the fallback when it is used).
    static func frames(
        path: String, devicePath: String?, config: Config, logKernelBug: (String) -> Void = { _ in },
        logScale: (PhysicalScale) -> Void = { _ in }
    ) throws -> [InputFrame] {
        let recording =
            try devicePath.map { try Recording.loadEvemu(descriptionPath: $0, eventsPath: path) }
            ?? Recording.load(path: path)
        let device = InputDevice(id: 1, name: recording.device.name)
        guard
            let screenName = config.screenName(forDeviceNamed: device.name, udevProperties: [:], node: nil),
            let screen = config.layout.screen(named: screenName)
        else {
            throw ReplayError(description: "\(path): no screen in the config takes device \"\(device.name)\"")
        }
        let input = config.input(forScreen: screenName)
        let mapping = try ScreenMapping(
            screenWidth: screen.width, screenHeight: screen.height, rotation: input?.rotationDegrees ?? 0,
            calibration: input?.calibration)
        let scale = config.physicalScale(forScreen: screenName, deviceSize: recording.device.physicalSize)
        logScale(scale)
        return MultitouchDecoder.decode(
            recording, inputDevice: device, screen: screenName, mapping: mapping, physicalScale: scale,
            logKernelBug: logKernelBug)
    }
}

/// A recording that cannot be replayed with this config.
struct ReplayError: Error, CustomStringConvertible {
    var description: String
}
