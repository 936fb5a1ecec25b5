import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterInput
import TouchRouterSystem

/// `touchrouterctl inject`: creates a virtual touchscreen through uinput and plays a recording or
/// scripted gestures into the kernel, so the real kernel → udev → libinput → daemon path runs.
enum InjectCommand: Command {
    static let spec = CommandSpec(
        name: "inject",
        abstract: "Create a virtual touchscreen (uinput) and play a recording or gestures into it.",
        options: [
            deviceDesc, defaultDevice, protocolA, recording, gesture, screen, size, speed, startDelay, waitStdin,
            linger, hold, name, keyboard, output,
        ],
        arguments: [
            ArgumentSpec(
                .script, help: "More gesture scripts, played at the same time.", repeats: true,
                isOptional: true)
        ],
        discussion: """
            Gestures (separate with ';' to play one after another): 'tap X Y', 'drag X1 Y1 X2 Y2 [MS]',
            'pinch CX CY R1 R2 [MS]', 'hold X Y MS', 'wait MS'. Scripts given together (several
            --gesture SCRIPT arguments, or joined by '|') play at once, each finger on its own slot.
            Coordinates are the device's axis units; with --screen WxH, layout units of that screen.
            The default device's axes are 0..W-1 × 0..H-1, so on a screen of the same size one axis
            unit is one layout unit. A device without ABS_MT_SLOT (--protocol-a, or a .desc without
            it) gets gestures as multitouch protocol A: every finger in every frame, each closed by
            SYN_MT_REPORT, a lone SYN_MT_REPORT when the last lifts; recordings play as recorded.
            With --output, the gestures are written as an evemu recording (the device's description
            and its events, from time 0) that 'touchrouterd --replay' plays. Otherwise this
            needs write access to /dev/uinput (modprobe uinput). The device is
            removed on exit, SIGINT and SIGTERM. Prints 'device NODE' once it exists.
            """)

    static let deviceDesc = Option.text(
        "device-desc", valueName: "FILE", help: "Copy this device (evemu .desc or libinput record YAML).")
    static let defaultDevice = Option.flag("default", help: "The default 10-slot direct touchscreen (the default).")
    static let protocolA = Option.flag(
        "protocol-a", help: "The default touchscreen without slots: multitouch protocol A (SYN_MT_REPORT).")
    static let recording = Option.text(
        "recording", valueName: "FILE", help: "Play this recording (evemu .events or libinput record YAML).")
    static let gesture = Option.text(
        "gesture", valueName: "SCRIPT", help: "Play a gesture script (see below); '|' runs scripts at once.")
    static let screen = Option.optional(
        "screen", valueName: "WxH", help: "Gesture coordinates are layout units of a WxH screen.",
        expected: Size.expected, convert: Size.init(text:))
    static let size = Option<Size>(
        "size", valueName: "WxH", help: "Axis size of the default device.", default: Size(width: 1920, height: 1080),
        defaultText: "1920x1080", expected: Size.expected, convert: Size.init(text:))
    static let speed = Option.number(
        "speed", help: "Playback speed factor; 0: as fast as possible.", in: 0...Double.infinity, default: 1)
    static let startDelay = Option<UInt64>.integer(
        "start-delay", valueName: "MS", help: "Wait after creating the device.", in: 0...UInt64.max, default: 500)
    static let waitStdin = Option.flag(
        "wait-stdin", help: "After creating the device, wait for a line on stdin before playing.")
    static let linger = Option<UInt64>.integer(
        "linger", valueName: "MS", help: "Keep the device this long after playing.", in: 0...UInt64.max,
        default: 1000)
    static let hold = Option.flag("hold", help: "Keep the device until SIGINT/SIGTERM after playing.")
    static let name = Option.text("name", valueName: "NAME", help: "The device's name.")
    static let keyboard = Option.flag("keyboard", help: "Create a uinput keyboard instead (no touch; for tests).")
    static let output = Option.text(
        "output", valueName: "FILE",
        help: "Write the gestures to FILE as an evemu recording instead (no device, no uinput).")

    /// A `WxH` size (`1920x1080`), both positive.
    struct Size: Sendable {
        static let expected = "WIDTHxHEIGHT, e.g. 1920x1080"
        var width: Double
        var height: Double

        init(width: Double, height: Double) {
            self.width = width
            self.height = height
        }

