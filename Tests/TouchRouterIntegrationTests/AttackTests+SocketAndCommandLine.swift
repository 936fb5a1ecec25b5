import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

/// Attacks through the socket and the command line: a failing loop, a sibling daemon's socket, monitors of
/// nothing and numbers out of range.
extension AttackTests {
    @Test(
        "a daemon whose loop fails tears down through the one path: no socket file left, the real cause logged, exit 1")
    func loopFailureTearsDown() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments(),
            environment: ["TOUCHROUTERD_INJECT_LOOP_FAILURE": "1"])
        #expect(try daemon.waitForExit() == 1)
        #expect(daemon.log.contains("stopped by an error: epoll_wait (injected"))
        #expect(!daemon.log.contains("cannot start"), "it had started")
        #expect(daemon.log.contains("stopped"))
        #expect(access(daemon.socketPath, F_OK) != 0, "the socket file was left behind")
    }

    @Test("touchrouterctl monitor of views that do not exist exits 1 instead of watching nothing forever")
    func monitorNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments())
        defer { daemon.stop() }
        let result = try TouchrouterctlProcess.run(["monitor", "nope", "--socket", daemon.socketPath])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("no such view: nope"))
        #expect(result.stderr.contains("none of the requested views can be watched"))
    }

    @Test("a stopping daemon leaves alone a socket another daemon bound at its path")
    func foreignSocketKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try DaemonProcess(directory: directory, arguments: Scenario.arguments())
        defer { first.stop() }
        unlink(first.socketPath)
        let second = try DaemonProcess(directory: directory, arguments: Scenario.arguments())
        defer { second.stop() }
        first.signal(SIGTERM)
        #expect(try first.waitForExit() == 0)
        #expect(access(second.socketPath, F_OK) == 0, "the second daemon's socket was deleted")
        let client = try LineClient(socketPath: second.socketPath)
        guard case .welcome = try client.hello("still there") else {
            Issue.record("the second daemon does not answer")
            return
        }
    }

    @Test(
        "numbers and paths outside their range are usage errors (exit 2), never a crash",
        arguments: [
            (["--speed", "1e-16"], "--speed"),
            (["--speed", "5e-324"], "--speed"),
            (["--speed", "1e300"], "--speed 1e300: expected 0 (as fast as possible) or a number from 0.001 to 1000"),
            (["--speed", "nan"], "--speed"),
            (["--max-clients", "0"], "--max-clients 0: expected a number from 1 to 65536"),
            (["--client-queue-bytes", "99999999999999999999"], "--client-queue-bytes"),
            (["--replay-wait-for", "70000"], "--replay-wait-for"),
            (["--socket", ""], "--socket needs a non-empty path"),
            (["--realtime-priority", "0"], "--realtime-priority 0: expected a number from 1 to 99"),
            (["--realtime-priority", "100"], "--realtime-priority 100: expected a number from 1 to 99"),
        ])
    func numericRanges(extra: [String], message: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.product("touchrouterd"))
        process.arguments = ["--config", Scenario.layoutPath, "--replay", Scenario.fourFingerDrag] + extra
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2, "\(extra): \(text)")
        #expect(text.contains(message), "\(text)")
    }
}
