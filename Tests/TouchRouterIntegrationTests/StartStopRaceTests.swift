import Foundation
import Glibc
import Testing
import TouchRouterProtocol
import TouchRouterSystem

/// The edges of the daemon's life under a client that does not wait politely: a connection the
/// moment the socket file appears, and a stop in the middle of a long reload.
@Suite("Start and stop races: the socket's appearance, SIGTERM during a reload", .serialized)
struct StartStopRaceTests {
    /// A client that waits for the socket file and connects at once must find it listening: the
    /// file appears only once the socket listens. Connects in a tight loop from before the daemon
    /// starts, many starts over, and counts refusals (ECONNREFUSED: a file that does not listen).
    @Test("a client connecting the moment the socket file appears is never refused")
    func socketListensBeforeItAppears() throws {
        var refusals = 0
        var starts = 0
        for _ in 0..<80 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let daemon = try DaemonProcess(
                directory: directory, arguments: Scenario.arguments(), waitUntilListening: false)
            defer { daemon.stop() }
            let address = try #require(UnixSocketAddress(path: daemon.socketPath))
            var connected = false
            while !connected && daemon.process.isRunning {
                let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
                let result = address.withSockaddr { connect(fd, $0, $1) }
                let failure = errno
                close(fd)
                if result == 0 {
                    connected = true
                } else if failure == ECONNREFUSED {
                    refusals += 1
                    break
                }
            }
            #expect(connected || refusals > 0, "the daemon exited before listening:\n\(daemon.log)")
            starts += 1
        }
        #expect(refusals == 0, "refused \(refusals) of \(starts) times")
    }

    /// SIGTERM while a reload of a very large config is being built: the daemon stops at once
    /// (the build is abandoned, not waited for) and says so. Judged by the exit, with a hang
    /// guard well below the build's own time (this config takes about 20 s to build in a debug
    /// binary on a quiet machine).
    @Test("SIGTERM during a long reload exits without waiting for the build")
    func stopDuringLongReload() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.copyItem(atPath: Scenario.layoutPath, toPath: directory.file("config.json5"))
        var big = "{screens:[{name:\"main\",width:1280,height:768,root:{id:\"panel\",children:[\n"
        for index in 0..<600_000 {
            if index > 0 { big += ",\n" }
            big += "{id:\"v\(index)\",frame:[\(index % 1000),\(index / 1000 % 700),1,1]}"
        }
        big += "\n]}}]}"
        try directory.write("big.json5", big)
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments(config: directory.file("config.json5")))
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        _ = try client.hello("watcher")
        // The big file takes the config's name (a rename, as editors save), and the reload starts.
        #expect(rename(directory.file("big.json5"), directory.file("config.json5")) == 0)
        daemon.signal(SIGHUP)
        // Wait until the build runs: the admin `status` counts builds started.
        var builds: Int64 = 0
        while builds < 1 {
            usleep(10_000)
            try client.send(ClientRequest(.status, seq: 1))
            let reply = try client.readReply()
            guard case .status(let status) = reply else {
                Issue.record("no status reply: \(reply)")
                return
            }
            if case .integer(let value)? = status.counters["layoutBuilds"] { builds = value }
        }
        #expect(!daemon.log.contains("reload ("), "the build ended before the stop: make the config larger")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit(timeoutSeconds: 10) == 0)
        #expect(daemon.log.contains("the layout build in progress is abandoned"))
        #expect(daemon.log.contains("stopped"))
    }
}
