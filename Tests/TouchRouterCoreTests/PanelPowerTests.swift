import Foundation
import Testing
import TouchRouterCore

/// Panel power's state machine: on the field stage's word (idle, active, a quiet spell) it asks for
/// on, dim and off; a touch while dim or off asks for on at once, even over a command still running;
/// failures are retried with backoff, sooner while touches come. Times in µs.
@Suite("Panel power")
struct PanelPowerTests {
    static let backlight = PanelPowerSettings(
        backend: .backlight(directory: "/sys/class/backlight/panel", method: .blPower), dimMicros: 2_000_000,
        dimBrightnessPercent: 10)

    /// The field stage and the machine glued as the daemon glues them: each field output's screen
    /// changes, then the stage's quiet spell; commands end as `outcome` says (nil: still running).
    struct Panel {
        var stage: FieldStage
        var power: PanelPower
        /// Every command asked for, in order.
        var commands: [PanelPowerCommand] = []
        var outcome: PanelPowerOutcome? = .succeeded

        init(
            settings: PanelPowerSettings = PanelPowerTests.backlight, idleMicros: UInt64 = 5_000_000,
            outcome: PanelPowerOutcome? = .succeeded
        ) {
            self.outcome = outcome
            let field = FieldSettings(idleMicros: idleMicros, swallowsWakingTouch: true, power: settings)
            stage = FieldStage(screens: ["main"], settings: ["main": field], nowMicros: 0)
            power = PanelPower(settings: settings, nowMicros: 0)
            run(power.start(active: true, nowMicros: 0), at: 0)
        }

        mutating func take(_ output: FieldOutput, at now: UInt64) -> FieldOutput {
            for change in output.screenChanges {
                run(power.screenChanged(active: change.isActive, nowMicros: now), at: now)
            }
            run(power.noteField(quietSinceMicros: stage.quietSinceMicros(ofScreen: "main"), nowMicros: now), at: now)
            return output
        }

        /// A frame on the screen at `now`: what the stage passed on.
        mutating func frame(_ now: UInt64, _ contacts: ContactEvent...) -> FieldOutput {
            let event = InputEvent.frame(
                InputFrame(device: FieldStageTests.panel, screen: "main", timestampMicros: now, contacts: contacts))
            return take(stage.process(event, nowMicros: now), at: now)
        }

        /// The housekeeping timer at `now`: the stage, then the machine.
        mutating func timer(_ now: UInt64) {
            _ = take(stage.advance(nowMicros: now), at: now)
            run(power.advance(nowMicros: now), at: now)
        }

        mutating func run(_ command: PanelPowerCommand?, at now: UInt64) {
            guard let command else { return }
            commands.append(command)
            if let outcome { run(power.finished(command.id, outcome, nowMicros: now), at: now) }
        }

        var levels: [PanelPowerLevel] { commands.map(\.level) }
    }

    @Test("active → dim → off → a touch → on, the waking touch swallowed")
    func idleDimOffTouchOn() {
        var panel = Panel()
        #expect(panel.levels == [.on] && panel.power.applied == .on)
        #expect(panel.power.nextDeadlineMicros == 2_000_000)
        panel.timer(1_999_999)
        #expect(panel.levels == [.on])
        panel.timer(2_000_000)
        #expect(panel.levels == [.on, .dim] && panel.power.applied == .dim)
        panel.timer(5_000_000)
        #expect(panel.levels == [.on, .dim, .off] && panel.power.applied == .off)
        #expect(panel.stage.activity(ofScreen: "main") == .idle && panel.power.nextDeadlineMicros == nil)
        let waking = panel.frame(9_000_000, FieldStageTests.down(0))
        #expect(waking.events.isEmpty, "the waking touch is swallowed")
        #expect(waking.screenChanges.map(\.isActive) == [true])
        #expect(panel.levels == [.on, .dim, .off, .on] && panel.power.applied == .on)
        _ = panel.frame(9_100_000, FieldStageTests.up(0))
        // The next quiet spell counts from the lift.
        #expect(panel.power.nextDeadlineMicros == 11_100_000)
    }

