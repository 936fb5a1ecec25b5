import TouchRouterClient
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterRender

/// `touchrouterctl render --config FILE [--screen NAME] [--recording FILE | --live SOCKET --seconds N]
/// [--hidden] [-o out.svg]`: an SVG of a screen's layout, its effective touch regions and touches.
enum RenderCommand: Command {
    static let spec = CommandSpec(
        name: "render",
        abstract: "Draw a screen's layout, touch regions and touches as SVG.",
        options: [
            ToolOption.config.described("The config file to draw.", isRequired: true), ToolOption.screen,
            recording, live, seconds,
            ToolOption.subscribed.described(
                "Subscribed views, comma-separated: for --recording (default: every view) and the passthrough "
                    + "hatch (default: none)."),
            hidden, output,
        ],
        discussion: """
            Draws the screen at its layout size (one unit, one SVG pixel) with a legend on the right.
            Filled in each view's colour: its effective touch region, where it really wins the
            hit-test after everything on top of it, computed by running the daemon's own hit-test
            engine at the centre of every one-unit cell (exact for edges on whole units, within one
            unit for curves and slants). Solid outline: the view's bounds; dashed: its touch area
            (bounds grown by the touch margin, following the shape). Grey and dashed: views that take
            no touches (not interactive, alpha below 0.01, or inside one); hidden views only with
            --hidden. A padlock marks views with an access list. Hatched and outlined: the areas whose
            touches a passthrough view hands to the screen's virtual device, as if only the --subscribed
            views (default: none) had subscribers; a crossed circle marks 'passthrough: false' views.

            --recording maps the recording onto this screen (its rotation and calibration) and routes
            it through the real tracker: each contact's path in the colour of the view it was
            delivered to, a dot at each touch-down, misses in red, touches dropped by a rule
            (multipleTouch, exclusiveTouch, no subscriber) dark grey and dashed, and a heat layer of
            touch-downs. --live subscribes to every view of the screen on a running daemon for N
            seconds and draws the touches it delivers (like 'monitor', it takes touches that would
            have climbed to an ancestor's subscriber; views behind an access list need an admin).
            Rasterise with 'rsvg-convert out.svg -o out.png'. See docs/render-explain.md.
            """)

    static let recording = Option.text(
        "recording", valueName: "FILE", help: "Draw a recording's touches (libinput record YAML or evemu .events).")
    static let live = Option.text("live", valueName: "SOCKET", help: "Draw the touches a running daemon delivers.")
    static let seconds = Option.number(
        "seconds", valueName: "N", help: "How long --live watches.", in: Double.leastNonzeroMagnitude...Double.infinity,
        default: 10)
    static let hidden = Option.flag("hidden", help: "Also draw hidden views (dotted, grey).")
    static let output = Option.text(
        "output", valueName: "FILE", help: "Write the SVG here (default: standard output).", shortName: "o")

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        if arguments.flag(recording) && arguments.flag(live) {
            return usage("--recording and --live are alternatives: give one")
        }
        let seconds = arguments.value(Self.seconds)
        guard let offline = OfflineScreen.load(arguments, command: "render") else { return .failure }
        let screen = offline.screen
        var picture = LayoutPicture(
            index: screen.makeHitTestIndex(),
            options: RenderOptions(
                showHidden: arguments.value(hidden), accessListViews: Set(offline.config.viewAccess.keys),
                passthrough: offline.config.viewPassthrough,
                subscribedViews: Set(arguments.value(ToolOption.subscribed).map(Self.viewList) ?? [])))
        if let path = arguments.value(recording) {
            do {
                picture.traces = try recordedTraces(path: path, offline: offline, arguments: arguments)
            } catch {
                StandardError.print("touchrouterctl render: \(error)")
                return .failure
            }
        } else if let socket = arguments.value(live) {
            guard let traces = liveTraces(socketPath: socket, screen: screen, seconds: seconds) else {
                return .failure
            }
            picture.traces = traces
        }
        let svg = picture.svg()
        if let output = arguments.value(Self.output) {
            if let failure = LineOutput.write(svg, toFile: output) {
                StandardError.print("touchrouterctl render: cannot write \(output): \(failure)")
                return .failure
            }
        } else {
            LineOutput.write(svg, to: 1)
        }
        return .success
    }

    /// The recording decoded onto this screen (its rotation and calibration, as a device the config
    /// assigns to it) and routed through the tracker.
    private static func recordedTraces(path: String, offline: OfflineScreen, arguments: ParsedArguments)
        throws
        -> [TouchTrace]
    {
        let recording = try Recording.load(path: path)
        let screen = offline.screen
        let input = offline.config.input(forScreen: screen.name)
        let mapping = try ScreenMapping(
            screenWidth: screen.width, screenHeight: screen.height, rotation: input?.rotationDegrees ?? 0,
            calibration: input?.calibration)
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: InputDevice(id: 1, name: recording.device.name), screen: screen.name,
            mapping: mapping)
        let layout = Layout(screens: [screen])
        if let listed = arguments.value(ToolOption.subscribed) {
            // Access lists and passthrough keys stop the climb too, as in the daemon.
            let subscribed = Set(viewList(listed)).union(PassthroughRule(config: offline.config).routingStops)
            return TraceRecorder.traces(
                of: frames, layout: layout, screen: screen.name, subscribedViews: subscribed)
        }
        return TraceRecorder.traces(
            of: frames, layout: layout, screen: screen.name, subscribedViews: EveryView())
    }

    /// `--subscribed a,b`'s view ids.
    private static func viewList(_ listed: String) -> [String] {
        listed.split(separator: ",").map(String.init)
    }

    /// Subscribes to the screen's root and subtree for `seconds` and collects the delivered touches.
    private static func liveTraces(socketPath: String, screen: Screen, seconds: Double) -> [TouchTrace]? {
        final class Box: @unchecked Sendable {
            var builder = DeliveredTraceBuilder()
            var failed = false
        }
        let box = Box()
        let screenName = screen.name
        let rootID = screen.root.id
        let code = runBlocking {
            let client: TouchRouterClient
            do {
                client = try await TouchRouterClient.connect(
                    socketPath: socketPath, clientName: "touchrouterctl render")
            } catch {
                StandardError.print("touchrouterctl render: \(error)")
                return .failure
            }
            do {
                let result = try await client.subscribe([rootID], subtree: true)
                if !result.denied.isEmpty {
                    StandardError.print(
                        "touchrouterctl render: not open to you (access list): "
                            + result.denied.joined(separator: ", "))
                }
            } catch {
                StandardError.print("touchrouterctl render: \(error)")
                return .failure
            }
            Task {
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                client.close()
            }
            for await event in client.events {
                guard case .touches(let message) = event, message.screen == screenName else { continue }
                for touch in message.touches {
                    box.builder.add(
                        viewID: message.viewID, touchID: touch.id, phase: touch.phase,
                        screenPoint: touch.screenPoint)
                }
            }
            return .success
        }
        return code == .success ? box.builder.result : nil
    }

    private static func usage(_ message: String) -> ExitCode {
        StandardError.print("touchrouterctl render: \(message)\nSee 'touchrouterctl render --help'.")
        return .usage
    }

    /// Every view has a subscriber: each touch goes to its hit view.
    private struct EveryView: SubscribedViews {
        func hasSubscribers(_ viewID: String) -> Bool { true }
    }
}
