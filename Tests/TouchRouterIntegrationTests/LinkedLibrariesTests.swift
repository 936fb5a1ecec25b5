import Foundation
import Testing

@Suite("What the executables link")
struct LinkedLibrariesTests {
    /// The shared libraries an ELF executable names: the NUL-terminated `lib….so…` strings in its
    /// bytes (its dynamic string table). The debug build links the Swift libraries dynamically.
    static func librariesNamed(in path: String) throws -> Set<String> {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var names: Set<String> = []
        var start = 0
        for index in bytes.indices where bytes[index] == 0 {
            if index - start > 6, index - start < 80, bytes[start..<start + 3].elementsEqual("lib".utf8) {
                let name = String(decoding: bytes[start..<index], as: UTF8.self)
                if name.hasSuffix(".so") || name.contains(".so.") { names.insert(name) }
            }
            start = index + 1
        }
        return names
    }

    /// Foundation's libraries: the daemon and touchrouterctl link none of them (each is megabytes
    /// of code and tables mapped into the process: docs/operations.md, "Sizes and memory").
    static let foundationLibraries: Set<String> = [
        "libFoundation.so", "libFoundationEssentials.so", "libFoundationInternationalization.so",
        "lib_FoundationICU.so",
    ]

    @Test("touchrouterd and touchrouterctl link no Foundation library", arguments: ["touchrouterd", "touchrouterctl"])
    func withoutFoundation(executable: String) throws {
        let path =
            executable == "touchrouterctl" ? try TouchrouterctlProcess.executable().path : Paths.product(executable)
        let libraries = try Self.librariesNamed(in: path)
        #expect(libraries.contains("libswiftCore.so"), "not a dynamically linked build: \(libraries.sorted())")
        #expect(libraries.isDisjoint(with: Self.foundationLibraries), "\(path): \(libraries.sorted())")
    }
}
