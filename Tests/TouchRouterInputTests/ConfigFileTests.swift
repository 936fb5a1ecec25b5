import Foundation
import Glibc
import Testing
import TouchRouterCore
import TouchRouterInput
import TouchRouterSystem

/// The config file reader (`loadConfig`): the engine parses bytes, this reads them without blocking
/// or reading without bound.
@Suite("Config file reading: regular files only, size checked before reading")
struct ConfigFileTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-file-tests-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func errors(_ path: String, limits: ConfigLimits = .standard) -> [ConfigError] {
        do {
            _ = try loadConfig(path: path, limits: limits)
            return []
        } catch {
            return error.errors
        }
    }

    @Test("a file over the limit is refused before reading; one at the limit is read")
    func sizeLimit() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.json5")
        try Data(repeating: UInt8(ascii: " "), count: 4096).write(to: file)
        let refused = errors(file.path, limits: ConfigLimits(maxFileBytes: 4095))
        #expect(refused.map(\.code) == [.fileTooLarge])
        #expect(refused.first?.file == file.path)
        #expect(refused.first?.message == "the file is 4096 bytes, more than the limit of 4095 bytes")
        #expect(try readConfigFile(path: file.path, limits: ConfigLimits(maxFileBytes: 4096)).count == 4096)
    }

    @Test("a missing file, a directory and a FIFO are unreadable, named as what they are, and nothing blocks")
    func notRegularFiles() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = errors(directory.appendingPathComponent("missing.json5").path)
        #expect(missing.map(\.message) == ["no such file"])
        #expect(missing.first?.systemErrno == ENOENT)
        #expect(
            errors(directory.path).map(\.message) == [
                "is a directory, not a config file; only a regular file is read"
            ])
        let fifo = directory.appendingPathComponent("fifo.json5").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(
            errors(fifo).map(\.message) == ["is a FIFO (named pipe), not a config file; only a regular file is read"])
        #expect(errors("").map(\.message) == ["no such file"])
    }

    @Test("the file that traps Foundation's JSON5 decoder is an invalid UTF-8 error")
    func utf8Trap() {
        let path = URL(fileURLWithPath: Fixtures.recordings).deletingLastPathComponent()
            .appendingPathComponent("fuzz/json5-invalid-utf8-trap.bin").path
        #expect(errors(path).map(\.code) == [.invalidUTF8])
    }

    @Test("RegularFile.readAll reads a file of any size to its end")
    func readAll() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("large.bin")
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try Data(bytes).write(to: file)
        #expect(try RegularFile.readAll(path: file.path) == bytes)
        #expect(throws: SystemError(call: "open", errno: ENOENT)) {
            try RegularFile.readAll(path: directory.appendingPathComponent("none").path)
        }
    }
}
