import TouchRouterModel

/// A `mount` line in two halves, so that the daemon's loop never reads the subtree: the loop finds
/// only what it needs to take change tokens and queue the line (`MountLineHeader.find`), and the
/// layout worker decodes and checks the rest (`MountRequest.decode`), with the same errors as
/// `RequestDecoder.decode` gives for the whole line.

/// What the loop reads of a `mount` line: its mount point and its `seq`.
public struct MountLineHeader: Hashable, Sendable {
    /// The `view` field: the mount point's id.
    public var view: String
    /// The `seq` field, when the line has one (an integer in `ClientRequest.seqRange`).
    public var seq: Int64?

    /// A header.
    public init(view: String, seq: Int64?) {
        self.view = view
        self.seq = seq
    }

    /// The header of a line whose top-level object has `"type":"mount"` exactly once, a string
    /// `view`, a `children` that is not `null`, and no `seq` or a valid one; nil for every other
    /// line (the caller then decodes it whole, as any request). Nested values are skipped, not
    /// read: strings by their quotes and escapes, arrays and objects by their brackets.
    /// Cost: one pass over the line's bytes with no allocation (a line is at most the daemon's
    /// 64 KiB limit), plus reading the `view` and `seq` values themselves.
    public static func find<Bytes: Collection>(in line: Bytes) -> MountLineHeader? where Bytes.Element == UInt8 {
        if let header = line.withContiguousStorageIfAvailable({ find(in: $0) }) { return header }
        return Array(line).withUnsafeBufferPointer { find(in: $0) }
    }

    private static func find(in bytes: UnsafeBufferPointer<UInt8>) -> MountLineHeader? {
        var skimmer = TopLevelSkimmer(bytes: bytes)
        guard let members = skimmer.members() else { return nil }
        var type: Range<Int>?
        var view: Range<Int>?
        var seq: Range<Int>?
        var children: Range<Int>?
        for (key, value) in members {
            switch key {
            case "type": type = type == nil ? value : -1..<(-1)
            case "view": view = view == nil ? value : -1..<(-1)
            case "seq": seq = seq == nil ? value : -1..<(-1)
            case "children": children = children == nil ? value : -1..<(-1)
            default: continue
            }
        }
        // A key twice is a malformed line: the whole decode says so.
        guard let type, let view, let children, type.lowerBound >= 0, view.lowerBound >= 0,
            children.lowerBound >= 0, seq.map({ $0.lowerBound >= 0 }) ?? true
        else { return nil }
        guard Array(bytes[type]) == Array(#""mount""#.utf8), !skimmer.isNull(children),
            case .string(let viewID) = value(bytes, view)
        else { return nil }
        guard let seq, !skimmer.isNull(seq) else { return MountLineHeader(view: viewID, seq: nil) }
        guard let number = value(bytes, seq)?.integerValue, ClientRequest.seqRange.contains(number) else { return nil }
        return MountLineHeader(view: viewID, seq: number)
    }

    /// One small value read as the whole decode reads it (strict JSON), or nil if it is not valid.
    private static func value(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> JSONValue? {
        let read = JSONReader.read(UnsafeBufferPointer(rebasing: bytes[range]), syntax: .strictJSON)
        guard read.failure == nil, read.problems.isEmpty, let root = read.root else { return nil }
        return JSONValue(root)
    }
}

/// Finds the members of a line's top-level object without reading their values: each key (only
/// keys without escapes; a key with one makes the line "not skimmable") and the byte range of its
/// value. Anything unexpected ends the skim with nil; it never decides that a line is invalid.
private struct TopLevelSkimmer {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Every top-level member, or nil.
    mutating func members() -> [(key: String, value: Range<Int>)]? {
        var found: [(key: String, value: Range<Int>)] = []
        skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return nil }
        skipWhitespace()
        if !take(UInt8(ascii: "}")) {
            while true {
                skipWhitespace()
                guard let key = key() else { return nil }
                skipWhitespace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                let start = index
                guard skipValue() else { return nil }
                found.append((key, start..<index))
                skipWhitespace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { return nil }
                break
            }
        }
        skipWhitespace()
        return index == bytes.count ? found : nil
    }

    func isNull(_ range: Range<Int>) -> Bool { Array(bytes[range]) == Array("null".utf8) }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    }

    /// A key without escapes (a key written with one is left to the whole decode).
    private mutating func key() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            if bytes[index] == UInt8(ascii: "\\") { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        index += 1
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
    }

    /// Steps over one value: a string to its closing quote, an array or object to its matching
    /// bracket (strings inside skipped as strings), anything else to the next delimiter.
    private mutating func skipValue() -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""): return skipString()
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                    continue
                case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                    if depth == 0 {
                        index += 1
                        return true
                    }
                default: break
                }
                index += 1
            }
            return false
        default:
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "}"),
                !Self.isWhitespace(bytes[index])
            {
                index += 1
            }
            return index > start
        }
    }

    private mutating func skipString() -> Bool {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return true
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
        return false
    }
}

/// A `mount` request decoded on the layout worker, its `children` kept as the reader's nodes (for
/// Core's config checks, without a detour through `JSONValue`).
public struct MountRequest: Sendable {
    /// The mount point's id.
    public var view: String
    /// The subtree, unchecked.
    public var children: JSONNode
    /// The request's `seq`.
    public var seq: Int64?

    /// Decodes a whole `mount` line (one `MountLineHeader.find` accepted) with exactly the checks,
    /// error codes and messages of `RequestDecoder.decode`: malformed JSON anywhere in the line,
    /// invalid UTF-8, duplicate keys, a missing or wrong `view`. Cost: linear in the line.
    public static func decode<Bytes: Collection>(line: Bytes) -> Result<MountRequest, ProtocolError>
    where Bytes.Element == UInt8 {
        do throws(ProtocolError) {
            let (object, fields, type) = try RequestDecoder.topLevel(fromLine: line, keepingNode: "children")
            guard type == "mount" else {
                // Not reached for a line `MountLineHeader.find` accepted; decoded as any request.
                return .failure(fields.fail("not a mount request"))
            }
            guard let children = object["children"], !isNull(children) else {
                throw fields.fail("missing field \"children\"")
            }
            return .success(MountRequest(view: try fields.string("view"), children: children, seq: fields.seq))
        } catch {
            return .failure(error)
        }
    }

    private static func isNull(_ node: JSONNode) -> Bool {
        if case .null = node.value { return true }
        return false
    }
}
