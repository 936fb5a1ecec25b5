import TouchRouterModel

/// The calibration session's requests' payloads and the daemon's messages about it, with their
/// JSON both ways (docs/calibration.md, "Session protocol"). Points on these lines are objects
/// `{"x":…,"y":…}`; normalized positions are `[x, y]` arrays.

/// The bounds a `calibrationStart` and a `calibrationFinish` are checked against.
public enum CalibrationLimits {
    /// `timeoutMs`: the session ends after this long without a press.
    public static let timeoutMillis: ClosedRange<Int64> = 1000...600_000
    /// `timeoutMs` when the request does not say.
    public static let defaultTimeoutMillis: Int64 = 120_000
    /// `minimumGapMs`: a press starting sooner after the previous release is a bounce.
    public static let minimumGapMillis: ClosedRange<Int64> = 0...5000
    /// `minimumGapMs` when the request does not say.
    public static let defaultMinimumGapMillis: Int64 = 250
    /// At most this many `points` in a `calibrationFinish`, so the fit's cost is bounded.
    public static let maximumPoints = 16
}

/// One measured point of a `calibrationFinish`: where the target was drawn and the sample the
/// daemon sent for its press.
public struct CalibrationPress: Hashable, Sendable {
    /// `target`: layout units on the screen.
    public var target: Point
    /// `normalized`: the sample's median in normalized device units (neither calibration nor
    /// rotation applied).
    public var normalized: Point

    /// Makes a point.
    public init(target: Point, normalized: Point) {
        self.target = target
        self.normalized = normalized
    }
}

/// The reply to `calibrationStart`: the session runs, on a screen of this size and rotation.
public struct CalibrationStarted: Hashable, Sendable {
    public var screen: String
    /// Layout units.
    public var width: Double
    public var height: Double
    /// Degrees: 0, 90, 180 or 270.
    public var rotation: Int
    /// `millimetresPerUnit`: nil when the screen's physical size is not known.
    public var millimetresPerUnit: Double?
    /// `timeoutMs`, as in force.
    public var timeoutMillis: Int64
    /// `minimumGapMs`, as in force.
    public var minimumGapMillis: Int64
    public var seq: Int64?

    /// Makes the reply.
    public init(
        screen: String, width: Double, height: Double, rotation: Int, millimetresPerUnit: Double?,
        timeoutMillis: Int64, minimumGapMillis: Int64, seq: Int64? = nil
    ) {
        self.screen = screen
        self.width = width
        self.height = height
        self.rotation = rotation
        self.millimetresPerUnit = millimetresPerUnit
        self.timeoutMillis = timeoutMillis
        self.minimumGapMillis = minimumGapMillis
        self.seq = seq
    }
}

/// `calibrationSample`: one accepted press, sent at its release.
public struct CalibrationSample: Hashable, Sendable {
    public var screen: String
    /// `device`: the pressing device's name.
    public var deviceName: String
    /// `normalized`: the median of the press's positions in normalized device units (what
    /// `calibrationFinish` takes back).
    public var normalized: Point
    /// `point`: the same median in layout units, the rotation applied, the calibration not.
    public var screenPoint: Point
    /// `positions`: how many positions the median is of.
    public var positions: Int

    /// Makes a sample.
    public init(screen: String, deviceName: String, normalized: Point, screenPoint: Point, positions: Int) {
        self.screen = screen
        self.deviceName = deviceName
        self.normalized = normalized
        self.screenPoint = screenPoint
        self.positions = positions
    }
}

/// The reply to `calibrationFinish`: the fitted matrix and how well it fits.
public struct CalibrationResult: Hashable, Sendable {
    public var screen: String
    /// `[a, b, c, d, e, f]`: the screen's new `calibration`.
    public var matrix: [Double]
    /// Per point, in layout units.
    public var residuals: [Double]
    public var maximumResidual: Double
    /// The held-out point's error; nil when the request gave no `verify`.
    public var verification: CalibrationVerification?
    public var seq: Int64?

