import Glibc
import TouchRouterSystem

/// Writes whole lines to stdout unbuffered, so a test harness reading a pipe or file sees each
/// line as soon as it happens.
enum LineOutput {
    static func print(_ line: String) {
        _ = write(line + "\n", to: 1)
    }

    /// Writes all of `text` to descriptor `fd` (1 stdout, 2 stderr, a file) at once, past the stdio
    /// buffer. Nil when it was written, else the failed call (a closed pipe: the rest is dropped).
    @discardableResult
    static func write(_ text: String, to fd: Int32) -> SystemError? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                do throws(SystemError) {
                    let rest = UnsafeRawBufferPointer(rebasing: buffer[offset...])
                    guard let written = try FileDescriptor(rawValue: fd).write(rest), written > 0 else {
                        return SystemError(call: "write", errno: EAGAIN)
                    }
                    offset += written
                } catch {
                    return error
                }
            }
            return nil
        }
    }

    /// Writes `text` as the whole content of the file at `path` (created with mode 0666 less the
    /// umask, or truncated). Nil when written, else the failed call.
    static func write(_ text: String, toFile path: String) -> SystemError? {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { return SystemError(call: "open", errno: errno) }
        let failure = write(text, to: fd)
        let closed = close(fd)
        return failure ?? (closed == 0 ? nil : SystemError(call: "close", errno: errno))
    }
}
