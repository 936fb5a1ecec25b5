import TouchRouterModel

/// The `state` field of `setScreenState` and its `screenState` reply (docs/protocol.md).
enum ScreenStateRequest {
    /// `"off"` → true, `"on"` → false; anything else is an `invalid-message`.
    static func isOff(_ fields: FieldReader) throws(ProtocolError) -> Bool {
        switch try fields.string("state") {
        case "off": return true
        case "on": return false
        case let other:
            throw fields.fail("field \"state\" must be \"off\" or \"on\", found \"\(Excerpt.of(other))\"")
        }
    }
}
