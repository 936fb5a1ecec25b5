import Foundation
import Glibc
import Testing
import TouchRouterProtocol

/// When run-time changes build a layout: a leaving client's build only when it changed something that
/// resets, and the urgent build thread's priority under --realtime-priority.
extension RuntimeChangeTests {
    /// `layoutBuilds` and `generation` from an admin's status, once only `clients` are connected.
    static func builds(_ observer: LineClient, clients: Int) throws -> (builds: Int64, generation: Int64) {
        for attempt in 0..<300 {
            guard
                case .status(let status) = try exchange(observer, #"{"type":"status","seq":\#(500 + attempt)}"#).reply,
                let count = status.counters["clients"]?.integerValue,
                let builds = status.counters["layoutBuilds"]?.integerValue,
                let generation = status.counters["generation"]?.integerValue
            else { throw HarnessError("no status") }
            if count == clients { return (builds, generation) }
            usleep(10_000)
        }
        throw HarnessError("clients never went down to \(clients)")
    }

    @Test("a leaving client queues a layout build only if it mounted or changed a view that resets on disconnect")
    func disconnectBuilds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        let observer = try LineClient(socketPath: daemon.socketPath)
        let start = try Self.builds(observer, clients: 1)
        // Changed nothing: no build, same generation.
        var quiet: LineClient? = try LineClient(socketPath: daemon.socketPath)
        _ = try Self.exchange(quiet!, #"{"type":"status","seq":1}"#)
        quiet = nil
        #expect(try Self.builds(observer, clients: 1) == start)
        // Changed a view that keeps its change: one build for the setView, none when it leaves.
        var setter: LineClient? = try LineClient(socketPath: daemon.socketPath)
        _ = try Self.exchange(setter!, #"{"type":"setView","views":{"pad":{"alpha":0.5}},"seq":1}"#)
        setter = nil
        #expect(try Self.builds(observer, clients: 1) == (start.builds + 1, start.generation + 1))
        // Changed `guest` (resetOnDisconnect), and mounted: each leaving is one build that undoes it.
        for request in [
            #"{"type":"setView","views":{"guest":{"alpha":0.5}},"seq":1}"#,
            #"{"type":"mount","view":"layer","children":[{"id":"x","frame":[0,0,1,1]}],"seq":1}"#,
        ] {
            let before = try Self.builds(observer, clients: 1)
            var changer: LineClient? = try LineClient(socketPath: daemon.socketPath)
            _ = try Self.exchange(changer!, request)
            changer = nil
            var after = try Self.builds(observer, clients: 1)
            for _ in 0..<300 where after.generation < before.generation + 2 {
                usleep(10_000)
                after = try Self.builds(observer, clients: 1)
            }
            #expect(after == (before.builds + 2, before.generation + 2), "\(request)")
        }
        _ = quiet
        _ = setter
    }

    @Test(
        "under --realtime-priority a run-time build runs on its own thread at the normal priority; reloads stay at nice 10",
        .enabled(if: getuid() == 0, "SCHED_FIFO needs root (CAP_SYS_NICE) here"))
    func urgentBuildThread() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory, extraArguments: ["--realtime-priority", "3"])
        defer { daemon.stop() }
        try daemon.waitForLog("routing at SCHED_FIFO priority 3")
        let client = try LineClient(socketPath: daemon.socketPath)
        guard
            case .viewsSet = try Self.exchange(client, #"{"type":"setView","views":{"pad":{"alpha":0.5}},"seq":1}"#)
                .reply
        else { throw HarnessError("refused") }
        let pid = daemon.process.processIdentifier
        func urgentThreads() -> [(tid: Int32, policy: Int, nice: Int)] {
            DaemonLifecycleTests.threadScheduling(pid: pid).filter {
                (try? String(contentsOfFile: "/proc/\(pid)/task/\($0.tid)/comm", encoding: .utf8)) == "layout-urgent\n"
            }
        }
        let urgent = urgentThreads()
        #expect(urgent.count == 1 && urgent.allSatisfy { $0.policy == Int(SCHED_OTHER) && $0.nice == 0 }, "\(urgent)")
        // A reload is not urgent: the worker's queue builds it at nice 10, and the urgent thread keeps its priority.
        try directory.write(
            "runtime.json5", Self.config.replacingOccurrences(of: "[0, 0, 10, 10]", with: "[1, 1, 10, 10]"))
        var reloaded = false
        while !reloaded, let message = try client.readMessage() {
            if case .layoutChanged = message { reloaded = true }
        }
        let threads = DaemonLifecycleTests.threadScheduling(pid: pid)
        #expect(threads.contains { $0.policy == Int(SCHED_OTHER) && $0.nice == 10 }, "\(threads)")
        #expect(urgentThreads().map(\.nice) == [0])
    }
}
