import Foundation
import Testing
import TouchRouterCore

/// One hand-written hit-test case: a small layout, a screen point and the expected answer.
struct HitCase: Sendable, CustomTestStringConvertible {
    var name: String
    var root: View
    var screenPoint: Point
    /// Ids root → hit view; nil when nothing is hit.
    var expectedPath: [String]?
    /// The hit view's local point, when the case pins it down.
    var expectedLocal: Point? = nil

    var testDescription: String { name }
}

/// A 200×200 root holding the given children.
private func root(_ children: [View], hidden: Bool = false) -> View {
    View(id: "root", frame: Rect(x: 0, y: 0, width: 200, height: 200), children: children, hidden: hidden)
}

private func box(
    _ id: String, _ x: Double, _ y: Double, _ width: Double, _ height: Double, children: [View] = [],
    hidden: Bool = false, alpha: Double = 1, interactive: Bool = true, margin: EdgeMargin = .zero,
    shape: Shape = .rect, transform: ViewTransform = ViewTransform()
) -> View {
    View(
        id: id, frame: Rect(x: x, y: y, width: width, height: height), children: children,
        hidden: hidden, alpha: alpha, interactive: interactive, touchMargin: margin, shape: shape,
        transform: transform)
}

/// A pentagram (one stroke, self-intersecting) around (50, 50), radius 50: its centre is a hole.
private let pentagram: [Point] = (0..<5).map { k in
    let angle = Double(k * 2) * 2 * .pi / 5 - .pi / 2
    return Point(50 + 50 * cos(angle), 50 + 50 * sin(angle))
}

