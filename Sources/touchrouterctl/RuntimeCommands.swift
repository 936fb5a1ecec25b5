import TouchRouterClient
import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol

/// `touchrouterctl set VIEW KEY=VALUE...`: changes a view of the running daemon (its owners only).
enum SetCommand: Command {
    static let spec = CommandSpec(
        name: "set",
        abstract: "Change a view of the running daemon's layout (hidden, alpha, frame, …).",
        options: [ToolOption.json, ToolOption.socket],
        arguments: [
            ArgumentSpec(.view, help: "The view to change."),
            ArgumentSpec(.assignment, help: "A field and its value in the config's JSON5 syntax.", repeats: true),
        ],
        discussion: """
            Fields: hidden, alpha, interactive, frame, touchMargin, transform, shape, multipleTouch,
            exclusiveTouch, as in the config (docs/configuration.md). A value that is not JSON5 is
            taken as a string: set ok hidden=true alpha=0.5 'frame=[0,-240,1080,2400]' shape=ellipse.
            Every field is applied or none; a refusal lists every reason. Only a client admitted by
            the view's owner lists may change it.
            """)

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        let viewID = arguments.argument(.view) ?? ""
        var fields: [String: JSONValue] = [:]
        for assignment in arguments.arguments(.assignment) {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                StandardError.print("touchrouterctl set: \"\(assignment)\" is not KEY=VALUE")
                return .usage
            }
            let text = String(assignment[assignment.index(after: equals)...])
            fields[String(assignment[..<equals])] = RuntimeCommandSupport.value(json5: text) ?? .string(text)
        }
        let changes = [viewID: fields]
        return RuntimeCommandSupport.run(arguments, command: "set") { client in
            try await client.setViews(changes)
        } message: {
            .viewsSet($0)
        }
    }
}

/// `touchrouterctl mount VIEW FILE.json5`: mounts a subtree at a mount point of the running daemon.
enum MountCommand: Command {
    static let spec = CommandSpec(
        name: "mount",
        abstract: "Mount a subtree (a JSON5 file of views) at a mount point of the running daemon.",
        options: [ToolOption.json, ToolOption.socket],
        arguments: [
            ArgumentSpec(.view, help: "The mount point (a view with mount: true)."),
            ArgumentSpec(.file, help: "A JSON5 file: an array of views, or one view."),
        ],
        discussion: """
            The views replace the mount point's children until unmounted (or this command's
            connection ends: a client's mounts go with it, so this command holds the connection
            until interrupted). Views are written as in the config; ids must be new.
            """)

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        let viewID = arguments.argument(.view) ?? ""
        let path = arguments.argument(.file) ?? ""
        guard let data = try? readConfigFile(path: path) else {
            StandardError.print("touchrouterctl mount: cannot read \(path)")
            return .failure
        }
        guard let value = RuntimeCommandSupport.value(json5: String(decoding: data, as: UTF8.self)) else {
            StandardError.print("touchrouterctl mount: \(path) is not JSON5")
            return .failure
        }
        let children: [JSONValue] = if case .array(let list) = value { list } else { [value] }
        return RuntimeCommandSupport.run(arguments, command: "mount", holdsConnection: true) { client in
            try await client.mount(viewID, children: children)
        } message: {
            .mounted($0)
        }
    }
}

/// `touchrouterctl unmount VIEW`: removes what is mounted at a mount point.
enum UnmountCommand: Command {
    static let spec = CommandSpec(
        name: "unmount",
        abstract: "Remove what is mounted at a mount point of the running daemon.",
        options: [ToolOption.json, ToolOption.socket],
        arguments: [ArgumentSpec(.view, help: "The mount point.")])

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        let viewID = arguments.argument(.view) ?? ""
        return RuntimeCommandSupport.run(arguments, command: "unmount", named: viewID) { client in
            try await client.unmount(viewID)
        } message: {
            .unmounted($0)
        }
    }
}

enum RuntimeCommandSupport {
    /// A JSON5 text as a protocol value; nil when it is not JSON5.
    static func value(json5 text: String) -> JSONValue? {
        let read = JSONReader.read(Array(text.utf8), syntax: .json5)
        guard read.failure == nil, read.problems.isEmpty, let root = read.root else { return nil }
        return JSONValue(root)
    }

    /// Sends the change and prints the reply (`runOneRequest`).
    static func run(
        _ arguments: ParsedArguments, command: String, named: String = "", holdsConnection: Bool = false,
        request: @escaping @Sendable (TouchRouterClient) async throws -> LayoutChangeReply,
        message: @escaping @Sendable (LayoutChangeReply) -> DaemonMessage
    ) -> ExitCode {
        runOneRequest(
            arguments, command: command, holdsConnection: holdsConnection, request: request, message: message
        ) { reply in
            // An unmount that found nothing mounted names no view: say which one was asked.
            let views =
                reply.views.isEmpty
                ? (named.isEmpty ? "" : named + ": nothing was mounted") : reply.views.joined(separator: ", ")
            LineOutput.print(
                "\(command) \(views): layout generation \(reply.generation)"
                    + (holdsConnection ? " (held until interrupted)" : ""))
        }
    }
}
