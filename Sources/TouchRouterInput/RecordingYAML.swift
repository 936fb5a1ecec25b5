import CYAML
import TouchRouterCore

/// A YAML document read by libyaml's event parser into a tree whose nodes remember their line: what
/// `LibinputRecordReader` walks. The tree is built with an explicit stack (no recursion), nesting is
/// capped, aliases are refused (no node is ever shared, so nothing can expand) and a mapping's
/// keys must be distinct scalars. A caller may take finished collections as they complete (a
/// recording's event items), so the tree never holds the file's bulk; what it holds at once is
/// capped at `maximumHeldNodes`.
enum RecordingYAML {
    /// Deeper than any `libinput record` file (6 levels) by far, and shallow enough for a tree walk.
    static let maximumDepth = 64
    /// The most nodes the tree holds at once (about 100 bytes each): a recording's device
    /// descriptions take a few hundred, an event row six (its rows are taken as they come). A
    /// document that would hold more is refused, so a file of tiny values (`[0,0,0,…]`, 2 bytes a
    /// node) cannot make the tree 50 times its size.
    static let maximumHeldNodes = 100_000

    /// One step from a collection to a node in it: a mapping's key, or a sequence's item index.
    enum PathStep: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    /// A mapping's entries in file order.
    struct Mapping: Sendable {
        var entries: [(key: String, node: Node)] = []
        subscript(key: String) -> Node? { entries.first(where: { $0.key == key })?.node }
    }

    /// A node's value: a plain scalar with no text (`key:` and nothing after it) is `null`.
    indirect enum Value: Sendable {
        case null
        case scalar(String)
        case sequence([Node])
        case mapping(Mapping)
    }

    /// A value and the 1-based line it starts on.
    struct Node: Sendable {
        var value: Value
        var line: Int
        var scalar: String? { if case .scalar(let text) = value { text } else { nil } }
    }

    /// A collection being read, with its line: a sequence's items, or a mapping's entries, its keys
    /// so far and a key whose value has not come yet. Changed in place on the stack, so a list of
    /// any length is built in linear time.
    private struct Open {
        var line: Int
        var isMapping: Bool
        var items: [Node] = []
        var mapping = Mapping()
        var keys: Set<String> = []
        var pendingKey: String?
        /// A sequence's next item index (items taken by the caller count too).
        var nextIndex = 0
        /// Nodes held below this one, at any depth.
        var heldBelow = 0
    }

    /// Takes a finished collection at `path` (the steps from the root to it) out of the tree, or
    /// leaves it (false). It sees every sequence and mapping but the root, innermost first.
    typealias Consumer = (_ path: [PathStep], _ node: Node) throws(RecordingError) -> Bool

