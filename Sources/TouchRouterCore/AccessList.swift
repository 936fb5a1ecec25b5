import TouchRouterModel

/// A view's access list (`access` in the config): the users and groups whose clients may subscribe
/// to the view and hit-test into it. It applies to the view's whole subtree; a descendant's own
/// list narrows it further (a client must pass every list from the root down).
///
/// Names are kept as written: resolving them to ids reads the system's user database, which is
/// the daemon's business, not the config's.
public struct AccessList: Hashable, Sendable {
    /// A user or group, by name or by numeric id.
    public enum Principal: Hashable, Sendable, CustomStringConvertible {
        case name(String)
        case id(UInt32)

        public var description: String {
            switch self {
            case .name(let name): name
            case .id(let id): String(id)
            }
        }
    }

    /// Users (uid) admitted.
    public var users: [Principal]
    /// Groups admitted: a client whose primary or supplementary group is one of these.
    public var groups: [Principal]

    /// Makes a list.
    public init(users: [Principal] = [], groups: [Principal] = []) {
        self.users = users
        self.groups = groups
    }
}
