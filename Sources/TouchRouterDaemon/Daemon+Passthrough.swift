/// Passthrough in the daemon (docs/passthrough.md): each screen whose layout passes touches
/// through gets its virtual devices (uinput), its physical devices grabbed, and the Router's
/// `Routed.passthrough` frames written to them from the fan-out.
import Glibc
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

/// What a config asks of passthrough on one screen: which virtual devices, for a screen of what
/// size. Computed where the config is built (start-up, the reload worker): it walks the views.
struct PassthroughNeed: Hashable, Sendable {
    var screen: String
    var width: Double
    var height: Double
    var physicalSize: PhysicalSize?
    var touch: Bool
    var pointer: Bool

    /// The screens of `config` that pass something through. Cost: linear in the views.
    static func of(_ config: Config) -> [PassthroughNeed] {
        config.layout.screens.compactMap { screen in
            let modes = config.passthroughModes(forScreen: screen.name)
            guard !modes.isEmpty else { return nil }
            return PassthroughNeed(
                screen: screen.name, width: screen.width, height: screen.height,
                physicalSize: config.input(forScreen: screen.name)?.physicalSize, touch: modes.contains(.touch),
                pointer: modes.contains(.pointer))
        }
    }
}

/// A screen's virtual devices as made for a need: created where they may wait on the kernel (the
/// reload worker; start-up), then owned by the loop; handed back to the worker to be removed.
/// One thread at a time holds it, hence `@unchecked Sendable`.
final class PassthroughDevices: @unchecked Sendable {
    var touchscreen: UinputInjector?
    var pointer: UinputInjector?
    /// How long creating them took, µs (UI_DEV_CREATE waits for the kernel to make the node).
    var creationMicros: UInt64 = 0
    /// Why a device could not be made.
    var failure: SystemError?

    /// Creates the devices `need` asks for (needs write access to /dev/uinput).
    init(_ need: PassthroughNeed) {
        let started = monotonicMicros()
        do throws(SystemError) {
            if need.touch {
                touchscreen = try UinputInjector(
                    spec: PassthroughDevice.touchscreenSpec(
                        screen: need.screen, width: need.width, height: need.height, physicalSize: need.physicalSize))
            }
            if need.pointer {
                pointer = try UinputInjector(
                    spec: PassthroughDevice.pointerSpec(
                        screen: need.screen, width: need.width, height: need.height, physicalSize: need.physicalSize))
            }
        } catch {
            failure = error
        }
        creationMicros = monotonicMicros() - started
    }

    /// Takes over `other`'s devices (which then holds none): what the worker is handed to remove.
    init(takingFrom other: PassthroughDevices) {
        touchscreen = other.touchscreen
        pointer = other.pointer
        other.touchscreen = nil
        other.pointer = nil
    }
}

/// One screen's virtual devices (none in replay mode), their encoders and counts.
final class PassthroughOutput {
    let need: PassthroughNeed
    let devices: PassthroughDevices?
    var touchscreen: UinputInjector? { devices?.touchscreen }
    var pointer: UinputInjector? { devices?.pointer }
    var touchEncoder: PassthroughEncoder
    var pointerEncoder: PointerEncoder
    /// One frame's events (storage reused).
    var events: [EvdevEvent] = []
    var framesWritten: UInt64 = 0
    var writeFailures: UInt64 = 0

    /// A virtual device exists to write to (its creation may have failed).
    var hasDevice: Bool { touchscreen != nil || pointer != nil }

    init(need: PassthroughNeed, devices: PassthroughDevices?) {
        self.need = need
        self.devices = devices
        touchEncoder = PassthroughEncoder(width: need.width, height: need.height)
        pointerEncoder = PointerEncoder(width: need.width, height: need.height)
    }
}

