import TouchRouterCore

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
            }
        }
        object.field("target", optionalString: explanation.target)
        object.field("notes", array: explanation.notes) { note, buffer in
            JSONObjectWriter.appendObject(to: &buffer) { object in
                object.field("rule", string: note.rule)
                object.field("view", string: note.viewID)
                object.field("text", string: note.text)
            }
        }
        if let clients = reply.clients { object.field("clients", strings: clients) }
        if reply.redactedSteps > 0 { object.field("redacted", integer: Int64(reply.redactedSteps)) }
    }

    private static func appendOptionalPoint(_ point: Point?, to buffer: inout [UInt8]) {
        if let point {
            JSONWriter.appendPoint(x: point.x, y: point.y, to: &buffer)
        } else {
            JSONWriter.appendRaw("null", to: &buffer)
        }
    }
}
