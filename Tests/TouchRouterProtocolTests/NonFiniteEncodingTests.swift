import Foundation
import Testing
import TouchRouterModel

@testable import TouchRouterProtocol

/// Issue 26, item 10, the wire's side: no encoder writes a non-finite number, nor turns one into
/// `0.0` (it used to): a `touches` line with one is not written (the daemon counts it), a
/// gesture says it has one, and the writer's last resort is `null`.
@Suite("Non-finite numbers never reach the wire")
struct NonFiniteEncodingTests {
    static func touch(_ local: Point) -> RoutedTouch {
        RoutedTouch(
            id: 1, phase: .moved, localPoint: local, screenPoint: Point(1, 2), previousLocalPoint: Point(0, 0),
            timestampMicros: 5, tapCount: 1, device: InputDevice(id: 1, name: "panel"))
    }

    @Test(
        "the touches encoder writes nothing for a touch with a non-finite coordinate",
        arguments: [
            Double.nan, .infinity, -.infinity,
        ])
    func touchesEncoderRefusesNonFinite(value: Double) {
        for point in [Point(value, 1), Point(1, value)] {
            let message = ViewTouches(viewID: "v", screen: "main", timestampMicros: 5, touches: [Self.touch(point)])
            var buffer: [UInt8] = Array("before".utf8)
            #expect(TouchesEncoder.appendLine(message, to: &buffer) == false)
            #expect(buffer == Array("before".utf8))
        }
        let fine = ViewTouches(viewID: "v", screen: "main", timestampMicros: 5, touches: [Self.touch(Point(3, 4))])
        var buffer: [UInt8] = []
        #expect(TouchesEncoder.appendLine(fine, to: &buffer))
        #expect(String(decoding: buffer, as: UTF8.self).contains(#""location":[3.0,4.0]"#))
    }

    @Test("a touch whose previous location is not finite is not written either")
    func previousLocationChecked() {
        var touch = Self.touch(Point(3, 4))
        touch.previousLocalPoint = Point(.nan, 0)
        var buffer: [UInt8] = []
        #expect(
            TouchesEncoder.appendLine(
                ViewTouches(viewID: "v", screen: "main", timestampMicros: 5, touches: [touch]), to: &buffer) == false)
        #expect(buffer.isEmpty)
    }

    @Test("JSONWriter never makes a number of a non-finite value", arguments: [Double.nan, .infinity, -.infinity])
    func writerNull(value: Double) {
        var buffer: [UInt8] = []
        JSONWriter.appendPoint(x: value, y: 1, to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "[null,1.0]")
    }

    @Test("a gesture message with a non-finite number says so")
    func gestureIsFinite() {
        let event = GestureEvent(
            viewID: "v", screen: "main", kind: .pinch, recogniserIndex: 0, state: .changed, timestampMicros: 1,
            touchIDs: [1, 2], localPoint: Point(1, 1), screenPoint: Point(1, 1))
        var message = GestureMessage(event)
        #expect(message.isFinite)
        message.scale = .nan
        #expect(!message.isFinite)
        message.scale = 2
        message.velocity = Point(.infinity, 0)
        #expect(!message.isFinite)
    }
}
