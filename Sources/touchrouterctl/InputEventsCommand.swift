import Glibc
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterInput
import TouchRouterSystem

/// `touchrouterctl input-events`: prints the live libinput frames the daemon would get, one line
/// each (see `InputTranscript`), until SIGINT/SIGTERM. A diagnostic for integrators and the VM
/// suite's libinput consumer.
enum InputEventsCommand: Command {
    static let spec = CommandSpec(
        name: "input-events",
        abstract: "(diagnostic) Print live touch frames from libinput, one line each.",
        options: [
            seat, path, ToolOption.config.described("Map devices to screens as this config says."), screen,
            verbose, replayFile, deviceDesc,
        ],
        discussion: """
            Lines on stdout: 'ready' once the devices present at start were read;
            'added dev=ID screen=NAME name=DEVICE' for each touch device taken;
            'frame SCREEN TIME_US dev=ID KIND:SLOT:X:Y ...' per libinput TOUCH_FRAME (X, Y in the
            screen's layout units); 'removed dev=ID TIME_US' when a device goes away.
            Log messages go to stderr with <N> journald priority prefixes. Needs read access to
            /dev/input/event* (root or the input group).
            """)

    static let seat = Option.text("seat", valueName: "SEAT", help: "The udev seat to read.", default: "seat0")
    static let path = Option.text(
        "path", valueName: "NODE", help: "Read only this device node (libinput's path backend).")
    static let screen = Option.text(
        "screen", valueName: "NAME:WxH", help: "Without --config: the one screen.", default: "main:1920x1080")
    static let verbose = Option.flag("verbose", help: "Also print libinput's debug messages.")
    static let replayFile = Option.text(
        "replay", valueName: "FILE", help: "Print the replay decoder's frames of this recording instead.")
    static let deviceDesc = Option.text(
        "device-desc", valueName: "FILE", help: "With --replay of evemu .events: the device's .desc.")

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        let assigner: DeviceAssigner
        if let configPath = arguments.value(ToolOption.config) {
            do {
                assigner = try loadConfig(path: configPath).deviceAssigner
            } catch {
                StandardError.print(error.description)
                return .failure
            }
        } else {
            let text = arguments.value(screen)
            let parts = text.split(separator: ":")
            guard parts.count == 2, let size = InjectCommand.Size(text: String(parts[1])) else {
                StandardError.print(
                    "touchrouterctl input-events: --screen is NAME:WIDTHxHEIGHT, got '\(text)'")
                return .usage
            }
            let assignment = ScreenAssignment(screen: String(parts[0]), width: size.width, height: size.height)
            assigner = { _, _ in assignment }
        }
        if let recordingPath = arguments.value(replayFile) {
            return replay(recordingPath, description: arguments.value(deviceDesc), assigner: assigner)
        }
        let backend: LibinputBackend =
            arguments.value(path).map { .paths([$0]) } ?? .udev(seat: arguments.value(seat))
        let reader: LibinputReader
        do {
            reader = try LibinputReader(
                backend: backend, logLevel: arguments.value(verbose) ? .debug : .info, assigner: assigner,
                log: { level, message in StandardError.print("<\(level.rawValue)>\(message)") })
        } catch {
            StandardError.print("touchrouterctl input-events: \(error)")
            return .failure
        }
        var known = Set<UInt32>()
        func report(_ events: [InputEvent]) {
            for (device, screen) in reader.activeDevices where known.insert(device.id).inserted {
                LineOutput.print("added dev=\(device.id) screen=\(screen) name=\(device.name)")
            }
            for event in events { LineOutput.print(InputTranscript.line(event)) }
        }
        report(reader.dispatch())
        LineOutput.print("ready")
        // Runs until SIGINT/SIGTERM end the process (their default action): nothing to clean up.
        var readable = pollfd(fd: reader.fileDescriptor, events: Int16(POLLIN), revents: 0)
        while true {
            do {
                try checked("poll") { poll(&readable, 1, -1) }
            } catch {
                StandardError.print("touchrouterctl input-events: \(error)")
                return .failure
            }
            report(reader.dispatch())
        }
    }

    /// The transcript the replay decoder makes of a recording, with the screen and matrix the
    /// live reader would use for a device of the recording's name: the reference the VM suite
    /// compares libinput's frames with.
    private static func replay(_ path: String, description: String?, assigner: DeviceAssigner) -> ExitCode {
        do {
            let recording =
                try description.map { try Recording.loadEvemu(descriptionPath: $0, eventsPath: path) }
                ?? Recording.load(path: path)
            let device = LiveDeviceDescription(
                name: recording.device.name, sysname: "replay", node: nil,
                udevProperties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"], hasTouch: true)
            guard let assignment = assigner(device, ScreenMapping.identityCalibration.map(Float.init)) else {
                StandardError.print("touchrouterctl input-events: \(recording.device.name) matches no screen")
                return .failure
            }
            let mapping = try ScreenMapping(
                screenWidth: assignment.width, screenHeight: assignment.height,
                calibration: assignment.calibrationMatrix?.map(Double.init))
            let frames = MultitouchDecoder.decode(
                recording, inputDevice: InputDevice(id: 0, name: recording.device.name),
                screen: assignment.screen,
                mapping: mapping, cancelRemainingAtEnd: false)
            for frame in frames { LineOutput.print(InputTranscript.line(.frame(frame))) }
            return .success
        } catch {
            StandardError.print("touchrouterctl input-events: \(error)")
            return .failure
        }
    }
}
