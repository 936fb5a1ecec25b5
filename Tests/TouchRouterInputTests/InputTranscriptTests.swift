import Testing
import TouchRouterCore

@testable import TouchRouterInput

@Suite("InputTranscript")
struct InputTranscriptTests {
    let device = InputDevice(id: 7, name: "panel")

    @Test("a frame line carries screen, time, device and each contact with 3 decimals")
    func frameLine() {
        let frame = InputFrame(
            device: device, screen: "main", timestampMicros: 42,
            contacts: [
                ContactEvent(kind: .down, slot: 0, screenPoint: Point(1.5, 2)),
                ContactEvent(kind: .up, slot: 1, screenPoint: Point(-0.25, 1000.0004)),
            ])
        #expect(
            InputTranscript.line(.frame(frame))
                == "frame main 42 dev=7 down:0:1.500:2.000 up:1:-0.250:1000.000")
        #expect(InputTranscript.line(.deviceRemoved(device, timestampMicros: 9)) == "removed dev=7 9")
    }

    let expected = """
        frame s 1 dev=0 down:0:10.000:10.000 down:1:50.000:50.000
        frame s 2 dev=0 motion:1:51.000:50.000
        frame s 3 dev=0 up:0:10.000:10.000 up:1:51.000:50.000
        """

    @Test("same contacts with other slot numbers and times agree")
    func slotsRenumbered() {
        let actual = """
            added dev=3 screen=s name=x
            frame s 100 dev=3 down:4:10.004:10.000 down:2:50.000:50.000
            frame s 200 dev=3 motion:2:51.000:50.000
            frame s 300 dev=3 up:2:51.000:50.000 up:4:10.000:10.000
            removed dev=3 400
            """
        #expect(InputTranscript.differences(expected: expected, actual: actual, tolerance: 0.01).isEmpty)
    }

    /// A cancel ends a pairing as an up does: the slot's next contact pairs again.
    @Test("a slot cancelled and pressed again, with other slot numbers, agrees")
    func cancelThenDownAgain() {
        let wanted = """
            frame s 1 dev=0 down:0:10.000:10.000 down:1:50.000:50.000
            frame s 2 dev=0 cancel:1:50.000:50.000
            frame s 3 dev=0 down:1:70.000:70.000
            frame s 4 dev=0 up:0:10.000:10.000 up:1:70.000:70.000
            """
        let actual = """
            frame s 1 dev=3 down:4:10.000:10.000 down:5:50.000:50.000
            frame s 2 dev=3 cancel:5:50.000:50.000
            frame s 3 dev=3 down:5:70.000:70.000
            frame s 4 dev=3 up:4:10.000:10.000 up:5:70.000:70.000
            """
        #expect(InputTranscript.differences(expected: wanted, actual: actual, tolerance: 0.01).isEmpty)
    }

    @Test(
        "a moved position, a missing frame and a swapped contact are reported",
        arguments: [
            (
                "frame s 1 dev=0 down:0:10.000:10.000 down:1:50.000:50.000\nframe s 2 dev=0 motion:1:52.000:50.000\n"
                    + "frame s 3 dev=0 up:0:10.000:10.000 up:1:51.000:50.000", "at (52.0, 50.0)"
            ),
            ("frame s 1 dev=0 down:0:10.000:10.000 down:1:50.000:50.000", "frame count"),
            (
                "frame s 1 dev=0 down:0:10.000:10.000 down:1:50.000:50.000\nframe s 2 dev=0 motion:0:51.000:50.000\n"
                    + "frame s 3 dev=0 up:0:10.000:10.000 up:1:51.000:50.000", "no expected contact"
            ),
        ])
    func differences(actual: String, mentions: String) {
        let problems = InputTranscript.differences(expected: expected, actual: actual, tolerance: 0.01)
        #expect(problems.contains { $0.contains(mentions) }, "\(problems)")
    }
}
