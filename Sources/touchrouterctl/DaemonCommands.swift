import Dispatch
import TouchRouterClient
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterProtocol

/// Runs an async body to completion from a synchronous command (the tool has no other work).
func runBlocking(_ body: @escaping @Sendable () async -> ExitCode) -> ExitCode {
    final class Box: @unchecked Sendable { var code = ExitCode.failure }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.code = await body()
        done.signal()
    }
    done.wait()
    return box.code
}

/// Connects as `touchrouterctl <command>`, printing why on failure.
func connectToDaemon(_ arguments: ParsedArguments, command: String) async -> TouchRouterClient? {
    let path = arguments.value(ToolOption.socket)
    do {
        return try await TouchRouterClient.connect(socketPath: path, clientName: "touchrouterctl \(command)")
    } catch {
        StandardError.print("touchrouterctl \(command): \(error)")
        return nil
    }
}

/// Connects, sends one request and prints its reply: with `--json` exactly the line the daemon's
/// reply encodes to, else through `printText`. Failures print why (and every reason a run-time
/// change was refused for) and exit 1. `holdsConnection`: then keeps the connection until the
/// daemon closes it or the tool is interrupted (a client's mounts go with its connection).
func runOneRequest<Reply: Sendable>(
    _ arguments: ParsedArguments, command: String, holdsConnection: Bool = false,
    request: @escaping @Sendable (TouchRouterClient) async throws -> Reply,
    message: @escaping @Sendable (Reply) -> DaemonMessage,
    printText: @escaping @Sendable (Reply) -> Void
) -> ExitCode {
    let json = arguments.value(ToolOption.json)
    return runBlocking {
        guard let client = await connectToDaemon(arguments, command: command) else { return .failure }
        do {
            let reply = try await request(client)
            if json {
                LineOutput.print(String(decoding: message(reply).encodedLine().dropLast(), as: UTF8.self))
            } else {
                printText(reply)
            }
        } catch {
            StandardError.print("touchrouterctl \(command): \(error)")
            if case ClientError.daemon(let protocolError) = error {
                for failure in protocolError.failures {
                    StandardError.print(
                        "  \(failure.code): " + (failure.view.map { "view \"\($0)\": " } ?? "")
                            + (failure.field.map { "\($0): " } ?? "") + failure.message)
                }
            }
            return .failure
        }
        if holdsConnection {
            for await _ in client.events {}
        }
        return .success
    }
}

/// `touchrouterctl monitor [VIEW...] [--view IDS] [--subtree] [--gestures] [--json]`: routed
/// touches (and recognised gestures), live.
enum MonitorCommand: Command {
    static let spec = CommandSpec(
        name: "monitor",
        abstract: "Show the touches the running daemon routes, live.",
        options: [
            views, subtree, gestures,
            ToolOption.json.described(
                "Print each touches (and gesture) message as the daemon sent it (one JSON line)."),
            ToolOption.socket,
        ],
        arguments: [ArgumentSpec(.view, help: "A view id to watch.", repeats: true, isOptional: true)],
        discussion: """
            Without views, watches every screen's root with --subtree: every touch that reaches any
            view. A monitor is a subscriber like any other: a touch goes to the nearest subscribed view
            on its responder chain, so watching a parent can take touches from nobody else's views.
            One line per touch: view, touch id, phase, the point in the view's own coordinates and on
            the screen, the tap count and the device; with --gestures, one line per gesture message
            too: view, kind, state, the centroid and the kind's values. Runs until interrupted or the
            daemon stops.
            """)