    /// Makes the reply.
    public init(
        screen: String, matrix: [Double], residuals: [Double], maximumResidual: Double,
        verification: CalibrationVerification?, seq: Int64? = nil
    ) {
        self.screen = screen
        self.matrix = matrix
        self.residuals = residuals
        self.maximumResidual = maximumResidual
        self.verification = verification
        self.seq = seq
    }
}

/// How far the verification press lands from its target through the fitted matrix.
public struct CalibrationVerification: Hashable, Sendable {
    /// Layout units.
    public var units: Double
    /// Millimetres; nil when the screen's physical size is not known.
    public var millimetres: Double?

    /// Makes a verification error.
    public init(units: Double, millimetres: Double?) {
        self.units = units
        self.millimetres = millimetres
    }
}

// MARK: - Reading

extension FieldReader {
    /// `{"x":…,"y":…}`, both finite.
    func xyObject(_ key: String) throws(ProtocolError) -> Point {
        let point = nested(try objectField(key), context: context + key)
        return Point(try point.double("x"), try point.double("y"))
    }

    /// One `{"target":{"x","y"},"normalized":[x,y]}`.
    func calibrationPress(_ value: JSONValue, context name: String) throws(ProtocolError) -> CalibrationPress {
        let press = try nested(value, context: context + name)
        return CalibrationPress(target: try press.xyObject("target"), normalized: try press.point("normalized"))
    }

    /// `points` (at most `CalibrationLimits.maximumPoints`) and the optional `verify`.
    func calibrationFinish() throws(ProtocolError) -> RequestMessage {
        let elements = try array("points")
        guard elements.count <= CalibrationLimits.maximumPoints else {
            throw fail("field \"points\" must have at most \(CalibrationLimits.maximumPoints) points")
        }
        var points: [CalibrationPress] = []
        for (index, element) in elements.enumerated() {
            points.append(try calibrationPress(element, context: "points[\(index)]"))
        }
        let verify = has("verify") ? try calibrationPress(object["verify"]!, context: "verify") : nil
        return .calibrationFinish(points: points, verify: verify)
    }

    func calibrationStart() throws(ProtocolError) -> RequestMessage {
        .calibrationStart(
            screen: try string("screen"),
            timeoutMillis: try optionalInteger("timeoutMs", in: CalibrationLimits.timeoutMillis)
                ?? CalibrationLimits.defaultTimeoutMillis,
            minimumGapMillis: try optionalInteger("minimumGapMs", in: CalibrationLimits.minimumGapMillis)
                ?? CalibrationLimits.defaultMinimumGapMillis)
    }

    /// A `reason` among a string enum's raw values.
    func reason<Reason: RawRepresentable>(_ type: Reason.Type) throws(ProtocolError) -> Reason
    where Reason.RawValue == String {
        let text = try string("reason")
        guard let reason = Reason(rawValue: text) else {
            throw fail("field \"reason\" is not a known reason: \"\(Excerpt.of(text))\"")
        }
        return reason
    }
}

