/// How big a layout unit is on the glass: what turns thresholds written in millimetres (a tap's
/// slop, a swipe's distance, a debounce radius) into layout units, per device on its screen.

/// A physical size in millimetres, both sides finite and > 0: a panel's as its device reports it,
/// or a screen's as a config's `physicalSize` gives it.
public struct PhysicalSize: Hashable, Sendable, CustomStringConvertible {
    /// The width in millimetres.
    public let widthMM: Double
    /// The height in millimetres.
    public let heightMM: Double

    /// A size, or nil unless both sides are finite and > 0.
    public init?(widthMM: Double, heightMM: Double) {
        guard widthMM.isFinite, heightMM.isFinite, widthMM > 0, heightMM > 0 else { return nil }
        self.widthMM = widthMM
        self.heightMM = heightMM
    }

    /// The size a device's ABS_X/ABS_Y axes describe, computed as libinput's
    /// `libinput_device_get_size` does (`(maximum - minimum) / resolution` per axis, resolution in
    /// units per mm); nil when either resolution is 0 (the device does not say: libinput then
    /// invents 1 unit per mm and reports no size, and so do we).
    public static func ofAxes(
        x: AxisRange, xResolution: Int32, y: AxisRange, yResolution: Int32
    ) -> PhysicalSize? {
        guard xResolution > 0, yResolution > 0 else { return nil }
        return PhysicalSize(
            widthMM: Double(Int64(x.maximum) - Int64(x.minimum)) / Double(xResolution),
            heightMM: Double(Int64(y.maximum) - Int64(y.minimum)) / Double(yResolution))
    }

    /// The part of the panel a calibration matrix `[a, b, c, d, e, f]` (normalised units, applied
    /// before the rotation, as `ScreenMapping` does) stretches over the screen, in the panel's
    /// native axes: a calibrated axis's length in mm is the length on the glass of a move of 1
    /// along it, `|(widthMM·M⁻¹₀ᵢ, heightMM·M⁻¹₁ᵢ)|` with M = `[a b; d e]` (the offsets c, f move
    /// nothing). `[2, 0, 0, 0, 1, 0]` (the left half of the panel covers the screen) halves the
    /// width. The size itself for no matrix, an identity one, or one that is singular or not six
    /// finite numbers (it maps the panel onto a line; the config rejects the latter).
    public func calibrated(by calibration: [Double]?) -> PhysicalSize {
        guard let calibration, calibration.count == 6, calibration.allSatisfy(\.isFinite) else { return self }
        let (a, b, d, e) = (calibration[0], calibration[1], calibration[3], calibration[4])
        let determinant = a * e - b * d
        guard determinant != 0, determinant.isFinite else { return self }
        func length(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }
        // M⁻¹ = [e -b; -d a] / det: its columns are the panel moves of a calibrated unit move.
        let width = length(widthMM * e / determinant, heightMM * -d / determinant)
        let height = length(widthMM * -b / determinant, heightMM * a / determinant)
        return PhysicalSize(widthMM: width, heightMM: height) ?? self
    }

    /// The same panel seen after a clockwise mounting rotation of 90 or 270 degrees: the sides swap.
    public func rotated(byDegrees degrees: Int) -> PhysicalSize {
        guard degrees == 90 || degrees == 270 else { return self }
        return PhysicalSize(widthMM: heightMM, heightMM: widthMM)!
    }

    /// `W×H mm`, for logs.
    public var description: String {
        "\(PhysicalScale.formatted(widthMM))×\(PhysicalScale.formatted(heightMM)) mm"
    }
}

/// Millimetres per layout unit of one device on one screen, along the screen's x and y axes, and
/// where the figure came from. Pure: the input layer resolves it once per device (and again when
/// a reload reassigns the device) and every frame carries it (`InputFrame.physicalScale`).
///
/// Resolution order (`resolve`): the device's own size (libinput's, or a recording's axis
/// resolution), else the screen's `physicalSize` from the config, else `fallback`: 96 layout units
/// per inch, the CSS reference pixel, which is within 10 % of a 1080-unit-wide layout on a 21.5"
/// portrait kiosk panel (0.248 mm per unit). A device's size is narrowed by the screen's
/// calibration matrix (`PhysicalSize.calibrated(by:)`): the screen covers the part of the panel
/// the matrix stretches over it.
public struct PhysicalScale: Hashable, Sendable, CustomStringConvertible {
    /// Where a scale came from.
    public enum Source: String, Hashable, Sendable {
        /// The device reported its size (axis resolutions).
        case device
        /// The screen's `physicalSize` in the config.
        case config
        /// Neither: `PhysicalScale.fallbackUnitsPerInch`.
        case fallback
    }

