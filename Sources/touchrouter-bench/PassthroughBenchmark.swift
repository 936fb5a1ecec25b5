import Foundation
import Glibc
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

/// `touchrouter-bench passthrough [FRAMES]`.
let passthroughBenchmark = Benchmark(
    spec: CommandSpec(
        name: "passthrough",
        abstract: "one finger moving: input frame to the socket's write vs to the virtual touchscreen's; [FRAMES]",
        arguments: [
            ArgumentSpec(.frames, help: "Moving frames per path (default 20000).", isOptional: true)
        ]),
    run: { arguments in
        runPassthroughBenchmark(frameCount: arguments.argument(.frames).flatMap(Int.init) ?? 20_000)
    })

/// What passthrough costs the routing loop (docs/passthrough.md), beside the socket path, in the
/// same run: one finger moving on the tracker benchmark's kiosk layout, each frame timed from the
/// `Router` taking it to the `write(2)` that hands it on.
///
/// - socket: its panel subscribed; the Router's `touches` message encoded as the daemon does
///   (`TouchesEncoder`) and written to one end of a Unix socket pair (drained between frames,
///   outside the timing).
/// - passthrough: the root passing through, nobody subscribed; the Router's passthrough frame
///   encoded (`PassthroughEncoder`, gate open) and written to a real virtual touchscreen
///   (`/dev/uinput`, as the daemon makes it). Without write access to /dev/uinput this row says
///   why and only the socket row is printed.
///
/// Not included on either side: libinput before the frame, the reader after the write (a client's
/// `recv`, the compositor's libinput).
func runPassthroughBenchmark(frameCount: Int) {
    let layout = TrackerBenchmark.kioskLayout()
    let device = InputDevice(id: 1, name: "bench touchscreen")
    let start = Point(40, 40)
    let cycle = 1024
    let moves: [InputEvent] = (0..<cycle).map { step in
        let angle = Double(step) * 2 * .pi / Double(cycle)
        let point = Point(start.x + 10 * cos(angle), start.y + 10 * sin(angle))
        return .frame(
            InputFrame(
                device: device, screen: "kiosk", timestampMicros: 0,
                contacts: [ContactEvent(kind: .motion, slot: 0, screenPoint: point)]))
    }
    func frame(_ kind: ContactEvent.Kind) -> InputEvent {
        .frame(
            InputFrame(
                device: device, screen: "kiosk", timestampMicros: 0,
                contacts: [ContactEvent(kind: kind, slot: 0, screenPoint: start)]))
    }
    let overhead = timerOverheadNanoseconds()
    var checksum = 0

    // The socket path.
    var config = Config(layout: layout, screenInputs: [])
    var socketRouter = Router(config: config, nowMicros: 0)
    var table = socketRouter.subscriptions
    _ = table.subscribe(1, to: ["panel-0-0"], subtree: true)
    socketRouter.replaceSubscriptions(table)
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else {
        print("passthrough: socketpair failed: \(String(cString: strerror(errno)))")
        return
    }
    defer {
        close(pair[0])
        close(pair[1])
    }
    var buffer: [UInt8] = []
    buffer.reserveCapacity(4096)
    var drain = [UInt8](repeating: 0, count: 65536)
    var socketNanos: [UInt64] = []
    socketNanos.reserveCapacity(frameCount)
    _ = socketRouter.route(frame(.down), nowMicros: 0)
    for index in 0..<frameCount {
        let begin = monotonicNanoseconds()
        buffer.removeAll(keepingCapacity: true)
        for routed in socketRouter.route(moves[index % cycle], nowMicros: 0) {
            if case .touches(let touches, _) = routed { TouchesEncoder.appendLine(touches, to: &buffer) }
        }
        let written = buffer.withUnsafeBytes { Glibc.write(pair[0], $0.baseAddress, $0.count) }
        let end = monotonicNanoseconds()
        socketNanos.append(end - begin)
        checksum &+= written
        _ = drain.withUnsafeMutableBytes { read(pair[1], $0.baseAddress, $0.count) }
    }
    _ = socketRouter.route(frame(.up), nowMicros: 0)
    print(
        TrackerBenchmark.summary(
            "input frame to the socket's write, 1 touch moving", socketNanos, timerOverhead: overhead))

    // The passthrough path.
    config.viewPassthrough = ["kiosk-root": .touch]
    var passingRouter = Router(config: config, nowMicros: 0)
    let virtual: UinputInjector
    do {
        virtual = try UinputInjector(
            spec: PassthroughDevice.touchscreenSpec(screen: "bench", width: 1000, height: 760, physicalSize: nil))
    } catch {
        let hint = UinputInjector.uinputHint(for: error).map { "; \($0)" } ?? ""
        print("input frame to the virtual touchscreen's write: not measured (\(error)\(hint))")
        return
    }
    var encoder = PassthroughEncoder(width: 1000, height: 760)
    encoder.isOpen = true
    var events: [EvdevEvent] = []
    events.reserveCapacity(64)
    var failures = 0
    func pass(_ event: InputEvent) {
        events.removeAll(keepingCapacity: true)
        for routed in passingRouter.route(event, nowMicros: 0) {
            if case .passthrough(let frame) = routed { encoder.encode(frame, into: &events) }
        }
        guard !events.isEmpty else { return }
        do { try virtual.write(events) } catch { failures += 1 }
    }
    var passNanos: [UInt64] = []
    passNanos.reserveCapacity(frameCount)
    pass(frame(.down))
    for index in 0..<frameCount {
        let begin = monotonicNanoseconds()
        pass(moves[index % cycle])
        let end = monotonicNanoseconds()
        passNanos.append(end - begin)
    }
    pass(frame(.up))
    print(
        TrackerBenchmark.summary(
            "input frame to the virtual touchscreen's write, 1 touch moving", passNanos, timerOverhead: overhead))
    let passed = passingRouter.passthroughStatistics.first?.statistics.touchesPassed ?? 0
    print("passthrough: \(passed) touch passed, \(failures) failed writes (checksum \(checksum))")
}
