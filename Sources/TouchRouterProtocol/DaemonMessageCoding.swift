import TouchRouterModel

/// Writing daemon → client lines (daemon side) and reading them back (client side).

extension DaemonMessage {
    /// Appends the message as one line, `\n` included. `touches` goes through `TouchesEncoder`,
    /// `gesture` through `GestureMessage.appendLine`: the routing loop's two messages.
    public func appendLine(to buffer: inout [UInt8]) {
        switch self {
        case .touches(let message):
            TouchesEncoder.appendLine(ViewTouches(wire: message), to: &buffer)
            return
        case .gesture(let message):
            message.appendLine(to: &buffer)
            return
        default:
            break
        }
        JSONObjectWriter.appendLine(to: &buffer) { object in
            object.field("type", string: typeName)
            switch self {
            case .welcome(let welcome):
                object.field("version", integer: welcome.version)
                object.field("daemonVersion", string: welcome.daemonVersion)
                object.field("generation", unsigned: welcome.generation)
                object.field("screens", array: welcome.screens) { screen, buffer in
                    JSONObjectWriter.appendObject(to: &buffer) { object in
                        object.field("name", string: screen.name)
                        object.field("width", double: screen.width)
                        object.field("height", double: screen.height)
                    }
                }
            case .touches, .gesture:
                break
            case .layoutChanged(let generation):
                object.field("generation", unsigned: generation)
            case .viewsChanged(let generation, let views):
                object.field("generation", unsigned: generation)
                object.field("views", strings: views)
            case .subscribed(let reply):
                object.field("views", strings: reply.views)
                object.field("subtree", bool: reply.subtree)
            case .unsubscribed(let reply):
                object.field("views", strings: reply.views)
            case .subscriptionEnded(let views, let reason):
                object.field("views", strings: views)
                object.field("reason", string: reason)
            case .hitTestResult(let reply):
                object.field("screen", string: reply.screen)
                object.field("point", point: reply.screenPoint)
                object.field("view", optionalString: reply.viewID)
                object.field("path", strings: reply.path)
                object.key("local")
                if let local = reply.localPoint {
                    JSONWriter.appendPoint(x: local.x, y: local.y, to: &object.buffer)
                } else {
                    JSONWriter.appendRaw("null", to: &object.buffer)
                }
            case .explanation(let reply):
                ExplainJSON.append(reply, to: &object)
            case .layout(let reply):
                object.field("generation", unsigned: reply.generation)
                LayoutJSON.appendScreens(reply.layout.screens, to: &object)
            case .status(let reply):
                object.key("counters")
                JSONValue.object(reply.counters).append(to: &object.buffer)
            case .metrics(let format, let text, _):
                object.field("format", string: format.rawValue)
                object.field("text", string: text)
            case .reloaded(let generation, _):
                object.field("generation", unsigned: generation)
            case .viewsSet(let reply), .mounted(let reply), .unmounted(let reply):
                object.field("generation", unsigned: reply.generation)
                object.field("views", strings: reply.views)
            case .screenState(let change):
                object.field("screen", string: change.screen)
                object.field("time", unsigned: change.timestampMicros)
                object.field("reason", string: change.reason.rawValue)
            case .screenStateSet(let screen, let off, _):
                object.field("screen", string: screen)
                object.field("state", string: off ? "off" : "on")
            case .calibrationStarted, .calibrationSample, .calibrationRefused, .calibrationEnded, .calibrationResult:
                object.calibrationFields(self)
            case .error(let error):
                object.field("code", string: error.code.rawValue)
                object.field("message", string: error.message)
                if !error.views.isEmpty { object.field("views", strings: error.views) }
                if !error.failures.isEmpty { error.appendFailures(to: &object) }
            }
            if let seq { object.field("seq", integer: seq) }
        }
    }

    /// The message as a new line, `\n` included. Its buffer starts at 512 bytes, the size a
    /// `gesture` line (250–450 bytes) reaches anyway by doubling: growing there took five
    /// reallocations a line, about 1,800 instructions of its 11 k (callgrind, a pan's `began`).
    public func encodedLine() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(512)
        appendLine(to: &buffer)
        return buffer
    }
}

extension ViewTouches {
    /// A decoded message back in the tracker's form, for encoding; device ids are not on the wire
    /// and become 0.
    init(wire message: TouchesMessage) {
        self.init(
            viewID: message.viewID, screen: message.screen, timestampMicros: message.timestampMicros,
            touches: message.touches.map { touch in
                RoutedTouch(
                    id: touch.id, phase: touch.phase, localPoint: touch.localPoint,
                    screenPoint: touch.screenPoint, previousLocalPoint: touch.previousLocalPoint,
                    timestampMicros: touch.timestampMicros, tapCount: touch.tapCount,
                    device: InputDevice(id: 0, name: touch.deviceName),
                    cancelReason: touch.reason.flatMap(CancelReason.init(rawValue:)))
            })
    }
}

/// Decodes daemon lines on the client side.
public enum DaemonMessageDecoder {
    /// The counts and times a client accepts: 0...2⁵³−1 (exact in every JSON implementation).
    static let unsignedRange: ClosedRange<Int64> = 0...9_007_199_254_740_991

    /// Decodes one line (without its `\n`). Fails with `malformed-json`, `invalid-message`, or
    /// `unknown-type` for a message type this version does not know (a client should skip those:
    /// a newer daemon may add messages).
    public static func decode<Bytes: Collection>(
        line: Bytes
    ) -> Result<DaemonMessage, ProtocolError> where Bytes.Element == UInt8 {
        do {
            return .success(try message(fromLine: line))
        } catch {
            return .failure(error)
        }
    }

