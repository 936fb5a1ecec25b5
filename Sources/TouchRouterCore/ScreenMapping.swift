import TouchRouterModel

/// How a touch panel's coordinates become points in a screen's layout space.
///
/// Convention (the one place it is defined; docs/input.md repeats it):
///
/// 1. The device position is normalized as libinput does: `u = (value - min) / (max - min + 1)`, the same
///    for y, so the panel covers `0 ≤ u, v < 1` with (0, 0) the panel's native top-left corner.
/// 2. The calibration matrix `[a b c; d e f]` (libinput's LIBINPUT_CALIBRATION_MATRIX, row-major, in
///    normalized units) is applied: `u' = a·u + b·v + c`, `v' = d·u + e·v + f`.
/// 3. The rotation is applied. `rotation: R` means the panel is mounted turned R degrees CLOCKWISE
///    relative to the screen's layout (as seen by someone looking at the screen). With 90, the panel's
///    native top-left corner sits at the screen's top-right corner, the panel's +x axis points down the
///    screen and its +y axis points left:
///    - 0:   `(x, y) = (u', v')`
///    - 90:  `(x, y) = (1 - v', u')`
///    - 180: `(x, y) = (1 - u', 1 - v')`
///    - 270: `(x, y) = (v', 1 - u')`
/// 4. The result is multiplied by the screen's layout width and height.
///
/// `libinputMatrix(rotation:calibration:)` folds steps 2 and 3 into the single matrix handed to
/// `libinput_device_config_calibration_set_matrix`; libinput's `get_x_transformed(width)` /
/// `get_y_transformed(height)` then give `map` (up to libinput's rounding, see `mapDevice`).
public struct ScreenMapping: Hashable, Sendable {
    /// The screen's size in layout units (after rotation: the size the layout is drawn at).
    public var screenWidth: Double
    public var screenHeight: Double
    /// Clockwise mounting rotation of the panel in degrees: 0, 90, 180 or 270.
    public var rotation: Int
    /// The user calibration `[a, b, c, d, e, f]` in normalized units (identity when none was given).
    public var calibration: [Double]

    /// The identity calibration `[1 0 0; 0 1 0]`.
    public static let identityCalibration: [Double] = [1, 0, 0, 0, 1, 0]

    /// A mapping onto a screen of the given layout size. `calibration` nil means identity.
    /// Throws when the rotation is not a multiple of 90 in 0…270, the calibration does not have six
    /// finite numbers, or the size is not finite and positive.
    public init(
        screenWidth: Double, screenHeight: Double, rotation: Int = 0, calibration: [Double]? = nil
    ) throws(ScreenMappingError) {
        guard screenWidth.isFinite, screenHeight.isFinite, screenWidth > 0, screenHeight > 0 else {
            throw .invalidScreenSize(width: screenWidth, height: screenHeight)
        }
        try Self.validate(rotation: rotation)
        let calibration = calibration ?? Self.identityCalibration
        try Self.validate(calibration: calibration)
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.rotation = rotation
        self.calibration = calibration
    }

    /// Checks a rotation value from a config: one of 0, 90, 180, 270.
    public static func validate(rotation: Int) throws(ScreenMappingError) {
        guard [0, 90, 180, 270].contains(rotation) else { throw .invalidRotation(rotation) }
    }

    /// Checks a calibration matrix from a config: exactly six finite numbers, each within
    /// ±`GeometryBounds.maxCalibrationEntry`, whose linear part `[a b; d e]` has a determinant of at
    /// least `GeometryBounds.minCalibrationDeterminant` in magnitude (the panel maps onto an area, not
    /// a line), so that every mapped point is finite.
    public static func validate(calibration: [Double]) throws(ScreenMappingError) {
        guard calibration.count == 6 else { throw .invalidCalibrationCount(calibration.count) }
        guard calibration.allSatisfy(\.isFinite) else { throw .nonFiniteCalibration }
        guard calibration.allSatisfy({ abs($0) <= GeometryBounds.maxCalibrationEntry }) else {
            throw .calibrationOutOfRange
        }
        let determinant = calibration[0] * calibration[4] - calibration[1] * calibration[3]
        guard abs(determinant) >= GeometryBounds.minCalibrationDeterminant else {
            throw .singularCalibration(determinant: determinant)
        }
    }

    /// The normalized-space affine matrix `[a b c; d e f]` of the rotation alone.
    public static func rotationMatrix(_ rotation: Int) -> [Double] {
        switch rotation {
        case 90: return [0, -1, 1, 1, 0, 0]
        case 180: return [-1, 0, 1, 0, -1, 1]
        case 270: return [0, 1, 0, -1, 0, 1]
        default: return identityCalibration
        }
    }

    /// `outer ∘ inner` for two `[a b c; d e f]` matrices (apply `inner` first).
    public static func compose(_ outer: [Double], after inner: [Double]) -> [Double] {
        let (a, b, c, d, e, f) = (outer[0], outer[1], outer[2], outer[3], outer[4], outer[5])
        let (p, q, r, s, t, u) = (inner[0], inner[1], inner[2], inner[3], inner[4], inner[5])
        return [
            a * p + b * s, a * q + b * t, a * r + b * u + c,
            d * p + e * s, d * q + e * t, d * r + e * u + f,
        ]
    }