extension Daemon {
    /// Makes the virtual devices match `needs` (start-up, each reload after the swap): a screen no
    /// longer passing through (or whose need changed) has its contacts ended (cancels) and its
    /// devices handed to the reload worker to be removed; a new one gets the devices the worker
    /// made for it (`made`; at start-up, made here; in replay mode, none: its frames go to the log);
    /// then the screens' physical devices are grabbed (or released) and the gates follow.
    /// Cost on the loop: the cancels' writes and a few look-ups per passing screen; creating and
    /// removing devices waits on the kernel (UI_DEV_CREATE and UI_DEV_DESTROY make and remove the
    /// node), so the worker does it, except at start-up and as a fallback.
    func applyPassthrough(_ needs: [PassthroughNeed], made: [String: PassthroughDevices] = [:]) {
        let wanted = Dictionary(needs.map { ($0.screen, $0) }, uniquingKeysWith: { first, _ in first })
        for (screen, output) in passthrough where wanted[screen] != output.need {
            endPassthrough(output, removeOnWorker: true)
            passthrough[screen] = nil
            logger.notice("passthrough: screen \(Excerpt.of(screen)) stopped; its virtual devices removed")
        }
        for need in needs where passthrough[need.screen] == nil {
            passthrough[need.screen] = makePassthroughOutput(need, made: made[need.screen])
        }
        // A screen whose device could not be made keeps its panel: the compositor reads it as before.
        input.live?.setGrabbedScreens(Set(passthrough.values.filter(\.hasDevice).map(\.need.screen)))
        if input.live?.grabsPending == true { input.live?.updateGrabs() }
        updatePassthroughGates()
    }

    private func makePassthroughOutput(_ need: PassthroughNeed, made: PassthroughDevices?) -> PassthroughOutput {
        guard input.replay == nil else {
            logger.notice("passthrough: screen \(Excerpt.of(need.screen)): replay, its frames go to the log")
            return PassthroughOutput(need: need, devices: nil)
        }
        let devices = made ?? PassthroughDevices(need)
        if let failure = devices.failure {
            logger.error(
                "passthrough: screen \(Excerpt.of(need.screen)): cannot create its virtual device: \(failure)"
                    + (UinputInjector.uinputHint(for: failure).map { "; \($0)" } ?? ""))
        }
        for (kind, device) in [("touchscreen", devices.touchscreen), ("pointer", devices.pointer)] {
            guard let device else { continue }
            logger.notice(
                "passthrough: screen \(Excerpt.of(need.screen)): virtual \(kind) \(device.sysname ?? "?") "
                    + "(\(device.deviceNode ?? "no node")) created in \(devices.creationMicros) µs"
                    + (made == nil ? "" : " (on the reload worker)"))
        }
        return PassthroughOutput(need: need, devices: devices)
    }

    /// Ends what a screen's virtual devices hold (touches cancelled, buttons released) and removes
    /// them: on the reload worker (`removeOnWorker`), or here (shutdown).
    func endPassthrough(_ output: PassthroughOutput, removeOnWorker: Bool) {
        let now = monotonicMicros()
        output.events.removeAll(keepingCapacity: true)
        output.touchEncoder.cancelAll(timestampMicros: now, into: &output.events)
        write(output.events, to: output.touchscreen, of: output)
        output.events.removeAll(keepingCapacity: true)
        output.pointerEncoder.releaseAll(timestampMicros: now, into: &output.events)
        write(output.events, to: output.pointer, of: output)
        guard let devices = output.devices else { return }
        if removeOnWorker {
            // The worker holds the only reference: the devices are destroyed there.
            reloading.worker.retire(PassthroughDevices(takingFrom: devices), trim: false)
        } else {
            devices.touchscreen?.destroy()
            devices.pointer?.destroy()
        }
    }

    /// Shutdown: every screen's contacts ended and devices removed, the grabs released.
    func endAllPassthrough() {
        for output in passthrough.values { endPassthrough(output, removeOnWorker: false) }
        passthrough.removeAll()
        input.live?.setGrabbedScreens([])
    }

    /// Opens each screen's gate while all its physical devices are grabbed (replay: always), so a
    /// contact reaches the virtual device only if the compositor cannot also see it. Cost: the
    /// passthrough screens × the touch devices (a few of each).
    func updatePassthroughGates() {
        for output in passthrough.values {
            let open = input.replay != nil || (input.live?.screenIsGrabbed(output.need.screen) ?? false)
            output.touchEncoder.isOpen = open
            output.pointerEncoder.isOpen = open
        }
    }

