import Foundation
import Testing
import TouchRouterCore

@testable import TouchRouterInput

@Suite("Physical size from devices")
struct PhysicalSizeInputTests {
    @Test("a recording's ABS_X/ABS_Y resolution gives the panel's size, as libinput_device_get_size does")
    func recordedResolution() {
        let device = RecordedDevice(
            name: "panel",
            absinfo: [
                EvdevCode.absX: AbsInfo(minimum: 0, maximum: 3999, resolution: 20),
                EvdevCode.absY: AbsInfo(minimum: 0, maximum: 1999, resolution: 10),
            ], properties: [EvdevCode.inputPropDirect])
        #expect(device.physicalSize == PhysicalSize(widthMM: 3999.0 / 20, heightMM: 1999.0 / 10))
    }

    @Test("the shared recordings' axes have resolution 0: no size, so the config or the fallback decides")
    func fixturesHaveNoResolution() throws {
        for path in Fixtures.evemuDescriptions {
            let text = try String(contentsOfFile: Fixtures.path(path), encoding: .utf8)
            let device = try #require(try EvemuReader.parse(text, file: path).device)
            #expect(device.physicalSize == nil, "\(path)")
        }
    }

    @Test("every decoded frame carries the scale it was decoded with")
    func framesCarryScale() throws {
        let recording = try Recording.load(path: Fixtures.path("libinput/atmel-2-fingers-touch-release.yml"))
        let scale = PhysicalScale(millimetresPerUnitX: 0.1, millimetresPerUnitY: 0.2, source: .config)
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: InputDevice(id: 1, name: "atmel"), screen: "main",
            mapping: try ScreenMapping(screenWidth: 800, screenHeight: 480), physicalScale: scale)
        #expect(!frames.isEmpty)
        #expect(frames.allSatisfy { $0.physicalScale == scale })
    }

    @Test("a live device's assignment resolves its scale from its size, else the screen's physicalSize")
    func assignmentScale() throws {
        let config = try Config.parse(
            Data(
                #"{ screens: [{ name: "main", width: 1000, height: 500, physicalSize: [250, 125], root: { id: "r" } }] }"#
                    .utf8), fileName: "test.json5")
        let bare = LiveDeviceDescription(
            name: "ILITEK", sysname: "event3", node: nil, udevProperties: [:], hasTouch: true)
        #expect(
            config.screenAssignment(for: bare, defaultCalibration: [])?.physicalScale
                == PhysicalScale(millimetresPerUnitX: 0.25, millimetresPerUnitY: 0.25, source: .config))
        var sized = bare
        sized.physicalSize = PhysicalSize(widthMM: 500, heightMM: 250)
        #expect(config.screenAssignment(for: sized, defaultCalibration: [])?.physicalScale.source == .device)
    }
}
