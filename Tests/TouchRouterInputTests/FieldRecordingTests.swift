import Testing
import TouchRouterCore
import TouchRouterInput

/// The field kit must not eat real input: every real recording, decoded and passed through the
/// field stage with every filter on at its documented example setting, comes out with every
/// contact whole (each down delivered, each delivered down ended exactly once) and nothing counted.
@Suite("Field filters on real recordings")
struct FieldRecordingTests {
    /// docs/field.md's example config.
    static let settings = FieldSettings(
        dropsStuckPoints: true, maxStationaryMicros: 30_000_000, minContactMicros: 20_000,
        debounceMicros: 60_000, debounceMillimetres: 3)

    static let recordings =
        Fixtures.evemuEvents + Fixtures.libinputRecords + Fixtures.files(in: "protocol-a", extension: "events")

    /// The shortest contact and the shortest gap from an up to the next down, over a recording
    /// (printed: what the documented example thresholds are chosen against).
    struct Figures {
        var shortestContactMicros = UInt64.max
        var shortestGapMicros = UInt64.max
    }

    @Test(arguments: recordings)
    func everyRealContactSurvivesTheFilters(relativePath: String) throws {
        let recording = try Recording.load(path: Fixtures.path(relativePath))
        let device = InputDevice(id: 3, name: recording.device.name)
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: device, screen: "main",
            mapping: try ScreenMapping(screenWidth: 1000, screenHeight: 600))
        var stage = FieldStage(
            screens: ["main"], settings: ["main": Self.settings], nowMicros: frames.first?.timestampMicros ?? 0)
        var downsIn = 0
        var downsOut = 0
        var open = Set<Int32>()
        var endsOut = 0
        var figures = Figures()
        var downAt: [Int32: UInt64] = [:]
        var lastUp: UInt64?
        func take(_ output: FieldOutput) {
            for case .frame(let frame) in output.events {
                for contact in frame.contacts {
                    switch contact.kind {
                    case .down:
                        #expect(open.insert(contact.slot).inserted, "\(relativePath): a second down on \(contact.slot)")
                        downsOut += 1
                    case .up, .cancel:
                        #expect(open.remove(contact.slot) != nil, "\(relativePath): an end without a down")
                        endsOut += 1
                    case .motion:
                        #expect(open.contains(contact.slot), "\(relativePath): a motion without a down")
                    }
                }
            }
        }
        for frame in frames {
            for contact in frame.contacts {
                switch contact.kind {
                case .down:
                    downsIn += 1
                    downAt[contact.slot] = frame.timestampMicros
                    if let lastUp {
                        figures.shortestGapMicros = min(figures.shortestGapMicros, frame.timestampMicros - lastUp)
                    }
                case .up, .cancel:
                    if let start = downAt.removeValue(forKey: contact.slot) {
                        figures.shortestContactMicros = min(
                            figures.shortestContactMicros, frame.timestampMicros - start)
                    }
                    lastUp = frame.timestampMicros
                case .motion:
                    break
                }
            }
            take(stage.process(.frame(frame), nowMicros: frame.timestampMicros))
        }
        take(stage.advance(nowMicros: (frames.last?.timestampMicros ?? 0) + 60_000_000))
        #expect(downsIn > 0)
        #expect(downsOut == downsIn, "\(relativePath): \(downsIn - downsOut) real contacts dropped")
        #expect(endsOut == downsOut && open.isEmpty)
        #expect(stage.deviceCounters.allSatisfy { $0.named.allSatisfy { $0.value == 0 } })
        let gap = figures.shortestGapMicros == .max ? "none" : "\(figures.shortestGapMicros) µs"
        print(
            "FIGURE \(relativePath): shortest contact \(figures.shortestContactMicros) µs, shortest up→down gap \(gap)")
    }
}
