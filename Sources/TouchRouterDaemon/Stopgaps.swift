/// Minimal stand-ins for parts other branches are building (config, tracker, protocol,
/// recordings), so the daemon's glue runs end to end before they land. Each is replaced by the
/// real part as soon as it is merged; the seams are the names used in Daemon.swift.
import Foundation
import TouchRouterCore
import TouchRouterProtocol

// MARK: - Config (stand-in for the config branch)

/// A config file that cannot be used: every problem found, one per line.
public struct LayoutLoadError: Error, CustomStringConvertible {
    public var messages: [String]
    public var description: String { messages.joined(separator: "\n") }
}

enum LayoutLoader {
    /// Reads `{"screens":[{"name","width","height","root":{"id","frame":[x,y,w,h],"children"}}]}`.
    static func load(path: String) throws -> Layout {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LayoutLoadError(messages: ["\(path): cannot read the file"])
        }
        guard String(validating: data, as: UTF8.self) != nil,
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let screens = object["screens"] as? [[String: Any]]
        else { throw LayoutLoadError(messages: ["\(path): not a layout config"]) }
        func view(_ object: [String: Any]) throws -> View {
            guard let id = object["id"] as? String, let frame = object["frame"] as? [Double], frame.count == 4
            else { throw LayoutLoadError(messages: ["\(path): a view needs an id and a frame"]) }
            let children = try (object["children"] as? [[String: Any]] ?? []).map(view)
            return View(
                id: id, frame: Rect(x: frame[0], y: frame[1], width: frame[2], height: frame[3]),
                children: children)
        }
        return Layout(screens: try screens.map { screen in
            guard let name = screen["name"] as? String, let width = screen["width"] as? Double,
                let height = screen["height"] as? Double, let root = screen["root"] as? [String: Any]
            else { throw LayoutLoadError(messages: ["\(path): a screen needs name, width, height, root"]) }
            return Screen(name: name, width: width, height: height, root: try view(root))
        })
    }
}

// MARK: - Tracker (stand-in for the tracker branch)

/// Binds each touch at down to the nearest subscribed view on its hit path.
struct TouchRouter {
    private struct Binding {
        var id: UInt64
        var viewID: String
        var path: [String]
        var lastLocal: Point
        var device: InputDevice
    }

    private var layout: Layout
    private var bindings: [Int64: Binding] = [:]  // key: device id << 32 | slot
    private var nextTouchID: UInt64 = 1

    init(layout: Layout) { self.layout = layout }

    mutating func process(_ event: InputEvent, subscribedViews: Set<String>) -> [ViewTouches] {
        switch event {
        case .deviceRemoved(let device, let time):
            return cancel(reason: .deviceRemoved, time: time) { $0.device == device }
        case .frame(let frame):
            var changed: [String: [RoutedTouch]] = [:]
            var order: [String] = []
            for contact in frame.contacts {
                let key = Int64(frame.device.id) << 32 | Int64(contact.slot)
                switch contact.kind {
                case .down:
                    guard let screen = layout.screen(named: frame.screen),
                        let hit = PlainHitTest.hitTest(screen.root, screenPoint: contact.screenPoint),
                        let target = hit.path.last(where: subscribedViews.contains)
                    else { continue }
                    let local = localPoint(contact.screenPoint, path: hit.path, target: target, screen: screen)
                    bindings[key] = Binding(
                        id: nextTouchID, viewID: target, path: hit.path, lastLocal: local, device: frame.device)
                    nextTouchID += 1
                    append(&changed, &order, target, RoutedTouch(
                        id: bindings[key]!.id, phase: .began, localPoint: local, screenPoint: contact.screenPoint,
                        previousLocalPoint: local, timestampMicros: frame.timestampMicros, tapCount: 1,
                        device: frame.device))
                case .motion, .up, .cancel:
                    guard var binding = bindings[key], let screen = layout.screen(named: frame.screen) else {
                        continue
                    }
                    let local = contact.kind == .motion
                        ? localPoint(contact.screenPoint, path: binding.path, target: binding.viewID, screen: screen)
                        : binding.lastLocal
                    let phase: TouchPhase = contact.kind == .motion ? .moved : contact.kind == .up ? .ended : .cancelled
                    append(&changed, &order, binding.viewID, RoutedTouch(
                        id: binding.id, phase: phase, localPoint: local, screenPoint: contact.screenPoint,
                        previousLocalPoint: binding.lastLocal, timestampMicros: frame.timestampMicros,
                        tapCount: 1, device: frame.device,
                        cancelReason: phase == .cancelled ? .inputCancelled : nil))
                    binding.lastLocal = local
                    bindings[key] = phase.isTerminal ? nil : binding
                }
            }
            return order.map {
                ViewTouches(viewID: $0, screen: frame.screen, timestampMicros: frame.timestampMicros,
                    touches: changed[$0]!)
            }
        }
    }

