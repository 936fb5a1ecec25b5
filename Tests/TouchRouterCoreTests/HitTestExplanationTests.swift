import Foundation
import Testing
import TouchRouterCore

/// The explanation is the plain walk recorded: it must agree with `hit-test` (the daemon's index
/// and the plain recursion) on every point, and every step must be the rule the seeds state.
///
/// Re-run one failing tree with `TOUCHROUTER_EXPLAIN_SEED=<seed> swift test --filter HitTestExplanation`.
@Suite struct HitTestExplanationTests {
    static let blocks = Array(0..<4)
    static let treesPerBlock = 60
    static let pointsPerTree = 300

    @Test("the explanation agrees with hit-test on random layouts", arguments: blocks)
    func agreesWithHitTest(block: Int) {
        SeededTrees.run(
            block: block, treesPerBlock: Self.treesPerBlock, seedBase: 0xE7A1_0000, points: Self.pointsPerTree,
            replay: "TOUCHROUTER_EXPLAIN_SEED", replayPoints: 5_000
        ) { checkTree(seed: $0, pointCount: $1) }
    }

    /// Checks one tree; false (with the seed recorded) on the first problem.
    @discardableResult
    func checkTree(seed: UInt64, pointCount: Int) -> Bool {
        var generator = LayoutGenerator(seed: seed)
        let viewCount = Int(1 + generator.random.next() % 150)
        let screen = generator.screen(viewCount: viewCount)
        let index = HitTestIndex(screen: screen)
        for point in generator.points(on: screen, count: pointCount) {
            let explanation = HitTestExplanation(screen: screen, screenPoint: point)
            if let problem = Self.problem(explanation, screen: screen, index: index) {
                Issue.record(
                    """
                    seed \(seed) (replay: TOUCHROUTER_EXPLAIN_SEED=\(seed)), point \
                    (\(point.x.debugDescription), \(point.y.debugDescription)): \(problem)
                    """)
                return false
            }
        }
        return true
    }

    /// What is wrong with an explanation (nil when nothing), re-derived from the tree by the rules.
    static func problem(_ explanation: HitTestExplanation, screen: Screen, index: HitTestIndex) -> String? {
        let expected = index.hitTest(explanation.screenPoint)
        guard HitTestIndexPropertyTests.identical(explanation.result, expected) else {
            return
                "explained \(String(describing: explanation.result)), hit-test \(String(describing: expected))"
        }
        guard explanation.viewID == expected?.viewID, explanation.path == (expected?.path ?? []) else {
            return "view/path differ from hit-test"
        }
        // The views the point went through are exactly the hit path, the last one the hit.
        let through = explanation.steps.filter { $0.outcome == .hit || $0.outcome == .passedToChild }
        if through.map(\.viewID) != explanation.path { return "inside steps \(through.map(\.viewID))" }
        if let last = through.last, last.outcome != .hit || last.indexPath != expected?.indexPath {
            return "the last inside step is not the hit"
        }
        if let expected, let hitStep = through.last,
            !HitTestIndexPropertyTests.bitIdentical(hitStep.localPoint!, expected.localPoint)
        {
            return "hit step's local point \(hitStep.localPoint!) ≠ \(expected.localPoint)"
        }
        // Every step is the rule applied to its view at the point in its parent's space.
        var parentPoints: [[Int]: Point] = [[]: explanation.screenPoint]
        var seen = Set<[Int]>()
        for step in explanation.steps {
            guard seen.insert(step.indexPath).inserted else { return "view \(step.viewID) listed twice" }
            var view = screen.root
            for i in step.indexPath { view = view.children[i] }
            if view.id != step.viewID { return "step \(step.viewID) at \(step.indexPath) is \(view.id)" }
            if step.outcome == .notVisited {
                guard step.reason == .siblingOnTop, let winner = step.wonBy else {
                    return "not-visited without winner"
                }
                let parentPath = Array(step.indexPath.dropLast())
                guard let winnerIndex = expected?.indexPath[parentPath.count],
                    expected.map({ Array($0.indexPath.prefix(parentPath.count)) }) == parentPath,
                    winnerIndex > step.indexPath.last!
                else { return "\(step.viewID) not visited but no sibling on top won" }
                var parent = screen.root
                for i in parentPath { parent = parent.children[i] }
                if parent.children[winnerIndex].id != winner { return "wonBy \(winner)" }
                continue
            }
            guard let parentPoint = parentPoints[Array(step.indexPath.dropLast())] else {
                return "\(step.viewID) visited before its parent was entered"
            }
            switch step.outcome {
            case .skipped:
                switch step.reason {
                case .hidden?: if !view.hidden { return "\(view.id) not hidden" }
                case .transparent?:
                    if view.hidden || view.alpha >= 0.01 { return "\(view.id) not transparent" }
                case .notInteractive?:
                    if view.hidden || view.alpha < 0.01 || view.interactive {
                        return "\(view.id) interactive"
                    }
                case .outsideTouchArea?, .outsideShape?:
                    let local = view.convertFromParent(parentPoint)
                    if view.ignoresTouches || view.containsLocal(local) { return "\(view.id) was inside" }
                    if !HitTestIndexPropertyTests.bitIdentical(local, step.localPoint ?? Point(.nan, .nan)) {
                        return "\(view.id) local point"
                    }
                case .siblingOnTop?, nil: return "skipped \(view.id) without a rule"
                }
            case .hit, .passedToChild:
                let local = view.convertFromParent(parentPoint)
                if view.ignoresTouches || !view.containsLocal(local) { return "\(view.id) was not inside" }
                parentPoints[step.indexPath] = local
            case .notVisited: break
            }
        }
        // Nothing left out: every child of a view the point went into is listed (asked or not).
        for step in through {
            var view = screen.root
            for i in step.indexPath { view = view.children[i] }
            for i in view.children.indices where !seen.contains(step.indexPath + [i]) {
                return "child \(view.children[i].id) of \(view.id) missing from the steps"
            }
        }
        return nil
    }

