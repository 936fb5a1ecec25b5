/// Panel power's backends, run off the routing loop (docs/field.md, "Panel power"): one thread per
/// screen runs that screen's commands in order — a program (posix_spawn, watched through a pidfd,
/// killed with its process group at its time limit or when an `on` supersedes it) or a few small
/// writes to a sysfs backlight — and hands each outcome to the loop through an eventfd.
import CLinuxEvents
import Dispatch
import Glibc
import Synchronization
import TouchRouterCore
import TouchRouterSystem

/// One command to run on a screen's backend.
struct PowerJob: Sendable {
    var screen: String
    var command: PanelPowerCommand
    var settings: PanelPowerSettings
}

/// How a job ended, with what the log says about it (`detail`: "bl_power 4", "exit status 1:
/// wlopm: …").
struct PowerJobResult: Sendable {
    var screen: String
    var command: PanelPowerCommand
    var outcome: PanelPowerOutcome
    var detail: String
}

/// The screens' lanes and the results waiting for the loop.
final class PowerWorkers: Sendable {
    /// Readable while results wait; registered with the loop.
    let fd: FileDescriptor
    private let results = Mutex<[PowerJobResult]>([])
    private let lanes = Mutex<[String: PowerLane]>([:])

    /// `eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)`.
    init() throws {
        fd = FileDescriptor(rawValue: try checked("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) })
    }

    /// Queues `job` on its screen's lane (made at the screen's first job), first stopping the command
    /// it supersedes. Returns at once.
    func submit(_ job: PowerJob) {
        let lane = lanes.withLock { lanes in
            if let lane = lanes[job.screen] { return lane }
            let lane = PowerLane(screen: job.screen, workers: self)
            lanes[job.screen] = lane
            return lane
        }
        if let old = job.command.supersedes { lane.supersede(old) }
        lane.enqueue(job)
    }

    /// The results that arrived (clears the eventfd).
    func take() -> [PowerJobResult] {
        var count: UInt64 = 0
        _ = try? withUnsafeMutableBytes(of: &count) { try fd.read(into: $0) }
        return results.withLock { taken in
            defer { taken.removeAll() }
            return taken
        }
    }

    /// Waits until every lane has run what it was given, at most until `deadlineMicros` (at stop).
    func waitUntilIdle(deadlineMicros: UInt64) {
        for lane in lanes.withLock({ Array($0.values) }) {
            let now = monotonicMicros()
            guard now < deadlineMicros else { return }
            lane.waitUntilIdle(timeoutMicros: deadlineMicros - now)
        }
    }

    fileprivate func post(_ result: PowerJobResult) {
        results.withLock { $0.append(result) }
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(fd.rawValue, $0.baseAddress, $0.count) }
    }
}

/// One screen's thread: its jobs one at a time, in order. Its `interrupt` eventfd wakes a program's
/// wait when a later job supersedes the one running.
final class PowerLane: Sendable {
    let screen: String
    private unowned let workers: PowerWorkers
    private let thread: DedicatedThread
    private let interrupt: Int32
    /// Commands to stop (running) or skip (queued).
    private let superseded = Mutex<Set<UInt64>>([])
    /// A backlight's brightness before it was dimmed or turned off through `brightness`, by
    /// directory: what `on` writes back.
    private let savedBrightness = Mutex<[String: Int]>([:])

    init(screen: String, workers: PowerWorkers) {
        self.screen = screen
        self.workers = workers
        interrupt = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        // Not urgent: a normal thread at nice 10 (it must not inherit the loop's real-time policy),
        // and so are the programs it starts.
        thread = DedicatedThread(name: "panel-power") { ThreadScheduling.makeBackground(nice: 10) }
    }

    func supersede(_ id: UInt64) {
        superseded.withLock { _ = $0.insert(id) }
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(interrupt, $0.baseAddress, $0.count) }
    }

    func enqueue(_ job: PowerJob) {
        thread.async { [self] in workers.post(run(job)) }
    }

    func waitUntilIdle(timeoutMicros: UInt64) {
        let done = DispatchSemaphoreBox()
        thread.async { done.signal() }
        done.wait(timeoutMicros: timeoutMicros)
    }

    private func isSuperseded(_ id: UInt64) -> Bool {
        superseded.withLock { $0.contains(id) }
    }

