/// Crafted recordings against the real `touchrouterd --replay` and `touchrouterctl render
/// --recording`: refused with the file and line, or played, never a crash (issue 26, item 1).
import Foundation
import Testing
import TouchRouterProtocol

@Suite("Crafted recordings: the real binaries")
struct CraftedRecordingDaemonTests {
    /// How a program ended and what it said on standard error.
    struct Outcome {
        var status: Int32
        var signalled: Bool
        var errors: String
    }

    /// Runs `executable` with `arguments` to its end.
    static func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.product(executable))
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal, errors: text)
    }

    /// One finger going down at `from` (at 1 s), jumping to `to`, lifting.
    static func jump(from: Int64, to: Int64) -> [TestRecording.Event] {
        [
            TestRecording.abs(0x39, 1, at: 1_000_000), TestRecording.abs(0x35, from, at: 1_000_000),
            TestRecording.abs(0x36, from, at: 1_000_000), TestRecording.report(at: 1_000_000),
            TestRecording.abs(0x35, to, at: 1_010_000), TestRecording.abs(0x36, to, at: 1_010_000),
            TestRecording.report(at: 1_010_000),
            TestRecording.abs(0x39, -1, at: 1_020_000), TestRecording.report(at: 1_020_000),
        ]
    }

    /// An EP0430M09 (the test layout's device) with ABS_MT_SLOT's maximum `slotMaximum` (line 4),
    /// position axes of `range` with `fuzz`, and one finger going down at `from`, jumping to `to`,
    /// lifting.
    static func evemu(
        slotMaximum: Int64 = 4, range: ClosedRange<Int64> = 0...1279, fuzz: Int = 0, from: Int64 = 100,
        to: Int64 = 200
    ) -> String {
        TestRecording.evemu(
            header: """
                N: EP0430M09
                I: 0018 0000 0000 0000
                P: 02 00 00 00 00 00 00 00
                A: 2f 0 \(slotMaximum) 0 0 0
                A: 35 \(range.lowerBound) \(range.upperBound) \(fuzz) 0 0
                A: 36 \(range.lowerBound) \(range.upperBound) \(fuzz) 0 0
                A: 39 0 65535 0 0 0
                """,
            jump(from: from, to: to))
    }

    /// The same as a `libinput record` file (ABS_MT_SLOT on line 8).
    static func libinputRecord(
        slotMaximum: Int64 = 4, range: ClosedRange<Int64> = 0...1279, fuzz: Int = 0, from: Int64 = 100,
        to: Int64 = 200
    ) -> String {
        TestRecording.libinputRecord([
            (
                node: "/dev/input/event4",
                description: """
                name: "EP0430M09"
                absinfo:
                  47: [0, \(slotMaximum), 0, 0, 0]
                  53: [\(range.lowerBound), \(range.upperBound), \(fuzz), 0, 0]
                  54: [\(range.lowerBound), \(range.upperBound), \(fuzz), 0, 0]
                  57: [0, 65535, 0, 0, 0]
                properties: [1]
                """,
                events: jump(from: from, to: to)
            )
        ])
    }

    /// The EP0430M09's description with five slots, as the replay suites' recordings use.
    static let ep0430m09 = "N: EP0430M09\nA: 2f 0 4 0 0 0\nA: 35 0 1279 0 0 0\nA: 36 0 767 0 0 0\nA: 39 0 65535 0 0 0\n"

    /// The file name, its text and the line of its ABS_MT_SLOT, for each format.
    static func files(slotMaximum: Int64) -> [(name: String, text: String, slotLine: Int)] {
        [
            ("crafted.events", evemu(slotMaximum: slotMaximum), 4),
            ("crafted.yml", libinputRecord(slotMaximum: slotMaximum), 8),
        ]
    }

    @Test(
        "a slot maximum the kernel refuses is a located error from --replay and render --recording, not an abort",
        arguments: [Int64(2_147_483_647), 100_000_000])
    func hugeSlotMaximum(slotMaximum: Int64) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for file in Self.files(slotMaximum: slotMaximum) {
            try directory.write(file.name, file.text)
            let located = "\(file.name):\(file.slotLine): "
            let daemon = try Self.run(
                "touchrouterd",
                [
                    "--config", Scenario.layoutPath, "--replay", directory.file(file.name), "--socket",
                    directory.file("d.sock"),
                ])
            #expect(!daemon.signalled && daemon.status == 1, "\(file.name): \(daemon.errors)")
            #expect(daemon.errors.contains(located), "\(daemon.errors)")
            #expect(daemon.errors.contains("ABS_MT_SLOT maximum \(slotMaximum)"), "\(daemon.errors)")
            let render = try Self.run(
                "touchrouterctl",
                [
                    "render", "--config", Scenario.layoutPath, "--recording", directory.file(file.name), "--output",
                    directory.file("out.svg"),
                ])
            #expect(!render.signalled && render.status == 1, "\(file.name): \(render.errors)")
            #expect(render.errors.contains(located), "\(render.errors)")
            #expect(render.errors.contains("ABS_MT_SLOT maximum \(slotMaximum)"), "\(render.errors)")
        }
    }

    @Test("a finger jumping across the whole Int32 range on axes with fuzz is replayed and drawn")
    func int32RangeJump() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let files = [
            (
                "jump.events",
                Self.evemu(range: -2_147_483_648...2_147_483_647, fuzz: 8, from: -2_147_483_648, to: 2_147_483_647)
            ),
            (
                "jump.yml",
                Self.libinputRecord(
                    range: -2_147_483_648...2_147_483_647, fuzz: 8, from: -2_147_483_648, to: 2_147_483_647)
            ),
            (
                "protocol-a.events",
                TestRecording.evemu(
                    header: "N: EP0430M09\nA: 35 -2147483648 2147483647 0 0 0\nA: 36 -2147483648 2147483647 0 0 0",
                    [
                        TestRecording.abs(0x35, 100, at: 1_000_000), TestRecording.abs(0x36, 100, at: 1_000_000),
                        TestRecording.contactReport(at: 1_000_000), TestRecording.report(at: 1_000_000),
                        TestRecording.contactReport(at: 1_010_000), TestRecording.report(at: 1_010_000),
                    ])
            ),
        ]
        for (name, text) in files {
            try directory.write(name, text)
            let daemon = try Self.run(
                "touchrouterd",
                [
                    "--config", Scenario.layoutPath, "--replay", directory.file(name), "--speed", "0",
                    "--exit-after-replay", "--socket", directory.file("d.sock"), "--log-level", "info",
                ])
            #expect(!daemon.signalled && daemon.status == 0, "\(name): \(daemon.errors)")
            #expect(daemon.errors.contains("replay finished"), "\(daemon.errors)")
            let render = try Self.run(
                "touchrouterctl",
                [
                    "render", "--config", Scenario.layoutPath, "--recording", directory.file(name), "--output",
                    directory.file("out.svg"),
                ])
            #expect(!render.signalled && render.status == 0, "\(name): \(render.errors)")
        }
    }
}

