import Foundation
import TouchRouterCommandLine

/// touchrouter-bench: prints performance figures (release builds only mean anything).
///
///     swift build -c release --product touchrouter-bench
///     .build/release/touchrouter-bench            # every benchmark
///     .build/release/touchrouter-bench hittest    # one, by name; its options after it
///     .build/release/touchrouter-bench hittest --help
///
/// A benchmark is one file defining a `Benchmark` value (its options declared in its `spec`), plus
/// one line in this list.
let benchmarks: [Benchmark] = [
    hitTestBenchmark,
    trackerBenchmark,
    passthroughBenchmark,
    gestureBenchmark,
    encodeBenchmark,
    daemonLatencyBenchmark,
    stalledReadersBenchmark,
    reloadBenchmark,
    runtimeBenchmark,
    configBenchmark,
]

/// The text `touchrouter-bench --help` prints, generated from the benchmarks' declarations.
let overview = HelpText.overview(
    abstract: "Print touchrouter's performance figures (build with -c release).",
    usage: "touchrouter-bench [NAME [OPTIONS] [ARGUMENTS]]", commandsTitle: "BENCHMARKS",
    commands: benchmarks.map(\.spec),
    footer: "Without a name, runs every benchmark. See 'touchrouter-bench NAME --help' for a benchmark's options.")

func usageError(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if let name = arguments.first {
    if name == "--help" || name == "-h" {
        print(overview)
        exit(0)
    }
    if name == "--version" {
        print(PackageVersion.line(tool: "touchrouter-bench"))
        exit(0)
    }
    guard let benchmark = benchmarks.first(where: { $0.name == name }) else {
        let names = benchmarks.map(\.name).joined(separator: ", ")
        usageError("unknown benchmark \"\(name)\" (have: \(names))\nSee 'touchrouter-bench --help'.")
    }
    let rest = Array(arguments.dropFirst())
    if CommandLineParser.wantsHelp(rest) {
        print(HelpText.help(benchmark.spec, invokedAs: "touchrouter-bench \(name)"))
        exit(0)
    }
    do {
        benchmark.run(try CommandLineParser.parse(rest, benchmark.spec))
    } catch {
        usageError("touchrouter-bench \(name): \(error.message())\nSee 'touchrouter-bench \(name) --help'.")
    }
} else {
    for benchmark in benchmarks { benchmark.run(try! CommandLineParser.parse([], benchmark.spec)) }
}