    @Test("a touch while dim turns the panel on and is delivered")
    func aTouchWhileDimIsDelivered() {
        var panel = Panel()
        panel.timer(2_000_000)
        #expect(panel.power.wanted == .dim)
        let touch = panel.frame(3_000_000, FieldStageTests.down(0))
        #expect(FieldStageTests.contacts(touch).map(\.kind) == [.down])
        #expect(panel.levels == [.on, .dim, .on])
    }

    @Test("a finger resting on the screen keeps the panel from dimming until it lifts")
    func aRestingFingerHoldsTheDim() {
        var panel = Panel()
        _ = panel.frame(1_000_000, FieldStageTests.down(0))
        #expect(panel.power.nextDeadlineMicros == nil)
        panel.timer(4_000_000)
        #expect(panel.levels == [.on])
        _ = panel.frame(4_500_000, FieldStageTests.up(0))
        #expect(panel.power.nextDeadlineMicros == 6_500_000)
    }

    @Test("a touch while off overtakes an off that is still running: on at once, superseding it")
    func onSupersedesARunningOff() {
        var panel = Panel()
        panel.outcome = nil
        panel.timer(5_000_000)
        let off = panel.commands.last!
        #expect(panel.levels == [.on, .off] && panel.power.running == off)
        _ = panel.frame(5_100_000, FieldStageTests.down(0))
        let on = panel.commands.last!
        #expect(on.level == .on && on.supersedes == off.id)
        // The superseded off's end is only counted; the on's end settles the panel.
        #expect(panel.power.finished(off.id, .superseded, nowMicros: 5_200_000) == nil)
        #expect(panel.power.running == on)
        #expect(panel.power.finished(on.id, .succeeded, nowMicros: 5_300_000) == nil)
        #expect(panel.power.applied == .on && panel.power.counters.superseded == 1)
    }

    @Test("only on overtakes: an idle while an on still runs waits for it, then turns the panel off")
    func offWaitsForARunningOn() {
        var power = PanelPower(settings: Self.backlight, nowMicros: 0)
        let on = power.start(active: true, nowMicros: 0)!
        #expect(power.screenChanged(active: false, nowMicros: 10) == nil)
        let off = power.finished(on.id, .succeeded, nowMicros: 20)
        #expect(off?.level == .off && off?.supersedes == nil)
    }

