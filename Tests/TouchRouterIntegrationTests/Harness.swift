/// Runs the real `touchrouterd` binary in a temporary directory and talks to it over real Unix
/// sockets. Timeouts here only keep a broken build from hanging the suite; nothing asserts time.
import Foundation
import Glibc
import TouchRouterProtocol
import TouchRouterSystem

/// Where the repository and the built products are.
enum Paths {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")
    static let recordings = fixtures.appendingPathComponent("recordings")

    /// A product built next to the test bundle (`swift test` builds every product first).
    static func product(_ name: String) -> String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
            packageRoot.appendingPathComponent(".build/debug"),
        ]
        for directory in candidates {
            let path = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return packageRoot.appendingPathComponent(".build/debug/\(name)").path
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A fresh temporary directory, removed by `remove()`.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/touchrouter-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp failed") }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: file(name), atomically: true, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A `touchrouterd` child process.
final class DaemonProcess {
    let process = Process()
    let logPath: String
    let socketPath: String

    /// Starts the daemon with `arguments` (plus `--socket` in `directory`) and waits until it
    /// listens (or has exited, for tests of refusals).
    init(
        directory: TemporaryDirectory, arguments: [String], socketName: String = "run/touchrouter.sock",
        waitUntilListening: Bool = true, launcher: [String] = [], environment: [String: String] = [:]
    ) throws {
        socketPath = directory.file(socketName)
        logPath = directory.file("daemon-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        // `launcher` runs the daemon through another program, e.g. `prlimit --nofile=16`.
        let command = launcher + [Paths.product("touchrouterd")]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments =
            command.dropFirst() + arguments + ["--socket", socketPath, "--log-level", "debug"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        if waitUntilListening {
            try waitForLog("listening on")
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Waits until the log contains `text`, `occurrences` times or more (polling the file; generous
    /// limit against hangs).
    func waitForLog(_ text: String, occurrences: Int = 1, timeoutSeconds: Double = 30) throws {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        func found() -> Bool { log.components(separatedBy: text).count > occurrences }
        while !found() {
            if !process.isRunning && !found() {
                throw HarnessError(
                    "daemon exited (status \(process.terminationStatus)) before logging \"\(text)\":\n\(log)")
            }
            if Date() > deadline { throw HarnessError("daemon never logged \"\(text)\":\n\(log)") }
            usleep(10_000)
        }
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the process to end and returns its exit status.
    @discardableResult
    func waitForExit(timeoutSeconds: Double = 30) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                throw HarnessError("daemon did not exit:\n\(log)")
            }
            usleep(10_000)
        }
        return process.terminationStatus
    }

    /// SIGTERM and wait; used at the end of every test.
    func stop() {
        if process.isRunning {
            signal(SIGTERM)
            _ = try? waitForExit()
        }
    }
}

/// A raw protocol client: a blocking Unix socket with line reads that give up after a timeout.
final class LineClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var isAtEOF = false

    init(socketPath: String) throws {
        guard let address = UnixSocketAddress(path: socketPath) else { throw HarnessError("bad path \(socketPath)") }
        do {
            fd = try address.connectStream().rawValue
        } catch {
            throw HarnessError("connect \(socketPath): \(error)")
        }
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) throws {
        var bytes = Array(text.utf8)
        if bytes.last != 0x0A { bytes.append(0x0A) }
        try sendRaw(bytes)
    }

    func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw HarnessError("send: \(String(cString: strerror(errno)))")
            }
            offset += count
        }
    }

    func send(_ request: ClientRequest) throws { try sendRaw(request.encodedLine()) }

    /// The next line (without `\n`), or nil at end of stream.
    func readLine(timeoutSeconds: Double = 30) throws -> [UInt8]? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                return line
            }
            if isAtEOF { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(timeoutSeconds * 1000))
            if ready == 0 { throw HarnessError("no line from the daemon in \(timeoutSeconds) s") }
            if ready < 0 { if errno == EINTR { continue } else { throw HarnessError("poll failed") } }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET {
                    isAtEOF = true
                    continue
                }
                throw HarnessError("recv: \(String(cString: strerror(errno)))")
            }
            if count == 0 { isAtEOF = true } else { buffer += chunk[..<count] }
        }
    }

    /// The next decoded message, or nil at end of stream.
    func readMessage(timeoutSeconds: Double = 30) throws -> DaemonMessage? {
        guard let line = try readLine(timeoutSeconds: timeoutSeconds) else { return nil }
        switch DaemonMessageDecoder.decode(line: line) {
        case .success(let message): return message
        case .failure(let error):
            throw HarnessError("undecodable line \(String(decoding: line, as: UTF8.self)): \(error)")
        }
    }

    /// Reads until a message that is not `touches`/`layoutChanged`/`idle`/`active` arrives (a reply)
    /// and returns it.
    func readReply() throws -> DaemonMessage {
        while let message = try readMessage() {
            switch message {
            case .touches, .gesture, .layoutChanged, .viewsChanged, .screenState: continue
            default: return message
            }
        }
        throw HarnessError("connection closed while waiting for a reply")
    }

    /// hello → welcome.
    @discardableResult
    func hello(_ name: String) throws -> DaemonMessage {
        try send(ClientRequest(.hello(version: 1, client: name)))
        return try readReply()
    }

    /// Every message until the daemon closes the connection.
    func readUntilEOF() throws -> [DaemonMessage] {
        var messages: [DaemonMessage] = []
        while let message = try readMessage() { messages.append(message) }
        return messages
    }
}

