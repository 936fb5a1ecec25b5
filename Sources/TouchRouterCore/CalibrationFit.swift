/// The calibration fit: from presses measured without calibration to the screen's `calibration`
/// matrix. Pure: no I/O, deterministic (the same presses give the same matrix).
import TouchRouterModel

/// One calibration point: where the target was drawn (layout units on the screen) and the median
/// position measured when it was pressed, as a normalized device position (0…1 across the panel's
/// native axes, the screen's calibration NOT applied, so a re-run never compounds the old matrix).
public struct CalibrationPoint: Hashable, Sendable {
    public var target: Point
    public var normalizedX: Double
    public var normalizedY: Double

    public init(target: Point, normalizedX: Double, normalizedY: Double) {
        self.target = target
        self.normalizedX = normalizedX
        self.normalizedY = normalizedY
    }
}

/// Why a set of points gives no matrix.
public enum CalibrationFitError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer than three points (an affine map has six unknowns, two per point).
    case tooFewPoints(Int)
    /// A position or target is not a finite number.
    case nonFinite
    /// The targets (or the presses) lie on one line: no affine map follows from them.
    case collinear(presses: Bool)
    /// The targets (or the presses) spread too little across the panel in some direction: the
    /// matrix would amplify the presses' noise (`CalibrationFit.minimumSpread`).
    case illConditioned(presses: Bool, spread: Double)
    /// The fitted matrix is not one a screen accepts (out of range, or it folds the panel flat).
    case unusableMatrix(ScreenMappingError)

    public var description: String {
        switch self {
        case .tooFewPoints(let count): "a calibration needs at least 3 points, got \(count)"
        case .nonFinite: "a position or target is not a finite number"
        case .collinear(let presses): "the \(presses ? "presses" : "targets") lie on one line"
        case .illConditioned(let presses, let spread):
            "the \(presses ? "presses" : "targets") spread too little across the panel "
                + "(\(spread) of its size in the narrowest direction, at least \(CalibrationFit.minimumSpread) needed)"
        case .unusableMatrix(let error): "the fitted matrix is not usable: \(error)"
        }
    }
}

/// A fitted calibration: the matrix for the screen's `calibration` key and how well it fits.
public struct CalibrationFit: Hashable, Sendable {
    /// Points must spread at least this far (standard deviation, in units of the panel's size) in
    /// their narrowest direction: targets at the corners of a 10 % inset rectangle spread about 0.4;
    /// three points bunched in one tenth of the panel, about 0.03.
    public static let minimumSpread = 0.05

    /// `[a, b, c, d, e, f]`, libinput's convention in normalized units, applied before the rotation
    /// (ScreenMapping's steps 2 and 3): what the screen's `calibration` key takes.
    public let matrix: [Double]
    /// Per point, in order: the distance in layout units between its target and where its press
    /// lands through the new matrix (0 for three points, the exact solution).
    public let residuals: [Double]

    /// The largest residual.
    public var maximumResidual: Double { residuals.max() ?? 0 }

    /// Fits the matrix for a screen of `screenWidth` × `screenHeight` layout units mounted at
    /// `rotation` (0, 90, 180, 270): the exact affine solution for three points, least squares for
    /// more (each axis on its own, the presses centred first so the solve stays well conditioned).
    public init(
        _ points: [CalibrationPoint], screenWidth: Double, screenHeight: Double, rotation: Int
    ) throws(CalibrationFitError) {
        guard points.count >= 3 else { throw .tooFewPoints(points.count) }
        guard
            points.allSatisfy({
                $0.target.x.isFinite && $0.target.y.isFinite && $0.normalizedX.isFinite && $0.normalizedY.isFinite
            }), screenWidth.isFinite, screenHeight.isFinite, screenWidth > 0, screenHeight > 0
        else { throw .nonFinite }
        // Targets in the calibration's own space: normalized, before the rotation.
        let unrotate = ScreenMapping.rotationMatrix((360 - rotation) % 360)
        let wanted = points.map { point in
            Self.apply(unrotate, point.target.x / screenWidth, point.target.y / screenHeight)
        }
        let pressed = points.map { ($0.normalizedX, $0.normalizedY) }
        try Self.checkSpread(wanted, presses: false)
        try Self.checkSpread(pressed, presses: true)
        let u = Self.solve(pressed, wanted.map(\.0))
        let v = Self.solve(pressed, wanted.map(\.1))
        let matrix = [u.0, u.1, u.2, v.0, v.1, v.2]
        let mapping: ScreenMapping
        do {
            mapping = try ScreenMapping(
                screenWidth: screenWidth, screenHeight: screenHeight, rotation: rotation, calibration: matrix)
        } catch {
            throw .unusableMatrix(error)
        }
        self.matrix = matrix
        residuals = points.map { point in
            let landed = mapping.map(normalizedX: point.normalizedX, normalizedY: point.normalizedY)
            return
                ((landed.x - point.target.x) * (landed.x - point.target.x)
                + (landed.y - point.target.y) * (landed.y - point.target.y)).squareRoot()
        }
    }

