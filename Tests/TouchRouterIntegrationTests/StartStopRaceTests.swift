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
}