    static let views = Option.text(
        "view", valueName: "IDS", help: "Views to watch, comma-separated (or give them as arguments).")
    static let subtree = Option.flag("subtree", help: "Also every descendant of those views.")
    static let gestures = Option.flag(
        "gestures", help: "Also show the views' recognised gestures (their config's gestures).")

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        let listed =
            (arguments.value(views) ?? "").split(separator: ",").map(String.init)
            + arguments.arguments(.view)
        let json = arguments.value(ToolOption.json)
        let explicitSubtree = arguments.value(subtree)
        let gestures = arguments.value(Self.gestures)
        return runBlocking {
            guard let client = await connectToDaemon(arguments, command: "monitor") else { return .failure }
            var views = listed
            var subtree = explicitSubtree
            if views.isEmpty {
                guard let layout = try? await client.layout() else { return .failure }
                views = layout.layout.screens.map(\.root.id)
                subtree = true
            }
            do {
                let result = try await client.subscribe(views, subtree: subtree, gestures: gestures ? true : nil)
                if !result.unknown.isEmpty {
                    StandardError.print(
                        "touchrouterctl monitor: no such view: \(result.unknown.joined(separator: ", "))")
                }
                if !result.denied.isEmpty {
                    StandardError.print(
                        "touchrouterctl monitor: not open to you (access list): "
                            + result.denied.joined(separator: ", "))
                }
                // Nothing to watch: say so and stop, rather than wait forever.
                let watched = Set(views).subtracting(result.unknown).subtracting(result.denied)
                if watched.isEmpty {
                    StandardError.print("touchrouterctl monitor: none of the requested views can be watched")
                    return .failure
                }
            } catch {
                StandardError.print("touchrouterctl monitor: \(error)")
                return .failure
            }
            if !json {
                LineOutput.print(
                    "watching \(views.joined(separator: ", "))\(subtree ? " and their subtrees" : "")"
                        + " (layout generation \(client.welcome.generation)); Ctrl-C to stop")
            }
            for await event in client.events {
                switch event {
                case .touches(let message):
                    if json {
                        LineOutput.print(
                            String(
                                decoding: DaemonMessage.touches(message).encodedLine().dropLast(),
                                as: UTF8.self))
                    } else {
                        for touch in message.touches { LineOutput.print(describe(touch, in: message)) }
                    }
                case .gesture(let message):
                    if json {
                        LineOutput.print(
                            String(decoding: DaemonMessage.gesture(message).encodedLine().dropLast(), as: UTF8.self))
                    } else {
                        LineOutput.print(describe(message))
                    }
                case .layoutChanged(let generation):
                    if json {
                        LineOutput.print("{\"type\":\"layoutChanged\",\"generation\":\(generation)}")
                    } else {
                        LineOutput.print("layout changed: generation \(generation)")
                    }
                case .viewsChanged(let generation, let views):
                    if json {
                        let line = DaemonMessage.viewsChanged(generation: generation, views: views).encodedLine()
                        LineOutput.print(String(decoding: line.dropLast(), as: UTF8.self))
                    } else {
                        LineOutput.print("layout changed: generation \(generation): \(views.joined(separator: ", "))")
                    }
                case .screenState(let change):
                    if json {
                        LineOutput.print(
                            String(decoding: DaemonMessage.screenState(change).encodedLine().dropLast(), as: UTF8.self))
                    } else {
                        LineOutput.print(
                            "screen \(change.screen) \(change.isActive ? "active" : "idle") (\(change.reason.rawValue))"
                        )
                    }
                case .subscriptionEnded(let views, let reason):
                    if json {
                        let line = DaemonMessage.subscriptionEnded(views: views, reason: reason).encodedLine()
                        LineOutput.print(String(decoding: line.dropLast(), as: UTF8.self))
                    } else {
                        LineOutput.print("subscription ended (\(reason)): \(views.joined(separator: ", "))")
                    }
                case .calibrationSample, .calibrationRefused, .calibrationEnded:
                    break  // only a calibrating client receives these
                case .error(let error):
                    StandardError.print("touchrouterctl monitor: daemon: \(error)")
                }
            }
            return .success
        }
    }

    /// `map  gesture pinch changed  local (210.5, 140)  screen (610.5, 340)  touches 42,43  scale 1.25`
    static func describe(_ gesture: GestureMessage) -> String {
        func point(_ p: Point) -> String { "(\(HitTestCommand.number(p.x)), \(HitTestCommand.number(p.y)))" }
        var line =
            "\(gesture.viewID)  gesture \(gesture.gesture) \(gesture.state)  local \(point(gesture.localPoint))"
            + "  screen \(point(gesture.screenPoint))  touches \(gesture.touchIDs.map(String.init).joined(separator: ","))"
        if let taps = gesture.taps { line += "  taps \(taps)" }
        if let direction = gesture.direction { line += "  direction \(direction)" }
        if let translation = gesture.translation { line += "  translation \(point(translation))" }
        if let scale = gesture.scale { line += "  scale \(HitTestCommand.number(scale))" }
        if let rotation = gesture.rotation { line += "  rotation \(HitTestCommand.number(rotation)) rad" }
        if let duration = gesture.durationMicros { line += "  duration \(duration / 1000) ms" }
        return line
    }

    /// `keypad/7  touch 12 began    local (40, 52.5)  screen (280, 1102.5)  taps 1  ILITEK …`
    static func describe(_ touch: WireTouch, in message: TouchesMessage) -> String {
        func point(_ p: Point) -> String { "(\(HitTestCommand.number(p.x)), \(HitTestCommand.number(p.y)))" }
        let phase = touch.phase.rawValue + String(repeating: " ", count: max(0, 10 - touch.phase.rawValue.count))
        var line =
            "\(message.viewID)  touch \(touch.id) \(phase) local \(point(touch.localPoint))"
            + "  screen \(point(touch.screenPoint))  taps \(touch.tapCount)  \(touch.deviceName)"
        if let reason = touch.reason { line += "  (\(reason))" }
        return line
    }
}

