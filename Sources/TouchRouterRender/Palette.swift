/// The picture's colours: one per view that takes touches, red reserved for misses.
import Glibc

/// An opaque sRGB colour.
public struct RGB: Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#rrggbb`.
    public var description: String { cFormat("#%02x%02x%02x", red, green, blue) }

    /// This colour mixed with white: `amount` 0 is the colour, 1 is white.
    public func mixedWithWhite(_ amount: Double) -> RGB {
        func mix(_ channel: UInt8) -> UInt8 {
            UInt8((Double(channel) + (255 - Double(channel)) * amount).rounded())
        }
        return RGB(red: mix(red), green: mix(green), blue: mix(blue))
    }
}

/// The colours of a picture. Views get hues around the colour wheel by the golden angle (so
/// neighbours in the tree differ strongly), leaving out the reds (misses are red) and never grey
/// (views that take no touches are grey).
public enum Palette {
    /// Touch paths and dots of misses: contacts that hit no view.
    public static let miss = RGB(red: 0xe0, green: 0x10, blue: 0x10)
    /// Views that take no touches (hidden, alpha below 0.01, not interactive, or inside one).
    public static let inert = RGB(red: 0x8a, green: 0x8a, blue: 0x8a)
    /// Touch-downs the tracker dropped by a rule (multipleTouch, exclusiveTouch, no subscriber).
    public static let dropped = RGB(red: 0x30, green: 0x30, blue: 0x30)
    /// Passthrough: the hatch over areas passed to the virtual device, and the `passthrough: false` mark.
    public static let passthrough = RGB(red: 0x0b, green: 0x4f, blue: 0x8a)
    /// How much white the filled effective regions are mixed with (0.62: light, labels stay legible).
    public static let regionWhite = 0.62

    /// The colour of the `index`th view that takes touches (pre-order).
    public static func viewColour(_ index: Int) -> RGB {
        // Hues 30°…330° (no reds), stepped by the golden angle within that range.
        let span = 300.0
        let hue = 30 + (Double(index) * 137.508).truncatingRemainder(dividingBy: span)
        let lightness = index % 2 == 0 ? 0.42 : 0.34
        return hsl(hue: hue, saturation: 0.75, lightness: lightness)
    }

    /// The filled effective region's colour for a view colour.
    public static func regionColour(_ colour: RGB) -> RGB { colour.mixedWithWhite(regionWhite) }

    static func hsl(hue: Double, saturation: Double, lightness: Double) -> RGB {
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let h = hue / 60
        let x = chroma * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double)
        switch h {
        case ..<1: (r, g, b) = (chroma, x, 0)
        case ..<2: (r, g, b) = (x, chroma, 0)
        case ..<3: (r, g, b) = (0, chroma, x)
        case ..<4: (r, g, b) = (0, x, chroma)
        case ..<5: (r, g, b) = (x, 0, chroma)
        default: (r, g, b) = (chroma, 0, x)
        }
        let m = lightness - chroma / 2
        func byte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, ((value + m) * 255).rounded()))) }
        return RGB(red: byte(r), green: byte(g), blue: byte(b))
    }
}

/// `printf`-style text of numbers, as C formats them (what `String(format:)` gave, without full
/// Foundation): used for `%.2f`-like figures and hex colours only, so 400 bytes hold any result.
func cFormat(_ format: String, _ arguments: any CVarArg...) -> String {
    withVaList(arguments) { list in
        var buffer = [CChar](repeating: 0, count: 400)
        _ = vsnprintf(&buffer, buffer.count, format, list)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
