import Foundation
import Testing

@testable import TouchRouterCore

/// A random sequence of setView / mount / unmount requests and touches: after every step the
/// run-time layout equals a reference tree edited directly, and the tracker (with the layout
/// swapped in after each change) answers what the plain hit-test on that tree answers: began
/// targets and local points, moves through the changed tree, `view-removed` exactly when the
/// touch's view went.
@Suite("Run-time layout properties")
struct RuntimePropertyTests {
    static let allIDs: Set<String> = Set(
        ["main", "static", "app", "ok", "list", "panel", "placeholder", "pin"] + (0..<10).map { "m\($0)" })
    static let changeable = ["app", "ok", "list", "panel", "placeholder", "pin"]

    struct Model {
        var random: SeededRandom
        var runtime: RuntimeLayout
        var reference: Layout
        let originalPanelChildren: [View]
        var tracker: TouchTracker
        var time: UInt64 = 1000
        /// The finger down, and the view it is delivered to.
        var touch: (id: UInt64, viewID: String, screenPoint: Point)?
        var slot: Int32 = 0
        /// Something is mounted at "panel".
        var mounted = false
        let owner = RuntimeLayoutTests.client(0)

        init(seed: UInt64) throws {
            random = SeededRandom(seed: seed)
            let config = try RuntimeLayoutTests.config()
            runtime = RuntimeLayout(base: config)
            reference = config.layout
            originalPanelChildren = Self.find("panel", in: reference.screens[0].root)!.last!.children
            tracker = TouchTracker(layout: config.layout)
        }

        static func find(_ id: String, in root: View) -> [View]? {
            if root.id == id { return [root] }
            for child in root.children {
                if let chain = find(id, in: child) { return [root] + chain }
            }
            return nil
        }

        static func edit(_ id: String, in view: inout View, _ body: (inout View) -> Void) {
            if view.id == id { return body(&view) }
            for index in view.children.indices { edit(id, in: &view.children[index], body) }
        }

        mutating func number(_ range: ClosedRange<Double>) -> Double {
            (Double.random(in: range, using: &random) * 4).rounded() / 4
        }

        mutating func step() throws {
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2: try setView()
            case 3, 4: try mount()
            case 5: try unmount()
            default: touchStep()
            }
            #expect(runtime.effective.layout == reference)
        }

        mutating func setView() throws {
            let id = RuntimePropertyTests.changeable.randomElement(using: &random)!
            guard runtime.contains(id) else { return }
            var fields: [String] = []
            var edits: [(inout View) -> Void] = []
            if Bool.random(using: &random) {
                let hidden = Int.random(in: 0..<4, using: &random) == 0
                fields.append("\"hidden\":\(hidden)")
                edits.append { $0.hidden = hidden }
            }
            if Bool.random(using: &random) {
                let frame = Rect(
                    x: number(0...300), y: number(0...300), width: number(1...400), height: number(1...400))
                fields.append("\"frame\":[\(frame.x),\(frame.y),\(frame.width),\(frame.height)]")
                edits.append { $0.frame = frame }
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                let degrees = [0.0, 90, 30, -45].randomElement(using: &random)!
                fields.append("\"transform\":{\"rotate\":\(degrees),\"scale\":1.5}")
                edits.append { $0.transform = ViewTransform(rotationDegrees: degrees, scaleX: 1.5, scaleY: 1.5) }
            }
            if Int.random(in: 0..<4, using: &random) == 0 {
                let interactive = Bool.random(using: &random)
                fields.append("\"interactive\":\(interactive)")
                edits.append { $0.interactive = interactive }
            }
            let invalid = Int.random(in: 0..<6, using: &random) == 0
            if invalid { fields.append("\"alpha\":1.5") }
            if fields.isEmpty {
                fields.append("\"alpha\":0.005")
                edits.append { $0.alpha = 0.005 }
            }
            let request = RuntimeRequest.setView([(id, RuntimeLayoutTests.node("{\(fields.joined(separator: ","))}"))])
            let result = runtime.apply(request, by: owner)
            #expect(((try? result.get()) != nil) == !invalid, "\(fields)")
            guard !invalid else { return }
            Self.edit(id, in: &reference.screens[0].root) { view in for edit in edits { edit(&view) } }
            swap()
        }

