import Foundation

/// touchrouter-bench: prints performance figures (release builds only mean anything).
///
///     swift build -c release --product touchrouter-bench
///     .build/release/touchrouter-bench            # every benchmark
///     .build/release/touchrouter-bench hittest    # one, by name; extra arguments go to it
///
/// A benchmark is one file defining a `Benchmark` value, plus one line in this list.
let benchmarks: [Benchmark] = [
    hitTestBenchmark,
    trackerBenchmark,
    encodeBenchmark,
    daemonLatencyBenchmark,
    reloadBenchmark,
    configBenchmark,
]

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--help" || arguments.first == "-h" {
    print("usage: touchrouter-bench [NAME [ARGUMENTS…]]\n\nbenchmarks:")
    for benchmark in benchmarks { print("  \(benchmark.name)\t\(benchmark.summary)") }
} else if let name = arguments.first {
    guard let benchmark = benchmarks.first(where: { $0.name == name }) else {
        let names = benchmarks.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("unknown benchmark \"\(name)\" (have: \(names))\n".utf8))
        exit(2)
    }
    benchmark.run(Array(arguments.dropFirst()))
} else {
    for benchmark in benchmarks { benchmark.run([]) }
}