    /// How far a held-out press lands from its target through the fitted matrix: in layout units,
    /// and in millimetres with the screen's `scale`.
    public func verificationError(
        _ point: CalibrationPoint, screenWidth: Double, screenHeight: Double, rotation: Int, scale: PhysicalScale
    ) -> (units: Double, millimetres: Double) {
        guard
            let mapping = try? ScreenMapping(
                screenWidth: screenWidth, screenHeight: screenHeight, rotation: rotation, calibration: matrix)
        else { return (.infinity, .infinity) }
        let landed = mapping.map(normalizedX: point.normalizedX, normalizedY: point.normalizedY)
        let dx = landed.x - point.target.x
        let dy = landed.y - point.target.y
        let mmX = dx * scale.millimetresPerUnitX
        let mmY = dy * scale.millimetresPerUnitY
        return ((dx * dx + dy * dy).squareRoot(), (mmX * mmX + mmY * mmY).squareRoot())
    }

    // MARK: - The maths

    static func apply(_ m: [Double], _ x: Double, _ y: Double) -> (Double, Double) {
        (m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5])
    }

    /// The points' spread in their narrowest direction: the square root of the smaller eigenvalue
    /// of their 2 × 2 covariance. Throws when it is zero (one line) or below `minimumSpread`.
    @discardableResult
    static func checkSpread(_ points: [(Double, Double)], presses: Bool) throws(CalibrationFitError) -> Double {
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.0 } / n
        let meanY = points.reduce(0) { $0 + $1.1 } / n
        var xx = 0.0
        var xy = 0.0
        var yy = 0.0
        for (x, y) in points {
            xx += (x - meanX) * (x - meanX)
            xy += (x - meanX) * (y - meanY)
            yy += (y - meanY) * (y - meanY)
        }
        xx /= n
        xy /= n
        yy /= n
        let trace = xx + yy
        let determinant = xx * yy - xy * xy
        let smallest = max(0, (trace - max(0, trace * trace - 4 * determinant).squareRoot()) / 2)
        let spread = smallest.squareRoot()
        // Below a millionth of the panel the points are one line, whatever rounding left.
        if spread < 1e-6 { throw .collinear(presses: presses) }
        if spread < minimumSpread { throw .illConditioned(presses: presses, spread: spread) }
        return spread
    }

    /// Least squares of `target ≈ p·x + q·y + r` over the presses (exact for three): the normal
    /// equations of the centred presses, a 2 × 2 system solved directly (the presses' spread,
    /// checked first, keeps its determinant away from zero).
    static func solve(_ presses: [(Double, Double)], _ targets: [Double]) -> (Double, Double, Double) {
        let n = Double(presses.count)
        let meanX = presses.reduce(0) { $0 + $1.0 } / n
        let meanY = presses.reduce(0) { $0 + $1.1 } / n
        let meanT = targets.reduce(0, +) / n
        var xx = 0.0
        var xy = 0.0
        var yy = 0.0
        var xt = 0.0
        var yt = 0.0
        for ((x, y), t) in zip(presses, targets) {
            let (cx, cy, ct) = (x - meanX, y - meanY, t - meanT)
            xx += cx * cx
            xy += cx * cy
            yy += cy * cy
            xt += cx * ct
            yt += cy * ct
        }
        let determinant = xx * yy - xy * xy
        let p = (xt * yy - yt * xy) / determinant
        let q = (yt * xx - xt * xy) / determinant
        return (p, q, meanT - p * meanX - q * meanY)
    }
}
