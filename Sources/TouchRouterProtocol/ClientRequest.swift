import TouchRouterModel

/// Client → daemon requests: their types, decoding a received line (daemon side) and encoding one
/// (client side).

/// What a client asks for. The wire `type` is given on each case.
public enum RequestMessage: Hashable, Sendable {
    /// `hello`: the protocol version the client speaks and a name for the daemon's logs.
    /// Optional: a client that never says hello is served as version 1.
    case hello(version: Int64, client: String?)
    /// `subscribe`: receive the touches of these views (and, with `subtree`, of every descendant).
    case subscribe(views: [String], subtree: Bool, delivery: Delivery = .unchanged)
    /// `unsubscribe`: stop receiving some views, or all of them.
    case unsubscribe(UnsubscribeTarget)
    /// `hitTest`: which view is under a screen point. A nil screen means the layout's first.
    case hitTest(screen: String?, screenPoint: Point)
    /// `explain`: the whole hit-test walk for a screen point and what tracking would do with it.
    /// A nil screen means the layout's first.
    case explain(screen: String?, screenPoint: Point)
    /// `layout`: the current layout tree.
    case layout
    /// `status`: the daemon's counters.
    case status
    /// `metrics`: every counter as metrics text in `format` (docs/metrics.md).
    case metrics(format: MetricsFormat)
    /// `reload`: re-read the config (admin only).
    case reload
    /// `setView`: change fields of views (owners only), all or none: field objects by view id,
    /// checked by Core as config.
    case setView(views: [String: JSONValue])
    /// `mount`: replace a mount point's children with a subtree (its owners only).
    case mount(view: String, children: JSONValue)
    /// `unmount`: remove what is mounted at a mount point.
    case unmount(view: String)
    /// `setScreenState`: an external blanker says the screen is `off` or `on` (admin only;
    /// docs/field.md).
    case setScreenState(screen: String, off: Bool)
    /// `calibrationStart`: measure presses on a screen for a calibration (admin only;
    /// docs/calibration.md). The times are `timeoutMs` and `minimumGapMs`, defaults filled in.
    case calibrationStart(screen: String, timeoutMillis: Int64, minimumGapMillis: Int64)
    /// `calibrationFinish`: end the client's session and fit its points (at most 16).
    case calibrationFinish(points: [CalibrationPress], verify: CalibrationPress?)
    /// `calibrationCancel`: end the client's session without a fit.
    case calibrationCancel

    /// The wire `type` of this request.
    public var typeName: String {
        switch self {
        case .hello: "hello"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .hitTest: "hitTest"
        case .explain: "explain"
        case .layout: "layout"
        case .status: "status"
        case .metrics: "metrics"
        case .reload: "reload"
        case .setView: "setView"
        case .mount: "mount"
        case .unmount: "unmount"
        case .setScreenState: "setScreenState"
        case .calibrationStart: "calibrationStart"
        case .calibrationFinish: "calibrationFinish"
        case .calibrationCancel: "calibrationCancel"
        }
    }
}

/// What a `subscribe` asks the connection to receive: raw `touches` messages (on until a
/// subscribe says `"touches":false`) and `gesture` messages (off until `"gestures":true`). They
/// apply to the whole connection; a subscribe without the field leaves it as it was.
public struct Delivery: Hashable, Sendable {
    /// `touches`: nil leaves the connection's setting as it was.
    public var touches: Bool?
    /// `gestures`: nil leaves the connection's setting as it was.
    public var gestures: Bool?

    /// A delivery choice.
    public init(touches: Bool? = nil, gestures: Bool? = nil) {
        self.touches = touches
        self.gestures = gestures
    }

    /// A subscribe that says neither.
    public static let unchanged = Delivery()
}

/// Which subscriptions an `unsubscribe` removes.
public enum UnsubscribeTarget: Hashable, Sendable {
    /// `"views":[…]`: these ids' subscriptions, whatever their `subtree` flag; ids the client is not
    /// subscribed to are ignored.
    case views([String])
    /// `"all":true`: every subscription of this client.
    case all
}