@Suite("Replay: many frames at one time")
struct ReplayBurstTests {
    /// An EP0430M09 recording of `frames` frames all stamped 1.000000: a finger down and up on
    /// slot 0, over and over, in the left half of the split layout.
    static func burst(frames: Int) -> String {
        let second: Int64 = 1_000_000
        var events: [TestRecording.Event] = []
        for index in 0..<frames {
            if index % 2 == 0 {
                events.append(TestRecording.abs(0x39, Int64(index % 60000), at: second))
                events.append(TestRecording.abs(0x35, Int64(100 + index % 3), at: second))
                events.append(TestRecording.abs(0x36, 100, at: second))
            } else {
                events.append(TestRecording.abs(0x39, -1, at: second))
            }
            events.append(TestRecording.report(at: second))
        }
        return TestRecording.evemu(header: CraftedRecordingDaemonTests.ep0430m09, events)
    }

    @Test("while 20,000 frames with one timestamp play at --speed 1, another client's status is answered")
    func statusAnsweredDuringBurst() throws {
        let frames = 20_000
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("burst.events", Self.burst(frames: frames))
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: Scenario.arguments(recording: directory.file("burst.events"), speed: "1"))
        defer { daemon.stop() }
        let asker = try LineClient(socketPath: daemon.socketPath)
        try asker.hello("asker")
        let subscriber = try LineClient(socketPath: daemon.socketPath)
        try subscriber.hello("subscriber")
        // The subscription starts the replay; its first touches mean frames are being played.
        try subscriber.send(ClientRequest(.subscribe(views: ["left"], subtree: true), seq: 1))
        while let message = try subscriber.readMessage() {
            if message.touches != nil { break }
        }
        let status = try AttackTests.status(asker)
        guard case .integer(let played) = status.counters["replayFramesPlayed"] else {
            Issue.record("no replayFramesPlayed in \(status.counters)")
            return
        }
        // Answered between turns of the replay, not after it: once, the whole burst was one turn.
        #expect(played > 0 && played < Int64(frames), "frames played when status was answered: \(played)")
        #expect(status.counters["replayFinished"] == .bool(false))
        // And the replay goes on to its end.
        try daemon.waitForLog("replay finished", timeoutSeconds: 120)
        guard case .integer(let total) = try AttackTests.status(asker).counters["replayFramesPlayed"] else {
            Issue.record("no replayFramesPlayed at the end")
            return
        }
        #expect(total == Int64(frames))
    }
}

@Suite("Replay: a recording spanning ages")
struct ReplayLongSpanTests {
    @Test("looped at --speed 0, a recording 68 years long plays pass after pass without a trap")
    func loopsPastSixtyFourBits() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // One tap at 0 s and one 2^31 - 1 s later: each pass adds 68 years to the frames' times,
        // past 2^64 µs after about 8,600 passes.
        let tap = { (micros: Int64) in
            [
                TestRecording.abs(0x39, 1, at: micros), TestRecording.abs(0x35, 100, at: micros),
                TestRecording.abs(0x36, 100, at: micros), TestRecording.report(at: micros),
                TestRecording.abs(0x39, -1, at: micros), TestRecording.report(at: micros),
            ]
        }
        try directory.write(
            "ages.events",
            TestRecording.evemu(
                header: CraftedRecordingDaemonTests.ep0430m09, tap(0) + tap(2_147_483_647 * 1_000_000)))
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", Scenario.layoutPath, "--replay", directory.file("ages.events"), "--speed", "0", "--loop",
            ])
        defer { daemon.stop() }
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.hello("watcher")
        var played: Int64 = 0
        var asked: Int64 = 0
        while played < 40_000 && daemon.process.isRunning && asked < 100_000 {
            asked += 1
            guard case .integer(let count) = try AttackTests.status(client, seq: asked).counters["replayFramesPlayed"]
            else { break }
            played = count
            usleep(50_000)
        }
        #expect(played >= 40_000, "frames played: \(played)\n\(daemon.log.suffix(2000))")
        #expect(daemon.process.isRunning)
    }
}
