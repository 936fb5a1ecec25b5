/// Turns a recording file into the input events the daemon replays, mapped onto the screen the
/// config assigns to each recorded device, exactly as live input would be.
import TouchRouterCore
import TouchRouterInput
import TouchRouterSystem

enum ReplaySource {
    /// Reads `path` (libinput record YAML, or evemu `.events` with its `.desc` beside it or at
    /// `devicePath`) and decodes it into frames. A libinput record file of several devices (recorded
    /// with `--all`, or with several device nodes) plays every device that has touch frames, each as
    /// its own device (ids 1, 2, … in file order), on the screen the config gives it, the frames of
    /// all merged in time order (the file's devices share one clock). Contacts still down at the end
    /// are cancelled in a last frame per device, so the recording can loop. `logScale` hears each
    /// device's millimetres per unit once (`PhysicalScale`'s description names the fallback when it
    /// is used).
    static func frames(
        path: String, devicePath: String?, config: Config, logKernelBug: (String) -> Void = { _ in },
        logScale: (PhysicalScale) -> Void = { _ in }
    ) throws -> [InputFrame] {
        let recordings =
            try devicePath.map { [try Recording.loadEvemu(descriptionPath: $0, eventsPath: path)] }
            ?? Recording.loadAll(path: path)
        // Of several devices, those with events and position axes (not a keyboard); else, as
        // `Recording.load` chooses, the first device with events, or the first.
        let touchDevices = recordings.filter {
            !$0.events.isEmpty && $0.device.xAxis != nil && $0.device.yAxis != nil
        }
        let played =
            recordings.count > 1 && !touchDevices.isEmpty
            ? touchDevices : [recordings.first { !$0.events.isEmpty } ?? recordings[0]]
        var perDevice: [[InputFrame]] = []
        for recording in played {
            perDevice.append(
                try self.frames(
                    recording, id: UInt32(perDevice.count + 1), path: path, config: config,
                    logKernelBug: logKernelBug, logScale: logScale))
        }
        guard perDevice.count > 1 else { return perDevice.first ?? [] }
        // Stable: frames with equal times keep the file's device order.
        return perDevice.joined().enumerated().sorted {
            ($0.element.timestampMicros, $0.offset) < ($1.element.timestampMicros, $1.offset)
        }.map(\.element)
    }

    /// One recorded device's frames, as device `id`.
    private static func frames(
        _ recording: Recording, id: UInt32, path: String, config: Config, logKernelBug: (String) -> Void,
        logScale: (PhysicalScale) -> Void
    ) throws -> [InputFrame] {
        let device = InputDevice(id: id, name: recording.device.name)
        guard
            let match = config.screenMatch(forDeviceNamed: device.name, udevProperties: [:], node: nil),
            let screen = config.layout.screen(named: match.screen)
        else {
            throw ReplayError(
                description: "\(path): no screen in the config takes device \"\(Excerpt.of(device.name))\"")
        }
        let input = config.input(forScreen: screen.name)
        let mapping = try ScreenMapping(
            screenWidth: screen.width, screenHeight: screen.height, rotation: input?.rotationDegrees ?? 0,
            calibration: input?.calibration)
        let scale = config.physicalScale(forScreen: screen.name, deviceSize: recording.device.physicalSize)
        logScale(scale)
        var frames = MultitouchDecoder.decode(
            recording, inputDevice: device, screen: screen.name, mapping: mapping, physicalScale: scale,
            logKernelBug: logKernelBug)
        if match.matcherIndex != nil {
            for index in frames.indices { frames[index].matcherIndex = match.matcherIndex }
        }
        return frames
    }
}

/// A recording that cannot be replayed with this config.
struct ReplayError: Error, CustomStringConvertible {
    var description: String
}

/// The replayed devices and where the current config puts each (a reload may rename a screen or
/// reassign a device, as it does for live devices): every played frame is stamped from here.
struct ReplayTargets {
    private struct Target {
        var device: InputDevice
        /// Nil once a reload left no screen for the device (its frames then keep their last screen).
        var match: ScreenMatch?
    }

    /// By device id.
    private var targets: [UInt32: Target] = [:]

    /// The devices of these frames, where the frames put them.
    init(frames: [InputFrame]) {
        for frame in frames where targets[frame.device.id] == nil {
            targets[frame.device.id] = Target(
                device: frame.device, match: ScreenMatch(screen: frame.screen, matcherIndex: frame.matcherIndex))
        }
    }

    /// The frame on its device's current screen, with the matcher that took the device. Cost: one
    /// dictionary lookup.
    func stamp(_ frame: inout InputFrame) {
        guard let match = targets[frame.device.id]?.match else { return }
        frame.screen = match.screen
        frame.matcherIndex = match.matcherIndex
    }

    /// After a reload: each device matched again, and the names of those no screen takes now. A new
    /// value, not a mutation in place, so that no access to `Daemon.input` spans a call (see
    /// `Daemon.Input`).
    func reassigned(_ config: Config) -> (targets: ReplayTargets, unplaced: [String]) {
        var reassigned = self
        var unplaced: [String] = []
        for id in targets.keys.sorted() {
            let name = targets[id]!.device.name
            reassigned.targets[id]!.match = config.screenMatch(forDeviceNamed: name, udevProperties: [:], node: nil)
            if reassigned.targets[id]!.match == nil { unplaced.append(name) }
        }
        return (reassigned, unplaced)
    }
}