extension DaemonMessageDecoder {
    /// The calibration messages, or nil for any other type.
    static func calibrationMessage(
        type: String, _ fields: FieldReader, seq: Int64?
    ) throws(ProtocolError) -> DaemonMessage? {
        switch type {
        case "calibrationStarted":
            let millimetres = fields.has("millimetresPerUnit") ? try fields.double("millimetresPerUnit") : nil
            return .calibrationStarted(
                CalibrationStarted(
                    screen: try fields.string("screen"), width: try fields.double("width"),
                    height: try fields.double("height"), rotation: try rotation(fields),
                    millimetresPerUnit: millimetres,
                    timeoutMillis: try fields.integer("timeoutMs", in: CalibrationLimits.timeoutMillis),
                    minimumGapMillis: try fields.integer("minimumGapMs", in: CalibrationLimits.minimumGapMillis),
                    seq: seq))
        case "calibrationSample":
            return .calibrationSample(
                CalibrationSample(
                    screen: try fields.string("screen"), deviceName: try fields.string("device"),
                    normalized: try fields.point("normalized"), screenPoint: try fields.xyObject("point"),
                    positions: Int(try fields.integer("positions", in: 0...Int64(Int32.max)))))
        case "calibrationRefused":
            return .calibrationRefused(
                screen: try fields.string("screen"), reason: try fields.reason(CalibrationRefusalReason.self),
                message: try fields.string("message"))
        case "calibrationEnded":
            return .calibrationEnded(
                screen: try fields.string("screen"), reason: try fields.reason(CalibrationEndReason.self), seq: seq)
        case "calibrationResult":
            var verification: CalibrationVerification?
            if fields.has("verification") {
                let verify = fields.nested(try fields.objectField("verification"), context: "verification")
                verification = CalibrationVerification(
                    units: try verify.double("units"),
                    millimetres: verify.has("millimetres") ? try verify.double("millimetres") : nil)
            }
            let matrix = try fields.doubles("matrix", count: 6)
            let residuals = try fields.array("residuals")
            return .calibrationResult(
                CalibrationResult(
                    screen: try fields.string("screen"), matrix: matrix,
                    residuals: try fields.doubles("residuals", count: residuals.count),
                    maximumResidual: try fields.double("maximumResidual"), verification: verification, seq: seq))
        default:
            return nil
        }
    }

    static func rotation(_ fields: FieldReader) throws(ProtocolError) -> Int {
        let degrees = try fields.integer("rotation", in: 0...270)
        guard degrees % 90 == 0 else { throw fields.fail("field \"rotation\" must be 0, 90, 180 or 270") }
        return Int(degrees)
    }
}

// MARK: - Writing

extension JSONObjectWriter {
    /// `"name":{"x":…,"y":…}`.
    mutating func field(_ name: StaticString, xyObject point: Point) {
        field(name) { object in
            object.field("x", double: point.x)
            object.field("y", double: point.y)
        }
    }

    mutating func field(_ name: StaticString, calibrationPress press: CalibrationPress) {
        field(name) { object in
            object.field("target", xyObject: press.target)
            object.field("normalized", point: press.normalized)
        }
    }

    /// The fields of a calibration message after its `type` (`seq` is written by the caller).
    mutating func calibrationFields(_ message: DaemonMessage) {
        switch message {
        case .calibrationStarted(let started):
            field("screen", string: started.screen)
            field("width", double: started.width)
            field("height", double: started.height)
            field("rotation", integer: Int64(started.rotation))
            key("millimetresPerUnit")
            if let millimetres = started.millimetresPerUnit {
                JSONWriter.appendDouble(millimetres, to: &buffer)
            } else {
                JSONWriter.appendRaw("null", to: &buffer)
            }
            field("timeoutMs", integer: started.timeoutMillis)
            field("minimumGapMs", integer: started.minimumGapMillis)
        case .calibrationSample(let sample):
            field("screen", string: sample.screen)
            field("device", string: sample.deviceName)
            field("normalized", point: sample.normalized)
            field("point", xyObject: sample.screenPoint)
            field("positions", integer: Int64(sample.positions))
        case .calibrationRefused(let screen, let reason, let message):
            field("screen", string: screen)
            field("reason", string: reason.rawValue)
            field("message", string: message)
        case .calibrationEnded(let screen, let reason, _):
            field("screen", string: screen)
            field("reason", string: reason.rawValue)
        case .calibrationResult(let result):
            field("screen", string: result.screen)
            field("matrix", doubles: result.matrix)
            field("residuals", doubles: result.residuals)
            field("maximumResidual", double: result.maximumResidual)
            key("verification")
            if let verification = result.verification {
                JSONObjectWriter.appendObject(to: &buffer) { object in
                    object.field("units", double: verification.units)
                    object.key("millimetres")
                    if let millimetres = verification.millimetres {
                        JSONWriter.appendDouble(millimetres, to: &object.buffer)
                    } else {
                        JSONWriter.appendRaw("null", to: &object.buffer)
                    }
                }
            } else {
                JSONWriter.appendRaw("null", to: &buffer)
            }
        default:
            break
        }
    }
}
