/// Panel power on idle (docs/field.md, "Panel power"): the panel's backend settings, and the pure
/// state machine that says which backend command to run when (active → dim → off, a touch → on),
/// with its retries. The daemon runs the commands off the routing loop and reports each one's end.

/// What the panel should show: lit, dimmed, or dark.
public enum PanelPowerLevel: String, Hashable, Sendable, CaseIterable {
    case on, dim, off
}

/// A screen's `idle.power` key: the backend that turns its panel off, on and (optionally) dim.
public struct PanelPowerSettings: Hashable, Sendable {
    /// How a panel is switched.
    public enum Backend: Hashable, Sendable {
        /// A sysfs backlight directory (`/sys/class/backlight/NAME`, or any directory laid out like
        /// one): off through `bl_power` (4 off, 0 on) or through `brightness` (0, the previous value
        /// saved and restored); dim writes `brightness`.
        case backlight(directory: String, method: BacklightMethod)
        /// Programs run as argv arrays (no shell) for on, off and, when given, dim.
        case command(on: [String], off: [String], dim: [String]?)
    }

    /// Which backlight file turns the panel off.
    public enum BacklightMethod: String, Hashable, Sendable, CaseIterable {
        /// `bl_power`: 4 (FB_BLANK_POWERDOWN) off, 0 on; the brightness is left as it is.
        case blPower = "bl_power"
        /// `brightness`: 0 off; the value it had is saved and written back for on.
        case brightness
    }

    public var backend: Backend
    /// `dim.seconds` in µs: the panel dims after this long without a touch (before `idle.seconds`
    /// turns it off). Nil: it never dims.
    public var dimMicros: UInt64?
    /// `dim.brightness`: the dimmed brightness in percent of `max_brightness` (a backlight only).
    public var dimBrightnessPercent: Double?
    /// `timeoutSeconds` in µs: a command still running after this long is killed and counts as
    /// failed (timed out).
    public var timeoutMicros: UInt64

    /// The default `timeoutSeconds`: 10 s (ddcutil takes a second or two on a slow I²C bus).
    public static let defaultTimeoutMicros: UInt64 = 10_000_000

    public init(
        backend: Backend, dimMicros: UInt64? = nil, dimBrightnessPercent: Double? = nil,
        timeoutMicros: UInt64 = PanelPowerSettings.defaultTimeoutMicros
    ) {
        self.backend = backend
        self.dimMicros = dimMicros
        self.dimBrightnessPercent = dimBrightnessPercent
        self.timeoutMicros = timeoutMicros
    }

    /// `backlight` or `command`, as `status` names the backend.
    public var backendName: String {
        if case .backlight = backend { return "backlight" }
        return "command"
    }
}

/// One backend command the machine asks the daemon to run. `id` names it when it ends
/// (`PanelPower.finished`); `supersedes` is a command still running that must be stopped first,
/// because a touch's `on` never waits for an `off` that hangs.
public struct PanelPowerCommand: Hashable, Sendable {
    public var id: UInt64
    public var level: PanelPowerLevel
    public var supersedes: UInt64?

    public init(id: UInt64, level: PanelPowerLevel, supersedes: UInt64? = nil) {
        self.id = id
        self.level = level
        self.supersedes = supersedes
    }
}

/// How a command ended.
public enum PanelPowerOutcome: String, Hashable, Sendable {
    /// The backend did it (the program exited 0; the file was written).
    case succeeded
    /// The program exited non-zero or could not start; the file could not be read or written.
    case failed
    /// The program was still running at `timeoutSeconds` and was killed.
    case timedOut
    /// A later command replaced it: stopped, or never started.
    case superseded
}

/// A screen's power counters, totals since start (kept across reloads). `status` lists them.
public struct PanelPowerCounters: Hashable, Sendable {
    /// Commands started.
    public var commands: UInt64 = 0
    public var succeeded: UInt64 = 0
    public var failed: UInt64 = 0
    public var timedOut: UInt64 = 0
    public var superseded: UInt64 = 0

    public init() {}
}

