/// Issue 26's config attacks against the real daemon: a small broken file that used to cost
/// hundreds of times its size on reload.
import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterProtocol

@Suite("Config attacks: the daemon holds", .serialized)
struct ConfigAttackTests {
    /// A field of `/proc/PID/status` in kB (`VmRSS`, `VmHWM`).
    static func statusKilobytes(_ pid: Int32, _ field: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let value = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw HarnessError("no \(field) in /proc/\(pid)/status") }
        return value
    }

    /// The hostile shapes: each about `bytes` long, each refused.
    static func hostile(_ shape: String, bytes: Int) -> String {
        switch shape {
        case "empty screens":
            return "{screens:[" + Array(repeating: "{}", count: bytes / 3).joined(separator: ",") + "]}"
        case "empty views":
            return "{screens:[{name:\"a\",width:10,height:10,root:{id:\"r\",children:["
                + Array(repeating: "{}", count: bytes / 3).joined(separator: ",") + "]}}]}"
        case "numbers":
            return "{screens:[{name:\"a\",width:10,height:10,root:{id:\"r\",x:["
                + Array(repeating: "0", count: bytes / 2).joined(separator: ",") + "]}}]}"
        case "NaNs":
            return "{screens:[{name:\"a\",width:10,height:10,root:{id:\"r\",x:["
                + Array(repeating: "NaN", count: bytes / 4).joined(separator: ",") + "]}}]}"
        default:
            let view = "{id:\"v\",frame:[0,0,-1,-1],alpa:2,shape:\"elipse\"}"
            return "{screens:[{name:\"a\",width:10,height:10,root:{id:\"r\",children:["
                + Array(repeating: view, count: bytes / (view.utf8.count + 1)).joined(separator: ",") + "]}}]}"
        }
    }

    @Test(
        "a hostile config of 2 MB is refused, the layout stays, the peak memory a small multiple of it",
        arguments: ["empty screens", "empty views", "numbers", "NaNs", "broken views"])
    func hostileConfigMemory(shape: String) throws {
        let (directory, config, daemon, client) = try AttackTests.watchedDaemon()
        defer { directory.remove() }
        defer { daemon.stop() }
        let pid = daemon.process.processIdentifier
        let before = try Self.statusKilobytes(pid, "VmRSS")
        let text = Self.hostile(shape, bytes: 2_000_000)
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        try daemon.waitForLog("failed; keeping layout generation 1", timeoutSeconds: 300)
        let peak = try Self.statusKilobytes(pid, "VmHWM")
        let fileKilobytes = text.utf8.count / 1024
        print("\(shape): \(fileKilobytes) kB file, VmRSS \(before) kB before, VmHWM \(peak) kB after the reload")
        // The documented bound (docs/configuration.md, "Limits"): 40 times the file at the peak.
        #expect(peak - before <= 40 * fileKilobytes, "peak \(peak) kB from \(before) kB for a \(fileKilobytes) kB file")
        #expect(try AttackTests.status(client).counters["generation"] == .integer(1))
        if shape != "numbers" {
            // The log says how many errors there were past the 1,000 listed, after the first 20.
            #expect(daemon.log.contains("more errors not listed"))
            let listed = daemon.log.split(separator: "\n").filter { $0.hasPrefix("touchrouterd: error: \(config):") }
            #expect(listed.count == 20, "\(listed.count) errors logged")
        }
        let longest = daemon.log.split(separator: "\n").map(\.utf8.count).max() ?? 0
        #expect(longest <= 4096 + 64)
    }

    // MARK: Degenerate numbers (item 10)

    @Test(
        "setView with a degenerate transform is refused with the config's code; the view keeps its transform",
        arguments: [#"{"scale":1e200}"#, #"{"scale":1e-300}"#, #"{"rotate":1e308}"#])
    func degenerateSetView(transform: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try RuntimeChangeTests.startDaemon(directory)
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        let (reply, _) = try RuntimeChangeTests.exchange(
            client, #"{"type":"setView","views":{"pad":{"transform":\#(transform)}},"seq":1}"#)
        guard case .error(let error) = reply else { throw HarnessError("accepted \(transform): \(reply)") }
        #expect(error.failures.map(\.code) == ["outOfRange"])
        #expect(error.failures.map(\.field) == ["transform"])
        #expect(try RuntimeChangeTests.layoutView(client, "pad").contains("transform") == false)
    }

    @Test("a calibration of 1e308s is refused on reload, located; the running layout stays")
    func degenerateCalibration() throws {
        let (directory, config, daemon, client) = try AttackTests.watchedDaemon()
        defer { directory.remove() }
        defer { daemon.stop() }
        let text = TestLayout.split().replacingOccurrences(
            of: "width: 1280,", with: "width: 1280, calibration: [1e308, 0, 1e308, 0, 1e308, 1e308],")
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        try daemon.waitForLog("failed; keeping layout generation 1")
        #expect(daemon.log.contains(#"kiosk.json5:1:43: screen "main": calibration numbers must be within ±1000"#))
        #expect(try AttackTests.status(client).counters["generation"] == .integer(1))
    }
}
