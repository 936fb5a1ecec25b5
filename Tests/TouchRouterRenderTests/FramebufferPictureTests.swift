import Testing
import TouchRouterCore
import TouchRouterRender

/// The calibration tool's framebuffer drawing, on plain byte arrays laid out as a framebuffer:
/// 16 and 32 bits per pixel, a stride wider than the visible lines, a panned visible area.
@Suite("Framebuffer picture")
struct FramebufferPictureTests {
    static let formats: [FramebufferFormat] = [
        .rgb565(width: 200, height: 120, stride: 416),
        {
            var format = FramebufferFormat.xrgb8888(width: 200, height: 120, stride: 832)
            format.transparency = .init(offset: 24, length: 8)
            format.yOffset = 120  // the second page of a double-buffered screen is showing
            return format
        }(),
    ]

    static func bytes(_ format: FramebufferFormat) -> [UInt8] {
        [UInt8](repeating: 0xA5, count: format.stride * (format.yOffset + format.height))
    }

    @Test func coloursFillTheirBitFields() {
        let rgb565 = FramebufferFormat.rgb565(width: 1, height: 1, stride: 2)
        #expect(rgb565.pixel(red: 255, green: 255, blue: 255) == 0xFFFF)
        #expect(rgb565.pixel(red: 255, green: 0, blue: 0) == 0xF800)
        #expect(rgb565.pixel(red: 0, green: 255, blue: 0) == 0x07E0)
        #expect(Self.formats[1].pixel(red: 255, green: 255, blue: 255) == 0xFFFF_FFFF)
        #expect(Self.formats[1].pixel(red: 0, green: 0, blue: 0) == 0xFF00_0000)
    }

    @Test(arguments: formats)
    func theCrosshairSetsItsPixelsAndBlackClearsThem(format: FramebufferFormat) {
        var memory = Self.bytes(format)
        let white = format.pixel(red: 255, green: 255, blue: 255)
        let black = format.pixel(red: 0, green: 0, blue: 0)
        let centre = FramebufferPicture.pixel(of: Point(80, 48), layoutWidth: 800, layoutHeight: 480, format: format)
        #expect(centre == (20, 12))
        let arm = FramebufferPicture.armLength(format)
        #expect(arm == 8)
        memory.withUnsafeMutableBytes { buffer in
            FramebufferPicture.fillScreen(value: black, format: format, into: buffer)
            FramebufferPicture.drawCrosshair(at: centre, value: white, format: format, into: buffer)
        }
        func value(_ x: Int, _ y: Int) -> UInt32 {
            memory.withUnsafeBytes { FramebufferPicture.value(atX: x, y: y, format: format, in: $0) }
        }
        for (x, y) in [(20, 12), (20 - arm, 12), (20 + arm, 11), (21, 12 - arm), (19, 12 + arm)] {
            #expect(value(x, y) == white, "(\(x), \(y))")
        }
        for (x, y) in [(20 - arm - 1, 12), (20 + arm + 1, 12), (20, 12 - arm - 1), (22, 14), (0, 0), (199, 119)] {
            #expect(value(x, y) == black, "(\(x), \(y))")
        }
        let lit = (0..<format.height).reduce(0) { count, y in
            count + (0..<format.width).filter { value($0, y) == white }.count
        }
        #expect(lit == 2 * 3 * (2 * arm + 1) - 9)
        // The bytes past each visible line (the stride's padding) and above a panned area are untouched.
        let lineBytes = format.width * format.bitsPerPixel / 8
        #expect(memory[(format.yOffset + 12) * format.stride + lineBytes] == 0xA5)
        if format.yOffset > 0 { #expect(memory[0] == 0xA5) }
        memory.withUnsafeMutableBytes { buffer in
            FramebufferPicture.drawCrosshair(at: centre, value: black, format: format, into: buffer)
        }
        #expect(value(20, 12) == black && value(20 + arm, 12) == black && value(20, 12 + arm) == black)
    }

    /// A crosshair at the edge keeps to the screen; a point outside the layout is clamped onto it.
    @Test func crosshairsAtTheEdgeAreClipped() {
        let format = FramebufferFormat.rgb565(width: 50, height: 40, stride: 100)
        var memory = [UInt8](repeating: 0, count: format.stride * format.height)
        let corner = FramebufferPicture.pixel(of: Point(900, -5), layoutWidth: 800, layoutHeight: 480, format: format)
        #expect(corner == (49, 0))
        memory.withUnsafeMutableBytes { buffer in
            FramebufferPicture.drawCrosshair(at: corner, value: 0xFFFF, format: format, into: buffer)
        }
        #expect(memory.count == 4000)
        #expect(memory.withUnsafeBytes { FramebufferPicture.value(atX: 49, y: 0, format: format, in: $0) } == 0xFFFF)
    }

    @Test func unsupportedFormatsAndShortBuffersAreNamed() {
        var format = FramebufferFormat.rgb565(width: 200, height: 120, stride: 400)
        #expect(format.problem(bufferBytes: 48_000) == nil)
        #expect(format.problem(bufferBytes: 47_999) == "47999 bytes of screen memory, 48000 needed")
        format.bitsPerPixel = 24
        #expect(format.problem(bufferBytes: 1 << 20) == "24 bits per pixel (16 and 32 are supported)")
        // Drawing with a format that does not fit the buffer writes nothing.
        var memory = [UInt8](repeating: 0, count: 100)
        memory.withUnsafeMutableBytes { buffer in
            FramebufferPicture.fillScreen(
                value: 0xFFFF, format: .rgb565(width: 200, height: 120, stride: 400), into: buffer)
        }
        #expect(memory.allSatisfy { $0 == 0 })
    }
}
