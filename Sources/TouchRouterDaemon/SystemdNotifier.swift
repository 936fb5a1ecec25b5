/// sd_notify(3) without libsystemd: datagrams to $NOTIFY_SOCKET telling a Type=notify unit's
/// manager that the daemon is ready, reloading or stopping.
import Glibc

/// Sends state lines to systemd when it asked for them (NOTIFY_SOCKET set); otherwise does nothing.
final class SystemdNotifier {
    private let socketFD: Int32
    private var address = sockaddr_un()
    private let addressLength: socklen_t

    /// Nil when the daemon was not started by a manager that listens (no NOTIFY_SOCKET).
    init?() {
        guard let value = getenv("NOTIFY_SOCKET") else { return nil }
        var path = Array(String(cString: value).utf8)
        unsetenv("NOTIFY_SOCKET")
        guard !path.isEmpty, path.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        if path[0] == UInt8(ascii: "@") { path[0] = 0 }  // abstract namespace
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        socketFD = fd
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        addressLength = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
    }

    deinit { close(socketFD) }

    /// The watchdog interval systemd expects keep-alives within (WATCHDOG_USEC, for this pid), or nil.
    static func watchdogIntervalMicros() -> UInt64? {
        guard let text = getenv("WATCHDOG_USEC"), let micros = UInt64(String(cString: text)), micros > 0
        else { return nil }
        if let pid = getenv("WATCHDOG_PID"), Int32(String(cString: pid)) != getpid() { return nil }
        return micros
    }

    /// Sends newline-separated `KEY=value` assignments (e.g. `READY=1\nSTATUS=…`); best effort.
    func notify(_ state: String) {
        var bytes = Array(state.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeMutableBytes {
                    sendto(
                        socketFD, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, addressLength)
                }
            }
        }
    }
}