    /// The fallback density: 96 layout units per inch (the CSS reference pixel, 1/96 inch).
    public static let fallbackUnitsPerInch = 96.0
    /// Millimetres per layout unit at the fallback density: 25.4 / 96 ≈ 0.2646.
    public static let fallbackMillimetresPerUnit = 25.4 / fallbackUnitsPerInch
    /// The scale used when neither the device nor the config gives a size.
    public static let fallback = PhysicalScale(
        millimetresPerUnitX: fallbackMillimetresPerUnit, millimetresPerUnitY: fallbackMillimetresPerUnit,
        source: .fallback)

    /// Millimetres per layout unit along the screen's x axis.
    public let millimetresPerUnitX: Double
    /// Millimetres per layout unit along the screen's y axis.
    public let millimetresPerUnitY: Double
    /// Where the figures came from.
    public let source: Source

    /// A scale from its figures; each must be finite and > 0 (else the fallback's figure is used).
    public init(millimetresPerUnitX: Double, millimetresPerUnitY: Double, source: Source) {
        func valid(_ value: Double) -> Double {
            value.isFinite && value > 0 ? value : Self.fallbackMillimetresPerUnit
        }
        self.millimetresPerUnitX = valid(millimetresPerUnitX)
        self.millimetresPerUnitY = valid(millimetresPerUnitY)
        self.source = source
    }

    /// The scale of a device on a screen of `screenWidth` × `screenHeight` layout units:
    /// `deviceSize` (in the panel's native axes, narrowed to the part the screen's `calibration`
    /// stretches over the screen, then turned by the screen's `rotationDegrees`) when the device
    /// reports one, else `configuredSize` (the screen's `physicalSize`: the glass the layout covers,
    /// in the layout's orientation, so a calibration changes nothing), else `fallback`.
    public static func resolve(
        deviceSize: PhysicalSize?, rotationDegrees: Int, calibration: [Double]? = nil,
        configuredSize: PhysicalSize?, screenWidth: Double, screenHeight: Double
    ) -> PhysicalScale {
        guard screenWidth.isFinite, screenHeight.isFinite, screenWidth > 0, screenHeight > 0 else {
            return .fallback
        }
        if let deviceSize {
            let size = deviceSize.calibrated(by: calibration).rotated(byDegrees: rotationDegrees)
            return PhysicalScale(
                millimetresPerUnitX: size.widthMM / screenWidth, millimetresPerUnitY: size.heightMM / screenHeight,
                source: .device)
        }
        if let configuredSize {
            return PhysicalScale(
                millimetresPerUnitX: configuredSize.widthMM / screenWidth,
                millimetresPerUnitY: configuredSize.heightMM / screenHeight, source: .config)
        }
        return .fallback
    }

    /// The length in millimetres of a displacement of (`dx`, `dy`) layout units on the screen.
    @inline(__always)
    public func millimetres(dx: Double, dy: Double) -> Double {
        let x = dx * millimetresPerUnitX
        let y = dy * millimetresPerUnitY
        return (x * x + y * y).squareRoot()
    }

    /// The distance in millimetres between two screen points.
    @inline(__always)
    public func distanceMillimetres(_ a: Point, _ b: Point) -> Double {
        millimetres(dx: b.x - a.x, dy: b.y - a.y)
    }

    /// Layout units per millimetre along x and y: what turns a velocity or a length in mm back
    /// into the screen's units.
    public var unitsPerMillimetreX: Double { 1 / millimetresPerUnitX }
    /// See `unitsPerMillimetreX`.
    public var unitsPerMillimetreY: Double { 1 / millimetresPerUnitY }

    /// `0.265 mm per unit (fallback: 96 units per inch)`, for the log line that names each device's
    /// scale once.
    public var description: String {
        let figures =
            millimetresPerUnitX == millimetresPerUnitY
            ? "\(Self.formatted(millimetresPerUnitX)) mm per unit"
            : "\(Self.formatted(millimetresPerUnitX))×\(Self.formatted(millimetresPerUnitY)) mm per unit"
        switch source {
        case .device: return figures + " (from the device's size)"
        case .config: return figures + " (from the screen's physicalSize)"
        case .fallback:
            return figures
                + " (fallback: the device reports no size and the screen has no physicalSize; "
                + "assuming \(Self.formatted(Self.fallbackUnitsPerInch)) units per inch)"
        }
    }

    /// A figure with at most 3 decimals, trailing zeros dropped.
    static func formatted(_ value: Double) -> String {
        let thousandths = (value * 1000).rounded()
        guard thousandths.magnitude < 1e15 else { return "\(value)" }
        let whole = Int64(thousandths) / 1000
        var fraction = Int64(thousandths.magnitude) % 1000
        guard fraction != 0 else { return String(whole) }
        var digits = 3
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let padded = String(repeating: "0", count: digits - String(fraction).count) + String(fraction)
        let sign = thousandths < 0 && whole == 0 ? "-" : ""
        return "\(sign)\(whole).\(padded)"
    }
}
