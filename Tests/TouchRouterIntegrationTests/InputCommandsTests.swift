import Foundation
import Testing

/// `touchrouterctl inject`, `input-events --replay` and `transcript-diff` as a user runs them. The
/// live paths (uinput, libinput devices) need a kernel with uinput: scripts/vm-e2e.sh covers them.
@Suite("touchrouterctl input commands")
struct InputCommandsTests {
    static let atmel = "Tests/Fixtures/recordings/evemu/Atmel maXTouch Touchscreen"

    @Test("inject with nothing to play is a usage error")
    func injectNothing() throws {
        let result = try TouchrouterctlProcess.run(["inject", "--default"])
        #expect(result.exitCode == 2)
        #expect(
            result.stderrLines.first == "touchrouterctl inject: nothing to play: give --recording FILE, "
                + "--gesture SCRIPT or --hold")
    }

    @Test("a bad gesture is named before any device is created")
    func injectBadGesture() throws {
        let result = try TouchrouterctlProcess.run(["inject", "--gesture", "tap 1 1; swipe 2 2"])
        #expect(result.exitCode == 1)
        #expect(
            result.stderr == "touchrouterctl inject: gesture \"swipe 2 2\": unknown gesture "
                + "(tap, drag, pinch, hold, wait)\n")
        #expect(result.stdout.isEmpty)
    }

    @Test(
        "without /dev/uinput the error names the call and the fix",
        .enabled(if: !FileManager.default.fileExists(atPath: "/dev/uinput")))
    func injectWithoutUinput() throws {
        let result = try TouchrouterctlProcess.run(["inject", "--gesture", "tap 10 10"])
        #expect(result.exitCode == 1)
        #expect(result.stderr.hasPrefix("touchrouterctl inject: libevdev_uinput_create_from_device: "))
        #expect(result.stderr.contains("modprobe uinput") || result.stderr.contains("uinput module"))
    }

    @Test(
        "input-events --replay prints the decoder's frames, and transcript-diff accepts them against themselves"
    )
    func replayTranscript() throws {
        let replay = try TouchrouterctlProcess.run([
            "input-events", "--screen", "panel:800x480", "--replay",
            "\(Self.atmel).2-fingers-touch-release.events",
            "--device-desc", "\(Self.atmel).desc",
        ])
        #expect(replay.exitCode == 0)
        #expect(replay.stdoutLines.count == 16)
        #expect(replay.stdoutLines.allSatisfy { $0.hasPrefix("frame panel ") })
        #expect(replay.stdoutLines.first?.contains(" down:0:") == true)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("transcript-\(UUID())").path
        try replay.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let same = try TouchrouterctlProcess.run(["transcript-diff", path, path])
        #expect(same.exitCode == 0)
        #expect(same.stdout == "16 frames agree\n")

        let shorter = path + ".short"
        try replay.stdoutLines.dropLast().joined(separator: "\n").write(
            toFile: shorter, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: shorter) }
        let differs = try TouchrouterctlProcess.run(["transcript-diff", path, shorter])
        #expect(differs.exitCode == 1)
        #expect(differs.stdoutLines.first == "frame count: expected 16, got 15")
    }
}
