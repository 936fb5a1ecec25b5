import TouchRouterCore

/// A Linux framebuffer's pixel layout, as its two queries describe it (`fb_var_screeninfo`:
/// resolution, panning offset, bits per pixel, colour bit fields; `fb_fix_screeninfo`: bytes per
/// line). What `FramebufferPicture` draws into; the device I/O is the caller's.
public struct FramebufferFormat: Hashable, Sendable {
    /// Where one colour channel sits in a pixel value: its lowest bit and its width in bits.
    public struct Channel: Hashable, Sendable {
        public var offset: Int
        public var length: Int

        public init(offset: Int, length: Int) {
            self.offset = offset
            self.length = length
        }
    }

    /// The visible resolution in pixels (`xres`, `yres`).
    public var width: Int
    public var height: Int
    /// 16 or 32 (others are refused by `problem`).
    public var bitsPerPixel: Int
    /// Bytes from one line to the next (`line_length`; may exceed `width` pixels).
    public var stride: Int
    /// The visible area's top-left pixel in the (virtual) buffer (`xoffset`, `yoffset`).
    public var xOffset: Int
    public var yOffset: Int
    public var red: Channel
    public var green: Channel
    public var blue: Channel
    /// Alpha; set fully opaque in every pixel drawn (length 0: none).
    public var transparency: Channel

    public init(
        width: Int, height: Int, bitsPerPixel: Int, stride: Int, xOffset: Int = 0, yOffset: Int = 0,
        red: Channel, green: Channel, blue: Channel, transparency: Channel = Channel(offset: 0, length: 0)
    ) {
        self.width = width
        self.height = height
        self.bitsPerPixel = bitsPerPixel
        self.stride = stride
        self.xOffset = xOffset
        self.yOffset = yOffset
        self.red = red
        self.green = green
        self.blue = blue
        self.transparency = transparency
    }

    /// RGB565, the usual 16-bit format.
    public static func rgb565(width: Int, height: Int, stride: Int) -> FramebufferFormat {
        FramebufferFormat(
            width: width, height: height, bitsPerPixel: 16, stride: stride,
            red: Channel(offset: 11, length: 5), green: Channel(offset: 5, length: 6),
            blue: Channel(offset: 0, length: 5))
    }

    /// XRGB8888, the usual 32-bit format.
    public static func xrgb8888(width: Int, height: Int, stride: Int) -> FramebufferFormat {
        FramebufferFormat(
            width: width, height: height, bitsPerPixel: 32, stride: stride,
            red: Channel(offset: 16, length: 8), green: Channel(offset: 8, length: 8),
            blue: Channel(offset: 0, length: 8))
    }

    /// The bytes a buffer needs to hold the visible area.
    public var requiredBytes: Int {
        (yOffset + height - 1) * stride + (xOffset + width) * bitsPerPixel / 8
    }

    /// Why this format cannot be drawn into a buffer of `bufferBytes`, or nil when it can.
    public func problem(bufferBytes: Int) -> String? {
        guard bitsPerPixel == 16 || bitsPerPixel == 32 else {
            return "\(bitsPerPixel) bits per pixel (16 and 32 are supported)"
        }
        guard width > 0, height > 0, xOffset >= 0, yOffset >= 0 else {
            return "a visible area of \(width)×\(height) at \(xOffset),\(yOffset)"
        }
        guard stride >= (xOffset + width) * bitsPerPixel / 8 else {
            return "\(stride) bytes per line for \(xOffset + width) pixels of \(bitsPerPixel) bits"
        }
        for channel in [red, green, blue, transparency]
        where channel.length < 0 || channel.length > 16 || channel.offset < 0
            || channel.offset + channel.length > bitsPerPixel
        {
            return "a colour field of \(channel.length) bits at bit \(channel.offset) in \(bitsPerPixel)-bit pixels"
        }
        guard requiredBytes <= bufferBytes else {
            return "\(bufferBytes) bytes of screen memory, \(requiredBytes) needed"
        }
        return nil
    }