/// Every hit-testing rule, each case run through the plain recursion and the index.
@Suite struct HitTestRuleTests {
    static let cases: [HitCase] = [
        // 1. hidden, alpha, interactive
        HitCase(
            name: "hidden view is skipped", root: root([box("a", 0, 0, 50, 50, hidden: true)]),
            screenPoint: Point(10, 10), expectedPath: ["root"]),
        HitCase(
            name: "hidden view's visible child is skipped with it",
            root: root([box("a", 0, 0, 50, 50, children: [box("b", 0, 0, 10, 10)], hidden: true)]),
            screenPoint: Point(5, 5), expectedPath: ["root"]),
        HitCase(
            name: "alpha 0.0099 is skipped", root: root([box("a", 0, 0, 50, 50, alpha: 0.0099)]),
            screenPoint: Point(10, 10), expectedPath: ["root"]),
        HitCase(
            name: "alpha 0.01 is hit", root: root([box("a", 0, 0, 50, 50, alpha: 0.01)]),
            screenPoint: Point(10, 10), expectedPath: ["root", "a"], expectedLocal: Point(10, 10)),
        HitCase(
            name: "alpha just under 0.01 takes its opaque child with it",
            root: root([box("a", 0, 0, 50, 50, children: [box("b", 0, 0, 50, 50)], alpha: 0.01.nextDown)]),
            screenPoint: Point(20, 30), expectedPath: ["root"]),
        HitCase(
            name: "alpha 0.01 on a parent still lets its child be hit",
            root: root([box("a", 10, 10, 50, 50, children: [box("b", 5, 5, 20, 20)], alpha: 0.01)]),
            screenPoint: Point(20, 30), expectedPath: ["root", "a", "b"], expectedLocal: Point(5, 15)),
        HitCase(
            name: "alpha 0 is skipped", root: root([box("a", 0, 0, 50, 50, alpha: 0)]),
            screenPoint: Point(10, 10), expectedPath: ["root"]),
        HitCase(
            name: "not interactive skips the whole subtree",
            root: root([box("a", 0, 0, 50, 50, children: [box("b", 0, 0, 50, 50)], interactive: false)]),
            screenPoint: Point(10, 10), expectedPath: ["root"]),
        HitCase(
            name: "a skipped top view lets the one below take the point",
            root: root([box("below", 0, 0, 50, 50), box("top", 0, 0, 50, 50, interactive: false)]),
            screenPoint: Point(10, 10), expectedPath: ["root", "below"]),
        HitCase(
            name: "hidden root hits nothing", root: root([box("a", 0, 0, 50, 50)], hidden: true),
            screenPoint: Point(10, 10), expectedPath: nil),
        // 2. point inside: rectangles (CGRect.contains)
        HitCase(
            name: "outside the root hits nothing", root: root([]), screenPoint: Point(-1, 10),
            expectedPath: nil),
        HitCase(
            name: "min edge is inside", root: root([box("a", 10, 10, 20, 20)]),
            screenPoint: Point(10, 10), expectedPath: ["root", "a"], expectedLocal: Point(0, 0)),
        HitCase(
            name: "max x edge is outside", root: root([box("a", 10, 10, 20, 20)]),
            screenPoint: Point(30, 15), expectedPath: ["root"]),
        HitCase(
            name: "max y edge is outside", root: root([box("a", 10, 10, 20, 20)]),
            screenPoint: Point(15, 30), expectedPath: ["root"]),
        HitCase(
            name: "just below the max edge is inside", root: root([box("a", 10, 10, 20, 20)]),
            screenPoint: Point(30.0.nextDown, 15), expectedPath: ["root", "a"]),
        HitCase(
            name: "root's max edge is outside", root: root([]), screenPoint: Point(200, 5),
            expectedPath: nil),
        // touch margins
        HitCase(
            name: "margin takes a point just outside the bounds",
            root: root([box("a", 10, 10, 20, 20, margin: EdgeMargin(all: 5))]),
            screenPoint: Point(7, 12), expectedPath: ["root", "a"], expectedLocal: Point(-3, 2)),
        HitCase(
            name: "margin's min edge is inside",
            root: root([box("a", 10, 10, 20, 20, margin: EdgeMargin(all: 5))]),
            screenPoint: Point(5, 12), expectedPath: ["root", "a"], expectedLocal: Point(-5, 2)),
        HitCase(
            name: "margin's max edge is outside",
            root: root([box("a", 10, 10, 20, 20, margin: EdgeMargin(all: 5))]),
            screenPoint: Point(35, 12), expectedPath: ["root"]),
        HitCase(
            name: "per-edge margin: right reaches, left does not",
            root: root([
                box("a", 10, 10, 20, 20, margin: EdgeMargin(top: 0, left: 0, bottom: 0, right: 30))
            ]),
            screenPoint: Point(55, 12), expectedPath: ["root", "a"], expectedLocal: Point(45, 2)),
        HitCase(
            name: "per-edge margin: no left margin",
            root: root([
                box("a", 10, 10, 20, 20, margin: EdgeMargin(top: 0, left: 0, bottom: 0, right: 30))
            ]),
            screenPoint: Point(9, 12), expectedPath: ["root"]),
        HitCase(
            name: "margin past the parent's bounds is not reachable (the parent rejects first)",
            root: root([
                box(
                    "parent", 50, 50, 20, 20,
                    children: [box("child", 0, 0, 10, 10, margin: EdgeMargin(all: 20))])
            ]),
            screenPoint: Point(45, 45), expectedPath: ["root"]),
        HitCase(
            name: "margin inside the parent's bounds is reachable",
            root: root([
                box(
                    "parent", 50, 50, 20, 20,
                    children: [box("child", 0, 0, 10, 10, margin: EdgeMargin(all: 20))])
            ]),
            screenPoint: Point(65, 65), expectedPath: ["root", "parent", "child"],
            expectedLocal: Point(15, 15)),
        HitCase(
            name: "a child outside its parent's bounds is not reachable",
            root: root([box("parent", 0, 0, 50, 50, children: [box("child", 60, 60, 10, 10)])]),
            screenPoint: Point(65, 65), expectedPath: ["root"]),
        // 3. order
        HitCase(
            name: "last child is on top",
            root: root([box("back", 0, 0, 50, 50), box("front", 20, 20, 50, 50)]),
            screenPoint: Point(30, 30), expectedPath: ["root", "front"], expectedLocal: Point(10, 10)),
        HitCase(
            name: "the back child takes what the front child does not cover",
            root: root([box("back", 0, 0, 50, 50), box("front", 20, 20, 50, 50)]),
            screenPoint: Point(10, 10), expectedPath: ["root", "back"]),
        HitCase(
            name: "the deepest view under the point wins, local point through every level",
            root: root([
                box(
                    "a", 10, 10, 100, 100,
                    children: [box("b", 5, 5, 50, 50, children: [box("c", 1, 2, 10, 10)])])
            ]),
            screenPoint: Point(20, 20), expectedPath: ["root", "a", "b", "c"], expectedLocal: Point(4, 3)),
        HitCase(
            name: "a container with no child under the point is hit itself",
            root: root([box("a", 10, 10, 100, 100, children: [box("b", 0, 0, 10, 10)])]),
            screenPoint: Point(50, 50), expectedPath: ["root", "a"], expectedLocal: Point(40, 40)),
        // transforms
        HitCase(
            name: "rotated child (90°) is hit where it turned to",
            root: root([box("r", 20, 20, 40, 20, transform: ViewTransform(rotationDegrees: 90))]),
            screenPoint: Point(40, 15), expectedPath: ["root", "r"], expectedLocal: Point(5, 10)),
        HitCase(
            name: "rotated child (90°) is not hit where it was",
            root: root([box("r", 20, 20, 40, 20, transform: ViewTransform(rotationDegrees: 90))]),
            screenPoint: Point(25, 30), expectedPath: ["root"]),
        HitCase(
            name: "rotated child (45°) corner is cut",
            root: root([box("r", 50, 50, 40, 40, transform: ViewTransform(rotationDegrees: 45))]),
            screenPoint: Point(52, 52), expectedPath: ["root"]),
        HitCase(
            name: "rotated child (45°) tip reaches past its frame",
            root: root([box("r", 50, 50, 40, 40, transform: ViewTransform(rotationDegrees: 45))]),
            screenPoint: Point(70, 45), expectedPath: ["root", "r"]),
        HitCase(
            name: "scaled child (2×) covers twice its frame about the centre",
            root: root([box("s", 50, 50, 20, 20, transform: ViewTransform(scaleX: 2, scaleY: 2))]),
            screenPoint: Point(75, 75), expectedPath: ["root", "s"], expectedLocal: Point(17.5, 17.5)),
        HitCase(
            name: "scaled child (2×) stops at its scaled edge",
            root: root([box("s", 50, 50, 20, 20, transform: ViewTransform(scaleX: 2, scaleY: 2))]),
            screenPoint: Point(81, 60), expectedPath: ["root"]),
        // UIKit's order: scaled first (in the view's own axes), then rotated.
        HitCase(
            name: "scaled (2, 1) then turned 90°: the long side stands upright",
            root: root([box("t", 100, 90, 100, 20, transform: ViewTransform(rotationDegrees: 90, scaleX: 2))]),
            screenPoint: Point(150, 195), expectedPath: ["root", "t"], expectedLocal: Point(97.5, 10)),
        HitCase(
            name: "scaled (2, 1) then turned 90°: not as wide as turned then scaled",
            root: root([box("t", 100, 90, 100, 20, transform: ViewTransform(rotationDegrees: 90, scaleX: 2))]),
            screenPoint: Point(135, 100), expectedPath: ["root"]),
        HitCase(
            name: "mirrored child (scale -1, 1) flips x",
            root: root([box("m", 50, 50, 20, 10, transform: ViewTransform(scaleX: -1, scaleY: 1))]),
            screenPoint: Point(52, 55), expectedPath: ["root", "m"], expectedLocal: Point(18, 5)),
        HitCase(
            name: "zero scale is never hit",
            root: root([box("z", 50, 50, 20, 10, transform: ViewTransform(scaleX: 0, scaleY: 1))]),
            screenPoint: Point(60, 55), expectedPath: ["root"]),
        // shapes
        HitCase(
            name: "a rounded radius past half the height makes a pill: its end is round, not cut",
            root: root([box("pill", 10, 50, 180, 40, shape: .roundedRect(radius: 100))]),
            screenPoint: Point(15, 70), expectedPath: ["root", "pill"], expectedLocal: Point(5, 20)),
        HitCase(
            name: "rounded corner cuts the corner",
            root: root([box("rr", 0, 0, 40, 40, shape: .roundedRect(radius: 10))]),
            screenPoint: Point(1, 1), expectedPath: ["root"]),
        HitCase(
            name: "rounded corner inside the arc",
            root: root([box("rr", 0, 0, 40, 40, shape: .roundedRect(radius: 10))]),
            screenPoint: Point(3, 3), expectedPath: ["root", "rr"]),
        HitCase(
            name: "rounded rect with margin reaches past its corner arc",
            root: root([
                box("rr", 20, 20, 40, 40, margin: EdgeMargin(all: 5), shape: .roundedRect(radius: 10))
            ]),
            screenPoint: Point(17, 25), expectedPath: ["root", "rr"], expectedLocal: Point(-3, 5)),
        HitCase(
            name: "rounded rect with margin still rounds its grown corner",
            root: root([
                box("rr", 20, 20, 40, 40, margin: EdgeMargin(all: 5), shape: .roundedRect(radius: 10))
            ]),
            screenPoint: Point(19, 19), expectedPath: ["root"]),
        HitCase(
            name: "ellipse edge is inside (its rightmost point)",
            root: root([box("e", 0, 0, 40, 20, shape: .ellipse)]),
            screenPoint: Point(40, 10), expectedPath: ["root", "e"], expectedLocal: Point(40, 10)),
        HitCase(
            name: "just past the ellipse edge is outside",
            root: root([box("e", 0, 0, 40, 20, shape: .ellipse)]),
            screenPoint: Point(40.0.nextUp, 10), expectedPath: ["root"]),
        HitCase(
            name: "ellipse's extreme point is inside",
            root: root([box("e", 10, 10, 40, 20, shape: .ellipse)]),
            screenPoint: Point(10, 20), expectedPath: ["root", "e"], expectedLocal: Point(0, 10)),
        HitCase(
            name: "ellipse excludes its bounding box corner",
            root: root([box("e", 10, 10, 40, 20, shape: .ellipse)]),
            screenPoint: Point(11, 11), expectedPath: ["root"]),
        HitCase(
            name: "ellipse with margin reaches past its bounds",
            root: root([box("e", 10, 10, 40, 20, margin: EdgeMargin(all: 4), shape: .ellipse)]),
            screenPoint: Point(7, 20), expectedPath: ["root", "e"], expectedLocal: Point(-3, 10)),
        HitCase(
            name: "polygon min edge is inside",
            root: root([box("p", 0, 0, 10, 10, shape: .polygon([Point(0, 0), Point(10, 0), Point(0, 10)]))]),
            screenPoint: Point(5, 0), expectedPath: ["root", "p"]),
        HitCase(
            name: "polygon hypotenuse is outside",
            root: root([box("p", 0, 0, 10, 10, shape: .polygon([Point(0, 0), Point(10, 0), Point(0, 10)]))]),
            screenPoint: Point(5, 5), expectedPath: ["root"]),
        HitCase(
            name: "polygon vertex at the min corner is inside",
            root: root([box("p", 0, 0, 10, 10, shape: .polygon([Point(0, 0), Point(10, 0), Point(0, 10)]))]),
            screenPoint: Point(0, 0), expectedPath: ["root", "p"]),
        HitCase(
            name: "polygon vertex at the far end of the min edge is outside",
            root: root([box("p", 0, 0, 10, 10, shape: .polygon([Point(0, 0), Point(10, 0), Point(0, 10)]))]),
            screenPoint: Point(10, 0), expectedPath: ["root"]),
        HitCase(
            name: "polygon outside the bounds is still the polygon",
            root: root([
                box("p", 20, 20, 10, 10, shape: .polygon([Point(0, 0), Point(30, 0), Point(0, 30)]))
            ]),
            screenPoint: Point(35, 25), expectedPath: ["root", "p"], expectedLocal: Point(15, 5)),
        HitCase(
            name: "self-intersecting polygon: the even-odd hole is outside",
            root: root([box("star", 0, 0, 100, 100, shape: .polygon(pentagram))]),
            screenPoint: Point(50, 50), expectedPath: ["root"]),
        HitCase(
            name: "self-intersecting polygon: a tip is inside",
            root: root([box("star", 0, 0, 100, 100, shape: .polygon(pentagram))]),
            screenPoint: Point(50, 10), expectedPath: ["root", "star"]),
        HitCase(
            name: "polygon with margin takes a point near an edge",
            root: root([
                box(
                    "p", 20, 20, 10, 10, margin: EdgeMargin(all: 3),
                    shape: .polygon([Point(0, 0), Point(10, 0), Point(0, 10)]))
            ]),
            screenPoint: Point(25, 18), expectedPath: ["root", "p"], expectedLocal: Point(5, -2)),
    ]