    static let kiosk: Screen = {
        let config = try! Config.parse(
            Data(contentsOf: RepositoryPaths.exampleConfig), fileName: "kiosk.json5")
        return config.layout.screens[0]
    }()

    struct Case: Sendable, CustomTestStringConvertible {
        var point: Point
        var view: String?
        /// Views that must appear with this outcome and reason.
        var expect: [(String, HitTestExplanation.Step.Outcome, HitTestExplanation.Step.Reason?)]
        var testDescription: String { "(\(point.x), \(point.y)) → \(view ?? "nothing")" }
    }

    static let cases: [Case] = [
        Case(
            point: Point(540, 880), view: "key5",
            expect: [
                ("out-of-service", .skipped, .hidden), ("main", .passedToChild, nil),
                ("key-ok", .skipped, .outsideTouchArea), ("key4", .notVisited, .siblingOnTop),
                ("header", .notVisited, .siblingOnTop), ("amount-display", .notVisited, .siblingOnTop),
            ]),
        // The help button's bounding box corner: inside the bounds, outside the ellipse (+16).
        Case(
            point: Point(952 + 1, 32 + 1), view: "header",
            expect: [("help", .skipped, .outsideShape), ("logo", .skipped, .outsideTouchArea)]),
        // The amount display is not interactive: its parent gets the touch.
        Case(
            point: Point(500, 300), view: "content",
            expect: [("amount-display", .skipped, .notInteractive)]),
        // 8 units left of key5's bounds: inside its 12-unit margin.
        Case(point: Point(240 + 210 - 8, 160 + 420 + 300), view: "key5", expect: [("key5", .hit, nil)]),
        Case(point: Point(-5, 10), view: nil, expect: [("main", .skipped, .outsideTouchArea)]),
    ]

    @Test("explanations of the example kiosk", arguments: cases)
    func kioskCases(_ testCase: Case) {
        let explanation = HitTestExplanation(screen: Self.kiosk, screenPoint: testCase.point)
        #expect(explanation.viewID == testCase.view)
        #expect(Self.problem(explanation, screen: Self.kiosk, index: HitTestIndex(screen: Self.kiosk)) == nil)
        for (viewID, outcome, reason) in testCase.expect {
            let step = explanation.steps.first { $0.viewID == viewID }
            #expect(step?.outcome == outcome, "\(viewID)")
            #expect(step?.reason == reason, "\(viewID)")
        }
    }

