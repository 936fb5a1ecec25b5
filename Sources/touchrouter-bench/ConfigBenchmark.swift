import Foundation
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterInput

/// `touchrouter-bench config [--sizes 10001,100001] [--runs N]`: loading a layout the way the daemon
/// does (read the file, parse, validate, build the tracker and its hit-test indexes) against Python's
/// `json.load` of the same file, run by run in the same process tree; then RssAnon of a fresh
/// process holding the largest layout once loaded.
let configBenchmark = Benchmark(
    spec: CommandSpec(
        name: "config",
        abstract: "config load (parse + validate + index) vs Python json.load, 10k/100k views; RssAnon",
        options: [ConfigOptions.sizes, ConfigOptions.runs, ConfigOptions.rssChild]),
    run: runConfigBenchmark)

/// The options of `touchrouter-bench config`, each declared once.
enum ConfigOptions {
    static let sizes = Option.integers(
        "sizes", help: "Layout sizes in views.", in: 1...Int.max, default: [10_001, 100_001])
    static let runs = Option.integer("runs", help: "Runs per size; the median is printed.", in: 1...Int.max, default: 7)
    static let rssChild = Option.text(
        "rss-child", valueName: "PATH", help: "Internal: the RssAnon child process.", isHidden: true)
}

func runConfigBenchmark(_ arguments: ParsedArguments) {
    if let path = arguments.value(ConfigOptions.rssChild) {
        reportRSSAfterLoading(path: path)
        return
    }
    let sizes = arguments.value(ConfigOptions.sizes)
    let runs = arguments.value(ConfigOptions.runs)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "touchrouter-bench-config-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    print(
        "config: load = read + parse + validate + tracker/index build; median of \(runs) runs, each followed by "
            + "one json.load of the same file in Python (so both see the same machine load)")
    print(
        "views     bytes  reader-only  tracker-only   load wall  json.load wall  ratio    load CPU"
            + "  json.load CPU  ratio")
    var largest: String?
    for size in sizes {
        let path = directory.appendingPathComponent("layout-\(size).json").path
        let text = ConfigBenchmarkFile.text(viewCount: size)
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        largest = path

        var readerOnly: [Double] = []
        var loadWall: [Double] = []
        var loadCPU: [Double] = []
        var trackerBuild: [Double] = []
        var pythonWall: [Double] = []
        var pythonCPU: [Double] = []
        var checksum = 0
        for _ in 0..<runs {
            let data = try! Data(contentsOf: URL(fileURLWithPath: path))
            var start = monotonicNanoseconds()
            let read = data.withUnsafeBytes { JSONReader.read($0.bindMemory(to: UInt8.self), syntax: .json5) }
            readerOnly.append(Double(monotonicNanoseconds() - start))
            checksum &+= read.problems.count

            start = monotonicNanoseconds()
            let cpuStart = threadCPUNanoseconds()
            let config = try! loadConfig(path: path)
            let parsed = monotonicNanoseconds()
            let tracker = TouchTracker(layout: config.layout)
            let end = monotonicNanoseconds()
            loadCPU.append(Double(threadCPUNanoseconds() - cpuStart))
            loadWall.append(Double(end - start))
            trackerBuild.append(Double(end - parsed))
            checksum &+= config.layout.viewCount
            withExtendedLifetime(tracker) {}

            guard let python = pythonJSONLoad(path: path) else {
                print("python3 is needed for the reference")
                return
            }
            pythonWall.append(python.wall)
            pythonCPU.append(python.cpu)
        }
        let (wall, cpu) = (percentile(loadWall, 0.5), percentile(loadCPU, 0.5))
        let (referenceWall, referenceCPU) = (percentile(pythonWall, 0.5), percentile(pythonCPU, 0.5))
        print(
            column("\(size)", 5) + column("\(text.utf8.count)", 10)
                + column(formatNanoseconds(percentile(readerOnly, 0.5)), 13)
                + column(formatNanoseconds(percentile(trackerBuild, 0.5)), 14)
                + column(formatNanoseconds(wall), 12) + column(formatNanoseconds(referenceWall), 16)
                + column(String(format: "%.2f×", wall / referenceWall), 7)
                + column(formatNanoseconds(cpu), 12) + column(formatNanoseconds(referenceCPU), 15)
                + column(String(format: "%.2f×", cpu / referenceCPU), 7))
        if checksum == 42 { print("") }  // keeps the work observable
    }
    if let largest {
        fflush(nil)
        // A fresh process, so that this one's generated layouts do not count.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["config", "--rss-child", largest]
        try? child.run()
        child.waitUntilExit()
    }
}

