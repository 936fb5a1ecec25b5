import Testing

@testable import TouchRouterCore

@Suite("ScreenMapping")
struct ScreenMappingTests {
    static let screenWidth = 1000.0
    static let screenHeight = 500.0

    /// Where panel positions land for each clockwise mounting rotation (no calibration):
    /// rotation, (u, v) normalized device position, expected normalized screen position (x, y).
    @Test(arguments: [
        (0, 0.0, 0.0, 0.0, 0.0), (0, 0.25, 0.75, 0.25, 0.75),
        (90, 0.0, 0.0, 1.0, 0.0), (90, 1.0, 0.0, 1.0, 1.0), (90, 0.25, 0.75, 0.25, 0.25),
        (180, 0.0, 0.0, 1.0, 1.0), (180, 0.25, 0.75, 0.75, 0.25),
        (270, 0.0, 0.0, 0.0, 1.0), (270, 1.0, 0.0, 0.0, 0.0), (270, 0.25, 0.75, 0.75, 0.75),
    ])
    func rotationMovesCorners(rotation: Int, u: Double, v: Double, x: Double, y: Double) throws {
        let mapping = try ScreenMapping(
            screenWidth: Self.screenWidth, screenHeight: Self.screenHeight, rotation: rotation)
        let point = mapping.map(normalizedX: u, normalizedY: v)
        #expect(abs(point.x - x * Self.screenWidth) < 1e-9)
        #expect(abs(point.y - y * Self.screenHeight) < 1e-9)
    }

    /// Calibration is applied first, in the panel's normalized space, then the rotation.
    @Test(arguments: [0, 90, 180, 270])
    func calibrationThenRotation(rotation: Int) throws {
        // Shrink to the panel's left half and shift down a quarter.
        let calibration = [0.5, 0, 0, 0, 1, 0.25]
        let mapping = try ScreenMapping(
            screenWidth: Self.screenWidth, screenHeight: Self.screenHeight, rotation: rotation,
            calibration: calibration)
        let plain = try ScreenMapping(
            screenWidth: Self.screenWidth, screenHeight: Self.screenHeight, rotation: rotation)
        for (u, v) in [(0.0, 0.0), (0.5, 0.5), (0.9, 0.1), (0.3, 0.6)] {
            let expected = plain.map(normalizedX: 0.5 * u, normalizedY: v + 0.25)
            let point = mapping.map(normalizedX: u, normalizedY: v)
            #expect(abs(point.x - expected.x) < 1e-9 && abs(point.y - expected.y) < 1e-9)
        }
    }

