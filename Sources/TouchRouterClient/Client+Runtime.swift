import TouchRouterModel
import TouchRouterProtocol

/// Changing the layout at run time: views whose config gives them an `owner` admitting this
/// client (docs/protocol.md, "Changing the layout at run time"). Each call returns once the change
/// is live; a refusal throws `.daemon` with every reason in `ProtocolError.failures`.
extension TouchRouterClient {
    /// Sets fields of one or more views, all or none: view id → fields in the config's syntax,
    /// e.g. `["ok": ["hidden": .bool(true)], "list": ["alpha": .double(0.5)]]`.
    public func setViews(_ views: [String: [String: JSONValue]]) async throws(ClientError) -> LayoutChangeReply {
        let reply = try await request(.setView(views: views.mapValues { JSONValue.object($0) }))
        guard case .viewsSet(let result) = reply else { throw ClientError.unexpectedReply(reply) }
        return result
    }

    /// Replaces the mount point's children with `children` (views in the config's syntax).
    public func mount(_ viewID: String, children: [JSONValue]) async throws(ClientError) -> LayoutChangeReply {
        let reply = try await request(.mount(view: viewID, children: .array(children)))
        guard case .mounted(let result) = reply else { throw ClientError.unexpectedReply(reply) }
        return result
    }

    /// Removes what is mounted at the mount point (its config children come back).
    public func unmount(_ viewID: String) async throws(ClientError) -> LayoutChangeReply {
        let reply = try await request(.unmount(view: viewID))
        guard case .unmounted(let result) = reply else { throw ClientError.unexpectedReply(reply) }
        return result
    }
}