/// One screen's panel power: which level the panel should be at (`wanted`), what the backend last
/// did (`applied`), the command in flight, and the retry after a failure. Pure: the daemon gives it
/// the field stage's word (the screen went idle or active, its quiet spell), the time, and each
/// command's end; it hands back the command to run, if any.
///
/// Rules:
/// - `active` → on; `idle` (timeout or `setScreenState` off) → off; after `dim.seconds` with no
///   touch on an active screen → dim; any touch while dim → on.
/// - One command at a time, except that an `on` supersedes a command still running (the daemon
///   stops it first): a touch while "off" always attempts "on" at once.
/// - A failed or timed-out command leaves the panel's state unknown and is retried after 1, 2, 4 …
///   60 s; while touches keep coming and the panel is not known to be on, within 1 s of a touch.
///   A change of level (idle, active, dim) is attempted at once.
/// - At `start`, the panel is switched on (its state is not known: a daemon that stopped while it
///   was dark must not leave it so).
///
/// Time is the caller's clock (the Router's), never decreasing: an earlier time counts as the
/// latest one seen.
public struct PanelPower: Sendable {
    /// While touches come and the panel is not known to be on, a failed `on` is retried this soon.
    public static let touchRetryMicros: UInt64 = 1_000_000
    /// The first retry after a failure; each further failure doubles it, up to `maximumBackoffMicros`.
    public static let firstBackoffMicros: UInt64 = 1_000_000
    public static let maximumBackoffMicros: UInt64 = 60_000_000

    public private(set) var settings: PanelPowerSettings
    /// The level the panel should be at.
    public private(set) var wanted = PanelPowerLevel.on
    /// The level the last successful command set; nil when not known (before the first command,
    /// after a failure or a superseded command).
    public private(set) var applied: PanelPowerLevel?
    /// The command in flight.
    public private(set) var running: PanelPowerCommand?
    public private(set) var counters = PanelPowerCounters()
    /// Failed or timed-out commands since the last success: a burst (the daemon logs its first).
    public private(set) var consecutiveFailures: UInt64 = 0
    public private(set) var nowMicros: UInt64
    private var retryDueMicros: UInt64?
    private var lastFailureMicros: UInt64?
    /// The field stage's latest quiet spell start (nil: a finger is down, or the screen is not
    /// active); a change is a touch.
    private var quietSinceMicros: UInt64?
    private var nextID: UInt64

    /// A machine for `settings` at `nowMicros`; command ids start at `firstCommandID`.
    public init(settings: PanelPowerSettings, nowMicros: UInt64, firstCommandID: UInt64 = 1) {
        self.settings = settings
        self.nowMicros = nowMicros
        nextID = firstCommandID
        quietSinceMicros = nowMicros
    }

    /// The first command: the panel to the screen's state (`active`: on, else off).
    public mutating func start(active: Bool, nowMicros given: UInt64) -> PanelPowerCommand? {
        advanceClock(given)
        wanted = active ? .on : .off
        return reconcile(force: true)
    }

    /// The screen went active (on) or idle (off), from a touch, a timeout or `setScreenState`.
    public mutating func screenChanged(active: Bool, nowMicros given: UInt64) -> PanelPowerCommand? {
        advanceClock(given)
        wanted = active ? .on : .off
        retryDueMicros = nil
        return reconcile(force: true)
    }

    /// The field stage's word after it handled an event: since when the screen has been quiet
    /// (nil while a contact is down or the screen is not active). A change is a touch: a dimmed
    /// panel comes on, and a failed `on` is retried within `touchRetryMicros`.
    public mutating func noteField(quietSinceMicros quiet: UInt64?, nowMicros given: UInt64) -> PanelPowerCommand? {
        advanceClock(given)
        guard quiet != quietSinceMicros else { return nil }
        quietSinceMicros = quiet
        if wanted == .dim {
            wanted = .on
            return reconcile(force: true)
        }
        if wanted == .on, applied != .on, let failed = lastFailureMicros {
            retryDueMicros = min(retryDueMicros ?? .max, failed + Self.touchRetryMicros)
        }
        return reconcile(force: false)
    }

