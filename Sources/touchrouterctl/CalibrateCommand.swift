import Dispatch
import Glibc
import TouchRouterClient
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol

/// `touchrouterctl calibrate --screen S [--points N] [--verify] [--apply] [--json] [--fbdev PATH]`:
/// runs a calibration session on the daemon (docs/calibration.md): one press per target, the
/// daemon's fit, the matrix printed ready to paste, and with `--apply` written into the config,
/// which the daemon then reloads.
enum CalibrateCommand: Command {
    static let spec = CommandSpec(
        name: "calibrate",
        abstract: "Calibrate a screen's touch panel: one press per target, the matrix printed or applied.",
        options: [
            ToolOption.screen.described("The screen to calibrate (default: the daemon's first screen)."),
            points, verify, apply, config, fbdev, timeout, maximumError,
            ToolOption.json.described("Print the result as one JSON object (the prompts go to stderr)."),
            ToolOption.socket,
        ],
        discussion: """
            Shows one target at a time (drawn on --fbdev, and always printed: "touch the target at
            80, 48 (1 of 4)", so another program can draw it), each pressed once with one finger.
            A refused press (two fingers, another device, a bounce) is explained and asked again.
            The daemon measures the presses without the screen's current calibration, so a re-run
            never compounds the old matrix, and fits the matrix. --verify asks for one more press on
            a point no other target shares and reports how far it lands from its target. With
            --apply the screen's calibration in the config file is replaced (every other byte kept),
            the old file is kept as FILE.bak, and the daemon reloads; if the reload fails the old
            file is put back. Ctrl-C cancels the session. Admin only (root or the daemon's user).
            Exit status: 0 done; 1 failed (no daemon, refused, the session ended, the fit or the
            file failed); 2 a wrong command line; 3 the verification point or the largest
            residual is off by more than --max-error (nothing applied); 130 interrupted.
            """)

    static let points = Option.choice(
        "points", valueName: "N", help: "Targets to press.",
        choices: CalibrationTargets.counts.map { (name: String($0), value: $0) }, default: 4, named: "4",
        parse: { text in Int(text).flatMap { CalibrationTargets.counts.contains($0) ? $0 : nil } })
    static let verify = Option.flag("verify", help: "Press one more, held-out target and report its error.")
    static let apply = Option.flag(
        "apply", help: "Write the matrix into the config file (FILE.bak keeps the old one) and reload.")
    /// The config the packaged unit and scripts/install run the daemon with (it has no default).
    static let config = Option.path(
        "config", valueName: "FILE", help: "The daemon's config file, for --apply.",
        default: "/etc/touchrouter/touchrouter.json5")
    static let fbdev = Option.text(
        "fbdev", valueName: "PATH", help: "Draw the targets on this framebuffer device (e.g. /dev/fb0).")
    static let timeout = Option<Int64>.integer(
        "timeout", valueName: "SECONDS", help: "End the session when no press came for this long.", in: 1...600,
        default: 120)
    static let maximumError = Option.number(
        "max-error", valueName: "MM",
        help: "The verification error and the largest residual allowed, in millimetres.", in: 0.1...1000, default: 5)

    /// One measured target: where it was shown and the sample its press gave.
    struct Measured {
        var target: Point
        var sample: CalibrationSample
    }

    /// What the session loop reads: the daemon's messages, an interrupt, the connection's end.
    enum Input: Sendable {
        case event(ClientEvent)
        case interrupted
        case closed
    }