    @Test("plain recursion and index follow the rule", arguments: cases)
    func rule(_ hitCase: HitCase) {
        let screen = Screen(name: "table", width: 200, height: 200, root: hitCase.root)
        let engines: [(String, HitResult?)] = [
            ("plain", PlainHitTest.hitTest(screen.root, screenPoint: hitCase.screenPoint)),
            ("index", HitTestIndex(screen: screen).hitTest(hitCase.screenPoint)),
            ("gridded index", HitTestIndex(screen: screen, gridThreshold: 1).hitTest(hitCase.screenPoint)),
        ]
        for (engine, result) in engines {
            #expect(result?.path == hitCase.expectedPath, "\(engine)")
            if let expectedLocal = hitCase.expectedLocal {
                #expect(result?.localPoint == expectedLocal, "\(engine)")
            }
            if let result {
                let ids = HitTestRuleTests.ids(along: result.indexPath, from: screen.root)
                #expect(ids == result.path, "\(engine): indexPath and path name the same views")
            }
        }
    }

    static func ids(along indexPath: [Int], from root: View) -> [String] {
        var view = root
        var ids = [root.id]
        for index in indexPath {
            view = view.children[index]
            ids.append(view.id)
        }
        return ids
    }
}

/// The index's API around the hit-test itself.
@Suite struct HitTestIndexAPITests {
    let screen = Screen(
        name: "api", width: 200, height: 200,
        root: View(
            id: "root", frame: Rect(x: 0, y: 0, width: 200, height: 200),
            children: [
                View(
                    id: "panel", frame: Rect(x: 10, y: 20, width: 100, height: 100),
                    children: [
                        View(
                            id: "knob", frame: Rect(x: 5, y: 5, width: 40, height: 20),
                            transform: ViewTransform(rotationDegrees: 30, scaleX: 1.5, scaleY: 1.5))
                    ]),
                View(
                    id: "overlay", frame: Rect(x: 0, y: 0, width: 200, height: 200),
                    children: [View(id: "inside-overlay", frame: Rect(x: 0, y: 0, width: 10, height: 10))],
                    hidden: true),
            ]))

