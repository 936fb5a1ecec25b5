import Foundation
import Testing

@testable import TouchRouterCore

@Suite("Physical scale")
struct PhysicalScaleTests {
    static let badCases: [BadConfigCase] = [
        .screen(
            "physicalSize of one number", "physicalSize: [300],", .wrongType, at: "physicalSize",
            says: "found 1 values"),
        .screen(
            "physicalSize of three numbers", "physicalSize: [300, 200, 1],", .wrongType, at: "physicalSize",
            says: "[widthMM, heightMM]"),
        .screen(
            "physicalSize as a number", "physicalSize: 300,", .wrongType, at: "physicalSize", says: "found a number"),
        .screen(
            "physicalSize with a string", #"physicalSize: [300, "200"],"#, .wrongType, at: #""200""#,
            says: "the physicalSize height must be a number"),
        .screen(
            "physicalSize width 0", "physicalSize: [0, 200],", .nonPositiveSize, at: "0, 200",
            says: "width must be > 0 mm, found 0"),
        .screen(
            "physicalSize negative height", "physicalSize: [300, -1],", .nonPositiveSize, at: "-1",
            says: "height must be > 0 mm, found -1"),
        BadConfigCase(
            name: "physicalSize infinite", text: fileWithScreenKeys("physicalSize: [300, Infinity],"),
            code: .nonFinite, marker: "Infinity"),
        .screen(
            "physicalSize misspelt", "physicalsize: [300, 200],", .unknownKey, at: "physicalsize",
            says: #"did you mean "physicalSize"?"#),
    ]

    @Test("a bad physicalSize is rejected with the expected error and location", arguments: badCases)
    func badPhysicalSize(_ badCase: BadConfigCase) throws {
        try expectRejected(badCase)
    }

    @Test("physicalSize is read into the screen's input settings")
    func readsPhysicalSize() throws {
        let config = try Config.parse(
            Data(fileWithScreenKeys("physicalSize: [476.064, 267.786],").utf8), fileName: "test.json5")
        #expect(config.input(forScreen: "main")?.physicalSize == PhysicalSize(widthMM: 476.064, heightMM: 267.786))
        let plain = try Config.parse(Data(fileWithScreenKeys("").utf8), fileName: "test.json5")
        #expect(plain.input(forScreen: "main")?.physicalSize == nil)
    }

    @Test("resolution order: the device's size, else the config's, else the fallback density")
    func resolutionOrder() {
        let device = PhysicalSize(widthMM: 200, heightMM: 100)
        let configured = PhysicalSize(widthMM: 50, heightMM: 25)
        let fromDevice = PhysicalScale.resolve(
            deviceSize: device, rotationDegrees: 0, configuredSize: configured, screenWidth: 1000, screenHeight: 500)
        #expect(fromDevice == PhysicalScale(millimetresPerUnitX: 0.2, millimetresPerUnitY: 0.2, source: .device))
        let fromConfig = PhysicalScale.resolve(
            deviceSize: nil, rotationDegrees: 0, configuredSize: configured, screenWidth: 1000, screenHeight: 500)
        #expect(fromConfig == PhysicalScale(millimetresPerUnitX: 0.05, millimetresPerUnitY: 0.05, source: .config))
        let neither = PhysicalScale.resolve(
            deviceSize: nil, rotationDegrees: 0, configuredSize: nil, screenWidth: 1000, screenHeight: 500)
        #expect(neither == .fallback)
        #expect(neither.millimetresPerUnitX == 25.4 / 96)
    }

    @Test("a panel mounted at 90 or 270 degrees gives its height to the layout's width", arguments: [0, 90, 180, 270])
    func rotation(_ degrees: Int) {
        let scale = PhysicalScale.resolve(
            deviceSize: PhysicalSize(widthMM: 300, heightMM: 100), rotationDegrees: degrees, configuredSize: nil,
            screenWidth: 100, screenHeight: 100)
        let turned = degrees == 90 || degrees == 270
        #expect(scale.millimetresPerUnitX == (turned ? 1 : 3))
        #expect(scale.millimetresPerUnitY == (turned ? 3 : 1))
    }

    @Test("distances are measured per axis, so an anisotropic scale stretches one direction")
    func distances() {
        let scale = PhysicalScale(millimetresPerUnitX: 0.5, millimetresPerUnitY: 2, source: .config)
        #expect(scale.distanceMillimetres(Point(0, 0), Point(10, 0)) == 5)
        #expect(scale.distanceMillimetres(Point(0, 0), Point(0, 10)) == 20)
        #expect(scale.millimetres(dx: 6, dy: 2) == 5)
        #expect(scale.unitsPerMillimetreY == 0.5)
    }

    @Test("invalid figures fall back to the fallback density instead of poisoning every distance")
    func invalidFigures() {
        let scale = PhysicalScale(millimetresPerUnitX: .nan, millimetresPerUnitY: 0, source: .device)
        #expect(scale.millimetresPerUnitX == PhysicalScale.fallbackMillimetresPerUnit)
        #expect(scale.millimetresPerUnitY == PhysicalScale.fallbackMillimetresPerUnit)
        #expect(PhysicalSize(widthMM: 0, heightMM: 1) == nil)
        #expect(PhysicalSize(widthMM: .infinity, heightMM: 1) == nil)
        let degenerate = PhysicalScale.resolve(
            deviceSize: PhysicalSize(widthMM: 1, heightMM: 1), rotationDegrees: 0, configuredSize: nil,
            screenWidth: 0, screenHeight: 10)
        #expect(degenerate == .fallback)
    }

    @Test("a device's axes give libinput's size: range over resolution, none when a resolution is 0")
    func axesSize() {
        let x = AxisRange(minimum: 0, maximum: 4095)
        let y = AxisRange(minimum: 0, maximum: 2047)
        #expect(
            PhysicalSize.ofAxes(x: x, xResolution: 16, y: y, yResolution: 16)
                == PhysicalSize(widthMM: 4095.0 / 16, heightMM: 2047.0 / 16))
        #expect(PhysicalSize.ofAxes(x: x, xResolution: 0, y: y, yResolution: 16) == nil)
        #expect(PhysicalSize.ofAxes(x: x, xResolution: 16, y: y, yResolution: -1) == nil)
    }

