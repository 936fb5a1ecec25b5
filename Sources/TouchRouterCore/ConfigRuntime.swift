/// The config's run-time keys (`owner`, `mount`, `resetOnDisconnect`), and the two pieces of a
/// run-time request that are checked exactly as a config file is: a `setView`'s fields for one
/// view, and a `mount`'s subtree. Same walk, same rules, same error codes; a request has no lines,
/// so its errors carry the view path (from the screen's root, through the mount point) instead.

/// What the config says about changing views at run time.
public struct RuntimeSettings: Hashable, Sendable {
    /// Owner lists by view id (`owner`): who may change the view and its subtree at run time.
    /// Names are kept as written (the daemon resolves them, as for `access`).
    public var owners: [String: AccessList] = [:]
    /// The views that say `mount: true`: their owners may mount a subtree there.
    public var mountPoints: Set<String> = []
    /// The views that say `resetOnDisconnect: true`: what a client changed on them is undone when
    /// it disconnects.
    public var resetsOnDisconnect: Set<String> = []

    /// No run-time keys.
    public init() {}

    /// No view may be changed at run time.
    public var isEmpty: Bool { owners.isEmpty }
}

/// The parser's collection of run-time keys.
struct RuntimeKeys {
    var settings = RuntimeSettings()
}

/// A mounted subtree after validation: the views, ready to hang under their mount point.
public struct MountedViews: Hashable, Sendable {
    /// The mount point's new children, back to front.
    public var children: [View]
    /// Access lists the mounted views declare, by view id.
    public var access: [String: AccessList]
    /// Gestures the mounted views declare, by view id (recognised like the config's once mounted).
    public var gestures: [String: [GestureSpec]] = [:]
    /// Mounted views that say `resetOnDisconnect: true` (kept for symmetry; a mount goes with its
    /// client anyway).
    public var resetsOnDisconnect: Set<String>
    /// Every mounted view (the children and their subtrees).
    public var viewCount: Int
    /// Every mounted view's id (the parser's duplicate table, kept: a collision check looks ids
    /// up here instead of collecting them again).
    var ids: [String: Int32] = [:]
    /// Per entry of `ids`' numbering (the parser's view paths): the parent's entry, and the id
    /// (empty for the mount point's own path). With `pointEntry`, a mounted view's parent and depth
    /// without a table built per mount (`RuntimeLayout.entry(_:)`).
    var entryParents: [Int32] = []
    var entryIDs: [String] = []
    /// The mount point's entry: the parent of the mount's top views.
    var pointEntry: Int32 = -1

    /// The parent's id and the number of steps up to the mount point (1 for a top view) of the
    /// mounted view `viewID`, nil if it is none of these. Cost: one lookup, then O(nesting).
    func placement(of viewID: String) -> (parent: String?, hops: Int)? {
        guard let entry = ids[viewID] else { return nil }
        let parent = entryParents[Int(entry)]
        var hops = 1
        var above = parent
        while above != pointEntry && above >= 0 {
            hops += 1
            above = entryParents[Int(above)]
        }
        return (parent == pointEntry ? nil : entryIDs[Int(parent)], hops)
    }

    /// Whether some id is both one of these views' and in `other`. Cost: O(the smaller side)
    /// lookups.
    func sharesID(with other: Set<String>) -> Bool {
        if other.count < ids.count { return other.contains { ids[$0] != nil } }
        return ids.keys.contains { other.contains($0) }
    }

    /// Whether some id is both one of these views' and one of `other`'s. Cost: O(the smaller side)
    /// lookups.
    func sharesID(with other: MountedViews) -> Bool {
        let (small, large) = ids.count <= other.ids.count ? (ids, other.ids) : (other.ids, ids)
        return small.keys.contains { large[$0] != nil }
    }
}

extension ConfigParser {
    /// The keys a `setView` may change, in the order messages list them.
    static let changeableKeys = [
        "hidden", "alpha", "interactive", "frame", "touchMargin", "shape", "transform", "multipleTouch",
        "exclusiveTouch",
    ]

    /// Reads a view's `owner`, `mount` and `resetOnDisconnect`. A mount point needs an owner on
    /// itself or an ancestor (else nobody could ever mount there); a mounted view may carry neither
    /// `owner` nor `mount`: its mount point's owners decide for it.
    mutating func runtimeKeys(
        owner: JSONNode?, mount: JSONNode?, resetOnDisconnect: JSONNode?, entry: Int32, parent: Int32,
        viewID: String?, _ subject: Subject
    ) {
        while ownedEntries.count <= Int(entry) { ownedEntries.append(false) }
        var owned = parent >= 0 && Int(parent) < ownedEntries.count && ownedEntries[Int(parent)]
        if let owner {
            if parsesMountedSubtree {
                report(
                    .invalidValue, owner.position, subject,
                    "a mounted view cannot carry \"owner\": its mount point's owners decide")
            } else {
                owned = true
                if let list = accessList(owner, subject, key: "owner"), let viewID {
                    runtimeKeys.settings.owners[viewID] = list
                }
            }
        }
        ownedEntries[Int(entry)] = owned
        if let mount, bool(mount, "mount", subject) == true {
            if parsesMountedSubtree {
                report(.invalidValue, mount.position, subject, "a mounted view cannot be a mount point")
            } else if !owned {
                report(
                    .invalidValue, mount.position, subject,
                    "a mount point needs an \"owner\" on it or an ancestor (nobody could mount there)")
            } else if let viewID {
                runtimeKeys.settings.mountPoints.insert(viewID)
            }
        }
        if let resetOnDisconnect, bool(resetOnDisconnect, "resetOnDisconnect", subject) == true, let viewID {
            runtimeKeys.settings.resetsOnDisconnect.insert(viewID)
        }
    }