    /// The pixel value of a colour (8 bits a channel, scaled to each field), fully opaque.
    public func pixel(red r: UInt8, green g: UInt8, blue b: UInt8) -> UInt32 {
        func field(_ value: UInt32, _ channel: Channel) -> UInt32 {
            guard channel.length > 0 else { return 0 }
            let maximum = (UInt32(1) << UInt32(channel.length)) - 1
            return ((value * maximum + 127) / 255) << UInt32(channel.offset)
        }
        return field(UInt32(r), red) | field(UInt32(g), green) | field(UInt32(b), blue) | field(255, transparency)
    }
}

/// What the calibration tool draws on a framebuffer: a crosshair at a target, and black. Pure:
/// writes pixels into the buffer it is given (the mapped screen, or an array in tests).
public enum FramebufferPicture {
    /// The crosshair's arms reach this far from its centre: 1/25 of the screen's shorter side, at
    /// least 8 pixels (19 on an 800 × 480 panel). Its lines are 3 pixels thick.
    public static func armLength(_ format: FramebufferFormat) -> Int {
        max(8, min(format.width, format.height) / 25)
    }

    /// The pixel under a point in layout units, for a layout of `layoutWidth` × `layoutHeight`
    /// shown over the whole visible area (clamped onto it).
    public static func pixel(
        of point: Point, layoutWidth: Double, layoutHeight: Double, format: FramebufferFormat
    ) -> (x: Int, y: Int) {
        func scaled(_ value: Double, _ size: Double, _ pixels: Int) -> Int {
            let pixel = (value / size * Double(pixels)).rounded(.down)
            guard pixel.isFinite else { return 0 }
            return Int(min(max(pixel, 0), Double(pixels - 1)))
        }
        return (scaled(point.x, layoutWidth, format.width), scaled(point.y, layoutHeight, format.height))
    }

    /// The crosshair centred on `centre` (pixels), in `value` (`FramebufferFormat.pixel`); the
    /// parts off the screen are left out. Drawn in black it clears a crosshair drawn there before.
    public static func drawCrosshair(
        at centre: (x: Int, y: Int), value: UInt32, format: FramebufferFormat,
        into buffer: UnsafeMutableRawBufferPointer
    ) {
        let arm = armLength(format)
        fill(x: centre.x - arm, y: centre.y - 1, width: 2 * arm + 1, height: 3, value, format, buffer)
        fill(x: centre.x - 1, y: centre.y - arm, width: 3, height: 2 * arm + 1, value, format, buffer)
    }

    /// The whole visible area in `value`.
    public static func fillScreen(value: UInt32, format: FramebufferFormat, into buffer: UnsafeMutableRawBufferPointer)
    {
        fill(x: 0, y: 0, width: format.width, height: format.height, value, format, buffer)
    }

    /// The value of the visible pixel at `x`, `y` (what a test reads back).
    public static func value(
        atX x: Int, y: Int, format: FramebufferFormat, in buffer: UnsafeRawBufferPointer
    ) -> UInt32 {
        let offset = byteOffset(x: x, y: y, format)
        return format.bitsPerPixel == 16
            ? UInt32(buffer.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            : buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    }

    private static func byteOffset(x: Int, y: Int, _ format: FramebufferFormat) -> Int {
        (format.yOffset + y) * format.stride + (format.xOffset + x) * format.bitsPerPixel / 8
    }

    /// A rectangle of pixels, clipped to the visible area. The format must have passed `problem`.
    private static func fill(
        x: Int, y: Int, width: Int, height: Int, _ value: UInt32, _ format: FramebufferFormat,
        _ buffer: UnsafeMutableRawBufferPointer
    ) {
        let left = max(0, x)
        let right = min(format.width, x + width)
        let top = max(0, y)
        let bottom = min(format.height, y + height)
        guard left < right, top < bottom, format.problem(bufferBytes: buffer.count) == nil else { return }
        for row in top..<bottom {
            for column in left..<right {
                let offset = byteOffset(x: column, y: row, format)
                if format.bitsPerPixel == 16 {
                    buffer.storeBytes(of: UInt16(truncatingIfNeeded: value), toByteOffset: offset, as: UInt16.self)
                } else {
                    buffer.storeBytes(of: value, toByteOffset: offset, as: UInt32.self)
                }
            }
        }
    }
}