/// `touchrouterctl status [--json]`: the running daemon's counters.
enum StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show the running daemon's state and counters.",
        options: [ToolOption.json.described("Print the status reply as one JSON line."), ToolOption.socket])

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        runOneRequest(
            arguments, command: "status", request: { try await $0.status() }, message: DaemonMessage.status
        ) { status in
            for (name, value) in status.counters.sorted(by: { $0.key < $1.key }) {
                var text: [UInt8] = []
                value.append(to: &text)
                LineOutput.print("\(name): \(String(decoding: text, as: UTF8.self))")
            }
        }
    }
}

/// `touchrouterctl layout [--json]`: the layout the running daemon uses.
enum LayoutCommand: Command {
    static let spec = CommandSpec(
        name: "layout",
        abstract: "Show the layout the running daemon uses.",
        options: [ToolOption.json.described("Print the layout reply as one JSON line."), ToolOption.socket])

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        runOneRequest(
            arguments, command: "layout", request: { try await $0.layout() }, message: DaemonMessage.layout
        ) { reply in
            LineOutput.print("layout generation \(reply.generation)")
            for screen in reply.layout.screens {
                let size = [screen.width, screen.height].map(HitTestCommand.number)
                LineOutput.print("screen \(screen.name) \(size.joined(separator: "×"))")
                printTree(screen.root, depth: 1)
            }
        }
    }

    private static func printTree(_ view: View, depth: Int) {
        let frame = view.frame
        let numbers = [frame.x, frame.y, frame.width, frame.height].map(HitTestCommand.number)
        let properties = describe(view)
        LineOutput.print(
            String(repeating: "  ", count: depth) + "\(view.id)  [\(numbers.joined(separator: ", "))]"
                + (properties.isEmpty ? "" : "  " + properties.joined(separator: " ")))
        for child in view.children { printTree(child, depth: depth + 1) }
    }

    /// What the view sets that is not a default, in the words of the `layout` reply's JSON:
    /// `hidden nonInteractive multipleTouch exclusiveTouch alpha=0.5 margin=20 shape=ellipse
    /// rotation=30 scale=1.5x0.75` (a per-edge margin as top,left,bottom,right).
    static func describe(_ view: View) -> [String] {
        var words: [String] = []
        if view.hidden { words.append("hidden") }
        if !view.interactive { words.append("nonInteractive") }
        if view.multipleTouch { words.append("multipleTouch") }
        if view.exclusiveTouch { words.append("exclusiveTouch") }
        if view.alpha != 1 { words.append("alpha=\(HitTestCommand.number(view.alpha))") }
        let margin = view.touchMargin
        if margin != .zero {
            let edges = [margin.top, margin.left, margin.bottom, margin.right].map(HitTestCommand.number)
            words.append("margin=" + (margin.isUniform ? edges[0] : edges.joined(separator: ",")))
        }
        switch view.shape {
        case .rect: break
        case .roundedRect(let radius): words.append("shape=roundedRect(\(HitTestCommand.number(radius)))")
        case .ellipse: words.append("shape=ellipse")
        case .polygon(let points): words.append("shape=polygon(\(points.count) points)")
        }
        let transform = view.transform
        if transform.rotationDegrees != 0 {
            words.append("rotation=\(HitTestCommand.number(transform.rotationDegrees))")
        }
        if transform.scaleX != 1 || transform.scaleY != 1 {
            words.append("scale=\(HitTestCommand.number(transform.scaleX))x\(HitTestCommand.number(transform.scaleY))")
        }
        return words
    }
}
