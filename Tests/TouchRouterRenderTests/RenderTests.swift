import Foundation
import Testing
import TouchRouterCore
import TouchRouterRender

/// The picture's pure parts: effective regions tile the screen exactly as the hit-test answers,
/// labels never overlap, traces record what the tracker did.
@Suite struct RenderTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func screen(_ relativePath: String, _ name: String? = nil) throws -> Screen {
        let path = root.appendingPathComponent(relativePath)
        let layout = try Config.parse(Data(contentsOf: path), fileName: path.path).layout
        return name.flatMap(layout.screen(named:)) ?? layout.screens[0]
    }

    /// A small screen with every shape, a rotation, a margin reaching past its parent, a hidden and
    /// a non-interactive view, and an uncovered strip (root narrower than the screen).
    static let mixed = Screen(
        name: "mixed", width: 120, height: 90,
        root: View(
            id: "root", frame: Rect(x: 0, y: 0, width: 100, height: 90),
            children: [
                View(id: "ring", frame: Rect(x: 10, y: 10, width: 30, height: 30), shape: .ellipse),
                View(
                    id: "pill", frame: Rect(x: 50, y: 10, width: 40, height: 20),
                    touchMargin: EdgeMargin(all: 4),
                    shape: .roundedRect(radius: 10)),
                View(
                    id: "tilted", frame: Rect(x: 20, y: 50, width: 50, height: 15),
                    transform: ViewTransform(rotationDegrees: 30)),
                View(
                    id: "arrow", frame: Rect(x: 70, y: 45, width: 30, height: 30),
                    touchMargin: EdgeMargin(all: 3),
                    shape: .polygon([Point(0, 0), Point(30, 15), Point(0, 30)])),
                View(id: "ghost", frame: Rect(x: 0, y: 0, width: 100, height: 90), hidden: true),
                View(
                    id: "edge", frame: Rect(x: 90, y: 0, width: 10, height: 90),
                    children: [View(id: "inside-edge", frame: Rect(x: 0, y: 0, width: 5, height: 5))],
                    interactive: false),
            ]))

    @Test("regions tile the screen: every cell belongs to the view the hit-test gives it, once")
    func regionsTileTheScreen() throws {
        for screen in [Self.mixed, try Self.screen("Tests/Fixtures/layouts/ep0430m09-split.json5")] {
            let index = screen.makeHitTestIndex()
            let regions = EffectiveRegions(index: index)
            var owner = [Int](repeating: -2, count: regions.columns * regions.rows)
            var twice = 0
            for (view, rects) in regions.rectangles {
                for rect in rects {
                    for row in Int(rect.minY)..<Int(rect.maxY) {
                        for column in Int(rect.minX)..<Int(rect.maxX) {
                            if owner[row * regions.columns + column] != -2 { twice += 1 }
                            owner[row * regions.columns + column] = view
                        }
                    }
                }
            }
            #expect(twice == 0, "\(screen.name): \(twice) cells in two rectangles")
            var misses = 0
            var wrong: [String] = []
            for row in 0..<regions.rows {
                for column in 0..<regions.columns {
                    let expected = index.hit(Point(Double(column) + 0.5, Double(row) + 0.5))?.viewIndex ?? -2
                    if expected == -2 { misses += 1 }
                    if owner[row * regions.columns + column] != expected, wrong.count < 5 {
                        wrong.append(
                            "cell \(column),\(row): drawn \(owner[row * regions.columns + column]), hit \(expected)"
                        )
                    }
                }
            }
            #expect(wrong.isEmpty, "\(screen.name): \(wrong)")
            #expect(misses == regions.missCells)
            #expect(regions.cellCounts.values.reduce(0, +) + misses == regions.columns * regions.rows)
        }
    }

    @Test("the kiosk's labels: every key labelled large, no two labels overlap, all on screen")
    func kioskLabels() throws {
        let screen = try Self.screen("config/kiosk.json5")
        let picture = LayoutPicture(index: screen.makeHitTestIndex())
        let labels = picture.labels
        for (i, a) in labels.enumerated() {
            for b in labels[(i + 1)...] {
                let overlap =
                    a.box.x < b.box.maxX && b.box.x < a.box.maxX && a.box.y < b.box.maxY
                    && b.box.y < a.box.maxY
                #expect(
                    !overlap, "\(picture.views[a.viewIndex].view.id) / \(picture.views[b.viewIndex].view.id)")
            }
            #expect(a.box.x >= 0 && a.box.maxX <= screen.width && a.box.y >= 0 && a.box.maxY <= screen.height)
        }
        let sizes = Dictionary(
            uniqueKeysWithValues: labels.map { (picture.views[$0.viewIndex].view.id, $0.fontSize) })
        for key in [
            "key1", "key2", "key3", "key4", "key5", "key6", "key7", "key8", "key9", "key0", "key-clear",
        ]
            + ["key-ok", "cancel", "pay", "help", "logo", "more-tickets", "offer-ribbon"]
        {
            #expect((sizes[key] ?? 0) >= 16, "\(key): \(sizes[key] ?? 0)")
        }
        #expect(sizes["out-of-service"] == nil, "hidden views are not labelled without --hidden")
    }

    @Test("colours: distinct per view, never the miss red or the inert grey")
    func colours() throws {
        let screen = try Self.screen("config/kiosk.json5")
        let picture = LayoutPicture(index: screen.makeHitTestIndex())
        let colours = picture.views.compactMap(\.colour)
        #expect(Set(colours).count == colours.count)
        #expect(!colours.contains(Palette.miss) && !colours.contains(Palette.inert))
        #expect(
            picture.colour(ofView: "amount-display") == nil && picture.colour(ofView: "amount-digits") == nil)
        #expect(picture.colour(ofView: "key5") != nil)
    }

    static func frame(_ time: UInt64, _ contacts: [ContactEvent]) -> InputFrame {
        InputFrame(
            device: InputDevice(id: 1, name: "test"), screen: "mixed", timestampMicros: time,
            contacts: contacts)
    }

    @Test("traces: delivered, dropped by multipleTouch, missed, each with its path")
    func traces() {
        let frames = [
            Self.frame(0, [ContactEvent(kind: .down, slot: 0, screenPoint: Point(25, 25))]),
            Self.frame(10, [ContactEvent(kind: .motion, slot: 0, screenPoint: Point(26, 27))]),
            // A second finger on "ring" (multipleTouch false): dropped; one outside the root: missed.
            Self.frame(
                20,
                [
                    ContactEvent(kind: .down, slot: 1, screenPoint: Point(20, 20)),
                    ContactEvent(kind: .down, slot: 2, screenPoint: Point(110, 40)),
                ]),
            Self.frame(30, [ContactEvent(kind: .motion, slot: 2, screenPoint: Point(112, 41))]),
            Self.frame(
                40,
                [
                    ContactEvent(kind: .up, slot: 0), ContactEvent(kind: .up, slot: 1),
                    ContactEvent(kind: .up, slot: 2),
                ]),
        ]
        let traces = TraceRecorder.traces(
            of: frames, layout: Layout(screens: [Self.mixed]), screen: "mixed",
            subscribedViews: Set(["ring", "root"]))
        #expect(
            traces == [
                TouchTrace(outcome: .delivered(viewID: "ring"), points: [Point(25, 25), Point(26, 27)]),
                TouchTrace(outcome: .dropped(hitViewID: "ring"), points: [Point(20, 20)]),
                TouchTrace(outcome: .missed, points: [Point(110, 40), Point(112, 41)]),
            ])
        // Subscribed only at the root: the touch climbs the responder chain to it.
        let climbed = TraceRecorder.traces(
            of: Array(frames.prefix(2)), layout: Layout(screens: [Self.mixed]), screen: "mixed",
            subscribedViews: Set(["root"]))
        #expect(climbed.first?.outcome == .delivered(viewID: "root"))
    }

    @Test("the SVG: hidden views only with showHidden, inert views grey, misses red")
    func svgDocument() {
        var picture = LayoutPicture(index: Self.mixed.makeHitTestIndex())
        picture.traces = [TouchTrace(outcome: .missed, points: [Point(110, 40)])]
        let svg = picture.svg()
        #expect(svg.hasPrefix("<?xml") && svg.hasSuffix("</svg>\n"))
        #expect(!svg.contains(#"data-view="ghost""#))
        #expect(svg.contains(#"<g data-view="inside-edge""#))
        #expect(svg.contains(#"data-outcome="missed" cx="110" cy="40" r="10" fill="\#(Palette.miss)""#))
        let withHidden = LayoutPicture(
            index: Self.mixed.makeHitTestIndex(), options: RenderOptions(showHidden: true))
        #expect(withHidden.svg().contains(#"<g data-view="ghost""#))
    }
}