    @Test("localPoint(of:) follows the hit's conversions bit for bit, also after the touch moves")
    func localPointMatchesHit() throws {
        let index = HitTestIndex(screen: screen)
        let hit = try #require(index.hitTest(Point(35, 35)))
        #expect(hit.path == ["root", "panel", "knob"])
        let local = try #require(index.localPoint(of: hit.indexPath, screenPoint: Point(35, 35)))
        #expect(local.x.bitPattern == hit.localPoint.x.bitPattern)
        #expect(local.y.bitPattern == hit.localPoint.y.bitPattern)
        // A moved touch: the same conversions as a fresh hit-test at that point.
        let moved = Point(36.5, 33.25)
        let movedHit = try #require(PlainHitTest.hitTest(screen.root, screenPoint: moved))
        #expect(movedHit.path == hit.path)
        #expect(index.localPoint(of: hit.indexPath, screenPoint: moved) == movedHit.localPoint)
    }

    @Test("localPoint(of:) works for hidden views and rejects paths that name no view")
    func localPointEdgeCases() {
        let index = HitTestIndex(screen: screen)
        #expect(index.localPoint(of: [1, 0], screenPoint: Point(3, 4)) == Point(3, 4))
        #expect(index.localPoint(of: [], screenPoint: Point(3, 4)) == Point(3, 4))
        #expect(index.localPoint(of: [2], screenPoint: Point(3, 4)) == nil)
        #expect(index.localPoint(of: [0, 0, 0], screenPoint: Point(3, 4)) == nil)
    }

    @Test("views that can never be hit are left out of the index")
    func untouchableViewsAreLeftOut() {
        let index = HitTestIndex(screen: screen)
        #expect(index.indexedViewCount == 3)  // root, panel, knob; not the hidden overlay subtree
        #expect(screen.makeHitTestIndex().hitTest(Point(5, 5))?.path == ["root"])
    }

    @Test("a hidden root gives an empty index that hits nothing")
    func hiddenRoot() {
        var hiddenScreen = screen
        hiddenScreen.root.hidden = true
        let index = HitTestIndex(screen: hiddenScreen)
        #expect(index.indexedViewCount == 0)
        #expect(index.hitTest(Point(5, 5)) == nil)
    }
}
