/// Reloads and run-time layout changes are built off the routing thread: reading the file,
/// parsing, validating, applying `setView`/`mount`/`unmount`, the hit-test index, access lists
/// and subscriptions all grow with the config, so none of them may run on the loop. The loop only
/// swaps the finished result in (`Daemon.applyReload`), in time proportional to the touches that
/// are down.
import CLinuxEvents
import Dispatch
import Glibc
import Synchronization
import TouchRouterCore
import TouchRouterInput
import TouchRouterSystem

/// Everything a new config needs, built and checked on the worker.
struct PreparedReload: Sendable {
    var config: Config
    var layout: PreparedLayout
    var access: AccessPolicy
    /// The new layout's view count, for the log line (counting walks the whole tree).
    var viewCount: Int
    /// The screens that pass touches through, and with which devices (the walk is the worker's).
    var passthroughNeeds: [PassthroughNeed] = []
    /// The virtual devices of the needs that are new in this build, by screen, made here: creating
    /// one waits on the kernel (UI_DEV_CREATE, the node's creation), which the loop must not.
    var passthroughDevices: [String: PassthroughDevices] = [:]
}

/// What reading the file gave.
enum ReloadOutcome: Sendable {
    /// The file was not to be read (a build of run-time changes only).
    case notRead
    /// The file did not load or validate; the file's part changes nothing.
    case failed(ConfigErrors)
    /// The file is valid and equal to the running config's file.
    case unchanged
    /// The file changed.
    case changed
}

/// What a build ended with: the file's outcome, the run-time requests' answers (in order), the
/// new run-time layout, and, when the effective layout changed, everything to swap in.
struct LayoutBuild: Sendable {
    var file: ReloadOutcome
    var runtime: RuntimeLayout
    var answers: [RuntimeAnswer]
    var ready: PreparedReload?
    /// The subscription table for the build's layout, when it or the subscriptions changed. The
    /// loop's table changes only through builds, so this one replaces it as it is.
    var subscriptions: SubscriptionTable?
    /// Subscriptions the build ended (their mounted views went or changed owner), per client.
    var endedSubscriptions: [ClientID: [SubscriptionTable.EndReason: [String]]] = [:]
    /// When the file changed: the names in its owner lists that match no user or group.
    var unknownOwnerNames: [String] = []
    /// The worker thread's CPU time for the build, µs (what the build cost, without the time the
    /// machine gave other threads).
    var cpuMicros: UInt64 = 0
}

/// The layout worker: builds one reload or batch of run-time changes at a time (the loop starts
/// the next only when the last is taken) and signals the loop through an eventfd when the outcome
/// is ready. Builds run on a serial dispatch queue at nice 10; a build of clients' run-time changes
/// alone, while the loop runs at `SCHED_FIFO`, runs instead on a thread of its own at the daemon's
/// normal priority (`start(urgent:)`; docs/operations.md, "Run-time changes").
final class ReloadWorker: Sendable {
    /// Readable when an outcome waits; registered with the loop.
    let fd: FileDescriptor
    private let queue = DispatchQueue(label: "touchrouterd.reload")
    /// The thread for urgent builds, made at the first one.
    private let urgentLane = Mutex<DedicatedThread?>(nil)
    private let outcome = Mutex<LayoutBuild?>(nil)
    /// A build runs, and whether the daemon gave up waiting for it (`abandonBuild`).
    private let state = Mutex<BuildState>(.idle)

    private enum BuildState {
        case idle, building, abandoned
    }

