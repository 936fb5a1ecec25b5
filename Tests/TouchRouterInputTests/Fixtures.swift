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
