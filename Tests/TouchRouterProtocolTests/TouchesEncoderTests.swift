import Foundation
import Testing
import TouchRouterCore

@testable import TouchRouterProtocol

@Suite("Touches encoding")
struct TouchesEncoderTests {
    static let device = InputDevice(id: 3, name: "Atmel maXTouch Touchscreen")

    @Test("the exact bytes of a touches line")
    func exactBytes() {
        let message = ViewTouches(
            viewID: "keypad/7", screen: "main", timestampMicros: 1_234_567,
            touches: [
                RoutedTouch(
                    id: 42, phase: .moved, localPoint: Point(12, 7.5), screenPoint: Point(412, 307.5),
                    previousLocalPoint: Point(11.25, 7), timestampMicros: 1_234_567, tapCount: 1,
                    device: Self.device),
                RoutedTouch(
                    id: 43, phase: .cancelled, localPoint: Point(0.1, -3), screenPoint: Point(400.1, 297),
                    previousLocalPoint: Point(0.1, -3), timestampMicros: 1_234_000, tapCount: 0,
                    device: Self.device,
                    cancelReason: .viewRemoved),
            ])
        let expected =
            #"{"type":"touches","view":"keypad/7","screen":"main","time":1234567,"touches":["#
            + #"{"id":42,"phase":"moved","location":[12.0,7.5],"screenLocation":[412.0,307.5],"#
            + #""previousLocation":[11.25,7.0],"timestamp":1234567,"tapCount":1,"#
            + #""device":"Atmel maXTouch Touchscreen"},"#
            + #"{"id":43,"phase":"cancelled","location":[0.1,-3.0],"screenLocation":[400.1,297.0],"#
            + #""previousLocation":[0.1,-3.0],"timestamp":1234000,"tapCount":0,"#
            + #""device":"Atmel maXTouch Touchscreen","reason":"view-removed"}]}"# + "\n"
        #expect(String(decoding: TouchesEncoder.encodedLine(message), as: UTF8.self) == expected)
    }

