import Foundation
import Testing
import TouchRouterCore
import TouchRouterRender

/// Passthrough in the picture: the hatch covers exactly the cells a touch-down would be passed
/// through from (the daemon's climb rule), `passthrough: false` views are marked, and a layout
/// without passthrough draws nothing new.
@Suite struct PassthroughPictureTests {
    static func config(_ relativePath: String) throws -> Config {
        let path = RenderTests.root.appendingPathComponent(relativePath)
        return try Config.parse(Data(contentsOf: path), fileName: path.path)
    }

    static func picture(_ config: Config, subscribed: Set<String> = []) -> LayoutPicture {
        picture(
            config.layout.screens[0], access: Set(config.viewAccess.keys), passthrough: config.viewPassthrough,
            subscribed: subscribed)
    }

    static func picture(
        _ screen: Screen, access: Set<String>, passthrough: [String: PassthroughSettings],
        subscribed: Set<String> = []
    ) -> LayoutPicture {
        LayoutPicture(
            index: screen.makeHitTestIndex(),
            options: RenderOptions(accessListViews: access, passthrough: passthrough, subscribedViews: subscribed))
    }

    /// The text of the group `<g id="ID" …> … </g>` (groups inside it have none).
    static func group(_ id: String, in svg: String) -> String? {
        guard let start = svg.range(of: "<g id=\"\(id)\"") else { return nil }
        guard let end = svg.range(of: "</g>", range: start.upperBound..<svg.endIndex) else { return nil }
        return String(svg[start.lowerBound..<end.upperBound])
    }