    mutating func replaceLayout(_ newLayout: Layout, time: UInt64) -> [ViewTouches] {
        layout = newLayout
        let ids = LayoutIndex(newLayout)
        return cancel(reason: .viewRemoved, time: time) { !ids.contains($0.viewID) }
    }

    mutating func cancelAll(reason: CancelReason, time: UInt64) -> [ViewTouches] {
        cancel(reason: reason, time: time) { _ in true }
    }

    private mutating func cancel(
        reason: CancelReason, time: UInt64, where matches: (Binding) -> Bool
    ) -> [ViewTouches] {
        var changed: [String: [RoutedTouch]] = [:]
        var order: [String] = []
        for (key, binding) in bindings.sorted(by: { $0.value.id < $1.value.id }) where matches(binding) {
            append(&changed, &order, binding.viewID, RoutedTouch(
                id: binding.id, phase: .cancelled, localPoint: binding.lastLocal, screenPoint: Point(0, 0),
                previousLocalPoint: binding.lastLocal, timestampMicros: time, tapCount: 1,
                device: binding.device, cancelReason: reason))
            bindings[key] = nil
        }
        return order.map { ViewTouches(viewID: $0, screen: "", timestampMicros: time, touches: changed[$0]!) }
    }

    private func append(
        _ changed: inout [String: [RoutedTouch]], _ order: inout [String], _ viewID: String, _ touch: RoutedTouch
    ) {
        if changed[viewID] == nil { order.append(viewID) }
        changed[viewID, default: []].append(touch)
    }

    private func localPoint(_ screenPoint: Point, path: [String], target: String, screen: Screen) -> Point {
        var view = screen.root
        var point = view.convertFromParent(screenPoint)
        for id in path.dropFirst() {
            if view.id == target { break }
            guard let child = view.children.first(where: { $0.id == id }) else { break }
            view = child
            point = view.convertFromParent(point)
        }
        return point
    }
}

// MARK: - Protocol (stand-in for the protocol branch)

/// Splits inbound bytes into lines of at most `maximumLineBytes`.
struct LineFramer {
    enum Line { case line([UInt8]), tooLong }
    let maximumLineBytes: Int
    private var buffer: [UInt8] = []

    init(maximumLineBytes: Int = 64 * 1024) { self.maximumLineBytes = maximumLineBytes }

    mutating func append(_ bytes: UnsafeRawBufferPointer) { buffer.append(contentsOf: bytes) }

    mutating func nextLine() -> Line? {
        guard let newline = buffer.firstIndex(of: 0x0A) else {
            return buffer.count > maximumLineBytes ? .tooLong : nil
        }
        if newline > maximumLineBytes { return .tooLong }
        let line = Array(buffer[..<newline])
        buffer.removeFirst(newline + 1)
        return .line(line)
    }
}

/// A request a client can make.
enum Request {
    case hello(version: Int, client: String?)
    case subscribe(views: [String], subtree: Bool)
    case unsubscribe(views: [String]?)
    case hitTest(screen: String, point: Point)
    case layout
    case status
}