    @Test("an empty touch list and the largest integers")
    func edges() {
        let message = ViewTouches(viewID: "a", screen: "b", timestampMicros: UInt64.max, touches: [])
        #expect(
            String(decoding: TouchesEncoder.encodedLine(message), as: UTF8.self)
                == #"{"type":"touches","view":"a","screen":"b","time":18446744073709551615,"touches":[]}"#
                + "\n")
        var buffer: [UInt8] = []
        for value: Int64 in [0, 9, 10, -1, -10, Int64.min, Int64.max] {
            buffer.removeAll()
            JSONWriter.appendInteger(value, to: &buffer)
            #expect(String(decoding: buffer, as: UTF8.self) == String(value))
        }
    }

    @Test(
        "string escapes",
        arguments: [
            ("plain", #""plain""#), ("q\"b\\s", #""q\"b\\s""#), ("\n\r\t\u{8}\u{c}", #""\n\r\t\b\f""#),
            ("\u{0}\u{1f}", #""\u0000\u001f""#), ("\u{7f}/ü👆", "\"\u{7f}/ü👆\""),
        ])
    func escapes(value: String, expected: String) {
        var buffer: [UInt8] = []
        JSONWriter.appendString(value, to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == expected)
    }

    @Test(
        "doubles print shortest round-trip, always with a fraction or exponent; never a number for NaN",
        arguments: [
            (12.0, "12.0"), (0.1, "0.1"), (-3.0, "-3.0"), (0.0, "0.0"), (-0.0, "0.0"), (1e-7, "1e-07"),
            (1e16, "1e+16"), (123456.789, "123456.789"), (Double.nan, "null"), (-Double.infinity, "null"),
        ])
    func doubles(value: Double, expected: String) {
        var buffer: [UInt8] = []
        JSONWriter.appendDouble(value, to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == expected)
    }

    /// What the line must decode to, built independently of the encoder.
    static func expectedDictionary(_ message: ViewTouches) -> [String: Any] {
        func pair(_ point: Point) -> [Double] { [point.x, point.y] }
        let touches: [[String: Any]] = message.touches.map { touch in
            var dictionary: [String: Any] = [
                "id": touch.id, "phase": touch.phase.rawValue, "location": pair(touch.localPoint),
                "screenLocation": pair(touch.screenPoint), "previousLocation": pair(touch.previousLocalPoint),
                "timestamp": touch.timestampMicros, "tapCount": touch.tapCount, "device": touch.device.name,
            ]
            if touch.phase == .cancelled { dictionary["reason"] = touch.cancelReason!.rawValue }
            return dictionary
        }
        let dictionary: [String: Any] = [
            "type": "touches", "view": message.viewID, "screen": message.screen,
            "time": message.timestampMicros, "touches": touches,
        ]
        return dictionary
    }

    /// Where JSONSerialization's output differs from the expected value (nil: nowhere). Doubles may
    /// differ in the last digits: Linux's JSONSerialization reads many doubles several ulps off (the
    /// exact check is the JSONDecoder-based client decoder below).
    static func mismatch(_ decoded: Any, _ expected: Any, at path: String = "") -> String? {
        switch expected {
        case let string as String:
            return decoded as? String == string ? nil : "\(path): \(decoded) != \(string)"
        case let dictionary as [String: Any]:
            guard let other = decoded as? [String: Any], Set(other.keys) == Set(dictionary.keys) else {
                return "\(path): keys differ"
            }
            return dictionary.keys.sorted().lazy.compactMap {
                mismatch(other[$0]!, dictionary[$0]!, at: path + "." + $0)
            }
            .first
        case let array as [Any]:
            guard let other = decoded as? [Any], other.count == array.count else { return "\(path): count" }
            return zip(other, array).enumerated().lazy.compactMap {
                mismatch($1.0, $1.1, at: path + "[\($0)]")
            }.first
        case let integer as Int:
            return (decoded as? NSNumber)?.int64Value == Int64(integer)
                ? nil : "\(path): \(decoded) != \(integer)"
        case let integer as UInt64:
            return (decoded as? NSNumber)?.uint64Value == integer ? nil : "\(path): \(decoded) != \(integer)"
        case let double as Double:
            guard let other = (decoded as? NSNumber)?.doubleValue else { return "\(path): not a number" }
            return other == double || abs(other - double) <= abs(double) * 1e-14
                ? nil : "\(path): \(other) != \(double)"
        default: return "\(path): unexpected \(type(of: expected))"
        }
    }

    @Test("random messages decode with JSONSerialization to exactly what was encoded")
    func propertyAgainstJSONSerialization() throws {
        let seed: UInt64 = 0x70_0C4E5
        var random = SeededRandom(seed: seed)
        var buffer: [UInt8] = []
        for round in 0..<300 {
            let message = TestData.viewTouches(&random)
            buffer.removeAll(keepingCapacity: true)
            TouchesEncoder.appendLine(message, to: &buffer)
            #expect(buffer.last == UInt8(ascii: "\n"))
            #expect(
                buffer.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil, "seed \(seed) round \(round)")
            let decoded = try JSONSerialization.jsonObject(with: Data(buffer.dropLast()))
            #expect(
                Self.mismatch(decoded, Self.expectedDictionary(message)) == nil,
                "seed \(seed) round \(round): \(message)")
            // And exactly, through the client's decoder, into the wire form.
            let wire = try DaemonMessageDecoder.decode(line: buffer.dropLast()).get()
            #expect(wire == .touches(TouchesMessage(message)), "seed \(seed) round \(round)")
        }
    }

    @Test("appending reuses the buffer")
    func appendsAfterExistingBytes() {
        var random = SeededRandom(seed: 11)
        let first = TestData.viewTouches(&random)
        let second = TestData.viewTouches(&random)
        var buffer: [UInt8] = []
        TouchesEncoder.appendLine(first, to: &buffer)
        TouchesEncoder.appendLine(second, to: &buffer)
        #expect(buffer == TouchesEncoder.encodedLine(first) + TouchesEncoder.encodedLine(second))
    }

    /// The encoder writes phases and reasons by their raw values, unescaped and unquoted by
    /// `appendUnescaped`: they must stay words JSON can carry as they are.
    @Test("every phase and cancel reason is a word that needs no escaping, written as its raw value")
    func phaseAndReasonWords() {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz-".utf8)
        let words = TouchPhase.allCases.map(\.rawValue) + CancelReason.allCases.map(\.rawValue)
        for word in words { #expect(!word.isEmpty && word.utf8.allSatisfy(allowed.contains), "\(word)") }
        for reason in CancelReason.allCases {
            let touch = RoutedTouch(
                id: 1, phase: .cancelled, localPoint: Point(0, 0), screenPoint: Point(0, 0),
                previousLocalPoint: Point(0, 0), timestampMicros: 0, tapCount: 0, device: Self.device,
                cancelReason: reason)
            var buffer: [UInt8] = []
            TouchesEncoder.appendTouch(touch, to: &buffer)
            #expect(String(decoding: buffer, as: UTF8.self).hasSuffix(#","reason":"\#(reason.rawValue)"}"#))
        }
    }
}
