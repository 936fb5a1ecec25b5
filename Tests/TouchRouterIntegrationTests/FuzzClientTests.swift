import Foundation
import Glibc
import Synchronization
import Testing
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

/// Seeded fuzzing of the real daemon by real clients while a recording plays: random bytes,
/// lines split into pieces, mutated requests, abrupt disconnects mid-line.
@Suite("Fuzzing clients against the real daemon", .serialized)
struct FuzzClientTests {
    static let fuzzerCount = 6
    static let minimumActionsPerFuzzer = 150

    @Test(
        "the daemon stays up, a good client's touches are unchanged, every line gets one reply",
        arguments: [0x5EED_0001, 0xF022_C11E] as [UInt64])
    func fuzz(seed: UInt64) throws {
        let config = try loadConfig(path: Scenario.layoutPath)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Half speed: about 2.4 s of touches for the fuzzers to act during.
        let daemon = try DaemonProcess(directory: directory, arguments: Scenario.arguments(speed: "0.5"))
        defer { daemon.stop() }

        // The good client subscribes to every view first (so nothing a fuzzer subscribes to can
        // change where a touch goes) and its subscription starts the replay.
        let good = try LineClient(socketPath: daemon.socketPath)
        try good.hello("good")
        try good.send(ClientRequest(.subscribe(views: ["panel"], subtree: true), seq: 1))
        let covered = Expected.covered(["panel"], subtree: true, layout: config.layout)
        let events = try Expected.events(recording: Scenario.fourFingerDrag, config: config, speed: 0.5)
        let expected = Expected.messages(events: events, layout: config.layout, subscribers: [covered])[0]
        #expect(expected.count > 100)

        let shared = FuzzShared()
        let group = DispatchGroup()
        let socketPath = daemon.socketPath
        for index in 0..<Self.fuzzerCount {
            let fuzzerSeed = seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15
            DispatchQueue.global().async(group: group) {
                let report = Fuzzer.run(
                    socketPath: socketPath, seed: fuzzerSeed, minimumActions: Self.minimumActionsPerFuzzer,
                    stop: shared)
                shared.reports.withLock { $0.append(report) }
            }
        }

        var received: [TouchesMessage] = []
        while received.count < expected.count {
            guard let message = try good.readMessage() else {
                Issue.record("seed \(seed): the good client was disconnected:\n\(daemon.log)")
                break
            }
            if let touches = message.touches { received.append(touches) }
        }
        shared.stop.store(true, ordering: .relaxed)
        #expect(group.wait(timeout: .now() + 120) == .success, "seed \(seed): fuzzers did not finish")
        #expect(received == expected, "seed \(seed): the good client's touches changed")

        let all = shared.reports.withLock { $0 }
        #expect(all.count == Self.fuzzerCount)
        for report in all {
            #expect(report.problems.isEmpty, "seed \(seed): \(report.problems.prefix(5))")
        }
        let lines = all.map(\.completeLines).reduce(0, +)
        let replies = all.map(\.replies).reduce(0, +)
        #expect(lines == replies, "seed \(seed)")
        #expect(lines > Self.fuzzerCount * Self.minimumActionsPerFuzzer / 2)
        #expect(all.map(\.connections).reduce(0, +) > Self.fuzzerCount)

        // Still up and answering; the log names no crash; a clean stop.
        #expect(daemon.process.isRunning, "seed \(seed):\n\(daemon.log)")
        try good.send(ClientRequest(.status, seq: 2))
        guard case .status(let status) = try good.readReply() else {
            Issue.record("seed \(seed): no status reply")
            return
        }
        #expect(status.seq == 2)
        daemon.stop()
        #expect(daemon.process.terminationStatus == 0, "seed \(seed):\n\(daemon.log)")
    }
}

/// The stop flag and the reports the fuzzing threads share with the test.
final class FuzzShared: Sendable {
    let stop = Atomic<Bool>(false)
    let reports = Mutex<[FuzzReport]>([])
}

/// What one fuzzing thread saw.
struct FuzzReport: Sendable {
    /// Non-blank lines sent whole (each must get exactly one reply or error).
    var completeLines = 0
    /// Replies and errors received for them.
    var replies = 0
    var connections = 0
    var problems: [String] = []
}

/// One fuzzing client: connects, acts at random, checks its replies by a sentinel request, and
/// sometimes leaves mid-line; again and again until told to stop (after a minimum of actions).
enum Fuzzer {
    static let sentinelSeq: Int64 = 4_242_424
    static let viewIDs = ["panel", "left", "right", "left-edge", "right-edge", "nope", "", "ü\u{0}"]

