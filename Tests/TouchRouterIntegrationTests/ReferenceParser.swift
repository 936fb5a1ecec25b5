import Foundation
import Glibc
import Testing
import TouchRouterProtocol

/// The reference OpenMetrics parser (the Python client's, `pip install prometheus_client`): the
/// metrics text is read by it, never by us, and its samples handed back as JSON lines.
enum ReferenceParser {
    /// One sample as the parser read it.
    struct Sample: Equatable {
        var family: String
        var type: String
        var name: String
        var labels: [String: String]
        var value: Double
    }

    static let script = """
        import json, sys
        from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
        from prometheus_client.parser import text_string_to_metric_families as prometheus
        parse = openmetrics if sys.argv[1] == "openmetrics" else prometheus
        for family in parse(sys.stdin.read()):
            print(json.dumps({"family": family.name, "type": family.type, "samples": len(family.samples)}))
            for sample in family.samples:
                print(json.dumps({"family": family.name, "type": family.type, "name": sample.name,
                                  "labels": sample.labels, "value": sample.value}))
        """

    /// python3 on PATH can import the parser.
    static let isAvailable: Bool = {
        (try? run(["-c", "import prometheus_client.openmetrics.parser"], input: "").status) == 0
    }()

    static func run(_ arguments: [String], input: String) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let error = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self)
        )
    }

    /// Every sample of `text`, and each family's type; throws with the parser's error when it
    /// refuses the text.
    static func parse(_ text: String, format: MetricsFormat = .openMetrics) throws -> Parsed {
        let result = try run(["-c", script, format.rawValue], input: text)
        guard result.status == 0 else { throw HarnessError("the parser refused the text: \(result.error)\n\(text)") }
        var parsed = Parsed()
        for line in result.output.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let family = object["family"] as! String
            let type = object["type"] as! String
            guard let name = object["name"] as? String else {
                parsed.types[family] = type
                continue
            }
            parsed.samples.append(
                Sample(
                    family: family, type: type, name: name, labels: object["labels"] as! [String: String],
                    value: (object["value"] as! NSNumber).doubleValue))
        }
        return parsed
    }

    /// What the parser read.
    struct Parsed {
        var types: [String: String] = [:]
        var samples: [Sample] = []

        /// The value of the sample `name` with exactly these labels; nil when there is none.
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { $0.name == name && $0.labels == labels }?.value
        }

        /// The samples of one family.
        func family(_ name: String) -> [Sample] { samples.filter { $0.family == name } }
    }
}
