/// The `explain` request: the whole hit-test walk for one point, as the daemon's current layout and
/// subscriptions would route a touch-down there (docs/protocol.md, "explain").
import Glibc
import TouchRouterCore
import TouchRouterProtocol
import TouchRouterSystem

/// Answers `explain` from a layout build's state, read-only, on the layout worker (the walk and
/// the reply grow with the layout; docs/operations.md, "Run-time changes"). An admin (root or the
/// daemon's own user) gets everything, with the names of the clients that would receive the
/// touch. Anyone else gets the walk of the screen as it may see it: every view it is outside an
/// access list of is taken out with its subtree first, so the answer says nothing of them (not
/// their ids, not that they are there); when the touch would go to one of them, the explanation's
/// target is none.
struct ExplainRequest {
    let layout: Layout
    let subscriptions: SubscriptionTable
    let access: AccessPolicy
    /// The views with a `passthrough` key: they stop the climb (the compositor gets the touch).
    let passthrough: [String: PassthroughSettings]
    /// Client labels by id, for an admin's receivers (taken on the loop only for an admin).
    let clientLabels: [ClientID: String]
    /// The live touches' views on the screen asked about (taken on the loop: O(touches)).
    let touchedViews: [HitTestExplanation.TouchedView]

    /// The reply to send: an `explanation` or an `error`. Cost: the walk (views met on the way to
    /// the point and their siblings); for a non-admin while access lists exist, also one pass
    /// over the screen's views to take out the hidden ones.
    func reply(screenName: String?, screenPoint: Point, credentials: PeerCredentials?, seq: Int64?)
        -> DaemonMessage
    {
        let admin = AccessPolicy.isAdmin(credentials)
        let found = screenName.map(layout.screen(named:)) ?? layout.screens.first
        // A screen whose root the client may not see is, to it, no screen.
        guard let screen = found, admin || access.permits(credentials, viewID: screen.root.id) else {
            return .error(
                ProtocolError(
                    code: .unknownScreen, message: "no such screen: \(Excerpt.of(screenName ?? ""))", seq: seq))
        }
        let explanation = HitTestExplanation(
            screen: screen, screenPoint: screenPoint, subscribedViews: subscriptions,
            accessListViews: access.declaringViews, passthrough: passthrough, touchedViews: touchedViews)
        if admin {
            let receivers = explanation.target.map { subscriptions.subscribers(of: $0) } ?? []
            return .explanation(
                ExplainReply(
                    explanation: explanation, clients: receivers.compactMap { clientLabels[$0] }, seq: seq))
        }
        guard !access.isEmpty else { return .explanation(ExplainReply(explanation: explanation, seq: seq)) }
        let visibleScreen = access.visibleLayout(Layout(screens: [screen]), to: credentials).screens[0]
        var visible = HitTestExplanation(
            screen: visibleScreen, screenPoint: screenPoint, subscribedViews: subscriptions,
            accessListViews: access.declaringViews, passthrough: passthrough,
            touchedViews: touchedViews.filter { access.permits(credentials, viewID: $0.viewID) })
        // The real target, when the client may see it; else the touch reaches nobody it can know of.
        visible.target = explanation.target.flatMap { access.permits(credentials, viewID: $0) ? $0 : nil }
        if visible.target == nil {
            for index in visible.chain.indices { visible.chain[index].takesDelivery = false }
        }
        return .explanation(ExplainReply(explanation: visible, seq: seq))
    }
}
