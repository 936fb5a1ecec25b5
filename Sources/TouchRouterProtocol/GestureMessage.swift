import TouchRouterModel

/// The `gesture` message (docs/protocol.md, "gesture"): a view's recogniser changed state.
public struct GestureMessage: Hashable, Sendable {
    /// `view`: the view the recogniser belongs to.
    public var viewID: String
    public var screen: String
    /// `gesture`: the kind (`tap`, `longPress`, `pan`, `swipe`, `pinch`, `rotate`). Text, so a newer
    /// daemon's kinds still decode; `kind` maps it to the enum.
    public var gesture: String
    /// `state`: `recognized` (tap, swipe) or `began`, `changed`, `ended`, `cancelled`.
    public var state: String
    /// `time`, µs.
    public var timestampMicros: UInt64
    /// `touches`: the ids of the touches taking part.
    public var touchIDs: [UInt64]
    /// `location`: their centroid in the view's own coordinates.
    public var localPoint: Point
    /// `screenLocation`: the same in the screen's layout space.
    public var screenPoint: Point
    public var taps: Int?
    public var direction: String?
    public var translation: Point?
    public var velocity: Point?
    public var scale: Double?
    public var scaleVelocity: Double?
    public var rotation: Double?
    public var rotationVelocity: Double?
    /// `duration`, µs.
    public var durationMicros: UInt64?

    /// The kind as an enum; nil for one this version does not know.
    public var kind: GestureKind? { GestureKind(rawValue: gesture) }
    /// The state as an enum; nil for one this version does not know.
    public var gestureState: GestureState? { GestureState(rawValue: state) }

    /// The wire form of a recognised event.
    public init(_ event: GestureEvent) {
        viewID = event.viewID
        screen = event.screen
        gesture = event.kind.rawValue
        state = event.state.rawValue
        timestampMicros = event.timestampMicros
        touchIDs = event.touchIDs
        localPoint = event.localPoint
        screenPoint = event.screenPoint
        taps = event.taps
        direction = event.direction?.rawValue
        translation = event.translation
        velocity = event.velocity
        scale = event.scale
        scaleVelocity = event.scaleVelocity
        rotation = event.rotation
        rotationVelocity = event.rotationVelocity
        durationMicros = event.durationMicros
    }

    /// Every number is finite. A gesture whose isn't is not sent (the daemon counts it); were it
    /// written anyway, each such number would be `null`, never a made-up one (`JSONWriter`).
    public var isFinite: Bool {
        localPoint.isFinite && screenPoint.isFinite && translation?.isFinite != false && velocity?.isFinite != false
            && scale?.isFinite != false && scaleVelocity?.isFinite != false && rotation?.isFinite != false
            && rotationVelocity?.isFinite != false
    }

