/// The config's per-view access lists resolved to ids: who may subscribe to a view, hit-test into
/// it and receive its touches.
import Glibc
import TouchRouterCore
import TouchRouterSystem

/// Access lists by view, with every list on a view's chain from its screen's root (a client must
/// pass all of them). Root (uid 0) passes every list; a client whose credentials are unknown
/// passes none.
struct AccessPolicy: Sendable {
    /// One list with its names resolved.
    struct ResolvedList: Sendable {
        var uids: Set<UInt32>
        var gids: Set<UInt32>

        func admits(_ credentials: PeerCredentials) -> Bool {
            uids.contains(credentials.uid) || gids.contains(credentials.gid)
                || credentials.groups.contains(where: gids.contains)
        }
    }

    /// View id → the lists on its chain, for views with at least one.
    private var chains: [String: [ResolvedList]] = [:]
    /// Views that declare a list themselves. A touch inside one never goes to a subscriber of an
    /// ancestor (the Router stops a touch at them); `explain` shows them as such.
    private(set) var declaringViews: Set<String> = []
    /// Names that match no user or group on this system (they admit nobody); for the log.
    private(set) var unknownNames: [String] = []

    /// Resolves `config`'s lists with the system's user and group databases.
    init(config: Config) {
        guard !config.viewAccess.isEmpty else { return }
        declaringViews = Set(config.viewAccess.keys)
        var resolved: [String: ResolvedList] = [:]
        for (viewID, list) in config.viewAccess {
            resolved[viewID] = ResolvedList(
                uids: Set(list.users.compactMap { resolve($0, isGroup: false, viewID: viewID) }),
                gids: Set(list.groups.compactMap { resolve($0, isGroup: true, viewID: viewID) }))
        }
        func walk(_ view: View, inherited: [ResolvedList]) {
            var lists = inherited
            if let own = resolved[view.id] { lists.append(own) }
            if !lists.isEmpty { chains[view.id] = lists }
            for child in view.children { walk(child, inherited: lists) }
        }
        for screen in config.layout.screens { walk(screen.root, inherited: []) }
    }

    /// Root and the daemon's own user: they may reload, calibrate, change the screens' state, and
    /// see everything (every view, every counter, the clients an explanation reaches).
    static func isAdmin(_ credentials: PeerCredentials?) -> Bool {
        guard let peer = credentials else { return false }
        return peer.uid == 0 || peer.uid == geteuid()
    }

    /// No view has a list: every check passes without a lookup.
    var isEmpty: Bool { chains.isEmpty }

    /// The client may subscribe to, hit-test into and receive touches of this view.
    func permits(_ credentials: PeerCredentials?, viewID: String) -> Bool {
        guard let lists = chains[viewID] else { return true }
        guard let credentials else { return false }
        if credentials.uid == 0 { return true }
        return lists.allSatisfy { $0.admits(credentials) }
    }

    /// `layout` as `credentials` may see it: every view the client is outside an access list of
    /// is left out with its whole subtree (a client learns nothing of a view it may not see, not
    /// even that it is there); a screen whose root it may not see is left out.
    func visibleLayout(_ layout: Layout, to credentials: PeerCredentials?) -> Layout {
        guard !isEmpty else { return layout }
        func prune(_ view: View) -> View {
            var view = view
            view.children = view.children.filter { permits(credentials, viewID: $0.id) }.map(prune)
            return view
        }
        return Layout(
            screens: layout.screens.filter { permits(credentials, viewID: $0.root.id) }.map {
                Screen(name: $0.name, width: $0.width, height: $0.height, root: prune($0.root))
            })
    }

    private mutating func resolve(_ principal: AccessList.Principal, isGroup: Bool, viewID: String)
        -> UInt32?
    {
        switch principal {
        case .id(let id): return id
        case .name(let name):
            if isGroup, let group = getgrnam(name) { return group.pointee.gr_gid }
            if !isGroup, let user = getpwnam(name) { return user.pointee.pw_uid }
            unknownNames.append("\(isGroup ? "group" : "user") \"\(name)\" (view \(viewID))")
            return nil
        }
    }
}
