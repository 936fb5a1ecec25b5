import TouchRouterModel

/// The `explanation` reply's fields (docs/protocol.md, "explain"): the hit-test walk of one point
/// as `HitTestExplanation` records it, written into an object that already has its `type`.
enum ExplainJSON {
    static func append(_ reply: ExplainReply, to object: inout JSONObjectWriter) {
        let explanation = reply.explanation
        object.field("screen", string: explanation.screen)
        object.field("point", point: explanation.screenPoint)
        object.field("view", optionalString: explanation.viewID)
        object.field("path", strings: explanation.path)
        object.key("local")
        appendOptionalPoint(explanation.result?.localPoint, to: &object.buffer)
        object.field("steps", array: explanation.steps) { step, buffer in
            JSONObjectWriter.appendObject(to: &buffer) { object in
                object.field("view", string: step.viewID)
                object.field("depth", integer: Int64(step.depth))
                object.field("indexPath", array: step.indexPath) { index, buffer in
                    JSONWriter.appendInteger(index, to: &buffer)
                }
                object.key("local")
                appendOptionalPoint(step.localPoint, to: &object.buffer)
                object.field("outcome", string: step.outcome.rawValue)
                object.field("reason", optionalString: step.reason?.rawValue)
                if let wonBy = step.wonBy { object.field("wonBy", string: wonBy) }
                object.field("inTouchMargin", bool: step.inTouchMargin)
            }
        }
        object.field("chain", array: explanation.chain) { link, buffer in
            JSONObjectWriter.appendObject(to: &buffer) { object in
                object.field("view", string: link.viewID)
                object.field("takesDelivery", bool: link.takesDelivery)
                object.field("accessList", bool: link.declaresAccessList)
                if link.passesThrough { object.field("passthrough", bool: true) }
            }
        }
        object.field("target", optionalString: explanation.target)
        object.field("notes", array: explanation.notes) { note, buffer in
            JSONObjectWriter.appendObject(to: &buffer) { object in
                object.field("rule", string: note.rule)
                object.field("view", string: note.viewID)
                object.field("text", string: note.text)
                object.field("now", bool: note.appliesNow)
            }
        }
        if let clients = reply.clients { object.field("clients", strings: clients) }
    }

    /// Reads the fields back (client side). The hit's index path is the `hit` step's.
    static func reply(from fields: FieldReader, seq: Int64?) throws(ProtocolError) -> ExplainReply {
        var steps: [HitTestExplanation.Step] = []
        for (index, element) in try fields.array("steps").enumerated() {
            let step = try fields.nested(element, context: "steps[\(index)]")
            guard let outcome = HitTestExplanation.Step.Outcome(rawValue: try step.string("outcome")) else {
                throw step.fail("field \"\(step.context)outcome\" is not a step outcome")
            }
            let reasonText = try step.optionalString("reason")
            let reason = reasonText.flatMap(HitTestExplanation.Step.Reason.init(rawValue:))
            if reasonText != nil && reason == nil {
                throw step.fail("field \"\(step.context)reason\" is not a skip reason")
            }
            var indexPath: [Int] = []
            for value in try step.array("indexPath") {
                guard case .integer(let childIndex) = value, childIndex >= 0, childIndex <= Int64(Int32.max)
                else { throw step.fail("field \"\(step.context)indexPath\" must hold child indices") }
                indexPath.append(Int(childIndex))
            }
            steps.append(
                HitTestExplanation.Step(
                    viewID: try step.string("view"), indexPath: indexPath,
                    localPoint: try step.optionalPoint("local"), outcome: outcome, reason: reason,
                    wonBy: try step.optionalString("wonBy"), inTouchMargin: try step.bool("inTouchMargin")))
        }
        var chain: [HitTestExplanation.ChainLink] = []
        for (index, element) in try fields.array("chain").enumerated() {
            let link = try fields.nested(element, context: "chain[\(index)]")
            chain.append(
                HitTestExplanation.ChainLink(
                    viewID: try link.string("view"), takesDelivery: try link.bool("takesDelivery"),
                    declaresAccessList: try link.bool("accessList"),
                    passesThrough: try link.optionalBool("passthrough") ?? false))
        }
        var notes: [HitTestExplanation.Note] = []
        for (index, element) in try fields.array("notes").enumerated() {
            let note = try fields.nested(element, context: "notes[\(index)]")
            notes.append(
                HitTestExplanation.Note(
                    rule: try note.string("rule"), viewID: try note.string("view"),
                    text: try note.string("text")))
        }
        let path = try fields.stringArray("path")
        var result: HitResult?
        if let local = try fields.optionalPoint("local"), !path.isEmpty {
            let hitStep = steps.first { $0.outcome == .hit }
            result = HitResult(path: path, indexPath: hitStep?.indexPath ?? [], localPoint: local)
        }
        let explanation = HitTestExplanation(
            screen: try fields.string("screen"), screenPoint: try fields.point("point"), result: result,
            steps: steps, chain: chain, target: try fields.optionalString("target"), notes: notes)
        return ExplainReply(
            explanation: explanation,
            clients: fields.has("clients") ? try fields.stringArray("clients") : nil,
            seq: seq)
    }

    private static func appendOptionalPoint(_ point: Point?, to buffer: inout [UInt8]) {
        if let point {
            JSONWriter.appendPoint(x: point.x, y: point.y, to: &buffer)
        } else {
            JSONWriter.appendRaw("null", to: &buffer)
        }
    }
}
