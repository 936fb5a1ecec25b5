import TouchRouterModel

/// The run-time layout requests' wire parts (`setView`, `mount`, `unmount`) and their replies.
/// Views and subtrees travel as JSON and are checked by Core exactly as a config file is.

/// The reply to `setView`, `mount` or `unmount`: the layout generation now in effect (the change
/// is live: the next touch-down hit-tests it) and the views the request changed.
public struct LayoutChangeReply: Hashable, Sendable {
    public var generation: UInt64
    /// The view ids named by `setView`, or the mount point of `mount`/`unmount` (empty when an
    /// `unmount` found nothing mounted).
    public var views: [String]
    public var seq: Int64?

    /// Makes the reply.
    public init(generation: UInt64, views: [String], seq: Int64? = nil) {
        self.generation = generation
        self.views = views
        self.seq = seq
    }
}

/// One reason a run-time request was refused, as an `error` line's `failures` lists it.
public struct ProtocolFailure: Hashable, Sendable {
    /// The config's error code (`alphaOutOfRange`, `duplicateID`, …) or a run-time one
    /// (`unknownView`, `permissionDenied`, `notMountPoint`, `mountTooLarge`, `tooManyMountedViews`).
    public var code: String
    /// The view's path, ids from its screen's root joined by `/`, when the view is known.
    public var view: String?
    /// The request's field it is about (`alpha`, `frame`, `children`, …).
    public var field: String?
    public var message: String

    /// Makes a failure.
    public init(code: String, view: String?, field: String?, message: String) {
        self.code = code
        self.view = view
        self.field = field
        self.message = message
    }
}

extension JSONValue {
    /// The value as Core's reader gives it, for the config checks (requests have no positions:
    /// every node is at 0:0).
    public var node: JSONNode {
        let origin = SourcePosition(line: 0, column: 0)
        switch self {
        case .null: return JSONNode(.null, at: origin)
        case .bool(let flag): return JSONNode(.bool(flag), at: origin)
        case .integer(let integer): return JSONNode(.number(Double(integer), integer: integer), at: origin)
        case .double(let number): return JSONNode(.number(number, integer: nil), at: origin)
        case .string(let text): return JSONNode(.string(text), at: origin)
        case .array(let elements): return JSONNode(.array(elements.map(\.node)), at: origin)
        case .object(let fields):
            // Sorted keys: a request's order is not kept (strict JSON has no duplicates to tell apart).
            let members = fields.sorted { $0.key < $1.key }.map { JSONMember(key: $0.key, node: $0.value.node) }
            return JSONNode(.object(JSONObject(members: members)), at: origin)
        }
    }
}

extension ProtocolError {
    /// Writes `failures`: `[{"code":…,"view":…,"field":…,"message":…}]` (`view`, `field` only when known).
    func appendFailures(to object: inout JSONObjectWriter) {
        object.field("failures", array: failures) { failure, buffer in
            JSONObjectWriter.appendObject(to: &buffer) { entry in
                entry.field("code", string: failure.code)
                if let view = failure.view { entry.field("view", string: view) }
                if let field = failure.field { entry.field("field", string: field) }
                entry.field("message", string: failure.message)
            }
        }
    }

    /// Reads `failures` back (client side).
    static func failures(from fields: FieldReader) throws(ProtocolError) -> [ProtocolFailure] {
        var failures: [ProtocolFailure] = []
        for (index, element) in try fields.array("failures").enumerated() {
            let entry = try fields.nested(element, context: "failures[\(index)]")
            failures.append(
                ProtocolFailure(
                    code: try entry.string("code"), view: try entry.optionalString("view"),
                    field: try entry.optionalString("field"), message: try entry.string("message")))
        }
        return failures
    }
}
