import Foundation
import Glibc
import Testing
import TouchRouterProtocol

/// What a client's bytes can do to the log, and what a refused `reload` says, on the real daemon.
@Suite("The log and reload errors", .serialized)
struct LogAndReloadErrorTests {
    /// Ids and a client name with NUL, ESC (a terminal colour), CR, DEL, a C1 control and a line
    /// separator, as JSON escapes.
    static let hostileIDs = [
        "a\u{0}b", "\u{1B}[31mred\u{1B}[0m", "cr\rlf\nend", "del\u{7F}", "c1\u{85}\u{9B}x", "ls\u{2028}ps\u{2029}",
    ]

    @Test("control characters a client sends reach the log escaped, never raw")
    func controlsAreEscaped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments(waitFor: 99))
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        _ = try client.hello("name\u{0}\u{1B}]0;title\u{7}")
        try client.send(ClientRequest(.subscribe(views: Self.hostileIDs, subtree: false), seq: 1))
        guard case .error(let error) = try client.readReply(), error.code == .unknownViews else {
            throw HarnessError("the made-up ids were not refused")
        }
        try daemon.waitForLog("unknown: ")
        let bytes = Array(daemon.log.utf8)
        let lines = bytes.split(separator: UInt8(ascii: "\n"))
        for line in lines {
            #expect(!line.contains { $0 < 0x20 || $0 == 0x7F }, "a raw control byte: \(line.map { $0 })")
            // C1 controls (U+0080…U+009F) are C2 80…C2 9F in UTF-8; U+2028/2029 are E2 80 A8/A9.
            let pairs = zip(line, line.dropFirst())
            #expect(!pairs.contains { $0 == 0xC2 && (0x80...0x9F).contains($1) }, "a raw C1 control")
            let start = line.startIndex
            #expect(
                !(0..<max(line.count - 2, 0)).contains {
                    line[start + $0] == 0xE2 && line[start + $0 + 1] == 0x80
                        && (0xA8...0xA9).contains(line[start + $0 + 2])
                }, "a raw line or paragraph separator")
        }
        let log = daemon.log
        #expect(log.contains(#"a\x00b"#) && log.contains(#"\x1B[31mred"#) && log.contains(#"del\x7F"#))
        #expect(log.contains(#"c1 \x9Bx"#) && log.contains(#"name\x00\x1B]0;title\x07"#), "\(log)")
        // Line breaks become spaces, as before: one event, one line.
        #expect(log.contains("cr lf end") && log.contains("ls ps "))
    }

    /// A daemon on a copy of the scenario's layout in `directory` (`layout.json5`), for the test to
    /// break.
    static func daemonWithItsOwnLayout(_ directory: TemporaryDirectory, extraArguments: [String] = []) throws
        -> DaemonProcess
    {
        try directory.write("layout.json5", try String(contentsOfFile: Scenario.layoutPath, encoding: .utf8))
        return try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(config: directory.file("layout.json5"), waitFor: 99) + extraArguments)
    }

    @Test("a reload of a broken file answers invalid-config with the file's errors; the layout stays")
    func refusedReload() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.daemonWithItsOwnLayout(directory)
        defer { daemon.stop() }
        let admin = try LineClient(socketPath: daemon.socketPath)
        guard case .welcome(let welcome) = try admin.hello("admin") else { throw HarnessError("no welcome") }
        try directory.write(
            "layout.json5",
            """
            { screens: [{ name: "main", width: 100, height: 100, root: { id: "main", children: [
                { id: "a", frame: [0, 0, 10, -1] },
                { id: "b", frame: [0, 0, 10, 10], alpha: 7 },
            ] } }] }
            """)
        try admin.send(ClientRequest(.reload, seq: 4))
        guard case .error(let error) = try admin.readReply() else { throw HarnessError("the reload was not refused") }
        #expect(error.code == .invalidConfig && error.seq == 4)
        #expect(error.message.contains("layout.json5:2:") && error.message.contains("(and 1 more)"), "\(error)")
        #expect(error.failures.map(\.code) == ["nonPositiveSize", "alphaOutOfRange"], "\(error.failures)")
        #expect(error.failures.map(\.view) == ["main/a", "main/b"])
        try admin.send(ClientRequest(.status, seq: 5))
        guard case .status(let status) = try admin.readReply() else { throw HarnessError("no status") }
        #expect(status.counters["generation"] == .integer(Int64(welcome.generation)), "the running layout stays")
        // The watcher may have tried the saved file too (once per write it saw): never none.
        guard case .integer(let failed)? = status.counters["reloadsFailed"] else {
            throw HarnessError("no reloadsFailed counter")
        }
        #expect(failed >= 1)
    }

    /// A reply never counts against `--client-queue-bytes` (docs/protocol.md, "Limits"): a refused
    /// reload's 100 failures (about 20 KB here) reach an admin whose queue holds 4 KiB.
    @Test("a refused reload's long reply reaches a client with a small queue, which is not cut off")
    func longRefusalNotCutOff() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.daemonWithItsOwnLayout(directory, extraArguments: ["--client-queue-bytes", "4096"])
        defer { daemon.stop() }
        let admin = try LineClient(socketPath: daemon.socketPath)
        _ = try admin.hello("admin")
        let views = (0..<150).map { "{ id: \"view-with-a-long-name-\($0)\", frame: [0, 0, 10, -1] }" }
        try directory.write(
            "layout.json5",
            """
            { screens: [{ name: "main", width: 100, height: 100, root: { id: "main", children: [
            \(views.joined(separator: ",\n"))
            ] } }] }
            """)
        try admin.send(ClientRequest(.reload, seq: 4))
        guard case .error(let error) = try admin.readReply() else { throw HarnessError("no invalid-config reply") }
        #expect(error.code == .invalidConfig && error.seq == 4)
        #expect(error.failures.count == 100)
        try admin.send(ClientRequest(.status, seq: 5))
        guard case .status = try admin.readReply() else { throw HarnessError("the client was cut off") }
    }
}
