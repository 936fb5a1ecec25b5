import Testing
import TouchRouterCore

/// The calibration fit: exact three-point solutions, least squares with noise, every rotation
/// combined with the calibration (checked through `ScreenMapping`, the mapping touches take), and
/// the refusals.
@Suite("Calibration fit")
struct CalibrationFitTests {
    /// A skewed panel: scale 0.95 / 1.04, offsets +2 % / −3 %, a little shear.
    static let distortion = [0.95, 0.01, 0.02, -0.015, 1.04, -0.03]
    static let width = 1080.0
    static let height = 1920.0

    /// Where a finger on `target` is measured on a panel that needs `matrix` (the inverse of
    /// ScreenMapping's steps 2–4), plus `noise` in normalized units.
    static func press(
        at target: Point, matrix: [Double], rotation: Int, noise: (Double, Double) = (0, 0)
    ) -> CalibrationPoint {
        let unrotate = ScreenMapping.rotationMatrix((360 - rotation) % 360)
        let (x, y) = (target.x / width, target.y / height)
        let u = unrotate[0] * x + unrotate[1] * y + unrotate[2]
        let v = unrotate[3] * x + unrotate[4] * y + unrotate[5]
        // Invert [a b c; d e f] on (u, v).
        let (a, b, c, d, e, f) = (matrix[0], matrix[1], matrix[2], matrix[3], matrix[4], matrix[5])
        let determinant = a * e - b * d
        let rawX = (e * (u - c) - b * (v - f)) / determinant
        let rawY = (a * (v - f) - d * (u - c)) / determinant
        return CalibrationPoint(target: target, normalizedX: rawX + noise.0, normalizedY: rawY + noise.1)
    }

    /// Targets inset 10 % from the edges: three corners, or the nine of a 3 × 3 grid.
    static func targets(_ count: Int) -> [Point] {
        let xs = [0.1, 0.5, 0.9].map { $0 * width }
        let ys = [0.1, 0.5, 0.9].map { $0 * height }
        if count == 3 { return [Point(xs[0], ys[0]), Point(xs[2], ys[0]), Point(xs[0], ys[2])] }
        return ys.flatMap { y in xs.map { Point($0, y) } }
    }

    @Test(arguments: [0, 90, 180, 270])
    func threePointsGiveTheExactMatrix(rotation: Int) throws {
        let points = Self.targets(3).map { Self.press(at: $0, matrix: Self.distortion, rotation: rotation) }
        let fit = try CalibrationFit(points, screenWidth: Self.width, screenHeight: Self.height, rotation: rotation)
        for (got, want) in zip(fit.matrix, Self.distortion) { #expect(abs(got - want) < 1e-9) }
        #expect(fit.residuals.count == 3 && fit.maximumResidual < 1e-6)
        // A fresh press anywhere lands on its target through the mapping touches take.
        let mapping = try ScreenMapping(
            screenWidth: Self.width, screenHeight: Self.height, rotation: rotation, calibration: fit.matrix)
        let fresh = Self.press(at: Point(540, 1400), matrix: Self.distortion, rotation: rotation)
        let landed = mapping.map(normalizedX: fresh.normalizedX, normalizedY: fresh.normalizedY)
        #expect(abs(landed.x - 540) < 1e-6 && abs(landed.y - 1400) < 1e-6)
    }

    @Test func moreNoisyPointsAreFittedByLeastSquaresAndTheSameInputGivesTheSameMatrix() throws {
        var random = SeededRandom(seed: 2026)
        let points = Self.targets(9).map { target in
            Self.press(
                at: target, matrix: Self.distortion, rotation: 90,
                noise: (
                    Double.random(in: -0.0005...0.0005, using: &random),
                    Double.random(in: -0.0005...0.0005, using: &random)
                ))
        }
        let fit = try CalibrationFit(points, screenWidth: Self.width, screenHeight: Self.height, rotation: 90)
        for (got, want) in zip(fit.matrix, Self.distortion) { #expect(abs(got - want) < 1e-3) }
        // Noise of 0.05 % of the panel: residuals of about a layout unit, never zero.
        #expect(fit.maximumResidual > 0 && fit.maximumResidual < 2)
        let again = try CalibrationFit(points, screenWidth: Self.width, screenHeight: Self.height, rotation: 90)
        #expect(again == fit)
        // Least squares beats any three of the points on the others.
        let three = try CalibrationFit(
            [points[0], points[2], points[6]], screenWidth: Self.width, screenHeight: Self.height, rotation: 90)
        let sumSquares = { (fit: CalibrationFit) in fit.residuals.reduce(0) { $0 + $1 * $1 } }
        let threeResiduals = try points.map { point -> Double in
            let mapping = try ScreenMapping(
                screenWidth: Self.width, screenHeight: Self.height, rotation: 90, calibration: three.matrix)
            let landed = mapping.map(normalizedX: point.normalizedX, normalizedY: point.normalizedY)
            return
                ((landed.x - point.target.x) * (landed.x - point.target.x)
                + (landed.y - point.target.y) * (landed.y - point.target.y))
        }.reduce(0, +)
        #expect(sumSquares(fit) <= threeResiduals)
    }

    @Test func aHeldOutPointIsCheckedInLayoutUnitsAndMillimetres() throws {
        let points = Self.targets(3).map { Self.press(at: $0, matrix: Self.distortion, rotation: 0) }
        let fit = try CalibrationFit(points, screenWidth: Self.width, screenHeight: Self.height, rotation: 0)
        let scale = PhysicalScale(millimetresPerUnitX: 0.25, millimetresPerUnitY: 0.5, source: .config)
        // A verification press landing 30 units right of and 40 below its target: 50 units;
        // 7.5 mm across and 20 mm down, 21.36 mm.
        var off = Self.press(at: Point(530, 1000), matrix: Self.distortion, rotation: 0)
        off.target = Point(500, 960)
        let error = fit.verificationError(
            off, screenWidth: Self.width, screenHeight: Self.height, rotation: 0, scale: scale)
        #expect(abs(error.units - 50) < 1e-6)
        #expect(abs(error.millimetres - (7.5 * 7.5 + 20 * 20).squareRoot()) < 1e-6)
    }

    @Test func targetsOnOneLineAreRefused() {
        let line = [Point(100, 100), Point(500, 500), Point(900, 900)]
        let points = line.map { Self.press(at: $0, matrix: Self.distortion, rotation: 0) }
        #expect(throws: CalibrationFitError.collinear(presses: false)) {
            try CalibrationFit(points, screenWidth: Self.width, screenHeight: Self.height, rotation: 0)
        }
    }

    @Test func pressesOnOneLineAreRefusedEvenForGoodTargets() {
        // A broken panel that reports every press on one line.
        let points = Self.targets(3).enumerated().map { index, target in
            CalibrationPoint(target: target, normalizedX: 0.2 + 0.3 * Double(index), normalizedY: 0.5)
        }
        #expect(throws: CalibrationFitError.collinear(presses: true)) {
            try CalibrationFit(points, screenWidth: Self.width, screenHeight: Self.height, rotation: 0)
        }
    }