    private func run(_ job: PowerJob) -> PowerJobResult {
        // Ids only grow on a screen: older marks are for commands already ended.
        let skip = superseded.withLock { marks in
            marks = marks.filter { $0 >= job.command.id }
            return marks.contains(job.command.id)
        }
        var result = PowerJobResult(screen: job.screen, command: job.command, outcome: .superseded, detail: "")
        if skip {
            result.detail = "never started"
            return result
        }
        switch job.settings.backend {
        case .backlight(let directory, let method):
            (result.outcome, result.detail) = backlight(
                job.command.level, directory: directory, method: method,
                dimPercent: job.settings.dimBrightnessPercent ?? 100)
        case .command(let on, let off, let dim):
            let argv: [String]
            switch job.command.level {
            case .on: argv = on
            case .off: argv = off
            case .dim: argv = dim ?? on
            }
            (result.outcome, result.detail) = runProgram(
                argv, timeoutMicros: job.settings.timeoutMicros, id: job.command.id)
        }
        return result
    }

    // MARK: - A program

    /// Runs `argv` (PATH searched, no shell) with stdin from /dev/null and its output kept (the first
    /// 200 bytes, for the log); kills its process group at `timeoutMicros` or when superseded.
    private func runProgram(_ argv: [String], timeoutMicros: UInt64, id: UInt64) -> (PanelPowerOutcome, String) {
        var pipeEnds: [Int32] = [-1, -1]
        // pipe2 is not imported (_GNU_SOURCE): the lanes are the daemon's only spawners, and a write
        // end leaked into another lane's program for a moment only delays nothing (its end is not waited for).
        guard pipe(&pipeEnds) == 0 else { return (.failed, "cannot start: pipe: \(errnoText())") }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        // Its own process group (killed whole), no signal blocked or ignored (the daemon blocks the
        // ones its signalfd reads and ignores SIGPIPE).
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, &cArguments, environ)
        for argument in cArguments { free(argument) }
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
        Glibc.close(pipeEnds[1])
        guard spawned == 0 else {
            Glibc.close(pipeEnds[0])
            return (.failed, "cannot start \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        let pidfd = pidfd_open(pid, 0)
        guard pidfd >= 0 else {
            let reason = errnoText()
            stop(pid)
            Glibc.close(pipeEnds[0])
            return (.failed, "pidfd_open: \(reason); killed")
        }
        defer { Glibc.close(pidfd) }
        var output = ProgramOutput(fd: pipeEnds[0])
        defer { output.close() }
        let deadline = monotonicMicros() + timeoutMicros
        while true {
            let now = monotonicMicros()
            if now >= deadline {
                stop(pid)
                return (.timedOut, "still running after \(seconds(timeoutMicros)), killed" + output.suffix)
            }
            var fds = [
                pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: interrupt, events: Int16(POLLIN), revents: 0),
                pollfd(fd: output.fd, events: Int16(POLLIN), revents: 0),
            ]
            let waitMillis = Int32(min((deadline - now + 999) / 1000, 60_000))
            guard (try? systemCall("poll") { poll(&fds, nfds_t(output.fd >= 0 ? 3 : 2), waitMillis) }) != nil else {
                stop(pid)
                return (.failed, "poll: \(errnoText())")
            }
            if fds[2].revents != 0 { output.drain() }
            if fds[1].revents != 0 {
                var count: UInt64 = 0
                _ = withUnsafeMutableBytes(of: &count) { Glibc.read(interrupt, $0.baseAddress, $0.count) }
                if isSuperseded(id) {
                    stop(pid)
                    return (.superseded, "killed")
                }
            }
            if fds[0].revents != 0 {
                var status: Int32 = 0
                _ = try? systemCall("waitpid") { waitpid(pid, &status, 0) }
                output.drain()
                // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
                if status & 0x7f == 0 {
                    let code = (status >> 8) & 0xff
                    return code == 0 ? (.succeeded, "exit status 0") : (.failed, "exit status \(code)" + output.suffix)
                }
                return (.failed, "killed by signal \(status & 0x7f)" + output.suffix)
            }
        }
    }

    /// Kills the program's process group and reaps it.
    private func stop(_ pid: pid_t) {
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = try? systemCall("waitpid") { waitpid(pid, &status, 0) }
    }

    // MARK: - A sysfs backlight