    static func run(socketPath: String, seed: UInt64, minimumActions: Int, stop: FuzzShared) -> FuzzReport {
        var random = SeededRandom(seed: seed)
        var report = FuzzReport()
        var actions = 0
        while actions < minimumActions || !stop.stop.load(ordering: .relaxed) {
            guard let connection = try? FuzzConnection(socketPath: socketPath) else {
                report.problems.append("seed \(seed): connect failed")
                return report
            }
            report.connections += 1
            var lines = 0
            let sessionLength = Int.random(in: 5...40, using: &random)
            for _ in 0..<sessionLength {
                actions += 1
                lines += act(on: connection, &random)
                if !connection.drain(blocking: false) {
                    report.problems.append("seed \(seed): connection lost: \(connection.problems)")
                    return report
                }
            }
            // Sentinel: once its reply is in, every earlier line's reply is too (replies keep order).
            connection.send(Array(#"{"type":"status","seq":\#(sentinelSeq)}"#.utf8) + [0x0A])
            lines += 1
            while !connection.sawSentinel {
                if !connection.drain(blocking: true) {
                    report.problems.append("seed \(seed): no sentinel reply: \(connection.problems)")
                    return report
                }
            }
            report.completeLines += lines
            report.replies += connection.replies
            report.problems += connection.problems
            if Bool.random(using: &random) {
                // Leave mid-line: a partial request, then close without reading on.
                connection.send(Array(#"{"type":"hitTest","point":[1"#.utf8))
            }
            connection.close()
        }
        return report
    }

    /// Sends something random; returns how many complete non-blank lines it sent.
    static func act(on connection: FuzzConnection, _ random: inout SeededRandom) -> Int {
        var line: [UInt8]
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
            // Random bytes (any but newline), sometimes invalid UTF-8.
            line = (0..<Int.random(in: 1...300, using: &random)).map { _ in
                var byte = UInt8.random(in: 0...255, using: &random)
                if byte == 0x0A { byte = 0x7B }
                return byte
            }
        case 2, 3, 4:
            line = validRequest(&random)
        default:
            line = mutate(validRequest(&random), &random)
        }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { line.insert(0x78, at: 0) }
        line.append(0x0A)
        if Int.random(in: 0..<3, using: &random) == 0 {
            // In pieces, with pauses, so the daemon reads partial lines.
            var offset = 0
            while offset < line.count {
                let end = min(line.count, offset + Int.random(in: 1...16, using: &random))
                connection.send(Array(line[offset..<end]))
                offset = end
                usleep(UInt32.random(in: 0...300, using: &random))
            }
        } else {
            connection.send(line)
        }
        return 1
    }

    /// A well-formed request of a random kind (reload excluded: it is the admin's and would reload
    /// the layout under the good client).
    static func validRequest(_ random: inout SeededRandom) -> [UInt8] {
        func views() -> [String] {
            (0..<Int.random(in: 0...3, using: &random)).map { _ in viewIDs.randomElement(using: &random)! }
        }
        let message: RequestMessage
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            message = .hello(version: [1, 1, 2, -1].randomElement(using: &random)!, client: "fuzz")
        case 1: message = .subscribe(views: views(), subtree: Bool.random(using: &random))
        case 2: message = .unsubscribe(Bool.random(using: &random) ? .all : .views(views()))
        case 3:
            message = .hitTest(
                screen: ["main", "side", nil].randomElement(using: &random)!,
                screenPoint: Point(
                    Double.random(in: -2000...2000, using: &random),
                    Double.random(in: -2000...2000, using: &random)))
        case 4: message = .layout
        default: message = .status
        }
        let seq: Int64? = Bool.random(using: &random) ? Int64.random(in: 0..<1000, using: &random) : nil
        return Array(ClientRequest(message, seq: seq).encodedLine().dropLast())
    }

    /// A request with a few bytes changed, cut, or a value of the wrong type spliced in.
    static func mutate(_ line: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = line
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            guard !bytes.isEmpty else { break }
            let index = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: bytes[index] = UInt8.random(in: 0x20...0x7E, using: &random)
            case 1: bytes.removeSubrange(index...)
            case 2: bytes.remove(at: index)
            default:
                let splice = [
                    "null", "-1e999", "\"x\"", "[]", "{}", "true", "1.5", "\"\\ud800\"",
                    "9999999999999999999",
                ]
                bytes.insert(contentsOf: Array(splice.randomElement(using: &random)!.utf8), at: index)
            }
        }
        return bytes
    }
}

/// A fuzzing client's socket: sends everything, reads replies as they come and counts them.
final class FuzzConnection {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var replies = 0
    private(set) var sawSentinel = false
    private(set) var problems: [String] = []

    init(socketPath: String) throws {
        guard let connected = try? UnixSocketAddress(path: socketPath)?.connectStream() else {
            throw HarnessError("connect \(socketPath) failed")
        }
        fd = connected.rawValue
    }

    deinit { close() }

    private var isClosed = false

    func close() {
        if !isClosed { Glibc.close(fd) }
        isClosed = true
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                problems.append("send: \(String(cString: strerror(errno)))")
                return
            }
            offset += count
        }
    }

    /// Reads what is there (or waits for something, up to 30 s, when `blocking`) and counts the
    /// replies. False when the connection ended or a line did not decode.
    func drain(blocking: Bool) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, blocking ? 30_000 : 0)
        if ready == 0 { return !blocking || problem("nothing from the daemon for 30 s") }
        if ready < 0 { return errno == EINTR || problem("poll failed") }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count == 0 { return problem("the daemon closed the connection") }
        if count < 0 { return errno == EAGAIN || errno == EINTR || problem("recv: \(errno)") }
        buffer += chunk[..<count]
        while let newline = buffer.firstIndex(of: 0x0A) {
            let line = Array(buffer[..<newline])
            buffer.removeFirst(newline + 1)
            switch DaemonMessageDecoder.decode(line: line) {
            case .failure(let error):
                return problem("undecodable line \(String(decoding: line, as: UTF8.self)): \(error)")
            case .success(.touches), .success(.layoutChanged):
                continue
            case .success(let message):
                replies += 1
                if case .status(let status) = message, status.seq == Fuzzer.sentinelSeq { sawSentinel = true }
            }
        }
        return true
    }

    private func problem(_ text: String) -> Bool {
        problems.append(text)
        return false
    }
}