/// One `json.load` of the file in Python: wall-clock and CPU time, measured by Python itself around
/// the load (interpreter start-up excluded).
private func pythonJSONLoad(path: String) -> (wall: Double, cpu: Double)? {
    let script = """
        import json, sys, time
        wall, cpu = time.perf_counter_ns(), time.process_time_ns()
        with open(sys.argv[1], encoding="utf-8") as f:
            json.load(f)
        print(time.perf_counter_ns() - wall, time.process_time_ns() - cpu)
        """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, path]
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return nil }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let fields = String(decoding: output, as: UTF8.self).split(separator: " ").compactMap {
        Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    guard process.terminationStatus == 0, fields.count == 2 else { return nil }
    return (fields[0], fields[1])
}

/// Loads the layout as the daemon does, keeps it, and prints this process's RssAnon: as loaded,
/// and after `malloc_trim(0)` hands the freed pages of the transient JSON tree back to the kernel.
private func reportRSSAfterLoading(path: String) {
    let before = rssAnonKilobytes()
    let config = try! loadConfig(path: path)
    let tracker = TouchTracker(layout: config.layout)
    let loaded = rssAnonKilobytes()
    var trimmed = "malloc_trim not found"
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        let trim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        _ = trim(0)
        trimmed = "\(rssAnonKilobytes() / 1024) MB after malloc_trim(0)"
    }
    print(
        "RssAnon holding the \(config.layout.viewCount)-view layout and its tracker: \(loaded / 1024) MB as "
            + "loaded, \(trimmed) (\(before / 1024) MB before loading)")
    withExtendedLifetime((config, tracker)) {}
}

private func rssAnonKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") })
    else { return -1 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
}

/// The benchmark's layout file: `BenchLayouts.realistic` (panels of buttons with shapes, margins,
/// some rotated, hidden or disabled) written as plain JSON (so Python reads the same bytes), one
/// view per line and coordinates to two decimals, as a person or a layout tool would write it.
enum ConfigBenchmarkFile {
    static func text(viewCount: Int) -> String {
        let root = BenchLayouts.realistic(viewCount: viewCount)
        var out = "{\n  \"screens\": [\n    {\n      \"name\": \"main\", \"width\": 1080, \"height\": 1920,\n"
        out += "      \"root\": "
        write(root, isRoot: true, indent: "      ", to: &out)
        out += "\n    }\n  ]\n}\n"
        return out
    }

    private static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int64(rounded)) }
        return String(format: "%.2f", rounded)
    }

    /// One view per line, indented by depth; a container's children on the lines after it.
    private static func write(_ view: View, isRoot: Bool, indent: String, to out: inout String) {
        out += "{\"id\": \"\(view.id)\""
        if !isRoot {
            let frame = view.frame
            out += ", \"frame\": [\(number(frame.x)), \(number(frame.y)), \(number(frame.width)), "
            out += "\(number(frame.height))]"
        }
        switch view.shape {
        case .rect: break
        case .ellipse: out += ", \"shape\": \"ellipse\""
        case .roundedRect(let radius): out += ", \"shape\": {\"roundedRect\": \(number(radius))}"
        case .polygon(let points):
            let list = points.map { "[\(number($0.x)), \(number($0.y))]" }.joined(separator: ", ")
            out += ", \"shape\": {\"polygon\": [\(list)]}"
        }
        if view.touchMargin != .zero { out += ", \"touchMargin\": \(number(view.touchMargin.top))" }
        if view.transform.rotationDegrees != 0 {
            out += ", \"transform\": {\"rotate\": \(number(view.transform.rotationDegrees))}"
        }
        if view.hidden { out += ", \"hidden\": true" }
        if view.alpha != 1 { out += ", \"alpha\": \(number(view.alpha))" }
        if !view.interactive { out += ", \"interactive\": false" }
        if !view.children.isEmpty {
            out += ", \"children\": [\n"
            for (index, child) in view.children.enumerated() {
                out += indent + "  "
                write(child, isRoot: false, indent: indent + "  ", to: &out)
                out += index + 1 < view.children.count ? ",\n" : "\n"
            }
            out += "\(indent)]"
        }
        out += "}"
    }
}