    static func message<Bytes: Collection>(
        fromLine line: Bytes
    ) throws(ProtocolError) -> DaemonMessage where Bytes.Element == UInt8 {
        let object = try JSONReading.object(fromLine: line)
        var fields = FieldReader(object: object)
        fields.seq = try fields.optionalInteger("seq", in: ClientRequest.seqRange)
        let seq = fields.seq
        let type = try fields.string("type")
        switch type {
        case "welcome":
            var screens: [ScreenInfo] = []
            for (index, element) in try fields.array("screens").enumerated() {
                let screen = try fields.nested(element, context: "screens[\(index)]")
                screens.append(
                    ScreenInfo(
                        name: try screen.string("name"), width: try screen.double("width"),
                        height: try screen.double("height")))
            }
            return .welcome(
                Welcome(
                    version: try fields.integer("version", in: 0...Int64(Int32.max)),
                    daemonVersion: try fields.string("daemonVersion"),
                    generation: try unsigned(fields, "generation"), screens: screens, seq: seq))
        case "touches":
            var touches: [WireTouch] = []
            for (index, element) in try fields.array("touches").enumerated() {
                touches.append(try touch(try fields.nested(element, context: "touches[\(index)]")))
            }
            return .touches(
                TouchesMessage(
                    viewID: try fields.string("view"), screen: try fields.string("screen"),
                    timestampMicros: try unsigned(fields, "time"), touches: touches))
        case "gesture":
            return .gesture(try GestureMessage.decode(fields))
        case "layoutChanged":
            let generation = try unsigned(fields, "generation")
            guard fields.has("views") else { return .layoutChanged(generation: generation) }
            return .viewsChanged(generation: generation, views: try fields.stringArray("views"))
        case "subscribed":
            return .subscribed(
                Subscribed(
                    views: try fields.stringArray("views"),
                    subtree: try fields.optionalBool("subtree") ?? false,
                    seq: seq))
        case "unsubscribed":
            return .unsubscribed(Unsubscribed(views: try fields.stringArray("views"), seq: seq))
        case "subscriptionEnded":
            return .subscriptionEnded(views: try fields.stringArray("views"), reason: try fields.string("reason"))
        case "hitTestResult":
            return .hitTestResult(
                HitTestReply(
                    screen: try fields.string("screen"), screenPoint: try fields.point("point"),
                    viewID: try fields.optionalString("view"), path: try fields.stringArray("path"),
                    localPoint: try fields.optionalPoint("local"), seq: seq))
        case "explanation":
            return .explanation(try ExplainJSON.reply(from: fields, seq: seq))
        case "layout":
            return .layout(
                LayoutReply(
                    generation: try unsigned(fields, "generation"),
                    layout: try LayoutJSON.layout(from: fields), seq: seq))
        case "status":
            return .status(StatusReply(counters: try fields.objectField("counters"), seq: seq))
        case "metrics":
            guard let format = MetricsFormat(rawValue: try fields.string("format")) else {
                throw fields.fail("field \"format\" is not a metrics format")
            }
            return .metrics(format: format, text: try fields.string("text"), seq: seq)
        case "reloaded":
            return .reloaded(generation: try unsigned(fields, "generation"), seq: seq)
        case "viewsSet", "mounted", "unmounted":
            let reply = LayoutChangeReply(
                generation: try unsigned(fields, "generation"), views: try fields.stringArray("views"), seq: seq)
            return type == "viewsSet" ? .viewsSet(reply) : type == "mounted" ? .mounted(reply) : .unmounted(reply)
        case "idle", "active":
            let reasonText = try fields.string("reason")
            guard let reason = ScreenChangeReason(rawValue: reasonText) else {
                throw fields.fail("field \"reason\" is not a screen change reason")
            }
            return .screenState(
                ScreenStateChange(
                    screen: try fields.string("screen"), isActive: type == "active", reason: reason,
                    timestampMicros: try unsigned(fields, "time")))
        case "screenState":
            return .screenStateSet(
                screen: try fields.string("screen"), off: try ScreenStateRequest.isOff(fields), seq: seq)
        case "error":
            let codeText = try fields.string("code")
            let message = try fields.string("message")
            // A code from a newer daemon keeps its text in the message.
            let code = ErrorCode(rawValue: codeText) ?? .internalError
            var error = ProtocolError(
                code: code,
                message: ErrorCode(rawValue: codeText) == nil
                    ? "\(Excerpt.of(codeText)): \(message)" : message,
                seq: seq, views: fields.has("views") ? try fields.stringArray("views") : [])
            if fields.has("failures") { error.failures = try ProtocolError.failures(from: fields) }
            return .error(error)
        default:
            if let message = try calibrationMessage(type: type, fields, seq: seq) { return message }
            throw ProtocolError(
                code: .unknownType, message: "unknown message type \"\(Excerpt.of(type))\"", seq: seq)
        }
    }

    static func unsigned(_ fields: FieldReader, _ key: String) throws(ProtocolError) -> UInt64 {
        UInt64(try fields.integer(key, in: unsignedRange))
    }

    static func touch(_ fields: FieldReader) throws(ProtocolError) -> WireTouch {
        guard let phase = TouchPhase(rawValue: try fields.string("phase")) else {
            throw fields.fail("field \"\(fields.context)phase\" is not a touch phase")
        }
        return WireTouch(
            id: try unsigned(fields, "id"), phase: phase, localPoint: try fields.point("location"),
            screenPoint: try fields.point("screenLocation"),
            previousLocalPoint: try fields.point("previousLocation"),
            timestampMicros: try unsigned(fields, "timestamp"),
            tapCount: Int(try fields.integer("tapCount", in: 0...Int64(Int32.max))),
            deviceName: try fields.string("device"), reason: try fields.optionalString("reason"))
    }
}