    @Test func bunchedTargetsAreRefusedAsIllConditioned() throws {
        // Three targets within 4 % of the panel: a one-unit error would move far points by ~25.
        let bunch = [Point(500, 900), Point(540, 900), Point(500, 970)]
        let points = bunch.map { Self.press(at: $0, matrix: Self.distortion, rotation: 0) }
        do {
            _ = try CalibrationFit(points, screenWidth: Self.width, screenHeight: Self.height, rotation: 0)
            Issue.record("bunched targets were accepted")
        } catch {
            guard case .illConditioned(presses: false, let spread) = error else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect(spread > 0 && spread < CalibrationFit.minimumSpread)
        }
        // The same shape spread over the panel passes.
        let wide = [Point(100, 200), Point(980, 200), Point(100, 1700)]
        _ = try CalibrationFit(
            wide.map { Self.press(at: $0, matrix: Self.distortion, rotation: 0) }, screenWidth: Self.width,
            screenHeight: Self.height, rotation: 0)
    }

    @Test func fewerThanThreePointsAndNonFiniteInputAreRefused() {
        let points = Self.targets(3).map { Self.press(at: $0, matrix: Self.distortion, rotation: 0) }
        #expect(throws: CalibrationFitError.tooFewPoints(2)) {
            try CalibrationFit(Array(points.prefix(2)), screenWidth: Self.width, screenHeight: Self.height, rotation: 0)
        }
        var broken = points
        broken[1].normalizedX = .nan
        #expect(throws: CalibrationFitError.nonFinite) {
            try CalibrationFit(broken, screenWidth: Self.width, screenHeight: Self.height, rotation: 0)
        }
    }

    @Test func aMatrixTheScreenWouldRefuseIsNotReturned() {
        // Targets 3000 screens away from presses spread over the panel: entries beyond ±1000.
        let points = Self.targets(3).map { target in
            CalibrationPoint(
                target: Point(target.x * 3000, target.y * 3000), normalizedX: target.x / Self.width,
                normalizedY: target.y / Self.height)
        }
        do {
            _ = try CalibrationFit(points, screenWidth: Self.width, screenHeight: Self.height, rotation: 0)
            Issue.record("an unusable matrix was returned")
        } catch {
            #expect(error == .unusableMatrix(.calibrationOutOfRange))
        }
    }
}
