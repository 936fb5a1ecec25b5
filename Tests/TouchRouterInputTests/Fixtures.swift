import Foundation

/// Paths of the shared recordings, found relative to this source file.
enum Fixtures {
    static let recordings: String = {
        let here = URL(fileURLWithPath: #filePath)
        return here.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/recordings").path
    }()

    static func path(_ relative: String) -> String { recordings + "/" + relative }

    static func files(in directory: String, extension ext: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path(directory))) ?? []
        return names.filter { $0.hasSuffix("." + ext) }.sorted().map { directory + "/" + $0 }
    }

    static let evemuEvents = files(in: "evemu", extension: "events")
    static let evemuDescriptions = files(in: "evemu", extension: "desc")
    static let libinputRecords = files(in: "libinput", extension: "yml")
}

/// The one place InputTests write files (recordings, descriptions, configs): a fresh directory
/// under the temporary directory, removed by `remove()`.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("touchrouter-input-tests-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` in the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` as `name`; returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }

    /// Writes `bytes` as `name`; returns its path.
    @discardableResult
    func write(_ name: String, _ bytes: Data) throws -> String {
        try bytes.write(to: url.appendingPathComponent(name))
        return path(name)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