/// One request line: the message and the optional `seq` the reply echoes.
public struct ClientRequest: Hashable, Sendable {
    /// Chosen by the client (an integer 0...2⁵³−1); echoed in the reply or error.
    public var seq: Int64?
    public var message: RequestMessage

    /// The integers the protocol accepts for `seq`: every integer a JavaScript or JSON client can
    /// represent exactly (0...2⁵³−1).
    public static let seqRange: ClosedRange<Int64> = 0...9_007_199_254_740_991

    /// Makes a request.
    public init(_ message: RequestMessage, seq: Int64? = nil) {
        self.seq = seq
        self.message = message
    }
}

/// What decoding one received line gave.
public enum DecodedRequest: Hashable, Sendable {
    /// A well-formed request.
    case request(ClientRequest)
    /// The line is only whitespace: the daemon ignores it (no reply), so `socat` users can press
    /// enter freely.
    case emptyLine
    /// The line is not a valid request: reply with this error (its `seq` is set when the line had a
    /// readable one) and keep the connection.
    case error(ProtocolError)
}

/// Decodes client lines on the daemon side.
public enum RequestDecoder {
    /// Decodes one line (without its `\n`; a trailing `\r` is allowed). Never throws, never traps:
    /// malformed JSON, invalid UTF-8, wrong types, unknown types, missing fields, non-finite or
    /// out-of-range numbers all come back as `.error` with a code.
    public static func decode<Bytes: Collection>(line: Bytes) -> DecodedRequest where Bytes.Element == UInt8 {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }) {
            return .emptyLine
        }
        do {
            return .request(try request(fromLine: line))
        } catch {
            return .error(error)
        }
    }

    static func request<Bytes: Collection>(
        fromLine line: Bytes
    ) throws(ProtocolError) -> ClientRequest where Bytes.Element == UInt8 {
        let (_, fields, type) = try topLevel(fromLine: line, keepingNode: nil)
        let seq = fields.seq
        let message: RequestMessage
        switch type {
        case "hello":
            message = .hello(
                version: try fields.integer("version", in: 0...Int64(Int32.max)),
                client: try fields.optionalString("client"))
        case "subscribe":
            message = .subscribe(
                views: try fields.stringArray("views"), subtree: try fields.optionalBool("subtree") ?? false,
                delivery: Delivery(
                    touches: try fields.optionalBool("touches"), gestures: try fields.optionalBool("gestures")))
        case "unsubscribe":
            let all = try fields.optionalBool("all") ?? false
            switch (all, fields.has("views")) {
            case (true, false): message = .unsubscribe(.all)
            case (false, true): message = .unsubscribe(.views(try fields.stringArray("views")))
            case (true, true): throw fields.fail("give either \"views\" or \"all\":true, not both")
            case (false, false): throw fields.fail("missing field \"views\" (or \"all\":true)")
            }
        case "hitTest":
            message = .hitTest(
                screen: try fields.optionalString("screen"), screenPoint: try fields.point("point"))
        case "explain":
            message = .explain(
                screen: try fields.optionalString("screen"), screenPoint: try fields.point("point"))
        case "layout": message = .layout
        case "status": message = .status
        case "metrics":
            let name = try fields.optionalString("format") ?? MetricsFormat.openMetrics.rawValue
            guard let format = MetricsFormat(rawValue: name) else {
                throw fields.fail("field \"format\" must be \"openmetrics\" or \"prometheus\"")
            }
            message = .metrics(format: format)
        case "reload": message = .reload
        case "setView":
            let views = try fields.objectField("views")
            for (viewID, value) in views {
                guard case .object = value else {
                    throw fields.fail("field \"views.\(Excerpt.of(viewID))\" must be an object of fields to change")
                }
            }
            message = .setView(views: views)
        case "mount":
            guard fields.has("children") else { throw fields.fail("missing field \"children\"") }
            message = .mount(view: try fields.string("view"), children: fields.object["children"]!)
        case "unmount": message = .unmount(view: try fields.string("view"))
        case "setScreenState":
            message = .setScreenState(screen: try fields.string("screen"), off: try ScreenStateRequest.isOff(fields))
        case "calibrationStart": message = try fields.calibrationStart()
        case "calibrationFinish": message = try fields.calibrationFinish()
        case "calibrationCancel": message = .calibrationCancel
        default:
            throw ProtocolError(
                code: .unknownType, message: "unknown request type \"\(Excerpt.of(type))\"", seq: seq)
        }
        return ClientRequest(message, seq: seq)
    }

    /// The line's top-level object read, its `seq` checked and its `type` found: the steps every
    /// request's decoding starts with, in this order (so both halves of a `mount` fail alike).
    /// The member `keepingNode` names is left out of the fields (see `MountRequest`).
    static func topLevel<Bytes: Collection>(
        fromLine line: Bytes, keepingNode: String?
    ) throws(ProtocolError) -> (object: JSONObject, fields: FieldReader, type: String) where Bytes.Element == UInt8 {
        let object = try JSONReading.nodeObject(fromLine: line)
        var fields = FieldReader(object: JSONReading.fields(object, skipping: keepingNode))
        // seq first, so every later error can carry it.
        fields.seq = try fields.optionalInteger("seq", in: ClientRequest.seqRange)
        guard case .string(let type) = fields.object["type"] else {
            throw fields.fail(
                fields.has("type") ? "field \"type\" must be a string" : "missing field \"type\"")
        }
        return (object, fields, type)
    }
}