    /// Appends the line, `\n` included, in the documented field order: literal fragments and
    /// values straight into `buffer`, as `TouchesEncoder` writes `touches` (a gesture is the other
    /// message of the routing loop: through `JSONObjectWriter`'s closures a `pan` line cost about
    /// 6.9 k instructions, written so 5.1 k, callgrind).
    public func appendLine(to buffer: inout [UInt8]) {
        JSONWriter.appendRaw(#"{"type":"gesture","view":"#, to: &buffer)
        JSONWriter.appendString(viewID, to: &buffer)
        JSONWriter.appendRaw(#","screen":"#, to: &buffer)
        JSONWriter.appendString(screen, to: &buffer)
        JSONWriter.appendRaw(#","gesture":"#, to: &buffer)
        JSONWriter.appendString(gesture, to: &buffer)
        JSONWriter.appendRaw(#","state":"#, to: &buffer)
        JSONWriter.appendString(state, to: &buffer)
        JSONWriter.appendRaw(#","time":"#, to: &buffer)
        JSONWriter.appendInteger(timestampMicros, to: &buffer)
        JSONWriter.appendRaw(#","touches":["#, to: &buffer)
        for index in touchIDs.indices {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            JSONWriter.appendInteger(touchIDs[index], to: &buffer)
        }
        JSONWriter.appendRaw(#"],"location":"#, to: &buffer)
        JSONWriter.appendPoint(x: localPoint.x, y: localPoint.y, to: &buffer)
        JSONWriter.appendRaw(#","screenLocation":"#, to: &buffer)
        JSONWriter.appendPoint(x: screenPoint.x, y: screenPoint.y, to: &buffer)
        if let taps {
            JSONWriter.appendRaw(#","taps":"#, to: &buffer)
            JSONWriter.appendInteger(taps, to: &buffer)
        }
        if let direction {
            JSONWriter.appendRaw(#","direction":"#, to: &buffer)
            JSONWriter.appendString(direction, to: &buffer)
        }
        if let translation {
            JSONWriter.appendRaw(#","translation":"#, to: &buffer)
            JSONWriter.appendPoint(x: translation.x, y: translation.y, to: &buffer)
        }
        if let velocity {
            JSONWriter.appendRaw(#","velocity":"#, to: &buffer)
            JSONWriter.appendPoint(x: velocity.x, y: velocity.y, to: &buffer)
        }
        if let scale {
            JSONWriter.appendRaw(#","scale":"#, to: &buffer)
            JSONWriter.appendDouble(scale, to: &buffer)
        }
        if let scaleVelocity {
            JSONWriter.appendRaw(#","scaleVelocity":"#, to: &buffer)
            JSONWriter.appendDouble(scaleVelocity, to: &buffer)
        }
        if let rotation {
            JSONWriter.appendRaw(#","rotation":"#, to: &buffer)
            JSONWriter.appendDouble(rotation, to: &buffer)
        }
        if let rotationVelocity {
            JSONWriter.appendRaw(#","rotationVelocity":"#, to: &buffer)
            JSONWriter.appendDouble(rotationVelocity, to: &buffer)
        }
        if let durationMicros {
            JSONWriter.appendRaw(#","duration":"#, to: &buffer)
            JSONWriter.appendInteger(durationMicros, to: &buffer)
        }
        JSONWriter.appendRaw("}\n", to: &buffer)
    }

    /// Reads a `gesture` line's fields (client side).
    static func decode(_ fields: FieldReader) throws(ProtocolError) -> GestureMessage {
        let unsigned = DaemonMessageDecoder.unsignedRange
        var ids: [UInt64] = []
        for element in try fields.array("touches") {
            guard let id = element.integerValue, unsigned.contains(id) else {
                throw fields.fail("field \"touches\" must be an array of touch ids")
            }
            ids.append(UInt64(id))
        }
        var message = GestureMessage(
            GestureEvent(
                viewID: try fields.string("view"), screen: try fields.string("screen"), kind: .tap,
                recogniserIndex: 0, state: .possible,
                timestampMicros: UInt64(try fields.integer("time", in: unsigned)), touchIDs: ids,
                localPoint: try fields.point("location"), screenPoint: try fields.point("screenLocation")))
        message.gesture = try fields.string("gesture")
        message.state = try fields.string("state")
        message.taps = try fields.optionalInteger("taps", in: 0...Int64(Int32.max)).map(Int.init)
        message.direction = try fields.optionalString("direction")
        message.translation = try fields.optionalPoint("translation")
        message.velocity = try fields.optionalPoint("velocity")
        message.scale = fields.has("scale") ? try fields.double("scale") : nil
        message.scaleVelocity = fields.has("scaleVelocity") ? try fields.double("scaleVelocity") : nil
        message.rotation = fields.has("rotation") ? try fields.double("rotation") : nil
        message.rotationVelocity = fields.has("rotationVelocity") ? try fields.double("rotationVelocity") : nil
        message.durationMicros = try fields.optionalInteger("duration", in: unsigned).map(UInt64.init)
        return message
    }
}