    /// A timer went off: dims a quiet panel, retries a failed command that is due.
    public mutating func advance(nowMicros given: UInt64) -> PanelPowerCommand? {
        advanceClock(given)
        if let due = dimDueMicros, due <= nowMicros {
            wanted = .dim
            return reconcile(force: true)
        }
        return reconcile(force: false)
    }

    /// An admin asked for the screen's state again (`setScreenState`): a failed command is retried
    /// now, not after its backoff.
    public mutating func retryNow(nowMicros given: UInt64) -> PanelPowerCommand? {
        advanceClock(given)
        retryDueMicros = nil
        return reconcile(force: true)
    }

    /// A command ended. The end of one that was superseded is only counted.
    public mutating func finished(
        _ id: UInt64, _ outcome: PanelPowerOutcome, nowMicros given: UInt64
    ) -> PanelPowerCommand? {
        advanceClock(given)
        switch outcome {
        case .succeeded: counters.succeeded += 1
        case .failed: counters.failed += 1
        case .timedOut: counters.timedOut += 1
        case .superseded: counters.superseded += 1
        }
        guard let command = running, command.id == id else { return nil }
        running = nil
        switch outcome {
        case .succeeded:
            applied = command.level
            consecutiveFailures = 0
            lastFailureMicros = nil
            retryDueMicros = nil
        case .failed, .timedOut, .superseded:
            applied = nil
            consecutiveFailures += 1
            lastFailureMicros = nowMicros
            let shift = min(consecutiveFailures - 1, 6)
            retryDueMicros = nowMicros + min(Self.firstBackoffMicros << shift, Self.maximumBackoffMicros)
        }
        return reconcile(force: false)
    }

    /// A reload gave the screen other power settings: the new backend's state is not known, so the
    /// panel is set to the wanted level through it at once, superseding a command of the old one
    /// still running (whose end then says nothing of the new backend). Counters and ids go on.
    public mutating func replaceSettings(_ new: PanelPowerSettings, nowMicros given: UInt64) -> PanelPowerCommand {
        advanceClock(given)
        settings = new
        applied = nil
        consecutiveFailures = 0
        retryDueMicros = nil
        lastFailureMicros = nil
        if wanted == .dim && new.dimMicros == nil { wanted = .on }
        return begin(wanted, superseding: running?.id)
    }

    /// When `advance` must be called next: the dim deadline, or a retry; nil when nothing waits.
    public var nextDeadlineMicros: UInt64? {
        var due = dimDueMicros
        if running == nil, applied != wanted, let retry = retryDueMicros { due = min(due ?? .max, retry) }
        return due
    }

    /// When a quiet, lit panel dims.
    private var dimDueMicros: UInt64? {
        guard wanted == .on, let dim = settings.dimMicros, let quiet = quietSinceMicros else { return nil }
        return quiet + dim
    }

    private mutating func advanceClock(_ given: UInt64) { nowMicros = max(nowMicros, given) }

    /// The command that brings the panel to `wanted`, if one is to run now. `force`: a change of
    /// level, run without waiting for a retry's backoff.
    private mutating func reconcile(force: Bool) -> PanelPowerCommand? {
        if let current = running {
            // Only an `on` overtakes: the panel must light for a touch; anything else waits its turn.
            guard current.level != wanted, wanted == .on else { return nil }
            return begin(.on, superseding: current.id)
        }
        guard applied != wanted else { return nil }
        if !force, let due = retryDueMicros, due > nowMicros { return nil }
        return begin(wanted, superseding: nil)
    }

    private mutating func begin(_ level: PanelPowerLevel, superseding: UInt64?) -> PanelPowerCommand {
        let command = PanelPowerCommand(id: nextID, level: level, supersedes: superseding)
        nextID += 1
        running = command
        counters.commands += 1
        retryDueMicros = nil
        return command
    }

    /// The id the next command will have (a replacing machine starts there).
    public var nextCommandID: UInt64 { nextID }
}