extension DaemonMessage {
    var errorCode: ErrorCode? {
        if case .error(let error) = self { return error.code }
        return nil
    }

    var touches: TouchesMessage? {
        if case .touches(let message) = self { return message }
        return nil
    }

    var gesture: GestureMessage? {
        if case .gesture(let message) = self { return message }
        return nil
    }
}

/// A program run to its end with no input (a client example, `touchrouterctl`, a script): its
/// standard output's lines and its exit status. A client's run ends when the daemon closes its
/// connection (after a replay, or at shutdown).
struct ProgramRun {
    let lines: [String]
    let status: Int32

    /// Runs `executable` (a path, or a name looked up on PATH) with `arguments` until it exits.
    init(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        status = process.terminationStatus
    }
}

/// A Python client run as another user through `setpriv` (the tests run as root), for access
/// lists: the daemon sees that user's credentials on the socket.
enum OtherUserClient {
    /// The system's Python (a per-user one, e.g. under /root, is not reachable for nobody).
    static let python = "/usr/bin/python3"
    /// `setpriv` arguments for `nobody` in `nogroup` with no supplementary groups.
    static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    /// Root, setpriv and the system's Python are there.
    static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
            && FileManager.default.isExecutableFile(atPath: python)
    }

    /// Runs `script` with `arguments` under `credentials` (setpriv's options) and returns what it
    /// printed once it has exited. The script must be readable by that user.
    static func run(script: String, arguments: [String], credentials: [String] = nobody) throws -> String {
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        client.arguments = credentials + [python, script] + arguments
        let output = Pipe()
        client.standardOutput = output
        try client.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        client.waitUntilExit()
        return text
    }
}

/// A script run as another user (setpriv, as `OtherUserClient.run`) that the test talks to while it
/// runs: its stdout is gathered in `text`, a line can be written to its stdin.
final class InteractiveOtherUserClient {
    private let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    /// Everything the script printed so far.
    private(set) var text = ""

    init(script: String, arguments: [String], credentials: [String] = OtherUserClient.nobody) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = credentials + [OtherUserClient.python, script] + arguments
        process.standardOutput = output
        process.standardInput = input
        try process.run()
    }

    deinit { if process.isRunning { process.terminate() } }

    /// Reads until `text` contains `marker`; throws (with `context`) if the script ends first.
    func read(until marker: String, context: @autoclosure () -> String) throws {
        while !text.contains(marker) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw HarnessError("the script stopped early:\n\(text)\n\(context())") }
            text += String(decoding: chunk, as: UTF8.self)
        }
    }

    /// Writes one line to the script's stdin.
    func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    /// Reads the rest of the output and waits for the script to exit.
    func finish() {
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
    }
}
