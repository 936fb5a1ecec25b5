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
    let directory: ScratchDirectory

    init() throws { directory = try ScratchDirectory() }

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
        defer { directory.remove() }
        let file = try directory.write("big.json5", Data(repeating: UInt8(ascii: " "), count: 4096))
        let refused = errors(file, limits: ConfigLimits(maxFileBytes: 4095))
        #expect(refused.map(\.code) == [.fileTooLarge])
        #expect(refused.first?.file == file)
        #expect(refused.first?.message == "the file is 4096 bytes, more than the limit of 4095 bytes")
        #expect(try readConfigFile(path: file, limits: ConfigLimits(maxFileBytes: 4096)).count == 4096)
        // Refused by the reader itself, before reading, not by the parser after.
        #expect(throws: RegularFileError.tooLarge(size: 4096)) {
            try RegularFile.read(path: file, maxBytes: 4095)
        }
    }

    @Test("a missing file, a directory and a FIFO are unreadable, named as what they are, and nothing blocks")
    func notRegularFiles() throws {
        defer { directory.remove() }
        let missing = errors(directory.path("missing.json5"))
        #expect(missing.map(\.message) == ["no such file"])
        #expect(missing.first?.systemErrno == ENOENT)
        #expect(
            errors(directory.url.path).map(\.message) == [
                "is a directory, not a config file; only a regular file is read"
            ])
        let fifo = directory.path("fifo.json5")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(
            errors(fifo).map(\.message) == ["is a FIFO (named pipe), not a config file; only a regular file is read"])
        #expect(errors("").map(\.message) == ["no such file"])
    }

    @Test("the file that traps Foundation's JSON5 decoder is an invalid UTF-8 error")
    func utf8Trap() {
        defer { directory.remove() }
        let path = URL(fileURLWithPath: Fixtures.recordings).deletingLastPathComponent()
            .appendingPathComponent("fuzz/json5-invalid-utf8-trap.bin").path
        #expect(errors(path).map(\.code) == [.invalidUTF8])
    }

    @Test("RegularFile.readAll reads a file of any size to its end")
    func readAll() throws {
        defer { directory.remove() }
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let file = try directory.write("large.bin", Data(bytes))
        #expect(try RegularFile.readAll(path: file) == bytes)
        #expect(throws: SystemError(call: "open", errno: ENOENT)) {
            try RegularFile.readAll(path: directory.path("none"))
        }
    }
}