    @Test("the log line names where the scale came from, and the fallback's density")
    func descriptions() {
        #expect(PhysicalScale.fallback.description.contains("0.265 mm per unit (fallback"))
        #expect(PhysicalScale.fallback.description.contains("96 units per inch"))
        let config = PhysicalScale(millimetresPerUnitX: 0.25, millimetresPerUnitY: 0.5, source: .config)
        #expect(config.description == "0.25×0.5 mm per unit (from the screen's physicalSize)")
        #expect(PhysicalSize(widthMM: 476.0641, heightMM: 10)!.description == "476.064×10 mm")
    }

    @Test("a config gives each screen's scale for a device with or without a size")
    func configScale() throws {
        let config = try Config.parse(
            Data(fileWithScreenKeys("physicalSize: [50, 25], rotation: 90,").utf8), fileName: "test.json5")
        #expect(config.physicalScale(forScreen: "main", deviceSize: nil).millimetresPerUnitY == 0.25)
        let device = config.physicalScale(
            forScreen: "main", deviceSize: PhysicalSize(widthMM: 10, heightMM: 20))
        #expect(device == PhysicalScale(millimetresPerUnitX: 0.2, millimetresPerUnitY: 0.1, source: .device))
        #expect(config.physicalScale(forScreen: "nowhere", deviceSize: nil) == .fallback)
    }

    @Test("a calibration that stretches part of the panel over the screen makes each unit that much smaller")
    func calibrationScaling() throws {
        let panel = PhysicalSize(widthMM: 400, heightMM: 200)
        func scale(_ calibration: [Double]?, rotation: Int = 0) -> PhysicalScale {
            PhysicalScale.resolve(
                deviceSize: panel, rotationDegrees: rotation, calibration: calibration, configuredSize: nil,
                screenWidth: 100, screenHeight: 100)
        }
        // No matrix, the identity, an offset only: the whole panel.
        for calibration in [nil, [1, 0, 0, 0, 1, 0], [1, 0, 0.1, 0, 1, -0.2]] as [[Double]?] {
            #expect(scale(calibration).millimetresPerUnitX == 4)
            #expect(scale(calibration).millimetresPerUnitY == 2)
        }
        // The left half of the panel covers the screen's width; the middle 80 % of its height, its height.
        #expect(scale([2, 0, 0, 0, 1, 0]).millimetresPerUnitX == 2)
        #expect(scale([2, 0, 0, 0, 1, 0]).millimetresPerUnitY == 2)
        #expect(scale([1, 0, 0, 0, 1.25, -0.125]).millimetresPerUnitY == 1.6)
        // A mirrored axis is as long as it was.
        #expect(scale([-1, 0, 1, 0, 1, 0]).millimetresPerUnitX == 4)
        // Calibration first, then the rotation: the quarter width becomes the layout's height.
        let turned = scale([4, 0, 0, 0, 1, 0], rotation: 90)
        #expect(turned.millimetresPerUnitX == 2)
        #expect(turned.millimetresPerUnitY == 1)
        #expect(scale([4, 0, 0, 0, 1, 0], rotation: 270).millimetresPerUnitY == 1)
        // A calibration that swaps the axes gives the panel's height to the layout's width.
        #expect(scale([0, 1, 0, 1, 0, 0]).millimetresPerUnitX == 2)
        #expect(scale([0, 1, 0, 1, 0, 0]).millimetresPerUnitY == 4)
        // A shear: a move of 1 along the calibrated y axis is (-0.5 · 400, 200) mm on the glass.
        let sheared = scale([1, 0.5, 0, 0, 1, 0])
        #expect(sheared.millimetresPerUnitX == 4)
        #expect(abs(sheared.millimetresPerUnitY - (200.0 * 200 + 200 * 200).squareRoot() / 100) < 1e-12)
        // A singular matrix maps the panel onto a line: the panel's own size stands.
        #expect(scale([0, 0, 0, 0, 0, 0]).millimetresPerUnitX == 4)
        #expect(scale([1, 2, 0, 2, 4, 0]).millimetresPerUnitY == 2)
    }

    @Test("the config's calibration narrows a device's size, never the screen's physicalSize")
    func configCalibration() throws {
        let config = try Config.parse(
            Data(fileWithScreenKeys("physicalSize: [50, 25], calibration: [2, 0, 0, 0, 1, 0],").utf8),
            fileName: "test.json5")
        let device = config.physicalScale(forScreen: "main", deviceSize: PhysicalSize(widthMM: 10, heightMM: 20))
        let screen = try #require(config.layout.screen(named: "main"))
        #expect(device.millimetresPerUnitX == 5 / screen.width)
        #expect(device.millimetresPerUnitY == 20 / screen.height)
        let configured = config.physicalScale(forScreen: "main", deviceSize: nil)
        #expect(configured.millimetresPerUnitX == 50 / screen.width)
        #expect(configured.millimetresPerUnitY == 25 / screen.height)
    }
}
