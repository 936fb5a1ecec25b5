import Foundation
import Testing
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol

@Suite("examples/ against the real daemon", .serialized)
struct ExamplesTests {
    func expectedMessages(views: [String], subtree: Bool) throws -> [TouchesMessage] {
        let config = try loadConfig(path: Scenario.layoutPath)
        let covered = Expected.covered(views, subtree: subtree, layout: config.layout)
        let events = try Expected.events(recording: Scenario.fourFingerDrag, config: config)
        return Expected.messages(events: events, layout: config.layout, subscribers: [covered])[0]
    }

    @Test("python-client.py prints every touch of the view it subscribed to")
    func pythonClient() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments() + ["--exit-after-replay"])
        defer { daemon.stop() }
        let script = Paths.packageRoot.appendingPathComponent("examples/python-client.py").path
        let lines = try ProgramRun("python3", [script, "--socket", daemon.socketPath, "left"]).lines
        let expected = try expectedMessages(views: ["left"], subtree: false)
        let expectedLines = expected.flatMap { message in
            message.touches.map { "left touch \($0.id) \($0.phase.rawValue) at " }
        }
        #expect(lines.first == "subscribed: ['left']")
        let touchLines = lines.filter { $0.hasPrefix("left touch ") }
        #expect(touchLines.count == expectedLines.count)
        #expect(zip(touchLines, expectedLines).allSatisfy { $0.hasPrefix($1) })
        #expect(lines.last == "error shutting-down the daemon is stopping")
    }

    @Test("socat-monitor.sh shows the raw touches lines of a subtree")
    func socatMonitor() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(
            directory: directory, arguments: Scenario.arguments() + ["--exit-after-replay"])
        defer { daemon.stop() }
        let script = Paths.packageRoot.appendingPathComponent("examples/socat-monitor.sh").path
        let lines = try ProgramRun("sh", [script, daemon.socketPath, "right"]).lines
        let received = lines.compactMap { line -> TouchesMessage? in
            guard case .success(.touches(let message)) = DaemonMessageDecoder.decode(line: Array(line.utf8))
            else {
                return nil
            }
            return message
        }
        #expect(lines.first?.contains("\"welcome\"") == true)
        #expect(!received.isEmpty)
        #expect(received == (try expectedMessages(views: ["right"], subtree: true)))
    }
}