enum Wire {
    static func decode(_ line: [UInt8]) -> Result<(Request, seq: Int64?), ProtocolError> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            return .failure(ProtocolError(code: .malformedJSON, message: "not a JSON object"))
        }
        let seq = (object["seq"] as? NSNumber)?.int64Value
        func invalid(_ message: String) -> Result<(Request, seq: Int64?), ProtocolError> {
            .failure(ProtocolError(code: .invalidMessage, message: message, seq: seq))
        }
        guard let type = object["type"] as? String else { return invalid("missing \"type\"") }
        switch type {
        case "hello":
            guard let version = object["version"] as? Int else { return invalid("hello needs \"version\"") }
            return .success((.hello(version: version, client: object["client"] as? String), seq))
        case "subscribe":
            guard let views = object["views"] as? [String] else { return invalid("subscribe needs \"views\"") }
            return .success((.subscribe(views: views, subtree: object["subtree"] as? Bool ?? false), seq))
        case "unsubscribe":
            return .success((.unsubscribe(views: object["views"] as? [String]), seq))
        case "hitTest":
            guard let screen = object["screen"] as? String, let point = object["point"] as? [Double],
                point.count == 2
            else { return invalid("hitTest needs \"screen\" and \"point\"") }
            return .success((.hitTest(screen: screen, point: Point(point[0], point[1])), seq))
        case "layout": return .success((.layout, seq))
        case "status": return .success((.status, seq))
        default:
            return .failure(ProtocolError(code: .unknownType, message: "unknown type \"\(type)\"", seq: seq))
        }
    }

    static func line(_ object: [String: Any]) -> [UInt8] {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Array(data) + [0x0A]
    }

    static func withSeq(_ object: [String: Any], _ seq: Int64?) -> [UInt8] {
        var object = object
        if let seq { object["seq"] = seq }
        return line(object)
    }

    static func error(_ error: ProtocolError) -> [UInt8] {
        var object: [String: Any] = ["type": "error", "code": error.code.rawValue, "message": error.message]
        if !error.views.isEmpty { object["views"] = error.views }
        return withSeq(object, error.seq)
    }

    static func touches(_ viewTouches: ViewTouches) -> [UInt8] {
        line([
            "type": "touches", "view": viewTouches.viewID, "screen": viewTouches.screen,
            "time": viewTouches.timestampMicros,
            "touches": viewTouches.touches.map { touch -> [String: Any] in
                var object: [String: Any] = [
                    "id": touch.id, "phase": touch.phase.rawValue,
                    "location": [touch.localPoint.x, touch.localPoint.y],
                    "screenLocation": [touch.screenPoint.x, touch.screenPoint.y],
                    "previousLocation": [touch.previousLocalPoint.x, touch.previousLocalPoint.y],
                    "timestamp": touch.timestampMicros, "tapCount": touch.tapCount, "device": touch.device.name,
                ]
                if let reason = touch.cancelReason { object["reason"] = reason.rawValue }
                return object
            },
        ])
    }

    static func layout(_ layout: Layout) -> [String: Any] {
        func view(_ view: View) -> [String: Any] {
            ["id": view.id, "frame": [view.frame.x, view.frame.y, view.frame.width, view.frame.height],
                "children": view.children.map(view)]
        }
        return ["screens": layout.screens.map {
            ["name": $0.name, "width": $0.width, "height": $0.height, "root": view($0.root)]
        }]
    }
}

/// A client's bounded outbound queue: whole lines, written in order.
struct Outbox {
    let capacityBytes: Int
    private(set) var pending: [UInt8] = []
    private var sent = 0

    init(capacityBytes: Int) { self.capacityBytes = capacityBytes }

    var pendingBytes: Int { pending.count - sent }

    /// False when the line does not fit: the client is too slow.
    mutating func enqueue(_ line: [UInt8]) -> Bool {
        guard pendingBytes + line.count <= capacityBytes else { return false }
        pending.append(contentsOf: line)
        return true
    }

    mutating func enqueue(touches: ViewTouches, encoded line: [UInt8]) -> Bool { enqueue(line) }