    /// `eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)`.
    init() throws {
        fd = FileDescriptor(
            rawValue: try checked("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) })
    }

    /// Starts building: the file at `path` read again (when given) under the running state
    /// `current`, then `work` applied in order, then the new layout's tables, if it changed.
    /// `subscriptions`, `access` and `generation` are the live table, access policy and layout
    /// generation (queries are answered from them as the build leaves them). `urgent`: a client waits for it and the
    /// loop cannot be delayed by a normal thread (it is `SCHED_FIFO`), so it runs at the daemon's
    /// normal priority instead of nice 10. `makesDevices`: passthrough's new virtual devices are
    /// made here (not in replay mode). Returns at once.
    func start(
        path: String?, current: RuntimeLayout, work: [RuntimeWork], limits: RuntimeLimits,
        subscriptions: SubscriptionTable, access: AccessPolicy, generation: UInt64, urgent: Bool = false,
        makesDevices: Bool = false
    ) {
        state.withLock { $0 = .building }
        let job: @Sendable () -> Void = { [self] in
            build(
                path: path, current: current, work: work, limits: limits,
                queries: QueryPhase(table: subscriptions, access: access, generation: generation),
                makesDevices: makesDevices)
        }
        guard urgent else {
            queue.async {
                // The routing loop comes first: on a busy machine a long build must not take its core.
                // A thread inherits its creator's policy, so under `--realtime-priority` this one would
                // be SCHED_FIFO beside the loop: it drops to a normal thread at nice 10 first.
                ThreadScheduling.makeBackground(nice: 10)
                job()
            }
            return
        }
        // A thread of its own: a pool thread may have been reniced by an earlier build, and an
        // unprivileged thread cannot take a renice back.
        let lane = urgentLane.withLock { lane in
            if lane == nil { lane = DedicatedThread(name: "layout-urgent") { ThreadScheduling.makeNormal() } }
            return lane!
        }
        lane.async(job)
    }

    private func build(
        path: String?, current: RuntimeLayout, work: [RuntimeWork], limits: RuntimeLimits, queries: QueryPhase,
        makesDevices: Bool
    ) {
        let cpuStart = threadCPUMicros()
        var runtime = current
        var file = ReloadOutcome.notRead
        if let path {
            do throws(ConfigErrors) {
                let config = try loadConfig(path: path)
                if config == current.base {
                    file = .unchanged
                } else {
                    // The run-time state stays for every view the new file still has.
                    runtime = RuntimeLayout(base: config, state: current.state)
                    file = .changed
                }
            } catch {
                file = .failed(error)
            }
        }
        var decoded: [JSONNode] = []
        var answers = work.map { $0.run(on: &runtime, limits: limits, decoded: &decoded) }
        var ready: PreparedReload?
        let layoutChanged = runtime.effective != current.effective
        var queries = queries
        if layoutChanged {
            let config = runtime.effective
            ready = PreparedReload(
                config: config, layout: PreparedLayout(config.layout), access: AccessPolicy(config: config),
                viewCount: runtime.viewCount, passthroughNeeds: PassthroughNeed.of(config))
            if makesDevices {
                let running = Set(PassthroughNeed.of(current.effective))
                for need in ready!.passthroughNeeds where !running.contains(need) {
                    ready!.passthroughDevices[need.screen] = PassthroughDevices(need)
                }
            }
            queries.access = ready!.access
            queries.generation += 1
        }
        queries.run(work, answers: &answers, runtime: runtime, layoutChanged: layoutChanged)
        var result = LayoutBuild(file: file, runtime: runtime, answers: answers, ready: ready)
        if layoutChanged || queries.tableChanged { result.subscriptions = queries.table }
        result.endedSubscriptions = queries.ended
        if case .changed = file { result.unknownOwnerNames = OwnerCheck.unknownNames(in: runtime.base.runtime) }
        result.cpuMicros = threadCPUMicros() - cpuStart
        let isAbandoned = state.withLock { state in
            if state == .abandoned { return true }
            state = .idle
            return false
        }
        // The daemon is exiting: nobody takes the outcome, and the eventfd stays open until exit.
        if isAbandoned { return }
        outcome.withLock { $0 = result }
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(fd.rawValue, $0.baseAddress, $0.count) }
        // The mount lines' decoded trees, freed behind the outcome (on the background queue).
        if !decoded.isEmpty { retire(decoded, trim: false) }
    }

    /// The finished outcome, if there is one (clears the eventfd).
    func take() -> LayoutBuild? {
        var count: UInt64 = 0
        _ = try? withUnsafeMutableBytes(of: &count) { try fd.read(into: $0) }
        return outcome.withLock { value in
            defer { value = nil }
            return value
        }
    }

    /// Lets go of `value` on the worker: the old layout's tables are freed there, not on the loop.
    /// With `trim` (after a reload), then hands the freed pages back to the kernel (`malloc_trim`),
    /// also on the worker: the big tables are their own mappings (the daemon fixes
    /// `M_MMAP_THRESHOLD`), so the trim walks only the small blocks the reload freed (the reader's
    /// tree) and holds the loop's heap lock briefly. Not after run-time changes: what they free
    /// is what the next one allocates, and a trim would hand those pages back only for the next
    /// build to fault them in again (and stall the loop's allocations on the heap lock meanwhile).
    func retire<Value: Sendable>(_ value: consuming Value, trim: Bool) {
        let box = RetiredValue(value)
        queue.async { _ = box }
        // A block is released once it has run, so the value is gone when this one runs.
        if trim { queue.async { _ = malloc_trim(0) } }
    }

    /// At teardown: when a build is in progress, gives up on it and returns true. The build is not
    /// waited for (a 1M-view config takes many seconds to read and index, and a stopping daemon
    /// has no use for it): the process exits under it. It never writes its outcome, and the eventfd
    /// must then stay open (not `close`d) so that no later descriptor takes its number.
    func abandonBuild() -> Bool {
        state.withLock { state in
            guard state == .building else { return false }
            state = .abandoned
            return true
        }
    }

    /// Waits for a build in progress to end (at teardown, before the eventfd is closed).
    func waitUntilIdle() {
        queue.sync {}
        urgentLane.withLock { $0 }?.sync()
    }

    func close() { fd.close() }
}

/// Carries a value to the worker to be released there.
private final class RetiredValue<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: consuming Value) { self.value = value }
}