    /// Rotation composed with calibration (calibration first), in normalized units: the matrix this
    /// mapping applies before scaling to the screen size.
    public var combinedMatrix: [Double] {
        Self.compose(Self.rotationMatrix(rotation), after: calibration)
    }

    /// The six floats to hand to `libinput_device_config_calibration_set_matrix` so that libinput's
    /// transformed coordinates equal `map`: rotation composed after calibration. Invalid input (a rotation
    /// not in 0/90/180/270, not six numbers) is treated as identity for that part; validate first.
    public static func libinputMatrix(rotation: Int, calibration: [Double]) -> [Float] {
        let calibration = calibration.count == 6 ? calibration : identityCalibration
        return compose(rotationMatrix(rotation), after: calibration).map { Float($0) }
    }

    /// The screen point of a normalized device position (0…1 across the panel's native axes).
    public func map(normalizedX: Double, normalizedY: Double) -> Point {
        let m = combinedMatrix
        let x = m[0] * normalizedX + m[1] * normalizedY + m[2]
        let y = m[3] * normalizedX + m[4] * normalizedY + m[5]
        return Point(x * screenWidth, y * screenHeight)
    }

    /// The screen point of a raw device position, computed exactly as libinput 1.22 computes touch
    /// `get_x/y_transformed` after `libinputMatrix` was set: when the matrix is not the identity, it is
    /// turned into a device-unit matrix (float), applied in float and truncated to whole device units,
    /// then scaled by `(value - min) · size / (max - min + 1)`. Differs from `map` by less than one
    /// device unit.
    public func mapDevice(x: Int32, y: Int32, xAxis: AxisRange, yAxis: AxisRange) -> Point {
        var deviceX = Double(x)
        var deviceY = Double(y)
        let user = Self.libinputMatrix(rotation: rotation, calibration: calibration)
        if user != Self.identityCalibration.map({ Float($0) }) {
            // Device matrix = Un-normalize · user · Normalize, kept as floats like libinput's struct matrix.
            let sx = xAxis.libinputRange
            let sy = yAxis.libinputRange
            let minX = Double(xAxis.minimum)
            let minY = Double(yAxis.minimum)
            let u = user.map { Double($0) }
            let m00 = Float(u[0])
            let m01 = Float(u[1] * sx / sy)
            let m02 = Float(sx * (u[2] - u[0] * minX / sx - u[1] * minY / sy) + minX)
            let m10 = Float(u[3] * sy / sx)
            let m11 = Float(u[4])
            let m12 = Float(sy * (u[5] - u[3] * minX / sx - u[4] * minY / sy) + minY)
            let fx = Float(x)
            let fy = Float(y)
            let tx: Float = fx * m00 + fy * m01 + m02
            let ty: Float = fx * m10 + fy * m11 + m12
            deviceX = Self.truncatedToInt32(tx)
            deviceY = Self.truncatedToInt32(ty)
        }
        return Point(
            (deviceX - Double(xAxis.minimum)) * screenWidth / xAxis.libinputRange,
            (deviceY - Double(yAxis.minimum)) * screenHeight / yAxis.libinputRange)
    }

    /// C's float → int conversion (toward zero), clamped instead of undefined when out of range.
    private static func truncatedToInt32(_ value: Float) -> Double {
        guard value.isFinite else { return 0 }
        return Double(max(Float(Int32.min), min(Float(Int32.max), value.rounded(.towardZero))))
    }
}

/// An absolute axis's range as the kernel reports it (struct input_absinfo's minimum and maximum).
public struct AxisRange: Hashable, Sendable {
    public var minimum: Int32
    public var maximum: Int32

    public init(minimum: Int32, maximum: Int32) {
        self.minimum = minimum
        self.maximum = maximum
    }

    /// libinput's `absinfo_range`: `max - min + 1`, the number of distinct positions.
    public var libinputRange: Double { Double(Int64(maximum) - Int64(minimum) + 1) }

    /// libinput's normalization of a device value: `(value - min) / (max - min + 1)`.
    public func normalize(_ value: Int32) -> Double {
        Double(Int64(value) - Int64(minimum)) / libinputRange
    }
}

/// Why a screen mapping could not be made from a configuration.
public enum ScreenMappingError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidRotation(Int)
    case invalidCalibrationCount(Int)
    case nonFiniteCalibration
    /// An entry beyond ±`GeometryBounds.maxCalibrationEntry`.
    case calibrationOutOfRange
    /// The linear part's determinant is below `GeometryBounds.minCalibrationDeterminant`.
    case singularCalibration(determinant: Double)
    case invalidScreenSize(width: Double, height: Double)

    public var description: String {
        switch self {
        case .invalidRotation(let r): "rotation must be 0, 90, 180 or 270, not \(r)"
        case .invalidCalibrationCount(let n): "calibration must have 6 numbers, not \(n)"
        case .nonFiniteCalibration: "calibration numbers must be finite"
        case .calibrationOutOfRange:
            "calibration numbers must be within ±\(ConfigParser.format(GeometryBounds.maxCalibrationEntry))"
        case .singularCalibration(let determinant):
            "calibration must map the panel onto an area: a·e − b·d must be at least"
                + " \(ConfigParser.format(GeometryBounds.minCalibrationDeterminant)) in magnitude, found"
                + " \(ConfigParser.format(determinant))"
        case .invalidScreenSize(let w, let h): "screen size must be positive and finite, not \(w)×\(h)"
        }
    }
}
