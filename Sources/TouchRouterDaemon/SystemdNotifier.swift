/// sd_notify(3) without libsystemd: datagrams to $NOTIFY_SOCKET telling a Type=notify unit's
/// manager that the daemon is ready, reloading or stopping.
import Glibc
import TouchRouterSystem

/// Sends state lines to systemd when it asked for them (NOTIFY_SOCKET set); otherwise does nothing.
final class SystemdNotifier {
    private let socket: FileDescriptor
    private let address: UnixSocketAddress

    /// Nil when the daemon was not started by a manager that listens (no NOTIFY_SOCKET).
    init?() {
        guard let value = getenv("NOTIFY_SOCKET") else { return nil }
        let path = String(cString: value)
        unsetenv("NOTIFY_SOCKET")
        guard let address = UnixSocketAddress(path: path),
            let fd = try? checked(
                "socket",
                {
                    Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                })
        else { return nil }
        socket = FileDescriptor(rawValue: fd)
        self.address = address
    }

    deinit { socket.close() }

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
        address.withSockaddr { socketAddress, length in
            _ = bytes.withUnsafeMutableBytes {
                sendto(socket.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, length)
            }
        }
    }
}
