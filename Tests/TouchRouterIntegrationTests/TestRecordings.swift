import Foundation
import Testing
import TouchRouterCore
import TouchRouterInput

/// The one writer of the recordings the integration tests make up (evemu `.events` and
/// `libinput record` YAML), from evdev events or from frames of contact changes.
enum TestRecording {
    /// One contact change of a frame: slot, and for a down or motion the raw position.
    enum Change {
        case down(Int32, Int32, Int32)
        case move(Int32, Int32, Int32)
        case up(Int32)
    }

    /// One evdev event at `micros` after the recording's start.
    struct Event {
        var micros: Int64
        var type: Int
        var code: Int
        var value: Int64
    }

    /// EV_ABS `code` = `value`.
    static func abs(_ code: Int, _ value: Int64, at micros: Int64) -> Event {
        Event(micros: micros, type: 3, code: code, value: value)
    }

    /// SYN_REPORT: the end of a frame.
    static func report(at micros: Int64) -> Event { Event(micros: micros, type: 0, code: 0, value: 0) }

    /// SYN_MT_REPORT: the end of one contact in a protocol-A frame.
    static func contactReport(at micros: Int64) -> Event { Event(micros: micros, type: 0, code: 2, value: 0) }

    /// Frames `(seconds, changes)` as a slotted device sends them: per change ABS_MT_SLOT, a new
    /// ABS_MT_TRACKING_ID for a down (counting from 1) or -1 for an up, the positions; BTN_TOUCH when
    /// the first finger lands or the last lifts; SYN_REPORT.
    static func events(_ frames: [(Double, [Change])]) -> [Event] {
        var events: [Event] = []
        var trackingID: Int64 = 1
        var down = Set<Int32>()
        for (seconds, changes) in frames {
            let micros = Int64((seconds * 1_000_000).rounded())
            let wasEmpty = down.isEmpty
            for change in changes {
                switch change {
                case .down(let slot, let x, let y):
                    events += [abs(0x2f, Int64(slot), at: micros), abs(0x39, trackingID, at: micros)]
                    events += [abs(0x35, Int64(x), at: micros), abs(0x36, Int64(y), at: micros)]
                    trackingID += 1
                    down.insert(slot)
                case .move(let slot, let x, let y):
                    events += [abs(0x2f, Int64(slot), at: micros)]
                    events += [abs(0x35, Int64(x), at: micros), abs(0x36, Int64(y), at: micros)]
                case .up(let slot):
                    events += [abs(0x2f, Int64(slot), at: micros), abs(0x39, -1, at: micros)]
                    down.remove(slot)
                }
            }
            if wasEmpty != down.isEmpty {
                events.append(Event(micros: micros, type: 1, code: 0x14a, value: down.isEmpty ? 0 : 1))
            }
            events.append(report(at: micros))
        }
        return events
    }

    /// An evemu recording: `header` (a device description's lines, or `# EVEMU 1.3` for events whose
    /// `.desc` is apart), then an `E:` line per event.
    static func evemu(header: String, _ events: [Event]) -> String {
        var text = header.hasSuffix("\n") ? header : header + "\n"
        text.reserveCapacity(text.utf8.count + events.count * 32)
        for event in events {
            text += "E: \(event.micros / 1_000_000).\(String(format: "%06d", event.micros % 1_000_000)) "
            text += String(format: "%04x %04x ", event.type, event.code) + "\(event.value)\n"
        }
        return text
    }

    /// A `libinput record` file of `devices`, all on one clock as `libinput record` writes nodes
    /// recorded together: each device's node, the lines of its `evdev:` description (unindented)
    /// and its events, one `evdev:` frame per SYN_REPORT.
    static func libinputRecord(_ devices: [(node: String, description: String, events: [Event])]) -> String {
        var lines = ["version: 1", "ndevices: \(devices.count)", "devices:"]
        for device in devices {
            lines += ["- node: \(device.node)", "  evdev:"]
            lines += device.description.split(separator: "\n").map { "    " + $0 }
            lines.append("  events:")
            var frameOpen = false
            for event in device.events {
                if !frameOpen { lines.append("  - evdev:") }
                lines.append(
                    "    - [\(event.micros / 1_000_000), \(event.micros % 1_000_000), \(event.type), \(event.code), \(event.value)]"
                )
                frameOpen = !(event.type == 0 && event.code == 0)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Layouts several suites share, as config text.
enum TestLayout {
    /// The split layout of `Tests/Fixtures/layouts/ep0430m09-split.json5` (the EP0430M09's 1280 × 768
    /// panel: `left` with `left-edge`, `right` with `right-edge`), with `rightEdgeID` as the right
    /// half's child id (to tell reloads apart), `fillers` put first under the root (behind the
    /// halves), and `access` lists by view id.
    static func split(
        screen: String = "main", rightEdgeID: String = "right-edge", fillers: [String] = [],
        access: [String: String] = [:]
    ) -> String {
        func accessKey(_ id: String) -> String { access[id].map { ", access: \($0)" } ?? "" }
        let halves = [
            "  { id: \"left\", frame: [0, 0, 640, 768]\(accessKey("left")), children: [ { id: \"left-edge\", "
                + "frame: [0, 0, 400, 768]\(accessKey("left-edge")) } ] }",
            "  { id: \"right\", frame: [640, 0, 640, 768]\(accessKey("right")), children: [ { id: \"\(rightEdgeID)\", "
                + "frame: [300, 0, 340, 768]\(accessKey(rightEdgeID)) } ] }",
        ]
        return """
            { screens: [ { name: "\(screen)", width: 1280, height: 768, root: { id: "panel", children: [
            \((fillers + halves).joined(separator: ",\n")),
            ] } } ] }
            """
    }
}

@Suite("The shared test recordings and layouts")
struct TestFixtureTests {
    @Test("the evemu and libinput record files of the same frames read as the same events")
    func bothFormatsReadAlike() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let frames: [(Double, [TestRecording.Change])] = [
            (0.5, [.down(0, 100, 200)]), (0.51, [.down(1, 300, 400), .move(0, 110, 210)]), (0.6, [.up(0), .up(1)]),
        ]
        let events = TestRecording.events(frames)
        try directory.write("r.events", TestRecording.evemu(header: CraftedRecordingDaemonTests.ep0430m09, events))
        try directory.write(
            "r.yml",
            TestRecording.libinputRecord([
                (node: "/dev/input/event4", description: "name: \"EP0430M09\"\nproperties: [1]", events: events)
            ]))
        let evemu = try Recording.load(path: directory.file("r.events"))
        let yaml = try Recording.load(path: directory.file("r.yml"))
        #expect(evemu.events == yaml.events)
        #expect(evemu.events.count == events.count)
        #expect(evemu.events.first == EvdevEvent(timestampMicros: 500_000, type: 3, code: 0x2f, value: 0))
        #expect(evemu.events.filter { $0.type == 1 }.map(\.value) == [1, 0])
    }

    @Test("TestLayout.split() is the layout of the fixture file Scenario.layoutPath")
    func splitIsTheFixture() throws {
        let built = try Config.parse(Array(TestLayout.split().utf8), fileName: "split.json5")
        let fixture = try loadConfig(path: Scenario.layoutPath)
        #expect(built.layout == fixture.layout)
    }
}