    @Test("the margin is named, the chain climbs to a subscriber, exclusiveTouch is noted")
    func deliveryAndNotes() {
        let inMargin = HitTestExplanation(screen: Self.kiosk, screenPoint: Point(442, 880))
        #expect(inMargin.steps.first { $0.viewID == "key5" }?.inTouchMargin == true)
        let chain = HitTestExplanation(
            screen: Self.kiosk, screenPoint: Point(540, 880), subscribedViews: Set(["content"]))
        #expect(chain.chain.map(\.viewID) == ["key5", "keypad", "content"])
        #expect(chain.target == "content")
        let shielded = HitTestExplanation(
            screen: Self.kiosk, screenPoint: Point(540, 880), subscribedViews: Set(["content"]),
            accessListViews: ["keypad"])
        #expect(shielded.target == "keypad" && shielded.chain.last?.declaresAccessList == true)
        let nobody = HitTestExplanation(
            screen: Self.kiosk, screenPoint: Point(540, 880), subscribedViews: Set<String>())
        #expect(nobody.target == nil && nobody.chain.count == 4)
        #expect(chain.notes.contains { $0.rule == "exclusiveTouch" && $0.viewID == "pay" })
        #expect(chain.notes.contains { $0.rule == "multipleTouch" && $0.viewID == "key5" })
        let text = chain.textLines.joined(separator: "\n")
        #expect(text.contains("key5: HIT at (90, 90)"))
        #expect(text.contains("delivered to: content"))
    }

    /// `passthrough` stops the climb as the Router's routing does: a passthrough view is the
    /// target (the compositor gets the touch, multipleTouch does not drop it), `passthrough: false`
    /// is a target that passes nothing, and a subscribed view nearer still takes the touch.
    @Test("passthrough views stop the climb, and the text says the touch is passed through")
    func passthroughStopsTheClimb() {
        let settings: [String: PassthroughSettings] = ["content": .touch, "keypad": .stop]
        let passed = HitTestExplanation(
            screen: Self.kiosk, screenPoint: Point(540, 880), subscribedViews: Set<String>(),
            passthrough: ["content": .touch])
        #expect(passed.target == "content" && passed.chain.last?.passesThrough == true)
        #expect(!passed.notes.contains { $0.rule == "multipleTouch" })
        #expect(passed.textLines.contains { $0.hasPrefix("delivered to: the screen's virtual device") })
        let stopped = HitTestExplanation(
            screen: Self.kiosk, screenPoint: Point(540, 880), subscribedViews: Set<String>(), passthrough: settings)
        #expect(stopped.target == "keypad" && stopped.chain.last?.passesThrough == false)
        let nearer = HitTestExplanation(
            screen: Self.kiosk, screenPoint: Point(540, 880), subscribedViews: Set(["key5"]), passthrough: settings)
        #expect(nearer.target == "key5" && nearer.chain.count == 1)
    }

