import Foundation
import Testing
import TouchRouterCore

@testable import TouchRouterProtocol

/// Every JSON line in docs/protocol.md decodes, and re-encodes to exactly the documented bytes, so
/// the documentation cannot drift from the codec.
@Suite("Protocol documentation")
struct DocumentationTests {
    static let requestTypes: Set<String> = [
        "hello", "subscribe", "unsubscribe", "hitTest", "explain", "layout", "status", "metrics", "reload", "setView",
        "mount", "unmount", "setScreenState", "calibrationStart", "calibrationFinish", "calibrationCancel",
    ]

    static func documentedLines() throws -> [String] {
        let docs = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/protocol.md")
        var lines: [String] = []
        var inJSONBlock = false
        for line in try String(contentsOf: docs, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            if line.hasPrefix("```") {
                inJSONBlock = line == "```json"
                continue
            }
            if inJSONBlock { lines.append(String(line)) }
        }
        return lines
    }

    @Test("every documented line decodes and re-encodes byte for byte")
    func documentedExamples() throws {
        let lines = try Self.documentedLines()
        #expect(lines.count >= 20)
        var requestLines = 0
        var daemonLines = 0
        for line in lines {
            let bytes = Array(line.utf8)
            // A layout request and a layout reply share the type "layout": a reply has a generation.
            let isRequest =
                Self.requestTypes.contains(Self.type(of: line)) && !line.contains("\"generation\"")
                && !line.contains("\"counters\"") && !line.contains("\"text\"")
            if isRequest {
                guard case .request(let request) = RequestDecoder.decode(line: bytes) else {
                    Issue.record("documented request does not decode: \(line)")
                    continue
                }
                #expect(String(decoding: request.encodedLine().dropLast(), as: UTF8.self) == line)
                requestLines += 1
            } else {
                let message = try DaemonMessageDecoder.decode(line: bytes).get()
                #expect(String(decoding: message.encodedLine().dropLast(), as: UTF8.self) == line)
                daemonLines += 1
            }
        }
        #expect(requestLines >= 7 && daemonLines >= 10)
    }

    @Test("every error code and cancel reason is documented")
    func everyCodeDocumented() throws {
        let docs = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/protocol.md"),
            encoding: .utf8)
        for code in ErrorCode.allCases {
            #expect(docs.contains("| `\(code.rawValue)` |"), "\(code.rawValue) is not in the error table")
        }
        for reason in CancelReason.allCases {
            #expect(docs.contains("`\(reason.rawValue)`"), "\(reason.rawValue) is not documented")
        }
    }

    static func type(of line: String) -> String {
        guard let range = line.range(of: #""type":""#) else { return "" }
        return String(line[range.upperBound...].prefix { $0 != "\"" })
    }
}