    /// The hatched paths of the passthrough group: view id → (mode, the cells its rectangles cover,
    /// each counted as often as it is covered).
    static func hatched(_ svg: String, width: Int) throws -> [String: (mode: String, cells: [Int: Int])] {
        let group = try #require(Self.group("passthrough", in: svg))
        var result: [String: (mode: String, cells: [Int: Int])] = [:]
        let path = /<path data-view="([^"]+)" data-mode="([^"]+)" fill="url\(#passthrough-hatch\)" d="([^"]*)"/
        let rect = /M([0-9.]+) ([0-9.]+)h([0-9.]+)v([0-9.]+)h-[0-9.]+z/
        for match in group.matches(of: path) {
            var cells: [Int: Int] = [:]
            for r in match.output.3.matches(of: rect) {
                let (x, y) = (Int(r.output.1)!, Int(r.output.2)!)
                let (w, h) = (Int(r.output.3)!, Int(r.output.4)!)
                for row in y..<(y + h) {
                    for column in x..<(x + w) { cells[row * width + column, default: 0] += 1 }
                }
            }
            result[String(match.output.1)] = (String(match.output.2), cells)
        }
        return result
    }

    /// The screen's cells outside the given rectangles.
    static func cells(width: Int, height: Int, minus holes: [(Int, Int, Int, Int)]) -> Set<Int> {
        var cells: Set<Int> = []
        for row in 0..<height {
            for column in 0..<width
            where !holes.contains(where: { column >= $0.0 && column < $0.0 + $0.2 && row >= $0.1 && row < $0.1 + $0.3 })
            {
                cells.insert(row * width + column)
            }
        }
        return cells
    }

    @Test(
        "browser kiosk: the hatch covers the browser minus the card reader, and minus the PIN pad once subscribed",
        arguments: [false, true])
    func browserKioskHatch(pinPadSubscribed: Bool) throws {
        let config = try Self.config("config/browser-kiosk.json5")
        let picture = Self.picture(config, subscribed: pinPadSubscribed ? ["pin-pad"] : [])
        let svg = picture.svg()
        let hatched = try Self.hatched(svg, width: 1920)
        #expect(Array(hatched.keys) == ["browser"])
        let browser = try #require(hatched["browser"])
        #expect(browser.mode == "touch")
        #expect(browser.cells.values.allSatisfy { $0 == 1 }, "no cell hatched twice")
        let cardReader = (1320, 980, 560, 100)
        let pinPad = (1320, 240, 560, 720)
        let expected = Self.cells(
            width: 1920, height: 1080, minus: pinPadSubscribed ? [cardReader, pinPad] : [cardReader])
        #expect(Set(browser.cells.keys) == expected)
        // Outlined along the region's edges: the screen's, except where the card reader meets its
        // bottom edge, the card reader's top and sides (and the PIN pad's whole outline).
        let outline = try #require(svg.firstMatch(of: /class="passthrough-outline"[^>]* d="([^"]*)"/))
        let length = outline.output.1.matches(of: /[hv]([0-9.]+)/).reduce(0.0) { $0 + Double($1.output.1)! }
        let perimeter: Double = 2 * (1920 + 1080) + 2 * 100 + (pinPadSubscribed ? 2 * (560 + 720) : 0)
        #expect(length == perimeter)
        // One label, with the mode.
        #expect(svg.components(separatedBy: "passed through: virtual touchscreen</text>").count == 2)
        let area = try #require(picture.passthroughAreas.first)
        #expect(picture.passthroughAreas.count == 1)
        #expect(area.cells == expected.count)
        // The label names the mode.
        var pointer = config
        pointer.viewPassthrough["browser"] = PassthroughSettings(mode: .pointer)
        let pointerSVG = Self.picture(pointer).svg()
        #expect(pointerSVG.components(separatedBy: "passed through: virtual pointer</text>").count == 2)
        #expect(!pointerSVG.contains("virtual touchscreen"))
    }

    @Test("browser kiosk: the card reader's passthrough: false has its mark, the legend keys both")
    func browserKioskStopMark() throws {
        let svg = Self.picture(try Self.config("config/browser-kiosk.json5")).svg()
        let stops = try #require(Self.group("passthrough-stops", in: svg))
        let marks = stops.matches(
            of: /<g data-view="([^"]+)" class="passthrough-stop" transform="translate\(([0-9.]+) ([0-9.]+)\)">/)
        #expect(marks.map { String($0.output.1) } == ["card-reader"])
        // Top-right corner of [1320, 980, 560, 100].
        #expect(marks.first.map { "\($0.output.2) \($0.output.3)" } == "1858 984")
        let legend = try #require(svg.range(of: "<g id=\"legend\"")).lowerBound
        let key = svg[legend...]
        #expect(key.contains("hatched: passed through (97.3%)"))
        #expect(key.contains("(as if no program subscribed)"))
        #expect(key.contains("passthrough: false (never passed through)"))
        #expect(key.contains("class=\"passthrough-stop\""))
        #expect(key.contains("card-reader  2.7%  [passthrough: false]"))
        #expect(key.contains("[passthrough: touch]"))
    }

    /// A root with no key; a pointer region holding an access-list view, an unsubscribed child and a
    /// `passthrough: false` child with a passthrough island inside it.
    static let nested = Screen(
        name: "nested", width: 100, height: 60,
        root: View(
            id: "root", frame: Rect(x: 0, y: 0, width: 100, height: 60),
            children: [
                View(
                    id: "page", frame: Rect(x: 0, y: 0, width: 60, height: 60),
                    children: [
                        View(id: "locked", frame: Rect(x: 0, y: 0, width: 10, height: 10)),
                        View(id: "blank", frame: Rect(x: 10, y: 0, width: 10, height: 10)),
                        View(
                            id: "off", frame: Rect(x: 0, y: 30, width: 40, height: 30),
                            children: [View(id: "island", frame: Rect(x: 0, y: 0, width: 10, height: 10))]),
                    ])
            ]))

    @Test("nested: an access list and passthrough: false cut holes, an island inside the hole passes again")
    func nestedRegions() throws {
        let passthrough: [String: PassthroughSettings] = [
            "page": PassthroughSettings(mode: .pointer), "off": .stop, "island": .touch,
        ]
        let svg = Self.picture(Self.nested, access: ["locked"], passthrough: passthrough).svg()
        let hatched = try Self.hatched(svg, width: 100)
        #expect(Set(hatched.keys) == ["page", "island"])
        #expect(hatched["page"]?.mode == "pointer")
        #expect(hatched["island"]?.mode == "touch")
        let page = Self.cells(width: 60, height: 60, minus: [(0, 0, 10, 10), (0, 30, 40, 30)])
            .map { $0 / 60 * 100 + $0 % 60 }
        #expect(Set(try #require(hatched["page"]).cells.keys) == Set(page))
        let island = Set((30..<40).flatMap { row in (0..<10).map { row * 100 + $0 } })
        #expect(Set(try #require(hatched["island"]).cells.keys) == island)
        // Subscribing to `blank` ends its climb there: no longer passed through.
        let subscribed = try Self.hatched(
            Self.picture(Self.nested, access: ["locked"], passthrough: passthrough, subscribed: ["blank"]).svg(),
            width: 100)
        #expect(subscribed["page"]?.cells.count == page.count - 100)
    }

    @Test("no passthrough key: no hatch, no mark, no legend rows: the SVG is the one without the options")
    func noPassthroughNoMarks() throws {
        let config = try Self.config("config/kiosk.json5")
        #expect(config.viewPassthrough.isEmpty)
        let index = config.layout.screens[0].makeHitTestIndex()
        let access = Set(config.viewAccess.keys)
        let svg = Self.picture(config, subscribed: ["content"]).svg()
        #expect(svg == LayoutPicture(index: index, options: RenderOptions(accessListViews: access)).svg())
        #expect(!svg.contains("passthrough"))
        #expect(!svg.contains("passed through"))
    }
}
