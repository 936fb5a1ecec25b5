import Testing
import TouchRouterCore
import TouchRouterInput

/// Every real recording, decoded and run through the tracker on an example layout; every contact's
/// delivery is checked against an independent re-computation from the raw frames and the plain
/// hit-test (responder chain, multipleTouch, local points through every transform).
@Suite("Tracking real recordings")
struct TrackingRecordingTests {
    /// 1000 × 600: a 3 × 2 grid of tiles, each with a key; tile-0-1 turned 30°, tile-1-2 scaled;
    /// tile-1-1 unsubscribed (its touches go to the root); key-0-0 subscribed itself.
    static let layout: Layout = {
        var tiles: [View] = []
        for row in 0..<2 {
            for column in 0..<3 {
                let key = View(id: "key-\(row)-\(column)", frame: Rect(x: 40, y: 40, width: 180, height: 160))
                let transform =
                    row == 0 && column == 1
                    ? ViewTransform(rotationDegrees: 30)
                    : row == 1 && column == 2 ? ViewTransform(scaleX: 0.8, scaleY: 1.2) : ViewTransform()
                tiles.append(
                    View(
                        id: "tile-\(row)-\(column)",
                        frame: Rect(
                            x: 20 + Double(column) * 330, y: 10 + Double(row) * 300, width: 300, height: 280),
                        children: [key], transform: transform, multipleTouch: true))
            }
        }
        let root = View(
            id: "kiosk", frame: Rect(x: 0, y: 0, width: 1000, height: 600), children: tiles,
            multipleTouch: true)
        return Layout(screens: [Screen(name: "kiosk", width: 1000, height: 600, root: root)])
    }()

    static let subscribed: Set<String> = [
        "kiosk", "tile-0-0", "tile-0-1", "tile-0-2", "tile-1-0", "tile-1-2", "key-0-0",
    ]

    static let recordings = Fixtures.evemuEvents + Fixtures.libinputRecords

    @Test(arguments: recordings)
    func everyContactIsDeliveredAsThePlainHitTestSays(relativePath: String) throws {
        let recording = try Recording.load(path: Fixtures.path(relativePath))
        let device = InputDevice(id: 7, name: recording.device.name)
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: device, screen: "kiosk",
            mapping: try ScreenMapping(screenWidth: 1000, screenHeight: 600))
        var tracker = TouchTracker(layout: Self.layout)
        var model = IndependentModel(screen: Self.layout.screens[0], subscribed: Self.subscribed)
        var checkedContacts = 0
        for frame in frames {
            let messages = tracker.process(.frame(frame), subscribedViews: Self.subscribed)
            let expected = model.apply(frame)
            // Every changed touch, as the model computes it, is in the tracker's output, and nothing else
            // changed; each message also carries every other live touch of its view, stationary.
            var delivered: [UInt64: (view: String, touch: RoutedTouch)] = [:]
            for message in messages {
                for touch in message.touches where touch.phase != .stationary {
                    delivered[touch.id] = (message.viewID, touch)
                }
                let stationary = Set(message.touches.filter { $0.phase == .stationary }.map(\.id))
                let changed = Set(message.touches.filter { $0.phase != .stationary }.map(\.id))
                let liveOfView = Set(model.live.filter { $0.value.viewID == message.viewID }.keys)
                    .union(expected.filter { $0.viewID == message.viewID && $0.phase.isTerminal }.map(\.id))
                #expect(
                    stationary == liveOfView.subtracting(changed), "\(relativePath) @\(frame.timestampMicros)"
                )
                #expect(message.timestampMicros == frame.timestampMicros)
            }
            #expect(delivered.count == expected.count, "\(relativePath) @\(frame.timestampMicros)")
            for change in expected {
                checkedContacts += 1
                guard let (viewID, touch) = delivered[change.id] else {
                    Issue.record("\(relativePath) @\(frame.timestampMicros): touch \(change.id) missing")
                    continue
                }
                #expect(viewID == change.viewID)
                #expect(touch.phase == change.phase)
                #expect(touch.localPoint == change.localPoint, "bit-identical local point")
                #expect(touch.screenPoint == change.screenPoint)
                #expect(touch.timestampMicros == frame.timestampMicros)
                #expect(touch.device == device)
            }
        }
        #expect(model.live.isEmpty && tracker.activeTouchCount == 0)
        #expect(checkedContacts > 0 && model.began > 0, "\(relativePath) delivered nothing")
        #expect(tracker.statistics.touchesBegan == model.began)
        #expect(tracker.statistics.droppedMultipleTouch == model.droppedMultipleTouch)
        #expect(tracker.statistics.ignoredUnknownSlot == 0 && tracker.statistics.droppedNonFinite == 0)
    }
}