/// A thread of its own that runs the blocks given to it, one at a time in order: a serial queue
/// whose thread never changes, so the scheduling `setUp` gives it stays. It lives as long as the
/// process (the daemon makes at most one).
final class DedicatedThread: Sendable {
    private let blocks = Mutex<[@Sendable () -> Void]>([])
    private let wake = DispatchSemaphore(value: 0)
    private let setUp: @Sendable () -> Void
    private let name: String

    /// Starts the thread (`pthread_create`), which names itself `name` (at most 15 bytes, as
    /// `/proc/PID/task/TID/comm` shows it) and runs `setUp` first.
    init(name: String, setUp: @escaping @Sendable () -> Void) {
        self.name = name
        self.setUp = setUp
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { context in
                let lane = Unmanaged<DedicatedThread>.fromOpaque(context!).takeRetainedValue()
                lane.run()
                return nil
            }, context)
        if created == 0 {
            pthread_detach(thread)
        } else {
            // No thread: the blocks run on a dispatch queue instead (at whatever priority it has).
            Unmanaged<DedicatedThread>.fromOpaque(context).release()
            DispatchQueue.global().async { [self] in run() }
        }
    }

    /// Runs `block` after the blocks given before it.
    func async(_ block: @escaping @Sendable () -> Void) {
        blocks.withLock { $0.append(block) }
        wake.signal()
    }

    /// Returns once every block given before has run.
    func sync() {
        let done = DispatchSemaphore(value: 0)
        async { done.signal() }
        done.wait()
    }

    private func run() {
        // The thread's name, for ps and /proc (pthread_setname_np is not in Glibc's module).
        let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if comm >= 0 {
            _ = name.utf8CString.withUnsafeBufferPointer {
                Glibc.write(comm, $0.baseAddress, min(strlen($0.baseAddress!), 15))
            }
            Glibc.close(comm)
        }
        setUp()
        while true {
            wake.wait()
            let block = blocks.withLock { $0.removeFirst() }
            block()
        }
    }
}