        /// `1920x1080`; nil when it is not two positive numbers joined by `x`.
        init?(text: String) {
            let parts = text.split(separator: "x")
            guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]), width > 0,
                height > 0
            else { return nil }
            self.init(width: width, height: height)
        }
    }

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        do {
            return try inject(arguments)
        } catch let error as UsageError {
            StandardError.print(
                "touchrouterctl inject: \(error.message)\nSee 'touchrouterctl inject --help'.")
            return .usage
        } catch let error as SystemError {
            let hint = UinputInjector.uinputHint(for: error).map { " — \($0)" } ?? ""
            StandardError.print("touchrouterctl inject: \(error)\(hint)")
            return .failure
        } catch {
            StandardError.print("touchrouterctl inject: \(error)")
            return .failure
        }
    }

    private static func inject(_ arguments: ParsedArguments) throws -> ExitCode {
        let stop = StopSignals()
        let name = arguments.value(Self.name)
        if arguments.value(keyboard) {
            let injector = try UinputInjector(spec: .keyboard(name: name ?? "touchrouter virtual keyboard"))
            LineOutput.print("device \(injector.deviceNode ?? "?")")
            if arguments.value(hold) { stop.wait() }
            injector.destroy()
            return .success
        }
        var spec: VirtualDeviceSpec
        var events: [EvdevEvent] = []
        if let descPath = arguments.value(deviceDesc)
            ?? arguments.value(recording).flatMap({
                $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") ? $0 : nil
            })
        {
            guard !arguments.value(protocolA) else {
                throw UsageError(
                    message: "--protocol-a is for the default device; a copied device keeps its own axes")
            }
            spec = try RecordingInjection.deviceSpec(path: descPath)
            if let name { spec.name = name }
        } else {
            let size = arguments.value(Self.size)
            spec = .defaultTouchscreen(
                name: name ?? "touchrouter virtual touchscreen", width: Int32(size.width), height: Int32(size.height),
                protocolA: arguments.value(protocolA))
        }
        let scripts = (arguments.value(gesture).map { [$0] } ?? []) + arguments.arguments(.script)
        if let recordingPath = arguments.value(recording) {
            guard scripts.isEmpty else {
                throw UsageError(message: "give --recording or --gesture, not both")
            }
            events = try RecordingInjection.events(
                path: recordingPath,
                descriptionPath: arguments.value(deviceDesc).flatMap { $0.hasSuffix(".desc") ? $0 : nil })
        } else if !scripts.isEmpty {
            let concurrent = scripts.flatMap { $0.split(separator: "|").map(String.init) }
            let screen = arguments.value(Self.screen).map { ($0.width, $0.height) }
            events = try GestureScript.events(scripts: concurrent, spec: spec, screenSize: screen)
        } else if !arguments.value(hold) {
            throw UsageError(message: "nothing to play: give --recording FILE, --gesture SCRIPT or --hold")
        }
        if let output = arguments.value(Self.output) {
            guard !scripts.isEmpty else { throw UsageError(message: "--output writes gestures: give --gesture SCRIPT") }
            let command = CommandLine.arguments.dropFirst().map(shellQuoted).joined(separator: " ")
            let text = EvemuWriter.text(spec: spec, events: events, comments: ["made by: touchrouterctl \(command)"])
            if let failure = LineOutput.write(text, toFile: output) {
                StandardError.print("touchrouterctl inject: cannot write \(output): \(failure)")
                return .failure
            }
            LineOutput.print("wrote \(events.count) events to \(output)")
            return .success
        }
        let speed = arguments.value(Self.speed)
        let startDelay = arguments.value(Self.startDelay)
        let lingerMillis = arguments.value(linger)
        let injector = try UinputInjector(spec: spec)
        defer { injector.destroy() }
        LineOutput.print("device \(injector.deviceNode ?? "?")")
        if arguments.value(waitStdin) { _ = readLine() }
        guard stop.sleep(micros: startDelay * 1000) else { return .failure }
        guard try injector.play(events, speed: speed, stop: stop) else {
            StandardError.print("touchrouterctl inject: stopped by a signal; device removed")
            return .failure
        }
        LineOutput.print("played \(events.count) events")
        // Removing the device at once would discard events a slow reader has not read yet (the
        // kernel drops a removed device's queue): give it time first.
        if arguments.value(hold) {
            stop.wait()
        } else if !stop.sleep(micros: lingerMillis * 1000) {
            return .failure
        }
        return .success
    }

    /// `text` as a shell reads it back: in single quotes unless it is plain.
    static func shellQuoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,".contains($0) }
        return plain
            ? text : "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// `1920x1080` → (1920, 1080).
    static func parseSize(_ text: String) throws(UsageError) -> (Double, Double) {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]), width > 0,
            height > 0
        else { throw UsageError(message: "a size is WIDTHxHEIGHT, e.g. 1920x1080; got '\(text)'") }
        return (width, height)
    }
}
