import Foundation
import Glibc
import Testing

/// `touchrouterctl hit-test` without `--config`: the running daemon answers over its socket, and
/// the output is byte for byte what the offline hit-test of the same config file prints.
@Suite("touchrouterctl hit-test against the running daemon", .serialized)
struct HitTestDaemonTests {
    static let kioskConfig = Paths.packageRoot.appendingPathComponent("config/kiosk.json5").path
    static let recording = Paths.recordings.appendingPathComponent(
        "libinput/ep0430m09-4-finger-drag-down.yml"
    ).path

    /// Points on both screens of the kiosk layout: hits deep in the tree, edges, misses.
    static let probes: [[String]] = [
        ["650", "1050"],
        ["330", "1090.5"],
        ["--", "-5", "-5"],
        ["-1", "-2.5"],
        ["0", "0"],
        ["540", "960"],
        ["1079.5", "1919.5"],
        ["--screen", "service", "600", "150"],
        ["--screen", "service", "1", "1"],
    ]

    /// The kiosk config served by a daemon whose replay waits for a subscriber (none comes: idle).
    static func startDaemon(_ directory: TemporaryDirectory) throws -> DaemonProcess {
        try DaemonProcess(
            directory: directory,
            arguments: ["--config", kioskConfig, "--replay", recording, "--replay-wait"])
    }

    @Test("text and --json output equal the offline answer for the same config")
    func sameAsOffline() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        for probe in Self.probes {
            for format in [[], ["--json"]] {
                let offline = try TouchrouterctlProcess.run(
                    ["hit-test", "--config", Self.kioskConfig] + format + probe)
                let live = try TouchrouterctlProcess.run(
                    ["hit-test", "--socket", daemon.socketPath] + format + probe)
                #expect(offline.exitCode == 0)
                #expect(live.exitCode == 0, "\(probe): \(live.stderr)")
                #expect(live.stdout == offline.stdout, "\(format + probe)")
                #expect(live.stderr.isEmpty)
            }
        }
        let json = try TouchrouterctlProcess.run(
            ["hit-test", "--socket", daemon.socketPath, "--json", "330", "1090.5"])
        #expect(
            json.stdout
                == #"{"view": "key7", "path": ["main", "content", "keypad", "key7"], "local": [90, 90.5]}"#
                + "\n")
    }

    @Test("an unknown screen: exit 1, the daemon's screens listed with a suggestion")
    func unknownScreen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        let result = try TouchrouterctlProcess.run(
            ["hit-test", "--socket", daemon.socketPath, "--screen", "servise", "1", "1"])
        #expect(result.exitCode == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "touchrouterctl hit-test: the daemon has no screen named \"servise\" (did you mean"
                + " \"service\"?); screens: main, service\n")
    }

    @Test("no daemon on the socket: exit 1 and why")
    func noDaemon() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try TouchrouterctlProcess.run(
            ["hit-test", "--socket", directory.file("none.sock"), "1", "1"])
        #expect(result.exitCode == 1)
        let expected = "touchrouterctl hit-test: cannot connect to \(directory.file("none.sock"))"
        #expect(result.stderr.hasPrefix(expected))
    }
}
