/// The `explain` request: the whole hit-test walk for one point, as the daemon's current layout and
/// subscriptions would route a touch-down there (docs/protocol.md, "explain").
import Glibc
import TouchRouterCore
import TouchRouterProtocol
import TouchRouterSystem

/// Answers `explain` from a layout build's state, read-only, on the layout worker (the walk and
/// the reply grow with the layout; docs/operations.md, "Run-time changes"). An admin (root or the daemon's own user)
/// gets everything, with the names of the clients that would receive the touch; anyone else gets
/// the walk through the views open to them (the others' steps are left out and counted), and a
/// `permission-denied` error when the hit view itself is not open to them, as `hitTest` does.
struct ExplainRequest {
    let layout: Layout
    let subscriptions: SubscriptionTable
    let access: AccessPolicy
    /// Client labels by id, for an admin's receivers (taken on the loop only for an admin).
    let clientLabels: [ClientID: String]
    /// The live touches' views on the screen asked about (taken on the loop: O(touches)).
    let touchedViews: [HitTestExplanation.TouchedView]

    /// The reply to send: an `explanation` or an `error`.
    func reply(screenName: String?, screenPoint: Point, credentials: PeerCredentials?, seq: Int64?)
        -> DaemonMessage
    {
        guard let screen = screenName.map(layout.screen(named:)) ?? layout.screens.first else {
            return .error(
                ProtocolError(code: .unknownScreen, message: "no such screen: \(screenName ?? "")", seq: seq))
        }
        let explanation = HitTestExplanation(
            screen: screen, screenPoint: screenPoint, subscribedViews: subscriptions,
            accessListViews: access.declaringViews, touchedViews: touchedViews)
        if Self.isAdmin(credentials) {
            let receivers = explanation.target.map { subscriptions.subscribers(of: $0) } ?? []
            return .explanation(
                ExplainReply(
                    explanation: explanation, clients: receivers.compactMap { clientLabels[$0] }, seq: seq))
        }
        if let viewID = explanation.viewID, !access.permits(credentials, viewID: viewID) {
            return .error(
                ProtocolError(
                    code: .permissionDenied, message: "the view there is not open to you (access list)",
                    seq: seq))
        }
        var visible = explanation
        visible.steps = explanation.steps.filter { access.permits(credentials, viewID: $0.viewID) }
        visible.chain = explanation.chain.filter { access.permits(credentials, viewID: $0.viewID) }
        visible.notes = explanation.notes.filter { access.permits(credentials, viewID: $0.viewID) }
        return .explanation(
            ExplainReply(
                explanation: visible, redactedSteps: explanation.steps.count - visible.steps.count, seq: seq))
    }

    /// Root or the daemon's own user (as for `reload`).
    static func isAdmin(_ credentials: PeerCredentials?) -> Bool {
        guard let credentials else { return false }
        return credentials.uid == 0 || credentials.uid == geteuid()
    }
}
