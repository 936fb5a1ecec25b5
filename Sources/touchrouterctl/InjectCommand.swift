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
            OptionSpec(
                .deviceDesc, valueName: "FILE",
                help: "Copy this device (evemu .desc or libinput record YAML)."),
            OptionSpec(.default, help: "The default 10-slot direct touchscreen (the default)."),
            OptionSpec(
                .protocolA,
                help: "The default touchscreen without slots: multitouch protocol A (SYN_MT_REPORT)."),
            OptionSpec(
                .recording, valueName: "FILE",
                help: "Play this recording (evemu .events or libinput record YAML)."),
            OptionSpec(
                .gesture, valueName: "SCRIPT",
                help: "Play a gesture script (see below); '|' runs scripts at once."),
            OptionSpec(
                .screen, valueName: "WxH",
                help: "Gesture coordinates are layout units of a WxH screen."),
            OptionSpec(
                .size, valueName: "WxH", help: "Axis size of the default device (default 1920x1080)."),
            OptionSpec(
                .speed, valueName: "X",
                help: "Playback speed factor (default 1; 0: as fast as possible)."),
            OptionSpec(
                .startDelay, valueName: "MS", help: "Wait after creating the device (default 500)."),
            OptionSpec(
                .waitStdin,
                help: "After creating the device, wait for a line on stdin before playing."),
            OptionSpec(
                .linger, valueName: "MS",
                help: "Keep the device this long after playing (default 1000)."),
            OptionSpec(.hold, help: "Keep the device until SIGINT/SIGTERM after playing."),
            OptionSpec(.name, valueName: "NAME", help: "The device's name."),
            OptionSpec(.keyboard, help: "Create a uinput keyboard instead (no touch; for tests)."),
            OptionSpec(
                .output, valueName: "FILE",
                help: "Write the gestures to FILE as an evemu recording instead (no device, no uinput)."),
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
        let name = arguments.value(.name)
        if arguments.flag(.keyboard) {
            let injector = try UinputInjector(spec: .keyboard(name: name ?? "touchrouter virtual keyboard"))
            LineOutput.print("device \(injector.deviceNode ?? "?")")
            if arguments.flag(.hold) { stop.wait() }
            injector.destroy()
            return .success
        }
        var spec: VirtualDeviceSpec
        var events: [EvdevEvent] = []
        if let descPath = arguments.value(.deviceDesc)
            ?? arguments.value(.recording).flatMap({
                $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") ? $0 : nil
            })
        {
            guard !arguments.flag(.protocolA) else {
                throw UsageError(
                    message: "--protocol-a is for the default device; a copied device keeps its own axes")
            }
            spec = try RecordingInjection.deviceSpec(path: descPath)
            if let name { spec.name = name }
        } else {
            let size = try arguments.value(.size).map(parseSize) ?? (1920, 1080)
            spec = .defaultTouchscreen(
                name: name ?? "touchrouter virtual touchscreen", width: Int32(size.0), height: Int32(size.1),
                protocolA: arguments.flag(.protocolA))
        }
        let scripts = (arguments.value(.gesture).map { [$0] } ?? []) + arguments.arguments(.script)
        if let recordingPath = arguments.value(.recording) {
            guard scripts.isEmpty else {
                throw UsageError(message: "give --recording or --gesture, not both")
            }
            events = try RecordingInjection.events(
                path: recordingPath,
                descriptionPath: arguments.value(.deviceDesc).flatMap { $0.hasSuffix(".desc") ? $0 : nil })
        } else if !scripts.isEmpty {
            let concurrent = scripts.flatMap { $0.split(separator: "|").map(String.init) }
            let screen = try arguments.value(.screen).map(parseSize)
            events = try GestureScript.events(scripts: concurrent, spec: spec, screenSize: screen)
        } else if !arguments.flag(.hold) {
            throw UsageError(message: "nothing to play: give --recording FILE, --gesture SCRIPT or --hold")
        }
        if let output = arguments.value(.output) {
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
        let speed =
            try arguments.value(.speed).map { text throws(UsageError) -> Double in
                guard let speed = Double(text), speed >= 0, speed.isFinite else {
                    throw UsageError(message: "--speed needs a number >= 0, got '\(text)'")
                }
                return speed
            } ?? 1
        let startDelay =
            try arguments.value(.startDelay).map { text throws(UsageError) -> UInt64 in
                guard let millis = UInt64(text) else {
                    throw UsageError(message: "--start-delay needs milliseconds")
                }
                return millis
            } ?? 500

        let lingerMillis =
            try arguments.value(.linger).map { text throws(UsageError) -> UInt64 in
                guard let millis = UInt64(text) else {
                    throw UsageError(message: "--linger needs milliseconds")
                }
                return millis
            } ?? 1000
        let injector = try UinputInjector(spec: spec)
        defer { injector.destroy() }
        LineOutput.print("device \(injector.deviceNode ?? "?")")
        if arguments.flag(.waitStdin) { _ = readLine() }
        guard stop.sleep(micros: startDelay * 1000) else { return .failure }
        guard try injector.play(events, speed: speed, stop: stop) else {
            StandardError.print("touchrouterctl inject: stopped by a signal; device removed")
            return .failure
        }
        LineOutput.print("played \(events.count) events")
        // Removing the device at once would discard events a slow reader has not read yet (the
        // kernel drops a removed device's queue): give it time first.
        if arguments.flag(.hold) {
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