    /// The document's root; every error names `file` and a line. Each collection `consume` takes
    /// is left out of the tree (a sequence's later items keep their indices).
    static func parse(
        _ text: String, file: String, consume: Consumer = { (_, _) throws(RecordingError) in false }
    ) throws(RecordingError) -> Node {
        let bytes = Array(text.utf8)
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(RecordingError) -> Node in try parse(buffer, file: file, consume: consume) }
        }
        return try result.get()
    }

    private static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, file: String, consume: Consumer
    ) throws(RecordingError) -> Node {
        guard let start = bytes.baseAddress, !bytes.isEmpty else {
            throw RecordingError(file: file, line: 1, message: "empty file")
        }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw RecordingError(file: file, line: 0, message: "libyaml could not start (out of memory)")
        }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_input_string(&parser, start, bytes.count)
        // At the end of the text libyaml's marks can name the line after the last (an empty value
        // there, an error in a list left open): every line named is at most the last.
        let newlines = bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let lastLine = max(1, newlines + (bytes.last == UInt8(ascii: "\n") ? 0 : 1))
        var stack: [Open] = []
        /// The steps from the root to the innermost open collection.
        var path: [PathStep] = []
        var held = 0
        var root: Node?
        var documents = 0
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else {
                throw syntaxError(parser, bytes: bytes, lastLine: lastLine, file: file)
            }
            defer { yaml_event_delete(&event) }
            let line = min(Int(event.start_mark.line) + 1, lastLine)
            func fail(_ message: String) -> RecordingError { RecordingError(file: file, line: line, message: message) }
            var finished: Node?
            /// The nodes held below `finished`, when it is a collection.
            var finishedHeldBelow = 0
            switch event.type {
            case YAML_STREAM_END_EVENT:
                guard let root else { throw RecordingError(file: file, line: 1, message: "empty file") }
                return root
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 { throw fail("a second YAML document (a recording is one document)") }
            case YAML_ALIAS_EVENT:
                throw fail("an alias (*name): recordings do not use them")
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = String(
                    decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                let isNull = scalar.length == 0 && scalar.style == YAML_PLAIN_SCALAR_STYLE
                finished = Node(value: isNull ? .null : .scalar(text), line: line)
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                if let open = stack.last, open.isMapping, open.pendingKey == nil {
                    throw fail("a mapping key must be a scalar")
                }
                guard stack.count < maximumDepth else { throw fail("nested deeper than \(maximumDepth) levels") }
                if let open = stack.last {
                    path.append(open.isMapping ? .key(open.pendingKey ?? "") : .index(open.nextIndex))
                }
                stack.append(Open(line: line, isMapping: event.type == YAML_MAPPING_START_EVENT))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                let open = stack.removeLast()
                finished = Node(value: open.isMapping ? .mapping(open.mapping) : .sequence(open.items), line: open.line)
                finishedHeldBelow = open.heldBelow
            default:
                break
            }
            guard let node = finished else { continue }
            guard !stack.isEmpty else {
                root = node
                continue
            }
            let top = stack.count - 1
            if stack[top].isMapping && stack[top].pendingKey == nil {
                // A key: always a scalar (a collection as key was refused where it began).
                let key = node.scalar ?? ""
                guard stack[top].keys.insert(key).inserted else {
                    throw RecordingError(file: file, line: node.line, message: "duplicate key '\(Excerpt.of(key))'")
                }
                stack[top].pendingKey = key
                continue
            }
            var taken = false
            if event.type == YAML_SEQUENCE_END_EVENT || event.type == YAML_MAPPING_END_EVENT {
                taken = try consume(path, node)
                path.removeLast()
            }
            if taken {
                held -= finishedHeldBelow
            } else {
                held += 1
                guard held <= maximumHeldNodes else {
                    throw fail(
                        "more than \(maximumHeldNodes) YAML values at once: far more than a recording's "
                            + "device description or one event holds")
                }
                stack[top].heldBelow += 1 + finishedHeldBelow
                if stack[top].isMapping {
                    stack[top].mapping.entries.append((stack[top].pendingKey!, node))
                } else {
                    stack[top].items.append(node)
                }
            }
            if stack[top].isMapping { stack[top].pendingKey = nil } else { stack[top].nextIndex += 1 }
        }
    }

    /// libyaml's error at its line: where the problem is, or, when the text ended inside something
    /// (a quoted string, a flow list), where that began.
    private static func syntaxError(
        _ parser: yaml_parser_t, bytes: UnsafeBufferPointer<UInt8>, lastLine: Int, file: String
    ) -> RecordingError {
        let problem = parser.problem.map { String(cString: $0) } ?? "malformed YAML"
        if parser.error == YAML_READER_ERROR {
            // The reader reports a byte offset, not a mark.
            let offset = min(Int(parser.problem_offset), bytes.count)
            let line = 1 + bytes[..<offset].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            return RecordingError(file: file, line: min(line, lastLine), message: "\(problem) at byte \(offset)")
        }
        let mark = parser.problem_mark
        var line = min(Int(mark.line) + 1, lastLine)
        var message = "column \(mark.column + 1): \(problem)"
        if let context = parser.context.map({ String(cString: $0) }) {
            let contextLine = min(Int(parser.context_mark.line) + 1, lastLine)
            message += " (\(context) from line \(contextLine))"
            if Int(mark.index) >= bytes.count { line = contextLine }
        }
        if Int(mark.index) < bytes.count, bytes[Int(mark.index)] == UInt8(ascii: "\t") {
            message += "; a tab: YAML indents with spaces"
        }
        return RecordingError(file: file, line: line, message: message)
    }
}