    /// A `Routed.passthrough` frame to its screen's virtual devices: encoded, one write(2) per
    /// device (a few dozen bytes to /dev/uinput, which never waits for the compositor: a reader
    /// that falls behind gets SYN_DROPPED in its own queue). A failed write is counted and logged
    /// at its first failure and dropped; the loop never waits. In replay mode: one log line.
    func writePassthrough(_ frame: PassthroughFrame) {
        guard let output = passthrough[frame.screen] else { return }
        if input.replay != nil {
            logPassthrough(frame)
            return
        }
        if !frame.contacts.isEmpty {
            output.events.removeAll(keepingCapacity: true)
            output.touchEncoder.encode(frame, into: &output.events)
            write(output.events, to: output.touchscreen, of: output)
        }
        if !frame.pointer.isEmpty {
            output.events.removeAll(keepingCapacity: true)
            output.pointerEncoder.encode(frame.pointer, at: frame.timestampMicros, into: &output.events)
            write(output.events, to: output.pointer, of: output)
        }
    }

    private func write(_ events: [EvdevEvent], to device: UinputInjector?, of output: PassthroughOutput) {
        guard !events.isEmpty, let device else { return }
        do {
            try device.write(events)
            output.framesWritten += 1
        } catch {
            output.writeFailures += 1
            if output.writeFailures == 1 {
                logger.error(
                    "passthrough: screen \(Excerpt.of(output.need.screen)): \(error); the frame is dropped "
                        + "(failures are counted in status, this is logged once)")
            }
        }
    }

    /// Replay mode's stand-in for the devices: one line per frame, what each contact or pointer
    /// step did, in layout units.
    private func logPassthrough(_ frame: PassthroughFrame) {
        var steps = frame.contacts.map {
            "\($0.phase.rawValue) slot \($0.slot) id \($0.trackingID) (\($0.location.x), \($0.location.y))"
        }
        for action in frame.pointer {
            switch action {
            case .move(let point): steps.append("pointer move (\(point.x), \(point.y))")
            case .press(let point, let button):
                steps.append("pointer press \(button.rawValue) (\(point.x), \(point.y))")
            case .release(let point, let button):
                steps.append("pointer release \(button.rawValue) (\(point.x), \(point.y))")
            }
        }
        logger.info("passthrough \(Excerpt.of(frame.screen)): \(steps.joined(separator: ", "))")
    }

    /// `status`'s `passthrough`: per screen, whether its gate is open, its virtual devices, the
    /// physical devices grabbed, and the counts: the Router's (touches passed, dropped over
    /// `maxTouches`, …) and the devices' own.
    func passthroughStatus() -> JSONValue {
        let grabs = input.live?.grabs ?? []
        let routed = router.passthroughStatistics
        return .array(
            passthrough.values.sorted { $0.need.screen < $1.need.screen }.map { output in
                var object: [String: JSONValue] = [
                    "screen": .string(output.need.screen),
                    "active": .bool(output.touchEncoder.isOpen),
                    "grabbed": .array(
                        grabs.filter { $0.screen == output.need.screen }.map {
                            .object(["name": .string($0.name), "node": .string($0.node)])
                        }),
                    "framesWritten": .integer(Int64(output.framesWritten)),
                    "writeFailures": .integer(Int64(output.writeFailures)),
                    "heldBack": .integer(Int64(output.touchEncoder.heldBackCount)),
                    "liveContacts": .integer(Int64(output.touchEncoder.liveContactCount)),
                    "creationMicros": .integer(Int64(output.devices?.creationMicros ?? 0)),
                ]
                for (name, value) in routed.first(where: { $0.screen == output.need.screen })?.statistics.namedCounters
                    ?? PassthroughStatistics().namedCounters
                {
                    object[name] = .integer(Int64(value))
                }
                for (key, device) in [("touchscreen", output.touchscreen), ("pointer", output.pointer)] {
                    guard let device else { continue }
                    object[key] = .object([
                        "name": .string(
                            key == "pointer"
                                ? PassthroughDevice.pointerName(screen: output.need.screen)
                                : PassthroughDevice.touchscreenName(screen: output.need.screen)),
                        "sysname": .string(device.sysname ?? ""), "node": .string(device.deviceNode ?? ""),
                    ])
                }
                return .object(object)
            })
    }
}
