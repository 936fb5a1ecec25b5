import Foundation
import TouchRouterSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A Unix stream socket connected to `path`, or -1.
func connectUnix(_ path: String) -> Int32 {
    (try? UnixSocketAddress(path: path)?.connectStream())?.rawValue ?? -1
}

/// One subscribed client on its own thread: stamps CLOCK_MONOTONIC as soon as `recv` returns and
/// records, for every touches line in what it got, the arrival and arrival − `time`.
final class Probe: @unchecked Sendable {
    let fd: Int32
    let finished = DispatchSemaphore(value: 0)
    private(set) var arrivalNanos: [UInt64] = []
    private(set) var latencyNanos: [Int64] = []
    /// The connection ended (or failed) before the daemon was told to stop.
    private(set) var lostEarly = false

    /// A probe on an already connected socket (the kernel floor's readers).
    /// Set before `start`: the reading thread runs at `SCHED_FIFO` with this priority (as the
    /// daemon's loop does under `--realtime-priority`), so that other processes cannot delay it.
    var realtimePriority: Int32?

    init(connected fd: Int32) {
        self.fd = fd
        arrivalNanos.reserveCapacity(1 << 20)
        latencyNanos.reserveCapacity(1 << 20)
    }

    init(socketPath: String, view: String, gestures: Bool = false) {
        fd = connectUnix(socketPath)
        arrivalNanos.reserveCapacity(1 << 20)
        latencyNanos.reserveCapacity(1 << 20)
        let hello =
            #"{"type":"hello","version":1,"client":"bench"}"# + "\n"
            + #"{"type":"subscribe","views":["\#(view)"],"subtree":true,"gestures":\#(gestures)}"# + "\n"
        _ = hello.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    func start() {
        let thread = Thread { [self] in
            if let realtimePriority { try? ThreadScheduling.makeRealtime(priority: realtimePriority) }
            readUntilClosed()
            close(fd)
            finished.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private static let touchesPrefix = Array(#"{"type":"touches""#.utf8)
    private static let timeKey = Array(#""time":"#.utf8)

    private func readUntilClosed() {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var filled = 0
        while true {
            let received = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in
                    try FileDescriptor(rawValue: fd).read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
                }
            }
            let arrival = monotonicNanoseconds()
            guard case .success(let read) = received else {
                lostEarly = true
                return
            }
            guard let count = read, count > 0 else { return }
            filled += count
            var lineStart = 0
            while let newline = buffer[lineStart..<filled].firstIndex(of: 0x0A) {
                if let time = Self.touchesTime(buffer, lineStart, newline) {
                    arrivalNanos.append(arrival)
                    latencyNanos.append(Int64(arrival) - Int64(time) * 1000)
                }
                lineStart = newline + 1
            }
            if lineStart > 0 {
                buffer.withUnsafeMutableBytes { raw in
                    _ = memmove(raw.baseAddress!, raw.baseAddress! + lineStart, filled - lineStart)
                }
                filled -= lineStart
            }
            if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        }
    }

    /// The `time` (µs) of a touches line, nil for other lines.
    private static func touchesTime(_ buffer: [UInt8], _ start: Int, _ end: Int) -> UInt64? {
        guard end - start > touchesPrefix.count,
            buffer[start..<(start + touchesPrefix.count)].elementsEqual(touchesPrefix)
        else { return nil }
        var index = start
        while index + timeKey.count < end {
            if buffer[index..<(index + timeKey.count)].elementsEqual(timeKey) {
                var value: UInt64 = 0
                var digit = index + timeKey.count
                while digit < end, buffer[digit] >= 0x30, buffer[digit] <= 0x39 {
                    value = value * 10 + UInt64(buffer[digit] - 0x30)
                    digit += 1
                }
                return value
            }
            index += 1
        }
        return nil
    }
}

/// The kernel's floor for what the daemon does per message: one writer thread sends the same
/// number of 400-byte `touches`-shaped lines per second to N reader threads, one `send` per reader
/// over its own Unix stream socket, each line stamped (CLOCK_MONOTONIC µs, as `--replay-restamp`
/// stamps frames) just before the first `send`. The readers are the same `Probe`s the daemon's
/// clients use, so both rows measure stamp → reader holding the line the same way.
enum KernelFloor {
    /// Latencies (ns) of every line every reader received in `seconds`.
    static func measure(readers: Int, linesPerSecond: Double, seconds: Double) -> [Double] {
        guard readers > 0, linesPerSecond > 0 else { return [] }
        var writerFDs: [Int32] = []
        var probes: [Probe] = []
        for _ in 0..<readers {
            var pair: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                DaemonLatencyBenchmark.fail("socketpair failed")
            }
            writerFDs.append(pair[0])
            probes.append(Probe(connected: pair[1]))
        }
        for probe in probes { probe.start() }
        let interval = 1e9 / linesPerSecond
        let done = DispatchSemaphore(value: 0)
        let fds = writerFDs
        let writer = Thread {
            let prefix = Array(#"{"type":"touches","view":"main","screen":"main","time":"#.utf8)
            let padding = Array(
                (#","touches":[{"id":1,"phase":"moved","location":[263.25,400.5],"screenLocation":[263.25,400.5],"#
                    + #""previousLocation":[262.0,398.75],"timestamp":0,"tapCount":1,"device":"EP0430M09"}],"pad":""#)
                    .utf8)
            var line: [UInt8] = []
            line.reserveCapacity(512)
            let start = monotonicNanoseconds()
            var next = Double(start)
            while Double(monotonicNanoseconds()) < Double(start) + seconds * 1e9 {
                next += interval
                while Double(monotonicNanoseconds()) < next {
                    let wait = (next - Double(monotonicNanoseconds())) / 1000
                    if wait > 50 { usleep(UInt32(wait - 20)) }
                }
                line.removeAll(keepingCapacity: true)
                line += prefix
                line += Array(String(monotonicNanoseconds() / 1000).utf8)
                line += padding
                line += [UInt8](repeating: UInt8(ascii: "x"), count: max(0, 398 - line.count))
                line += Array("\"}\n".utf8)
                for fd in fds {
                    _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
            }
            done.signal()
        }
        writer.start()
        done.wait()
        for fd in writerFDs { close(fd) }
        for probe in probes { probe.finished.wait() }
        return probes.flatMap { $0.latencyNanos.map(Double.init) }
    }
}