    /// Pushes a view path's segments as path entries (the mount point's chain, so messages about a
    /// mounted view read `main/panel/popup/ok`); returns the last entry.
    private mutating func pushPath(_ path: [String]) -> Int32 {
        var parent: Int32 = -1
        for segment in path {
            viewPaths.append(PathEntry(segment: Excerpt.of(segment), parent: parent))
            ownedEntries.append(true)
            parent = Int32(viewPaths.count - 1)
        }
        return parent
    }

    /// The problems found so far as errors without a file position (a request has no lines).
    private func requestErrors() -> [ConfigError] {
        pending.prefix(limits.maxReportedErrors).map {
            ConfigError(code: $0.code, file: fileName, viewPath: $0.viewPath, message: $0.message)
        }
    }

    /// A `mount` request's `children`: an array of views checked exactly like a config file's
    /// (ids, frames, shapes, access lists, …), with `limits.maxViews` as the mount's view limit
    /// (`tooManyViews`) and `depth` the mount point's depth (the whole tree stays within
    /// `limits.maxDepth`; `above` the product of the scales down to the mount point, itself
    /// included, which the mounted views' own compose with). Ids are checked for duplicates inside the request; collisions with the
    /// rest of the layout are the caller's (`RuntimeLayout`).
    static func mountedViews(
        _ node: JSONNode, mountPath: [String], depth: Int, above: ComposedScale = .identity, limits: ConfigLimits
    ) throws(ConfigErrors) -> MountedViews {
        var parser = ConfigParser(fileName: "mount", limits: limits)
        parser.parsesMountedSubtree = true
        let parent = parser.pushPath(mountPath)
        parser.entryIDs = Array(repeating: "", count: parser.viewPaths.count)
        var children: [View] = []
        if case .array(let list) = node.value {
            parser.firstViewByID.reserveCapacity(min(list.count, limits.maxViews))
            for (index, childNode) in list.enumerated() where !parser.stopped {
                if let child = parser.view(
                    childNode, parent: parent, placeholder: "#\(index)", depth: depth + 1, defaultFrame: nil,
                    above: above)
                {
                    children.append(child)
                }
            }
        } else {
            parser.wrongType(node, Subject(view: parent), "\"children\"", "an array of views")
        }
        guard parser.problemCount == 0 else { throw ConfigErrors(parser.requestErrors()) }
        return MountedViews(
            children: children, access: parser.accessByViewID, gestures: parser.gesturesByViewID,
            resetsOnDisconnect: parser.runtimeKeys.settings.resetsOnDisconnect, viewCount: parser.viewCount,
            ids: parser.firstViewByID, entryParents: parser.viewPaths.map(\.parent), entryIDs: parser.entryIDs,
            pointEntry: parent)
    }

    /// A `setView`'s fields for one view (`{"hidden": true, "frame": [...]}`), each checked as
    /// the config checks it. Every problem is reported, each with the field it is about. The
    /// combination with the view's other fields (a per-edge margin on a shaped view) is checked by
    /// `RuntimeLayout`, which knows the view.
    static func viewChange(_ node: JSONNode, viewPath: [String]) -> Result<ViewChange, RuntimeFailures> {
        var parser = ConfigParser(fileName: "setView", limits: .standard)
        let entry = parser.pushPath(viewPath)
        let subject = Subject(view: entry)
        guard let object = parser.object(node, subject, "a view's changes") else {
            return .failure(RuntimeFailures(parser.failures(field: nil, from: 0)))
        }
        var change = ViewChange()
        var failures: [RuntimeFailure] = []
        for member in object.members {
            let before = parser.pending.count
            let value = member.node
            switch member.key {
            case "hidden": change.hidden = parser.bool(value, "hidden", subject)
            case "alpha":
                if let alpha = parser.finiteNumber(value, subject, "\"alpha\"") {
                    if (0...1).contains(alpha) {
                        change.alpha = alpha
                    } else {
                        parser.report(
                            .alphaOutOfRange, value.position, subject, "alpha must be in 0…1, found \(format(alpha))")
                    }
                }
            case "interactive": change.interactive = parser.bool(value, "interactive", subject)
            case "frame": change.frame = parser.frame(value, subject)
            case "touchMargin": change.touchMargin = parser.touchMargin(value, subject, shape: .rect)
            case "shape": change.shape = parser.shape(value, subject)
            case "transform": change.transform = parser.transform(value, subject)
            case "multipleTouch": change.multipleTouch = parser.bool(value, "multipleTouch", subject)
            case "exclusiveTouch": change.exclusiveTouch = parser.bool(value, "exclusiveTouch", subject)
            default:
                var message = "\"\(Excerpt.of(member.key))\" cannot be changed at run time"
                if let suggestion = NearMiss.suggestion(for: member.key, among: changeableKeys) {
                    message += " (did you mean \"\(suggestion)\"?)"
                } else {
                    message += " (changeable: \(changeableKeys.joined(separator: ", ")))"
                }
                parser.report(.unknownKey, value.position, subject, message)
            }
            failures += parser.failures(field: member.key, from: before)
        }
        if object.isEmpty {
            parser.report(.invalidValue, node.position, subject, "no field to change")
            failures += parser.failures(field: nil, from: 0)
        }
        return parser.problemCount == 0 ? .success(change) : .failure(RuntimeFailures(failures))
    }

    /// The problems reported since `start`, as run-time failures about `field`.
    private func failures(field: String?, from start: Int) -> [RuntimeFailure] {
        pending[start...].map {
            RuntimeFailure(code: .config($0.code), viewPath: $0.viewPath, field: field, message: $0.message)
        }
    }
}