extension ClientRequest {
    /// The request as one wire line, `\n` included (client side).
    public func encodedLine() -> [UInt8] {
        var buffer: [UInt8] = []
        appendLine(to: &buffer)
        return buffer
    }

    /// Appends the request as one wire line, `\n` included.
    public func appendLine(to buffer: inout [UInt8]) {
        JSONObjectWriter.appendLine(to: &buffer) { object in
            object.field("type", string: message.typeName)
            switch message {
            case .hello(let version, let client):
                object.field("version", integer: version)
                if let client { object.field("client", string: client) }
            case .subscribe(let views, let subtree, let delivery):
                object.field("views", strings: views)
                object.field("subtree", bool: subtree)
                // Only what differs from the default, so older lines stay byte for byte.
                if let gestures = delivery.gestures { object.field("gestures", bool: gestures) }
                if let touches = delivery.touches { object.field("touches", bool: touches) }
            case .unsubscribe(.views(let views)):
                object.field("views", strings: views)
            case .unsubscribe(.all):
                object.field("all", bool: true)
            case .hitTest(let screen, let screenPoint), .explain(let screen, let screenPoint):
                if let screen { object.field("screen", string: screen) }
                object.field("point", point: screenPoint)
            case .layout, .status, .reload, .calibrationCancel:
                break
            case .metrics(let format):
                object.field("format", string: format.rawValue)
            case .setView(let views):
                object.key("views")
                JSONValue.object(views).append(to: &object.buffer)
            case .mount(let view, let children):
                object.field("view", string: view)
                object.key("children")
                children.append(to: &object.buffer)
            case .unmount(let view):
                object.field("view", string: view)
            case .setScreenState(let screen, let off):
                object.field("screen", string: screen)
                object.field("state", string: off ? "off" : "on")
            case .calibrationStart(let screen, let timeoutMillis, let minimumGapMillis):
                object.field("screen", string: screen)
                object.field("timeoutMs", integer: timeoutMillis)
                object.field("minimumGapMs", integer: minimumGapMillis)
            case .calibrationFinish(let points, let verify):
                object.field("points", array: points) { press, buffer in
                    JSONObjectWriter.appendObject(to: &buffer) { object in
                        object.field("target", xyObject: press.target)
                        object.field("normalized", point: press.normalized)
                    }
                }
                if let verify { object.field("verify", calibrationPress: verify) }
            }
            if let seq { object.field("seq", integer: seq) }
        }
    }
}
