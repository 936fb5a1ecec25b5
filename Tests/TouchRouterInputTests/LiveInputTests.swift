import Foundation
import Testing
import TouchRouterCore
import TouchRouterSystem

@testable import TouchRouterInput

/// The live reader and the injector against the real libraries, as far as this machine allows (no
/// /dev/input devices, no /dev/uinput here: the VM suite covers the rest, docs/vm-testing.md).
@Suite("Live input and injection files")
struct LiveInputTests {
    static let evemuDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/recordings/evemu").path

    final class LogLines: @unchecked Sendable {
        var lines: [(LogLevel, String)] = []
    }

    @Test("a missing device node fails with the call's name, and libinput's own message is logged")
    func pathBackendMissingNode() {
        let log = LogLines()
        #expect(
            throws: InputReaderError(
                call: "libinput_path_add_device", errno: 0, detail: "/nonexistent/event9")
        ) {
            _ = try LibinputReader(
                backend: .paths(["/nonexistent/event9"]), assigner: { _, _ in nil },
                log: { level, message in log.lines.append((level, message)) })
        }
        #expect(log.lines.contains { $0.1.hasPrefix("libinput: ") && $0.1.contains("/nonexistent/event9") })
    }

    @Test("a seat with no touch devices gives a pollable fd and no events")
    func udevSeatWithoutDevices() throws {
        let reader = try LibinputReader(
            backend: .udev(seat: "seat-touchrouter-test"), assigner: { _, _ in nil }, log: { _, _ in })
        #expect(reader.fileDescriptor >= 0)
        #expect(reader.dispatch().isEmpty)
        #expect(reader.activeDevices.isEmpty)
    }

    @Test("an evemu description becomes the same uinput device: ids, direct property, BTN_TOUCH, axes")
    func evemuDescription() throws {
        let spec = try RecordingInjection.deviceSpec(
            path: "\(Self.evemuDirectory)/Atmel maXTouch Touchscreen.desc")
        #expect(spec.name == "Atmel maXTouch Touchscreen")
        #expect(spec.bustype == 0x18)
        #expect(spec.properties == [EvdevCode.inputPropDirect])
        #expect(spec.codes[EvdevCode.evKey] == [EvdevCode.btnTouch])
        #expect(spec.axis(EvdevCode.absMtPositionX)?.maximum == 799)
        #expect(spec.axis(EvdevCode.absMtSlot)?.maximum == 9)
        #expect(spec.absoluteAxes.count == 8)
    }

    @Test("a recording's events start at time 0 and keep their order")
    func recordingEvents() throws {
        let events = try RecordingInjection.events(
            path: "\(Self.evemuDirectory)/EP0430M09.2-fingers-touch-release.events",
            descriptionPath: "\(Self.evemuDirectory)/EP0430M09.desc")
        #expect(events.first?.timestampMicros == 0)
        #expect(events.map(\.timestampMicros) == events.map(\.timestampMicros).sorted())
        #expect(
            events.first
                == EvdevEvent(
                    timestampMicros: 0, type: EvdevCode.evAbs, code: EvdevCode.absMtTrackingId, value: 1)
        )
    }

    /// What `--replay` reads, `inject --device-desc` reads the same: a name with a `#` in it, an
    /// axis without its resolution (0 then).
    @Test("a description with '#' in its name and an axis without resolution is read as the replay reads it")
    func descriptionAsTheReplayReadsIt() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            "panel.desc", "# EVEMU 1.3\nN: Panel #2\nI: 0018 0001 0002 0003\nA: 35 0 799 0 0\nA: 36 0 479 0 0 12 # y\n")
        let spec = try RecordingInjection.deviceSpec(path: path)
        #expect(spec.name == "Panel #2")
        #expect(spec.axis(EvdevCode.absMtPositionX)?.maximum == 799)
        #expect(spec.axis(EvdevCode.absMtPositionX)?.resolution == 0)
        #expect(spec.axis(EvdevCode.absMtPositionY)?.resolution == 12)
        #expect(try Recording.load(path: path).device.name == "Panel #2")
    }

    @Test("a broken description names the file and line")
    func brokenDescription() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = try directory.write("bad.desc", "N: x\nA: 35 0 zz 0 0 0\n")
        #expect(
            throws: InjectionFileError(path: path, line: 2, reason: "A: needs CODE MIN MAX FUZZ FLAT [RES]")
        ) {
            try RecordingInjection.deviceSpec(path: path)
        }
    }

    @Test("a description or recording that is not UTF-8, or not there, says so for the whole file")
    func notTextOrMissing() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = try directory.write("latin1.desc", Data([0x4E, 0x3A, 0x20, 0xE9, 0x0A]))  // "N: é" in Latin-1
        #expect(throws: InjectionFileError(path: path, line: 0, reason: "not UTF-8 text")) {
            try RecordingInjection.deviceSpec(path: path)
        }
        #expect(throws: InjectionFileError(path: path + ".gone", line: 0, reason: "cannot read the file")) {
            try RecordingInjection.deviceSpec(path: path + ".gone")
        }
        do {
            _ = try Recording.load(path: path)
            Issue.record("a Latin-1 description loaded")
        } catch {
            #expect(error.line == 0 && error.message == "not UTF-8 text", "\(error)")
        }
    }

    @Test("the config's matchers, rotation and calibration decide a live device's screen and matrix")
    func configAssignment() throws {
        let config = try Config.parse(
            Data(
                """
                { screens: [
                    { name: "a", width: 100, height: 50, root: { id: "a", frame: [0, 0, 100, 50] },
                      devices: [{ name: "panel A*" }] },
                    { name: "b", width: 80, height: 60, root: { id: "b", frame: [0, 0, 80, 60] },
                      rotation: 90, devices: [{ udev: { ID_PATH: "usb-2" } }] },
                    { name: "c", width: 10, height: 10, root: { id: "c", frame: [0, 0, 10, 10] },
                      calibration: [2, 0, 0, 0, 2, 0], devices: [{ node: "/dev/input/event9" }] },
                  ], unmatchedDevices: "ignore" }
                """.utf8), fileName: "t.json5")
        func device(_ name: String, _ properties: [String: String] = [:], node: String? = nil)
            -> LiveDeviceDescription
        {
            LiveDeviceDescription(
                name: name, sysname: "event1", node: node, udevProperties: properties, hasTouch: true)
        }
        let identity: [Float] = [1, 0, 0, 0, 1, 0]
        #expect(
            config.screenAssignment(for: device("panel A v2"), defaultCalibration: identity)
                == ScreenAssignment(screen: "a", width: 100, height: 50, calibrationMatrix: nil, matcherIndex: 0))
        #expect(
            config.screenAssignment(for: device("x", ["ID_PATH": "usb-2"]), defaultCalibration: identity)?
                .calibrationMatrix
                == ScreenMapping.libinputMatrix(rotation: 90, calibration: ScreenMapping.identityCalibration))
        // A rotated screen without `calibration` keeps the device's own udev matrix, rotation after it.
        let udev: [Float] = [1.1, 0, -0.05, 0, 0.9, 0.02]
        #expect(
            config.screenAssignment(for: device("x", ["ID_PATH": "usb-2"]), defaultCalibration: udev)?
                .calibrationMatrix
                == ScreenMapping.libinputMatrix(rotation: 90, calibration: udev.map(Double.init)))
        #expect(
            config.screenAssignment(
                for: device("y", node: "/dev/input/event9"), defaultCalibration: identity)?
                .calibrationMatrix == [2, 0, 0, 0, 2, 0])
        #expect(config.screenAssignment(for: device("z"), defaultCalibration: identity) == nil)
        // The matcher that took the device, for its `filters`: the first matching one of the screen.
        let two = try Config.parse(
            Data(
                """
                { screens: [{ name: "a", width: 100, height: 50, root: { id: "a" },
                  devices: [{ name: "panel A*" }, { name: "panel*", filters: { minContactMs: 20 } }] }] }
                """.utf8), fileName: "t.json5")
        #expect(two.screenAssignment(for: device("panel B"), defaultCalibration: identity)?.matcherIndex == 1)
        #expect(two.screenAssignment(for: device("panel A"), defaultCalibration: identity)?.matcherIndex == 0)
        #expect(two.screenAssignment(for: device("other"), defaultCalibration: identity)?.matcherIndex == nil)
    }
}