    /// Where the prompts go: stdout, or stderr when stdout is the JSON result.
    struct Output: Sendable {
        var json: Bool
        func prompt(_ line: String) {
            if json { StandardError.print(line) } else { LineOutput.print(line) }
        }
    }

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        let settings = Settings(arguments)
        var original: [UInt8] = []
        if settings.apply {
            // Refuse before anyone presses anything: the file must be readable and have the screen.
            do {
                original = try readConfigFile(path: settings.configPath)
            } catch {
                StandardError.print("touchrouterctl calibrate: \(error)")
                return .failure
            }
            if let screen = settings.screen, let failure = editFailure(original, screen: screen, settings) {
                StandardError.print(failure)
                return .failure
            }
        }
        var framebuffer: FramebufferTargets?
        if let path = settings.fbdevPath {
            do {
                framebuffer = try FramebufferTargets(path: path)
            } catch {
                StandardError.print("touchrouterctl calibrate: \(error)")
                return .failure
            }
        }
        let display = UncheckedBox(framebuffer)
        let preloaded = original
        return runBlocking {
            let code = await session(arguments, settings, display.value, original: preloaded)
            display.value?.restore()
            return code
        }
    }

    /// The command line's values.
    struct Settings: Sendable {
        var screen: String?
        var count: Int
        var verify: Bool
        var apply: Bool
        var json: Bool
        var configPath: String
        var fbdevPath: String?
        var timeoutMillis: Int64
        var maximumErrorMillimetres: Double

        init(_ arguments: ParsedArguments) {
            screen = arguments.value(ToolOption.screen)
            count = arguments.value(CalibrateCommand.points)
            verify = arguments.value(CalibrateCommand.verify)
            apply = arguments.value(CalibrateCommand.apply)
            json = arguments.value(ToolOption.json)
            configPath = arguments.value(CalibrateCommand.config)
            fbdevPath = arguments.value(CalibrateCommand.fbdev)
            timeoutMillis = arguments.value(CalibrateCommand.timeout) * 1000
            maximumErrorMillimetres = arguments.value(CalibrateCommand.maximumError)
        }
    }

    /// The whole session on one connection; the exit code.
    static func session(
        _ arguments: ParsedArguments, _ settings: Settings, _ framebuffer: FramebufferTargets?, original: [UInt8]
    ) async -> ExitCode {
        guard let client = await connectToDaemon(arguments, command: "calibrate") else { return .failure }
        let output = Output(json: settings.json)
        var screenName = settings.screen ?? ""
        if settings.screen == nil {
            guard let first = client.welcome.screens.first?.name else {
                StandardError.print("touchrouterctl calibrate: the daemon's layout has no screen")
                return .failure
            }
            screenName = first
            if settings.apply, let failure = editFailure(original, screen: first, settings) {
                StandardError.print(failure)
                return .failure
            }
        }
        let (inputs, sink) = AsyncStream<Input>.makeStream()
        let forwarding = Task {
            for await event in client.events { sink.yield(.event(event)) }
            sink.yield(.closed)
        }
        defer { forwarding.cancel() }
        let interrupts = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { sink.yield(.interrupted) }
            source.resume()
            return source
        }
        defer { for source in interrupts { source.cancel() } }

        let started: CalibrationStarted
        do {
            let reply = try await client.request(
                .calibrationStart(
                    screen: screenName, timeoutMillis: settings.timeoutMillis,
                    minimumGapMillis: CalibrationLimits.defaultMinimumGapMillis))
            guard case .calibrationStarted(let value) = reply else { throw ClientError.unexpectedReply(reply) }
            started = value
        } catch {
            StandardError.print("touchrouterctl calibrate: \(error)")
            return .failure
        }
        var targets = CalibrationTargets.targets(count: settings.count, width: started.width, height: started.height)!
        if settings.verify {
            targets.append(CalibrationTargets.verification(width: started.width, height: started.height))
        }
        var measured: [Measured] = []
        var iterator = inputs.makeAsyncIterator()
        for (index, target) in targets.enumerated() {
            framebuffer?.show(target, layoutWidth: started.width, layoutHeight: started.height)
            let held = settings.verify && index == targets.count - 1 ? ", the verification point" : ""
            output.prompt(
                "touch the target at \(HitTestCommand.number(target.x)), \(HitTestCommand.number(target.y))"
                    + " (\(index + 1) of \(targets.count)\(held))")
            waiting: while true {
                switch await iterator.next() ?? .closed {
                case .event(.calibrationSample(let sample)):
                    measured.append(Measured(target: target, sample: sample))
                    output.prompt(
                        "  pressed at \(CalibrationEdit.decimal(sample.screenPoint.x, places: 1)), "
                            + "\(CalibrationEdit.decimal(sample.screenPoint.y, places: 1))")
                    break waiting
                case .event(.calibrationRefused(_, _, let message)):
                    StandardError.print("  refused: \(message); touch the target again")
                case .event(.calibrationEnded(_, let reason)):
                    StandardError.print("touchrouterctl calibrate: the daemon ended the session (\(reason.rawValue))")
                    return .failure
                case .event(.error(let error)):
                    StandardError.print("touchrouterctl calibrate: touchrouterd: \(error)")
                    return .failure
                case .event:
                    continue
                case .interrupted:
                    _ = try? await client.request(.calibrationCancel)
                    StandardError.print("touchrouterctl calibrate: interrupted; the session is cancelled")
                    return .interrupted
                case .closed:
                    StandardError.print("touchrouterctl calibrate: the daemon closed the connection")
                    return .failure
                }
            }
        }
        let presses = measured.map { CalibrationPress(target: $0.target, normalized: $0.sample.normalized) }
        let result: CalibrationResult
        do {
            let reply = try await client.request(
                .calibrationFinish(
                    points: settings.verify ? Array(presses.dropLast()) : presses,
                    verify: settings.verify ? presses.last : nil))
            guard case .calibrationResult(let value) = reply else { throw ClientError.unexpectedReply(reply) }
            result = value
        } catch {
            StandardError.print("touchrouterctl calibrate: \(error)")
            return .failure
        }
        return await finish(result, started: started, settings, client: client, original: original)
    }

    /// Checks the result against `--max-error`, applies it when asked, prints it; the exit code.
    static func finish(
        _ result: CalibrationResult, started: CalibrationStarted, _ settings: Settings, client: TouchRouterClient,
        original: [UInt8]
    ) async -> ExitCode {
        // Without the screen's physical size, millimetres are at 96 layout units per inch.
        let millimetresPerUnit = started.millimetresPerUnit ?? 25.4 / 96
        var problems: [String] = []
        let limit = CalibrationEdit.decimal(settings.maximumErrorMillimetres, places: 3)
        if let verification = result.verification {
            let millimetres = verification.millimetres ?? verification.units * millimetresPerUnit
            if millimetres > settings.maximumErrorMillimetres {
                problems.append(
                    "the verification point lands \(CalibrationEdit.decimal(millimetres, places: 1)) mm from its"
                        + " target, more than --max-error \(limit) mm")
            }
        }
        let largest = result.maximumResidual * millimetresPerUnit
        if largest > settings.maximumErrorMillimetres {
            problems.append(
                "a press lands \(CalibrationEdit.decimal(largest, places: 1)) mm from its target through the fit,"
                    + " more than --max-error \(limit) mm (pressed off target?)")
        }
        var applied: Applied?
        var code = ExitCode.success
        if !problems.isEmpty {
            for problem in problems { StandardError.print("touchrouterctl calibrate: \(problem)") }
            if settings.apply { StandardError.print("touchrouterctl calibrate: the config file is not changed") }
            code = .outOfTolerance
        } else if settings.apply {
            switch await applyResult(result, settings, client: client) {
            case .success(let done): applied = done
            case .failure(let message):
                StandardError.print("touchrouterctl calibrate: \(message)")
                code = .failure
            }
        }
        printResult(result, applied: applied, settings)
        return code
    }

    /// What `--apply` did.
    struct Applied {
        var configPath: String
        var backupPath: String
        var generation: UInt64
    }

    struct ApplyFailure: Error {
        var message: String
    }

    /// Writes the backup and the edited file, reloads; puts the old file back when the reload fails.
    static func applyResult(
        _ result: CalibrationResult, _ settings: Settings, client: TouchRouterClient
    ) async -> Result<Applied, ApplyFailure> {
        let path = settings.configPath
        let backup = path + ".bak"
        let current: [UInt8]
        let edited: [UInt8]
        do {
            // Read again: the file may have changed while the presses were made.
            current = try readConfigFile(path: path)
            edited = try CalibrationEdit.apply(matrix: result.matrix, screen: result.screen, to: current)
        } catch {
            return .failure(ApplyFailure(message: "\(path): \(error)"))
        }
        do {
            try ConfigFileReplacement.write(current, to: backup, like: path)
            try ConfigFileReplacement.write(edited, to: path)
        } catch {
            return .failure(ApplyFailure(message: "\(path) is unchanged: cannot write it: \(error)"))
        }
        do {
            let generation = try await client.reload()
            return .success(Applied(configPath: path, backupPath: backup, generation: generation))
        } catch {
            let restored: String
            do {
                try ConfigFileReplacement.write(current, to: path)
                restored = "the old file is put back"
            } catch {
                restored = "the old file could NOT be put back (\(error)); it is in \(backup)"
            }
            return .failure(
                ApplyFailure(message: "the daemon did not reload \(path) (\(error)); \(restored)"))
        }
    }

    /// With the same presses, the same text: numbers at fixed decimals (`CalibrationEdit.decimal`).
    static func printResult(_ result: CalibrationResult, applied: Applied?, _ settings: Settings) {
        let residuals = result.residuals.map { CalibrationEdit.decimal($0, places: 3) }
        let maximum = CalibrationEdit.decimal(result.maximumResidual, places: 3)
        if settings.json {
            var line = "{\"screen\":\(HitTestCommand.jsonString(result.screen))"
            line += ",\"matrix\":[" + result.matrix.map { CalibrationEdit.decimal($0) }.joined(separator: ",") + "]"
            line += ",\"residuals\":[" + residuals.joined(separator: ",") + "],\"maximumResidual\":\(maximum)"
            if let verification = result.verification {
                line += ",\"verification\":{\"units\":\(CalibrationEdit.decimal(verification.units, places: 3))"
                line +=
                    ",\"millimetres\":"
                    + (verification.millimetres.map { CalibrationEdit.decimal($0, places: 3) } ?? "null") + "}"
            } else {
                line += ",\"verification\":null"
            }
            if let applied {
                line += ",\"applied\":{\"config\":\(HitTestCommand.jsonString(applied.configPath))"
                line +=
                    ",\"backup\":\(HitTestCommand.jsonString(applied.backupPath)),\"generation\":\(applied.generation)}"
            } else {
                line += ",\"applied\":null"
            }
            LineOutput.print(line + "}")
            return
        }
        LineOutput.print("calibration: \(CalibrationEdit.matrixText(result.matrix))")
        LineOutput.print("residuals: \(residuals.joined(separator: ", ")) layout units (largest \(maximum))")
        if let verification = result.verification {
            LineOutput.print(
                "verification: \(CalibrationEdit.decimal(verification.units, places: 3)) layout units"
                    + (verification.millimetres.map { ", \(CalibrationEdit.decimal($0, places: 3)) mm" } ?? ""))
        }
        if let applied {
            LineOutput.print(
                "applied to \(applied.configPath) (the old file is \(applied.backupPath)); the daemon reloaded it"
                    + " (layout generation \(applied.generation))")
        }
    }

    /// Why `--apply` could not edit `text` for `screen`, worded for the user; nil when it can.
    static func editFailure(_ text: [UInt8], screen: String, _ settings: Settings) -> String? {
        do {
            _ = try CalibrationEdit.apply(matrix: ScreenMapping.identityCalibration, screen: screen, to: text)
            return nil
        } catch {
            return "touchrouterctl calibrate: --apply: \(settings.configPath): \(error)"
        }
    }
}

/// A value handed into the command's one async task (the framebuffer is used by that task alone).
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