    @Test("notes say which rule drops the touch now, given the fingers down")
    func notesNow() {
        func notes(_ point: Point, touched: [(String, Bool)]) -> [HitTestExplanation.Note] {
            HitTestExplanation(
                screen: Self.kiosk, screenPoint: point, subscribedViews: Set(["main"]),
                touchedViews: touched.map {
                    HitTestExplanation.TouchedView(viewID: $0.0, exclusiveTouch: $0.1)
                }
            ).notes
        }
        let key5 = Point(540, 880)
        let pay = Point(790, 1570)
        #expect(notes(key5, touched: []).allSatisfy { !$0.appliesNow })
        #expect(
            notes(key5, touched: [("key5", false)]).contains { $0.rule == "multipleTouch" && $0.appliesNow })
        #expect(notes(key5, touched: [("key4", false)]).allSatisfy { !$0.appliesNow })
        let blockedByPay = notes(key5, touched: [("pay", true)])
        #expect(blockedByPay.contains { $0.rule == "exclusiveTouch" && $0.viewID == "pay" && $0.appliesNow })
        #expect(notes(pay, touched: [("key5", false)]).contains { $0.viewID == "pay" && $0.appliesNow })
        #expect(notes(pay, touched: []).allSatisfy { !$0.appliesNow })
        // exclusiveTouch looks at other views only: a finger on pay itself is for multipleTouch.
        let payOnPay = notes(pay, touched: [("pay", true)])
        #expect(payOnPay.contains { $0.rule == "exclusiveTouch" && $0.viewID == "pay" && !$0.appliesNow })
        #expect(!payOnPay.contains { $0.rule == "exclusiveTouch" && $0.appliesNow })
    }

    @Test("the tracker reports the hit views of its live touches")
    func trackerTouchedViews() {
        var tracker = TouchTracker(layout: Layout(screens: [Self.kiosk]))
        let device = InputDevice(id: 1, name: "test")
        _ = tracker.process(
            .frame(
                InputFrame(
                    device: device, screen: "main", timestampMicros: 1,
                    contacts: [
                        ContactEvent(kind: .down, slot: 0, screenPoint: Point(540, 880)),
                        ContactEvent(kind: .down, slot: 1, screenPoint: Point(790, 1570)),
                    ])),
            subscribedViews: Set(["main"]))
        // pay is exclusive and key5 was touched first: pay's touch-down is dropped, key5's is live.
        #expect(tracker.touchedViews(screen: "main") == [.init(viewID: "key5", exclusiveTouch: false)])
        #expect(tracker.touchedViews(screen: "service").isEmpty)
    }

    /// The explanation's delivery target is where the tracker really delivers a touch-down, on
    /// random layouts with random subscriptions (views with access lists stopping the climb).
    @Test("the explained target is the tracker's delivery target", arguments: [0, 1])
    func targetMatchesTracker(block: Int) {
        for tree in 0..<20 {
            let seed = 0x7A26_0000 + UInt64(block * 20 + tree)
            var generator = LayoutGenerator(seed: seed)
            let screen = generator.screen(viewCount: Int(1 + generator.random.next() % 80))
            var ids: [String] = []
            var stack = [screen.root]
            while let view = stack.popLast() {
                ids.append(view.id)
                stack += view.children
            }
            let subscribed = Set(ids.filter { _ in generator.random.next() % 4 == 0 })
            let shields = Set(ids.filter { _ in generator.random.next() % 10 == 0 })
            let routing = subscribed.union(shields)
            var tracker = TouchTracker(layout: Layout(screens: [screen]))
            let device = InputDevice(id: 1, name: "test")
            for (n, point) in generator.points(on: screen, count: 200).enumerated() {
                let explanation = HitTestExplanation(
                    screen: screen, screenPoint: point, subscribedViews: subscribed, accessListViews: shields)
                let time = UInt64(n) * 1_000_000
                let delivered = tracker.process(
                    .frame(
                        InputFrame(
                            device: device, screen: screen.name, timestampMicros: time,
                            contacts: [ContactEvent(kind: .down, slot: 0, screenPoint: point)])),
                    subscribedViews: routing)
                _ = tracker.process(
                    .frame(
                        InputFrame(
                            device: device, screen: screen.name, timestampMicros: time + 1,
                            contacts: [ContactEvent(kind: .up, slot: 0)])),
                    subscribedViews: routing)
                if delivered.first?.viewID != explanation.target {
                    Issue.record(
                        """
                        seed \(seed), point (\(point.x.debugDescription), \(point.y.debugDescription)): \
                        tracker \(String(describing: delivered.first?.viewID)), \
                        explained \(String(describing: explanation.target))
                        """)
                    return
                }
            }
        }
    }

    /// A shaped view missed outside its bounds is outside its touch area; inside its bounds but off
    /// the shape is outside its shape; a plain rectangle is never "outside its shape".
    @Test("a miss is outside the shape only inside the bounds of a shaped view")
    func missReasons() {
        let screen = Screen(
            name: "main", width: 400, height: 400,
            root: View(
                id: "root", frame: Rect(x: 0, y: 0, width: 400, height: 400),
                children: [
                    View(id: "round", frame: Rect(x: 100, y: 100, width: 100, height: 100), shape: .ellipse),
                    View(id: "box", frame: Rect(x: 250, y: 250, width: 100, height: 100)),
                ]))
        func reason(_ view: String, at point: Point) -> HitTestExplanation.Step.Reason? {
            HitTestExplanation(screen: screen, screenPoint: point).steps.first { $0.viewID == view }?.reason
        }
        #expect(reason("round", at: Point(103, 103)) == .outsideShape)
        #expect(reason("round", at: Point(50, 150)) == .outsideTouchArea)
        #expect(reason("box", at: Point(50, 150)) == .outsideTouchArea)
    }
}
