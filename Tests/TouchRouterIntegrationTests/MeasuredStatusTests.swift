import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol

/// What a daemon started with `TOUCHROUTERD_MEASURE_LOOP=1` (a benchmark aid) adds to an admin's
/// `status`: the longest loop turn and a replay's lateness, and with `--replay-restamp` how long
/// replayed frames took from their stamp until written, with the slowest of them.
@Suite("Benchmark counters in status", .serialized)
struct MeasuredStatusTests {
    /// How many frames the replayed recording has (one pass).
    static func recordingFrameCount() throws -> Int {
        try Expected.events(recording: Scenario.fourFingerDrag, config: loadConfig(path: Scenario.layoutPath)).count
    }

    @Test("TOUCHROUTERD_MEASURE_LOOP puts the loop's longest turn (since the last status) in an admin's status")
    func loopTurnCounters() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (measured, speed) in [(false, "0"), (true, "0"), (false, "1"), (true, "1")] {
            let daemon = try DaemonProcess(
                directory: directory, arguments: Scenario.arguments(speed: speed),
                environment: measured ? ["TOUCHROUTERD_MEASURE_LOOP": "1"] : [:])
            defer { daemon.stop() }
            let client = try LineClient(socketPath: daemon.socketPath)
            _ = try client.hello("turns")
            for _ in 0..<2 {
                let status = try AttackTests.status(client)
                let wall = status.counters["loopLongestTurnMicros"]
                let cpu = status.counters["loopLongestTurnCPUMicros"]
                // How late replayed frames ran: only at a finite speed (at 0 every frame is due).
                let lateness = status.counters["replayLongestLatenessMicros"]
                if measured && speed != "0" {
                    guard case .integer(let micros) = lateness,
                        case .integer(let busy) = status.counters["replayLongestBusyLatenessMicros"]
                    else {
                        Issue.record("no replay lateness at --speed \(speed): \(status.counters)")
                        return
                    }
                    // The loop's busy share is a part of some frame's lateness, never more than the longest.
                    #expect(micros >= 0 && busy >= 0 && busy <= micros)
                } else {
                    #expect(lateness == nil, "measured \(measured), --speed \(speed)")
                    #expect(status.counters["replayLongestBusyLatenessMicros"] == nil)
                }
                if measured {
                    guard case .integer(let wallMicros) = wall, case .integer(let cpuMicros) = cpu else {
                        Issue.record("no loop turn counters: \(status.counters)")
                        return
                    }
                    #expect(wallMicros >= 0 && cpuMicros >= 0)
                } else {
                    #expect(wall == nil && cpu == nil, "off unless asked for")
                }
            }
        }
    }

    @Test("with --replay-restamp, a measured daemon's status names the slowest frames by their place in the recording")
    func slowestFrames() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let frameCount = try Self.recordingFrameCount()
        // As fast as it goes, looped: thousands of frames between two statuses, many passes.
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", Scenario.layoutPath, "--replay", Scenario.fourFingerDrag, "--speed", "0", "--loop",
                "--replay-restamp",
            ],
            environment: ["TOUCHROUTERD_MEASURE_LOOP": "1"])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        _ = try client.hello("slowest")
        var played: [Int64] = []
        var counters: [String: JSONValue] = [:]
        for _ in 0..<2 {
            usleep(2_000_000)
            let status = try AttackTests.status(client)
            guard case .integer(let count) = status.counters["replayFramesPlayed"] else {
                Issue.record("no status with replayFramesPlayed")
                return
            }
            played.append(count)
            counters = status.counters
        }
        // From 6400 frames on (20,000 to 30,000 a second here), the 64 slowest all lie at or above
        // the p99: the checks below hold whatever the machine's speed. Many passes: a frame counted
        // across passes would show.
        let window = Int(played[1] - played[0])
        #expect(window >= 6400 && window > 2 * frameCount, "\(window) frames between the statuses")
        guard case .array(let listed) = counters["frameStampToWrittenSlowest"],
            case .integer(let p99) = counters["frameStampToWrittenP99Micros"]
        else {
            Issue.record("no slowest frames or percentiles: \(counters)")
            return
        }
        let slowest: [(frame: Int64, micros: Int64)] = listed.compactMap {
            guard case .array(let pair) = $0, pair.count == 2, case .integer(let frame) = pair[0],
                case .integer(let micros) = pair[1]
            else { return nil }
            return (frame, micros)
        }
        // 64 kept of the window's frames (the status reset them), each a place in the recording.
        #expect(slowest.count == listed.count && slowest.count == 64)
        #expect(slowest.allSatisfy { 1...Int64(frameCount) ~= $0.frame }, "\(slowest.map(\.frame))")
        #expect(zip(slowest, slowest.dropFirst()).allSatisfy { $0.micros >= $1.micros }, "slowest first")
        // Every one kept is at least the window's p99.
        #expect(slowest.allSatisfy { $0.micros >= p99 }, "\(slowest.map(\.micros)), p99 \(p99) µs")
    }

    @Test("frame latencies only with --replay-restamp, and each status covers the frames since the last one")
    func frameLatenciesResetAtStatus() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let frameCount = try Self.recordingFrameCount()
        for restamps in [true, false] {
            // Played once, as fast as it goes: the recording ends, and no frame comes after.
            let daemon = try DaemonProcess(
                directory: directory,
                arguments: [
                    "--config", Scenario.layoutPath, "--replay", Scenario.fourFingerDrag, "--speed", "0",
                ] + (restamps ? ["--replay-restamp"] : []),
                environment: ["TOUCHROUTERD_MEASURE_LOOP": "1"])
            defer { daemon.stop() }
            try daemon.waitForLog("replay finished")
            let client = try LineClient(socketPath: daemon.socketPath)
            _ = try client.hello("reset")
            var windows: [[String: JSONValue]] = []
            for _ in 0..<2 {
                windows.append(try AttackTests.status(client).counters)
            }
            #expect(windows[0]["replayFramesPlayed"] == .integer(Int64(frameCount)))
            if restamps {
                // The first status covers the whole replay; the second, nothing.
                guard case .array(let listed) = windows[0]["frameStampToWrittenSlowest"] else {
                    Issue.record("no slowest frames after the replay: \(windows[0])")
                    return
                }
                #expect(listed.count == 64)
                #expect(windows[0]["frameStampToWrittenP99Micros"] != nil)
            } else {
                #expect(windows[0]["frameStampToWrittenSlowest"] == nil, "\(windows[0])")
                #expect(windows[0]["frameStampToWrittenP99Micros"] == nil, "\(windows[0])")
            }
            #expect(windows[1]["frameStampToWrittenSlowest"] == nil, "\(windows[1])")
            #expect(windows[1]["frameStampToWrittenP99Micros"] == nil, "\(windows[1])")
        }
    }
}
