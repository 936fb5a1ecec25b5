import CLibinput
import Glibc
import TouchRouterSystem

/// The C side of `LibinputReader`: the open/close callbacks libinput calls for device nodes, its log
/// handler, and the mapping between its log priorities and `LogLevel`.

/// What libinput's C callbacks reach through their user-data pointer.
final class ReaderCallbacks {
    let log: InputLogHandler
    /// The descriptors libinput has open, by the node it opened (the device's udev devnode): what
    /// a grab (EVIOCGRAB) is taken on.
    var openNodes: [String: Int32] = [:]
    init(log: @escaping InputLogHandler) { self.log = log }
}

/// Opens a device node for libinput, close-on-exec and non-blocking; failures are logged with the
/// path and errno and returned as a negative errno, as libinput expects.
func openRestricted(path: UnsafePointer<CChar>?, flags: Int32, userData: UnsafeMutableRawPointer?)
    -> Int32
{
    guard let path else { return -EINVAL }
    let fd = open(path, flags | O_CLOEXEC | O_NONBLOCK)
    if fd < 0 {
        let savedErrno = errno
        if let userData {
            let callbacks = Unmanaged<ReaderCallbacks>.fromOpaque(userData).takeUnretainedValue()
            callbacks.log(
                .error,
                "cannot open \(String(cString: path)): \(String(cString: strerror(savedErrno))) "
                    + "(errno \(savedErrno))")
        }
        return -savedErrno
    }
    if let userData {
        Unmanaged<ReaderCallbacks>.fromOpaque(userData).takeUnretainedValue().openNodes[String(cString: path)] = fd
    }
    return fd
}

/// Closes a node libinput opened (which releases a grab taken on it).
func closeRestricted(fd: Int32, userData: UnsafeMutableRawPointer?) {
    if let userData {
        let callbacks = Unmanaged<ReaderCallbacks>.fromOpaque(userData).takeUnretainedValue()
        if let node = callbacks.openNodes.first(where: { $0.value == fd })?.key { callbacks.openNodes[node] = nil }
    }
    close(fd)
}

/// Formats libinput's printf-style message and hands it to the reader's log with its priority.
func libinputLogHandler(
    context: OpaquePointer?, priority: libinput_log_priority, format: UnsafePointer<CChar>?,
    arguments: CVaListPointer?
) {
    guard let context, let format, let arguments, let userData = libinput_get_user_data(context) else {
        return
    }
    var buffer = [CChar](repeating: 0, count: 1024)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    let length = buffer.firstIndex(of: 0) ?? buffer.count
    var message = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    while message.last == "\n" { message.removeLast() }
    let callbacks = Unmanaged<ReaderCallbacks>.fromOpaque(userData).takeUnretainedValue()
    callbacks.log(LogLevel(libinputPriority: priority), "libinput: \(message)")
}

extension LogLevel {
    init(libinputPriority: libinput_log_priority) {
        switch libinputPriority {
        case LIBINPUT_LOG_PRIORITY_DEBUG: self = .debug
        case LIBINPUT_LOG_PRIORITY_INFO: self = .info
        default: self = .error
        }
    }

    var libinputPriority: libinput_log_priority {
        switch self {
        case .debug: LIBINPUT_LOG_PRIORITY_DEBUG
        case .info: LIBINPUT_LOG_PRIORITY_INFO
        case .notice, .warning, .error: LIBINPUT_LOG_PRIORITY_ERROR
        }
    }
}
