import Testing

@testable import TouchRouterInput

/// A protocol-A device (ABS_MT positions, no slots) as libinput sees it: its positions are the
/// ABS_MT axes, and libmtdev filters them with its default fuzz where the device gives none.
@Suite("Protocol A: axes and libmtdev's fuzz")
struct ProtocolAAxisTests {
    /// MT positions 0…2499 without fuzz (libmtdev's default then: 2500 / 250 = 10), and an ABS_X of
    /// another range.
    static let device = RecordedDevice(
        name: "protocol A panel",
        absinfo: [
            EvdevCode.absX: AbsInfo(minimum: 0, maximum: 799),
            EvdevCode.absY: AbsInfo(minimum: 0, maximum: 479),
            EvdevCode.absMtPositionX: AbsInfo(minimum: 0, maximum: 2499),
            EvdevCode.absMtPositionY: AbsInfo(minimum: 0, maximum: 1499),
        ], properties: [])

    @Test("the positions are the ABS_MT axes, not ABS_X and ABS_Y")
    func positionAxes() {
        #expect(Self.device.isProtocolA)
        #expect(Self.device.xAxis == AbsInfo(minimum: 0, maximum: 2499))
        #expect(Self.device.yAxis == AbsInfo(minimum: 0, maximum: 1499))
    }

    /// One finger at x, a frame: what libmtdev makes of it.
    static func frame(_ converter: MtdevConverter, x: Int32, at micros: UInt64) -> [EvdevEvent] {
        for (type, code, value) in [
            (EvdevCode.evAbs, EvdevCode.absMtPositionX, x), (EvdevCode.evAbs, EvdevCode.absMtPositionY, 700),
            (EvdevCode.evSyn, EvdevCode.synMtReport, 0), (EvdevCode.evSyn, EvdevCode.synReport, 0),
        ] {
            converter.put(EvdevEvent(timestampMicros: micros, type: type, code: code, value: value))
        }
        return converter.drain()
    }

    @Test("a position axis without fuzz gets libmtdev's default: a 3-unit jitter is filtered, 30 units are not")
    func defaultFuzz() {
        let converter = MtdevConverter(device: Self.device)
        let xs: (([EvdevEvent]) -> [Int32]) = { events in
            events.filter { $0.type == EvdevCode.evAbs && $0.code == EvdevCode.absMtPositionX }.map(\.value)
        }
        #expect(xs(Self.frame(converter, x: 1000, at: 0)) == [1000])
        #expect(xs(Self.frame(converter, x: 1003, at: 10_000)) == [])
        #expect(xs(Self.frame(converter, x: 1030, at: 20_000)) == [1030])
    }
}
