import Foundation
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterProtocol

/// `touchrouter-bench encode [SEED]`.
let encodeBenchmark = Benchmark(
    spec: CommandSpec(
        name: "encode",
        abstract: "touches line encoding: byte-level TouchesEncoder vs JSONEncoder, 1/2/10 touches",
        arguments: [ArgumentSpec(.seed, help: "Seed of the random messages (default 3192651781).", isOptional: true)]),
    run: { arguments in runEncodeBenchmark(seed: arguments.argument(.seed).flatMap { UInt64($0) } ?? 0xBE4C_0005) })

/// Encoding a `touches` line: the byte-level `TouchesEncoder` against Foundation's JSONEncoder
/// (with the conversion to Codable structs the daemon would need), for 1, 2 and 10 touches.
/// Prints median and p99 nanoseconds per message and the ratio.
func runEncodeBenchmark(seed: UInt64 = 0xBE4C_0005) {
    print("encode: touches message, ns/message (seed \(seed))")
    print("touches  fast-median  fast-p99  JSONEncoder-median  JSONEncoder-p99  ratio(median)  bytes")
    var random = SeededRandom(seed: seed)
    for touchCount in [1, 2, 10] {
        let messages = (0..<64).map { _ in EncodeBenchmarkData.viewTouches(&random, touchCount: touchCount) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(4096)
        var sink = 0
        let fast = measureNanosPerOperation(operationsPerSample: 2000) { index in
            buffer.removeAll(keepingCapacity: true)
            TouchesEncoder.appendLine(messages[index & 63], to: &buffer)
            sink &+= buffer.count
        }
        let encoder = JSONEncoder()
        let slow = measureNanosPerOperation(operationsPerSample: 200) { index in
            let data = try! encoder.encode(CodableTouches(messages[index & 63]))
            sink &+= data.count
        }
        let bytes = TouchesEncoder.encodedLine(messages[0]).count
        print(
            String(
                format: "%7d  %11.0f  %8.0f  %18.0f  %15.0f  %13.1f  %5d", touchCount, fast.median, fast.p99,
                slow.median, slow.p99, slow.median / fast.median, bytes))
        if sink == 42 { print("") }  // keeps the work observable
    }
}

/// Median and 99th percentile of per-operation time over 101 samples of `operationsPerSample` runs.
private func measureNanosPerOperation(
    operationsPerSample: Int, _ operation: (Int) -> Void
) -> (median: Double, p99: Double) {
    for index in 0..<operationsPerSample { operation(index) }  // warm-up
    var samples: [Double] = []
    for _ in 0..<101 {
        let start = monotonicNanoseconds()
        for index in 0..<operationsPerSample { operation(index) }
        let elapsed = monotonicNanoseconds() - start
        samples.append(Double(elapsed) / Double(operationsPerSample))
    }
    samples.sort()
    return (samples[50], samples[99])
}

/// The JSONEncoder path: the same wire shape through Codable.
private struct CodableTouches: Encodable {
    struct Touch: Encodable {
        var id: UInt64
        var phase: String
        var location: [Double]
        var screenLocation: [Double]
        var previousLocation: [Double]
        var timestamp: UInt64
        var tapCount: Int
        var device: String
        var reason: String?
    }

    var type = "touches"
    var view: String
    var screen: String
    var time: UInt64
    var touches: [Touch]

    init(_ message: ViewTouches) {
        view = message.viewID
        screen = message.screen
        time = message.timestampMicros
        touches = message.touches.map { touch in
            Touch(
                id: touch.id, phase: touch.phase.rawValue,
                location: [touch.localPoint.x, touch.localPoint.y],
                screenLocation: [touch.screenPoint.x, touch.screenPoint.y],
                previousLocation: [touch.previousLocalPoint.x, touch.previousLocalPoint.y],
                timestamp: touch.timestampMicros, tapCount: touch.tapCount, device: touch.device.name,
                reason: touch.cancelReason?.rawValue)
        }
    }
}

/// Messages shaped like the daemon's: arbitrary-precision coordinates on a 1920×1080 screen.
private enum EncodeBenchmarkData {
    static let device = InputDevice(id: 1, name: "Atmel maXTouch Touchscreen")

    static func viewTouches(_ random: inout SeededRandom, touchCount: Int) -> ViewTouches {
        let time = UInt64.random(in: 1_000_000_000...9_000_000_000, using: &random)
        let touches = (0..<touchCount).map { index in
            let screen = Point(
                Double.random(in: 0..<1920, using: &random), Double.random(in: 0..<1080, using: &random))
            let local = Point(screen.x - 300, screen.y - 200)
            return RoutedTouch(
                id: UInt64(100 + index), phase: index == 0 ? .moved : .stationary, localPoint: local,
                screenPoint: screen, previousLocalPoint: Point(local.x - 1.5, local.y + 0.25),
                timestampMicros: time, tapCount: 1, device: device)
        }
        return ViewTouches(viewID: "keypad/7", screen: "main", timestampMicros: time, touches: touches)
    }
}