    /// The single libinput matrix, applied as libinput applies it, gives `map`'s result.
    @Test(arguments: [0, 90, 180, 270])
    func libinputMatrixMatchesMap(rotation: Int) throws {
        let calibration = [1.02, 0.01, -0.01, -0.02, 0.98, 0.015]
        let mapping = try ScreenMapping(
            screenWidth: 1280, screenHeight: 800, rotation: rotation, calibration: calibration)
        let m = ScreenMapping.libinputMatrix(rotation: rotation, calibration: calibration).map { Double($0) }
        #expect(m.count == 6)
        let seed: UInt64 = 42
        var random = SeededRandom(seed: seed)
        for _ in 0..<200 {
            let u = Double.random(in: 0..<1, using: &random)
            let v = Double.random(in: 0..<1, using: &random)
            let viaMatrix = Point((m[0] * u + m[1] * v + m[2]) * 1280, (m[3] * u + m[4] * v + m[5]) * 800)
            let viaMap = mapping.map(normalizedX: u, normalizedY: v)
            #expect(
                abs(viaMatrix.x - viaMap.x) < 1e-3 && abs(viaMatrix.y - viaMap.y) < 1e-3,
                "seed \(seed): (\(u), \(v))")
        }
    }

    /// libinput's device-unit path (float matrix, truncation to whole units) stays within one device unit.
    @Test(arguments: [0, 90, 180, 270])
    func deviceMappingWithinOneUnit(rotation: Int) throws {
        let xAxis = AxisRange(minimum: 0, maximum: 799)
        let yAxis = AxisRange(minimum: 0, maximum: 479)
        let mapping = try ScreenMapping(
            screenWidth: 800, screenHeight: 480, rotation: rotation, calibration: [1, 0, 0.01, 0, 1, -0.02])
        let points: [(Int32, Int32)] = [(0, 0), (539, 167), (799, 479), (222, 306)]
        for (x, y) in points {
            let exact = mapping.map(normalizedX: xAxis.normalize(x), normalizedY: yAxis.normalize(y))
            let device = mapping.mapDevice(x: x, y: y, xAxis: xAxis, yAxis: yAxis)
            // One device unit of either axis, in screen units (the axes swap under 90/270).
            #expect(abs(exact.x - device.x) <= 800.0 / 480.0 + 1e-6)
            #expect(abs(exact.y - device.y) <= 1.0 + 1e-6)
        }
    }

    /// The same with axes that do not start at 0 (many controllers report from an offset).
    @Test(arguments: [0, 90, 180, 270])
    func deviceMappingWithinOneUnitOnOffsetAxes(rotation: Int) throws {
        let xAxis = AxisRange(minimum: 100, maximum: 899)
        let yAxis = AxisRange(minimum: 50, maximum: 529)
        let mapping = try ScreenMapping(
            screenWidth: 800, screenHeight: 480, rotation: rotation, calibration: [1, 0, 0.01, 0, 1, -0.02])
        let points: [(Int32, Int32)] = [(100, 50), (639, 217), (899, 529), (322, 356)]
        for (x, y) in points {
            let exact = mapping.map(normalizedX: xAxis.normalize(x), normalizedY: yAxis.normalize(y))
            let device = mapping.mapDevice(x: x, y: y, xAxis: xAxis, yAxis: yAxis)
            #expect(abs(exact.x - device.x) <= 800.0 / 480.0 + 1e-6, "\(rotation): (\(x), \(y))")
            #expect(abs(exact.y - device.y) <= 800.0 / 480.0 + 1e-6, "\(rotation): (\(x), \(y))")
        }
    }

    @Test func identityDeviceMappingIsLibinputScaleAxis() throws {
        let mapping = try ScreenMapping(screenWidth: 1920, screenHeight: 1080)
        let xAxis = AxisRange(minimum: 0, maximum: 1279)
        let yAxis = AxisRange(minimum: 0, maximum: 767)
        let point = mapping.mapDevice(x: 640, y: 767, xAxis: xAxis, yAxis: yAxis)
        #expect(point == Point(640.0 * 1920 / 1280, 767.0 * 1080 / 768))
    }

    @Test func rejectsBadConfiguration() {
        #expect(throws: ScreenMappingError.invalidRotation(45)) {
            try ScreenMapping(screenWidth: 10, screenHeight: 10, rotation: 45)
        }
        #expect(throws: ScreenMappingError.invalidCalibrationCount(5)) {
            try ScreenMapping(screenWidth: 10, screenHeight: 10, calibration: [1, 0, 0, 0, 1])
        }
        #expect(throws: ScreenMappingError.invalidCalibrationCount(9)) {
            try ScreenMapping(screenWidth: 10, screenHeight: 10, calibration: [1, 0, 0, 0, 1, 0, 0, 0, 1])
        }
        #expect(throws: ScreenMappingError.nonFiniteCalibration) {
            try ScreenMapping(screenWidth: 10, screenHeight: 10, calibration: [1, 0, .nan, 0, 1, 0])
        }
        #expect(throws: ScreenMappingError.invalidScreenSize(width: 0, height: 10)) {
            try ScreenMapping(screenWidth: 0, screenHeight: 10)
        }
    }
}
