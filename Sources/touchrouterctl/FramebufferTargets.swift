import CLinuxFramebuffer
import Glibc
import TouchRouterCore
import TouchRouterRender
import TouchRouterSystem

/// `calibrate --fbdev`: the calibration targets drawn on a Linux framebuffer device. Only the I/O
/// is here (open, the two FBIOGET queries, mmap, the saved screen); the pixels are
/// `FramebufferPicture`'s. The screen is saved when opened, blacked out when the first target is
/// shown (so an interrupt before the session starts leaves it as it was), and put back by `restore`.
final class FramebufferTargets {
    let path: String
    let format: FramebufferFormat
    private let fd: Int32
    private let memory: UnsafeMutableRawBufferPointer
    private let saved: [UInt8]
    private var shown: (x: Int, y: Int)?

    /// Why the framebuffer cannot be used: the failed call, or what the device reported.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Opens `path`, asks its format, maps its memory and saves what it shows; draws nothing.
    init(path: String) throws(Failure) {
        self.path = path
        fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "\(path): \(SystemError(call: "open", errno: errno))") }
        var variable = fb_var_screeninfo()
        var fixed = fb_fix_screeninfo()
        if touchrouter_fb_variable_info(fd, &variable) != 0 || touchrouter_fb_fixed_info(fd, &fixed) != 0 {
            let code = errno
            close(fd)
            throw Failure(
                description: "\(path) is not a framebuffer (ioctl FBIOGET_VSCREENINFO/FSCREENINFO: "
                    + "\(String(cString: strerror(code))))")
        }
        func channel(_ field: fb_bitfield) -> FramebufferFormat.Channel {
            FramebufferFormat.Channel(offset: Int(field.offset), length: Int(field.length))
        }
        let format = FramebufferFormat(
            width: Int(variable.xres), height: Int(variable.yres), bitsPerPixel: Int(variable.bits_per_pixel),
            stride: Int(fixed.line_length), xOffset: Int(variable.xoffset), yOffset: Int(variable.yoffset),
            red: channel(variable.red), green: channel(variable.green), blue: channel(variable.blue),
            transparency: channel(variable.transp))
        let length = Int(fixed.smem_len)
        if let problem = format.problem(bufferBytes: length) {
            close(fd)
            throw Failure(description: "\(path): cannot draw on it: \(problem)")
        }
        guard let base = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), base != MAP_FAILED else {
            let error = SystemError(call: "mmap", errno: errno)
            close(fd)
            throw Failure(description: "\(path): \(error)")
        }
        self.format = format
        memory = UnsafeMutableRawBufferPointer(start: base, count: length)
        saved = Array(memory)
    }

    /// Shows the crosshair at `point` (layout units of a `layoutWidth` × `layoutHeight` screen that
    /// the framebuffer shows whole), clearing the one shown before; the first one on a black screen.
    func show(_ point: Point, layoutWidth: Double, layoutHeight: Double) {
        let black = format.pixel(red: 0, green: 0, blue: 0)
        if let shown {
            FramebufferPicture.drawCrosshair(at: shown, value: black, format: format, into: memory)
        } else {
            FramebufferPicture.fillScreen(value: black, format: format, into: memory)
        }
        let centre = FramebufferPicture.pixel(
            of: point, layoutWidth: layoutWidth, layoutHeight: layoutHeight, format: format)
        FramebufferPicture.drawCrosshair(
            at: centre, value: format.pixel(red: 255, green: 255, blue: 255), format: format, into: memory)
        shown = centre
    }

    /// Puts back what the screen showed before, unmaps and closes. Call once.
    func restore() {
        memory.copyBytes(from: saved)
        munmap(memory.baseAddress, memory.count)
        close(fd)
    }
}