    func withPendingBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try pending.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
    }

    /// Drops every whole unsent line, keeps the rest of a partly sent one (so the stream stays
    /// line-aligned) and queues `line`: the last thing a client cut off is told.
    mutating func replaceUnsent(with line: [UInt8]) {
        let partEnd = pending[sent...].firstIndex(of: 0x0A).map { $0 + 1 } ?? pending.count
        let partial = sent > 0 && sent < pending.count && pending[sent - 1] != 0x0A
        pending = (partial ? Array(pending[sent..<partEnd]) : []) + line
        sent = 0
    }

    mutating func consume(_ count: Int) {
        sent += count
        if sent == pending.count {
            pending.removeAll(keepingCapacity: true)
            sent = 0
        }
    }
}

// MARK: - Recordings (stand-in for the recordings branch)

enum RecordingLoader {
    /// Reads an evemu `.events` file (device description beside it or at `devicePath`) into frames
    /// on the layout's first screen.
    static func load(path: String, devicePath: String?, layout: Layout) throws -> [InputEvent] {
        func fail(_ message: String) -> LayoutLoadError { LayoutLoadError(messages: ["\(path): \(message)"]) }
        guard let screen = layout.screens.first else { throw fail("the layout has no screen") }
        let descPath = devicePath ?? (path.components(separatedBy: ".").dropLast(2).joined(separator: ".") + ".desc")
        guard let events = try? String(contentsOfFile: path, encoding: .utf8),
            let desc = try? String(contentsOfFile: descPath, encoding: .utf8)
        else { throw fail("cannot read the recording or \(descPath)") }
        var ranges: [Int: (Double, Double)] = [:]  // ABS code → min, max
        for line in desc.split(separator: "\n") where line.hasPrefix("A: ") {
            let parts = line.split(separator: " ").compactMap { Int($0, radix: 16) ?? Int($0) }
            if parts.count >= 3, let code = Int(line.split(separator: " ")[1], radix: 16) {
                ranges[code] = (Double(parts[1]), Double(parts[2]))
            }
        }
        let name = desc.split(separator: "\n").first { $0.hasPrefix("N: ") }.map { String($0.dropFirst(3)) } ?? "replay"
        let device = InputDevice(id: 1, name: name)
        var result: [InputEvent] = []
        var slot: Int32 = 0
        var points: [Int32: Point] = [:]
        var contacts: [Int32: ContactEvent.Kind] = [:]
        var live = Set<Int32>()
        for line in events.split(separator: "\n") where line.hasPrefix("E: ") {
            let fields = line.split(separator: " ")
            guard fields.count >= 5, let time = Double(fields[1]), let type = Int(fields[2], radix: 16),
                let code = Int(fields[3], radix: 16), let value = Int(fields[4])
            else { continue }
            func scaled(_ code: Int, _ size: Double) -> Double {
                let (lo, hi) = ranges[code] ?? (0, 1)
                return (Double(value) - lo) / (hi - lo + 1) * size
            }
            switch (type, code) {
            case (3, 0x2F): slot = Int32(value)
            case (3, 0x39):
                if value < 0 { contacts[slot] = .up; live.remove(slot) } else { contacts[slot] = .down; live.insert(slot) }
            case (3, 0x35): points[slot, default: Point(0, 0)].x = scaled(code, screen.width); if contacts[slot] == nil { contacts[slot] = .motion }
            case (3, 0x36): points[slot, default: Point(0, 0)].y = scaled(code, screen.height); if contacts[slot] == nil { contacts[slot] = .motion }
            case (0, 0):
                let changes = contacts.sorted { $0.key < $1.key }.map {
                    ContactEvent(kind: $0.value, slot: $0.key, screenPoint: points[$0.key] ?? Point(0, 0))
                }
                contacts = [:]
                if !changes.isEmpty {
                    result.append(.frame(InputFrame(
                        device: device, screen: screen.name, timestampMicros: UInt64(time * 1_000_000),
                        contacts: changes)))
                }
            default: break
            }
        }
        return result
    }
}