/// The tracker's rules for well-formed input, re-derived with nothing but the plain hit-test.
private struct IndependentModel {
    struct Live {
        var viewID: String
        var hitViewID: String
        /// Child indices from the root to the target view.
        var targetIndexPath: [Int]
        var screenPoint: Point
    }

    struct Change {
        var id: UInt64
        var viewID: String
        var phase: TouchPhase
        var localPoint: Point
        var screenPoint: Point
    }

    let screen: Screen
    let subscribed: Set<String>
    var live: [UInt64: Live] = [:]
    var idOfSlot: [Int32: UInt64] = [:]
    var nextID: UInt64 = 1
    var began: UInt64 = 0
    var droppedMultipleTouch: UInt64 = 0

    init(screen: Screen, subscribed: Set<String>) {
        self.screen = screen
        self.subscribed = subscribed
    }

    func localPoint(_ screenPoint: Point, indexPath: [Int]) -> Point {
        var view = screen.root
        var point = view.convertFromParent(screenPoint)
        for index in indexPath {
            view = view.children[index]
            point = view.convertFromParent(point)
        }
        return point
    }

    func view(at indexPath: [Int]) -> View {
        indexPath.reduce(screen.root) { $0.children[$1] }
    }

    mutating func apply(_ frame: InputFrame) -> [Change] {
        var changes: [Change] = []
        var ended: [UInt64] = []
        for contact in frame.contacts {
            switch contact.kind {
            case .down:
                guard let hit = screen.plainHitTest(contact.screenPoint),
                    let depth = hit.path.lastIndex(where: subscribed.contains)
                else { continue }
                let hitView = view(at: hit.indexPath)
                if !hitView.multipleTouch, live.values.contains(where: { $0.hitViewID == hitView.id }) {
                    droppedMultipleTouch += 1
                    continue
                }
                let id = nextID
                nextID += 1
                began += 1
                let path = Array(hit.indexPath.prefix(depth))
                live[id] = Live(
                    viewID: hit.path[depth], hitViewID: hitView.id, targetIndexPath: path,
                    screenPoint: contact.screenPoint)
                idOfSlot[contact.slot] = id
                changes.append(
                    Change(
                        id: id, viewID: hit.path[depth], phase: .began,
                        localPoint: localPoint(contact.screenPoint, indexPath: path),
                        screenPoint: contact.screenPoint))
            case .motion:
                guard let id = idOfSlot[contact.slot], var touch = live[id],
                    touch.screenPoint != contact.screenPoint
                else { continue }
                touch.screenPoint = contact.screenPoint
                live[id] = touch
                let change = Change(
                    id: id, viewID: touch.viewID, phase: .moved,
                    localPoint: localPoint(contact.screenPoint, indexPath: touch.targetIndexPath),
                    screenPoint: contact.screenPoint)
                if let index = changes.firstIndex(where: { $0.id == id }) {
                    changes[index].localPoint = change.localPoint
                    changes[index].screenPoint = change.screenPoint
                } else {
                    changes.append(change)
                }
            case .up, .cancel:
                guard let id = idOfSlot.removeValue(forKey: contact.slot), let touch = live[id] else {
                    continue
                }
                let phase: TouchPhase = contact.kind == .up ? .ended : .cancelled
                let change = Change(
                    id: id, viewID: touch.viewID, phase: phase,
                    localPoint: localPoint(touch.screenPoint, indexPath: touch.targetIndexPath),
                    screenPoint: touch.screenPoint)
                if let index = changes.firstIndex(where: { $0.id == id }) {
                    changes[index] = change
                } else {
                    changes.append(change)
                }
                ended.append(id)
            }
        }
        for id in ended { live[id] = nil }
        return changes
    }
}