    /// `on`: `bl_power` 0 and the saved brightness written back (through `brightness`: the saved
    /// value, or `max_brightness` when it reads 0 and none was saved); `dim`: the brightness saved,
    /// then `dimPercent` of `max_brightness` (never above the saved value); `off`: `bl_power` 4, or
    /// the brightness saved and 0 written.
    private func backlight(
        _ level: PanelPowerLevel, directory: String, method: PanelPowerSettings.BacklightMethod, dimPercent: Double
    ) -> (PanelPowerOutcome, String) {
        let file = BacklightFiles(directory: directory)
        do throws(BacklightError) {
            switch level {
            case .on:
                var done: [String] = []
                if method == .blPower {
                    try file.write("bl_power", 0)
                    done.append("bl_power 0")
                }
                let saved = savedBrightness.withLock { $0.removeValue(forKey: directory) }
                if let saved {
                    try file.write("brightness", saved)
                    done.append("brightness \(saved)")
                } else if method == .brightness, try file.read("brightness") == 0 {
                    let maximum = try file.read("max_brightness")
                    try file.write("brightness", maximum)
                    done.append("brightness \(maximum)")
                }
                return (.succeeded, done.isEmpty ? "unchanged" : done.joined(separator: ", "))
            case .dim:
                let maximum = try file.read("max_brightness")
                let current = try file.read("brightness")
                let saved = savedBrightness.withLock { saved in
                    if saved[directory] == nil, current > 0 { saved[directory] = current }
                    return saved[directory] ?? current
                }
                var target = min(Int((Double(maximum) * dimPercent / 100).rounded()), saved)
                if dimPercent > 0 { target = max(target, 1) }
                try file.write("brightness", target)
                return (.succeeded, "brightness \(target)")
            case .off:
                if method == .blPower {
                    try file.write("bl_power", 4)
                    return (.succeeded, "bl_power 4")
                }
                let current = try file.read("brightness")
                savedBrightness.withLock { saved in
                    if saved[directory] == nil, current > 0 { saved[directory] = current }
                }
                try file.write("brightness", 0)
                return (.succeeded, "brightness 0")
            }
        } catch {
            return (.failed, error.description)
        }
    }
}

/// A backlight directory's files: small integer reads and writes (`N\n`, as sysfs shows them).
struct BacklightFiles {
    let directory: String

    func read(_ name: String) throws(BacklightError) -> Int {
        let path = directory + "/" + name
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BacklightError(path: path, what: "cannot read", errno: errno) }
        defer { Glibc.close(fd) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw BacklightError(path: path, what: "cannot read", errno: errno) }
        let text = String(
            decoding: bytes[..<count].filter { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: " ") }, as: UTF8.self)
        guard let value = Int(text), value >= 0 else {
            throw BacklightError(path: path, what: "not a number: \"\(Excerpt.of(text))\"", errno: 0)
        }
        return value
    }

    func write(_ name: String, _ value: Int) throws(BacklightError) {
        let path = directory + "/" + name
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw BacklightError(path: path, what: "cannot write", errno: errno) }
        defer { Glibc.close(fd) }
        let bytes = Array("\(value)\n".utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw BacklightError(path: path, what: "cannot write \(value)", errno: written < 0 ? errno : EIO)
        }
    }
}

/// A backlight file that could not be read or written.
struct BacklightError: Error, CustomStringConvertible {
    var path: String
    var what: String
    var errno: Int32

    var description: String {
        "\(what) \(path)" + (errno == 0 ? "" : ": \(String(cString: strerror(errno)))")
    }
}

/// A program's output pipe: the first 200 bytes kept for the log, the rest read and dropped.
private struct ProgramOutput {
    private(set) var fd: Int32
    private var kept: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Reads what is there; closes the pipe at its end.
    mutating func drain() {
        guard fd >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                kept.append(contentsOf: buffer[..<min(count, max(0, 200 - kept.count))])
                continue
            }
            if count == 0 { close() }
            return
        }
    }

    mutating func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// ": " and the output's first line, for a log line; empty when there was none.
    var suffix: String {
        let text = String(decoding: kept, as: UTF8.self)
        let first = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return first.isEmpty ? "" : ": \(Excerpt.of(first))"
    }
}

/// A semaphore with a timeout in µs.
private final class DispatchSemaphoreBox: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func signal() { semaphore.signal() }
    func wait(timeoutMicros: UInt64) {
        _ = semaphore.wait(timeout: .now() + .microseconds(Int(min(timeoutMicros, 3_600_000_000))))
    }
}

private func errnoText() -> String { String(cString: strerror(errno)) }

private func seconds(_ micros: UInt64) -> String {
    micros % 1_000_000 == 0 ? "\(micros / 1_000_000) s" : "\(Double(micros) / 1_000_000) s"
}
