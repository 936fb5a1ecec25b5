import TouchRouterModel

/// The hot path: a `touches` line written byte by byte from the tracker's `ViewTouches`.

/// Encodes `touches` messages without JSONEncoder, Dictionary or String building: literal
/// fragments, escaped strings, decimal integers and shortest-round-trip doubles appended to a
/// caller-owned buffer. Coordinates always print with a fraction or exponent (`12.0`, `0.5`,
/// `1e-07`); times, ids and tap counts as integers.
public enum TouchesEncoder {
    /// Appends `viewTouches` as one `touches` line, `\n` included, to `buffer`. The daemon encodes
    /// each view's message once per frame and appends the same bytes to every subscriber's queue.
    /// Appending never allocates once `buffer` has the capacity. A touch without a cancel reason
    /// in phase `cancelled` is sent with reason `input-cancelled`.
    ///
    /// Returns false, and appends nothing, when a coordinate is not finite (NaN or infinite): no
    /// such number is ever written, nor made into another one; the caller counts the message as
    /// dropped. Cost of the check: six comparisons per touch.
    @discardableResult
    public static func appendLine(_ viewTouches: ViewTouches, to buffer: inout [UInt8]) -> Bool {
        for touch in viewTouches.touches
        where !(touch.localPoint.isFinite && touch.screenPoint.isFinite && touch.previousLocalPoint.isFinite) {
            return false
        }
        JSONWriter.appendRaw(#"{"type":"touches","view":"#, to: &buffer)
        JSONWriter.appendString(viewTouches.viewID, to: &buffer)
        JSONWriter.appendRaw(#","screen":"#, to: &buffer)
        JSONWriter.appendString(viewTouches.screen, to: &buffer)
        JSONWriter.appendRaw(#","time":"#, to: &buffer)
        JSONWriter.appendInteger(viewTouches.timestampMicros, to: &buffer)
        JSONWriter.appendRaw(#","touches":["#, to: &buffer)
        for index in viewTouches.touches.indices {
            if index > viewTouches.touches.startIndex { buffer.append(UInt8(ascii: ",")) }
            appendTouch(viewTouches.touches[index], to: &buffer)
        }
        JSONWriter.appendRaw("]}\n", to: &buffer)
        return true
    }

    /// The line for `viewTouches` as a new array (convenience for tests and the client's encoder);
    /// empty when a coordinate is not finite.
    public static func encodedLine(_ viewTouches: ViewTouches) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(96 + 224 * viewTouches.touches.count)
        appendLine(viewTouches, to: &buffer)
        return buffer
    }

    @inline(__always)
    static func appendTouch(_ touch: RoutedTouch, to buffer: inout [UInt8]) {
        JSONWriter.appendRaw(#"{"id":"#, to: &buffer)
        JSONWriter.appendInteger(touch.id, to: &buffer)
        JSONWriter.appendRaw(#","phase":""#, to: &buffer)
        JSONWriter.appendUnescaped(touch.phase.rawValue, to: &buffer)
        JSONWriter.appendRaw(#"","location":"#, to: &buffer)
        JSONWriter.appendPoint(x: touch.localPoint.x, y: touch.localPoint.y, to: &buffer)
        JSONWriter.appendRaw(#","screenLocation":"#, to: &buffer)
        JSONWriter.appendPoint(x: touch.screenPoint.x, y: touch.screenPoint.y, to: &buffer)
        JSONWriter.appendRaw(#","previousLocation":"#, to: &buffer)
        JSONWriter.appendPoint(x: touch.previousLocalPoint.x, y: touch.previousLocalPoint.y, to: &buffer)
        JSONWriter.appendRaw(#","timestamp":"#, to: &buffer)
        JSONWriter.appendInteger(touch.timestampMicros, to: &buffer)
        JSONWriter.appendRaw(#","tapCount":"#, to: &buffer)
        JSONWriter.appendInteger(touch.tapCount, to: &buffer)
        JSONWriter.appendRaw(#","device":"#, to: &buffer)
        JSONWriter.appendString(touch.device.name, to: &buffer)
        if touch.phase == .cancelled {
            JSONWriter.appendRaw(#","reason":""#, to: &buffer)
            JSONWriter.appendUnescaped((touch.cancelReason ?? .inputCancelled).rawValue, to: &buffer)
            buffer.append(UInt8(ascii: "\""))
        }
        buffer.append(UInt8(ascii: "}"))
    }
}