        mutating func randomViews(depth: Int, used: inout Set<String>) -> [View] {
            var views: [View] = []
            for _ in 0..<Int.random(in: (depth == 0 ? 1 : 0)...3, using: &random) {
                let id = "m\(Int.random(in: 0..<10, using: &random))"
                guard used.insert(id).inserted else { continue }
                var view = View(
                    id: id,
                    frame: Rect(x: number(0...300), y: number(0...300), width: number(1...200), height: number(1...200))
                )
                view.hidden = Int.random(in: 0..<6, using: &random) == 0
                if depth < 2 { view.children = randomViews(depth: depth + 1, used: &used) }
                views.append(view)
            }
            return views
        }

        static func json(_ views: [View]) -> String {
            "["
                + views.map { view in
                    "{\"id\":\"\(view.id)\",\"frame\":[\(view.frame.x),\(view.frame.y),\(view.frame.width),\(view.frame.height)],"
                        + "\"hidden\":\(view.hidden),\"children\":\(json(view.children))}"
                }.joined(separator: ",") + "]"
        }

        mutating func mount() throws {
            var used: Set<String> = []
            var views = randomViews(depth: 0, used: &used)
            let collides = Int.random(in: 0..<6, using: &random) == 0
            if collides { views.append(View(id: "ok", frame: Rect(x: 0, y: 0, width: 1, height: 1))) }
            let result = runtime.apply(
                .mount(viewID: "panel", children: RuntimeLayoutTests.node(Self.json(views))), by: owner)
            #expect(((try? result.get()) != nil) == !collides)
            guard !collides else { return }
            Self.edit("panel", in: &reference.screens[0].root) { $0.children = views }
            mounted = true
            swap()
        }

        mutating func unmount() throws {
            let changed = try runtime.apply(.unmount(viewID: "panel"), by: owner).get()
            #expect(changed == (mounted ? ["panel"] : []))
            guard mounted else { return }
            Self.edit("panel", in: &reference.screens[0].root) { $0.children = originalPanelChildren }
            mounted = false
            swap()
        }

        /// The new layout swapped in under the finger: it goes on if its view is still there (by
        /// id), else it is cancelled now with `view-removed`.
        mutating func swap() {
            time += 10
            let output = tracker.replaceLayout(runtime.effective.layout, timestampMicros: time)
            guard let touch else {
                #expect(output.isEmpty)
                return
            }
            let stillThere = Self.find(touch.viewID, in: reference.screens[0].root) != nil
            if stillThere {
                #expect(output.isEmpty)
            } else {
                #expect(output.count == 1 && output.first?.touches.first?.cancelReason == .viewRemoved)
                self.touch = nil
            }
        }

        func frame(_ contact: ContactEvent) -> InputEvent {
            .frame(InputFrame(device: device(1), screen: "main", timestampMicros: time, contacts: [contact]))
        }

        mutating func touchStep() {
            time += 10
            let point = Point(number(0...1000), number(0...1000))
            guard let current = touch else {
                slot += 1
                let output = tracker.process(
                    frame(down(slot, point.x, point.y)), subscribedViews: RuntimePropertyTests.allIDs)
                let hit = PlainHitTest.hitTest(reference.screens[0].root, screenPoint: point)
                #expect(output.first?.viewID == hit?.viewID)
                if let began = output.first?.touches.first {
                    #expect(began.phase == .began && began.localPoint == hit?.localPoint)
                    touch = (began.id, output[0].viewID, point)
                }
                return
            }
            if Int.random(in: 0..<4, using: &random) == 0 {
                let output = tracker.process(frame(up(slot)), subscribedViews: RuntimePropertyTests.allIDs)
                #expect(output.first?.touches.first?.phase == .ended)
                touch = nil
                return
            }
            let output = tracker.process(
                frame(move(slot, point.x, point.y)), subscribedViews: RuntimePropertyTests.allIDs)
            guard point != current.screenPoint else { return }
            // Delivered to the same view, hidden or not, in its new coordinates.
            let chain = Self.find(current.viewID, in: reference.screens[0].root)!
            let local = chain.reduce(point) { $1.convertFromParent($0) }
            #expect(output.first?.viewID == current.viewID)
            #expect(output.first?.touches.first?.localPoint == local)
            touch?.screenPoint = point
        }
    }

    @Test(arguments: 0..<40)
    func theRunTimeLayoutAndTheTrackerAgreeWithAFromScratchTree(seed: UInt64) throws {
        var model = try Model(seed: seed + 1)
        for _ in 0..<150 { try model.step() }
    }
}