    @Test("a failing backend is retried after 1, 2, 4 … 60 s, and a success ends the burst")
    func failuresBackOff() {
        var power = PanelPower(settings: Self.backlight, nowMicros: 0)
        var command = power.start(active: false, nowMicros: 0)!
        var now: UInt64 = 0
        var delays: [UInt64] = []
        for _ in 0..<8 {
            #expect(power.finished(command.id, .failed, nowMicros: now) == nil)
            let due = power.nextDeadlineMicros!
            delays.append(due - now)
            #expect(power.advance(nowMicros: due - 1) == nil)
            now = due
            command = power.advance(nowMicros: now)!
            #expect(command.level == .off)
        }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60].map { $0 * 1_000_000 })
        #expect(power.consecutiveFailures == 8 && power.counters.failed == 8 && power.applied == nil)
        _ = power.finished(command.id, .succeeded, nowMicros: now)
        #expect(power.consecutiveFailures == 0 && power.applied == .off && power.nextDeadlineMicros == nil)
    }

    @Test("a timed-out command counts as a failure; while touches come, a failed on is retried within 1 s")
    func touchesRetrySooner() {
        let plain = PanelPowerSettings(backend: .backlight(directory: "/sys/class/backlight/panel", method: .blPower))
        var panel = Panel(settings: plain, idleMicros: 600_000_000, outcome: .failed)
        for _ in 0..<3 { panel.timer(panel.power.nextDeadlineMicros!) }
        // start on, then 3 retries (1, 2, 4 s): the 4th backoff is 8 s.
        #expect(panel.levels == [.on, .on, .on, .on] && panel.power.consecutiveFailures == 4)
        let failedAt = panel.power.nowMicros
        #expect(panel.power.nextDeadlineMicros == failedAt + 8_000_000)
        panel.outcome = nil
        _ = panel.frame(failedAt + 200_000, FieldStageTests.down(0))
        #expect(panel.power.nextDeadlineMicros == failedAt + 1_000_000)
        panel.timer(failedAt + 1_000_000)
        #expect(panel.levels.count == 5 && panel.power.running?.level == .on)
        let retry = panel.power.running!
        _ = panel.power.finished(retry.id, .timedOut, nowMicros: failedAt + 1_500_000)
        #expect(panel.power.counters.timedOut == 1 && panel.power.consecutiveFailures == 5)
    }

    @Test("a change of level is attempted at once, whatever the backoff")
    func aChangeSkipsTheBackoff() {
        var power = PanelPower(settings: Self.backlight, nowMicros: 0)
        let on = power.start(active: true, nowMicros: 0)!
        _ = power.finished(on.id, .failed, nowMicros: 0)
        #expect(power.nextDeadlineMicros == 1_000_000)
        #expect(power.screenChanged(active: false, nowMicros: 10)?.level == .off)
    }

    @Test("setScreenState's retry skips the backoff; a reload's new backend is set at once, over the old")
    func retryNowAndReplaceSettings() {
        var power = PanelPower(settings: Self.backlight, nowMicros: 0)
        let on = power.start(active: true, nowMicros: 0)!
        _ = power.finished(on.id, .failed, nowMicros: 0)
        let retry = power.retryNow(nowMicros: 10)!
        #expect(retry.level == .on && retry.id == on.id + 1)
        _ = power.finished(retry.id, .succeeded, nowMicros: 20)
        let command = PanelPowerSettings(backend: .command(on: ["on"], off: ["off"], dim: nil))
        let next = power.replaceSettings(command, nowMicros: 30)
        #expect(next.level == .on && next.supersedes == nil && power.applied == nil)
        #expect(power.nextDeadlineMicros == nil)
        #expect(power.counters.commands == 3 && power.counters.failed == 1)
        // An off of the old backend still running is superseded: the new backend is set at once, and
        // the old command's end says nothing of it.
        _ = power.finished(next.id, .succeeded, nowMicros: 40)
        let off = power.screenChanged(active: false, nowMicros: 50)!
        let again = power.replaceSettings(Self.backlight, nowMicros: 60)
        #expect(again.level == .off && again.supersedes == off.id)
        #expect(power.finished(off.id, .succeeded, nowMicros: 70) == nil && power.applied == nil)
        _ = power.finished(again.id, .succeeded, nowMicros: 80)
        #expect(power.applied == .off)
    }

    // MARK: - Config

    static func screen(_ keys: String) -> String {
        "{screens: [{name: \"main\", width: 100, height: 100, root: {id: \"r\"}, \(keys)}]}"
    }

    @Test func backendsAreRead() throws {
        let sysfs = try Config.parse(
            Data(
                Self.screen(
                    "idle: {seconds: 60, power: {backlight: \"rpi_backlight\", method: \"brightness\", "
                        + "dim: {seconds: 30, brightness: 20}, timeoutSeconds: 2}}"
                ).utf8), fileName: "test.json5")
        #expect(
            sysfs.fieldSettings["main"]?.power
                == PanelPowerSettings(
                    backend: .backlight(directory: "/sys/class/backlight/rpi_backlight", method: .brightness),
                    dimMicros: 30_000_000, dimBrightnessPercent: 20, timeoutMicros: 2_000_000))
        let command = try Config.parse(
            Data(
                Self.screen(
                    "idle: {seconds: 60, power: {command: {on: [\"wlopm\", \"--on\", \"*\"], "
                        + "off: [\"wlopm\", \"--off\", \"*\"], dim: [\"ddcutil\", \"setvcp\", \"10\", \"20\"]}, "
                        + "dim: {seconds: 50}}}"
                ).utf8), fileName: "test.json5")
        #expect(
            command.fieldSettings["main"]?.power
                == PanelPowerSettings(
                    backend: .command(
                        on: ["wlopm", "--on", "*"], off: ["wlopm", "--off", "*"],
                        dim: ["ddcutil", "setvcp", "10", "20"]),
                    dimMicros: 50_000_000))
        let path = try Config.parse(
            Data(Self.screen("idle: {seconds: 60, power: {backlight: \"/tmp/bl\"}}").utf8), fileName: "test.json5")
        #expect(
            path.fieldSettings["main"]?.power
                == PanelPowerSettings(backend: .backlight(directory: "/tmp/bl", method: .blPower)))
    }

    @Test(arguments: [
        ("power: {}", ConfigErrorCode.missingKey, "\"power\" needs \"backlight\" or \"command\""),
        (
            "power: {backlight: \"a\", command: {on: [\"x\"], off: [\"y\"]}}", .invalidValue,
            "\"power\" takes \"backlight\" or \"command\", not both"
        ),
        (
            "power: {backlight: \"../x\"}", .invalidValue,
            "\"backlight\" must be a name in /sys/class/backlight or an absolute path, found \"../x\""
        ),
        (
            "power: {backlight: \"a\", method: \"dpms\"}", .invalidValue,
            "\"method\" must be \"bl_power\" or \"brightness\", found \"dpms\""
        ),
        ("power: {command: {on: [\"x\"]}}", .missingKey, "\"command\" needs \"off\" (an argv array)"),
        (
            "power: {command: {on: \"wlopm --on\", off: [\"x\"]}}", .invalidValue,
            "\"on\" must be an argv array: 1…64 strings, the program first, found a string"
        ),
        (
            "power: {command: {on: [\"\"], off: [\"x\"]}}", .invalidValue,
            "an argument of \"on\" must be a string of 1…4096 bytes without NUL (the program)"
        ),
        (
            "power: {command: {on: [\"x\", 1], off: [\"x\"]}}", .wrongType,
            "an argument of \"on\" must be a string, found a number"
        ),
        (
            "power: {command: {on: [\"x\"], off: [\"y\"]}, method: \"bl_power\"}", .invalidValue,
            "\"method\" is for a \"backlight\""
        ),
        (
            "power: {backlight: \"a\", timeoutSeconds: 0}", .invalidValue,
            "\"timeoutSeconds\" must be 0.1…600 seconds, found 0"
        ),
        (
            "power: {backlight: \"a\", dim: {seconds: 60, brightness: 10}}", .invalidValue,
            "\"dim.seconds\" must be less than idle's \"seconds\" (the panel dims before it goes off)"
        ),
        (
            "power: {backlight: \"a\", dim: {seconds: 10}}", .missingKey,
            "\"dim\" needs \"brightness\" (percent of the backlight's max_brightness)"
        ),
        (
            "power: {backlight: \"a\", dim: {seconds: 10, brightness: 101}}", .invalidValue,
            "\"brightness\" must be 0…100 percent, found 101"
        ),
        (
            "power: {command: {on: [\"x\"], off: [\"y\"]}, dim: {seconds: 10}}", .missingKey,
            "a command dims with \"command\": {dim: [...]}"
        ),
        (
            "power: {command: {on: [\"x\"], off: [\"y\"], dim: [\"z\"]}, dim: {seconds: 10, brightness: 5}}",
            .invalidValue, "\"brightness\" is for a \"backlight\"; a command dims with \"command.dim\""
        ),
        (
            "power: {command: {on: [\"x\"], off: [\"y\"], dim: [\"z\"]}}", .missingKey,
            "\"command.dim\" needs \"dim\": {seconds: N}"
        ),
        (
            "power: {backlight: \"a\", timeoutSecond: 1}", .unknownKey,
            "unknown key \"timeoutSecond\" (did you mean \"timeoutSeconds\"?)"
        ),
    ])
    func badPowerIsALocatedError(power: String, code: ConfigErrorCode, message: String) {
        do {
            _ = try Config.parse(
                Data(Self.screen("idle: {seconds: 60, \(power)}").utf8), fileName: "test.json5")
            Issue.record("accepted \(power)")
        } catch {
            let found = error.errors.filter { $0.code == code && $0.message == message }
            #expect(found.count == 1, "\(error.errors.map(\.message))")
            #expect(found.first?.line == 1 && found.first?.screenName == "main")
        }
    }
}
