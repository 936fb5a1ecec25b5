import Foundation
import Testing

@testable import TouchRouterCore

/// A touch on the example config and where it must land.
struct ExampleHitCase: CustomTestStringConvertible, Sendable {
    var what: String
    var screen = "main"
    var screenPoint: Point
    var path: [String]?
    var localPoint: Point?

    var testDescription: String { what }
}

@Suite("Example config (config/kiosk.json5)")
struct ConfigExampleTests {
    static func load() throws -> Config {
        try loadConfig(path: RepositoryPaths.exampleConfig.path)
    }

    @Test("validates, with the screens and input settings it documents")
    func validates() throws {
        let config = try Self.load()
        #expect(config.layout.screens.map(\.name) == ["main", "service"])
        #expect(config.layout.viewCount == 32)
        let main = try #require(config.layout.screen(named: "main"))
        #expect(main.width == 1080 && main.height == 1920)
        #expect(main.root.frame == Rect(x: 0, y: 0, width: 1080, height: 1920))
        #expect(config.unmatchedDevices == .firstScreen)
        let mainInput = try #require(config.input(forScreen: "main"))
        #expect(
            mainInput.devices == [
                DeviceMatcher(nameGlob: "ILITEK*", udevProperties: ["ID_PATH": "pci-0000:00:14.0-usb-0:1*"])
            ])
        #expect(mainInput.rotationDegrees == 0 && mainInput.calibration == nil)
        let service = try #require(config.input(forScreen: "service"))
        #expect(service.rotationDegrees == 90)
        #expect(service.calibration == [1.02, 0, -0.01, 0, 0.98, 0.01])
        #expect(service.devices.count == 2)
    }

    @Test("every view property is carried onto the View")
    func properties() throws {
        let root = try Self.load().layout.screens[0].root
        func find(_ id: String, in view: View) -> View? {
            if view.id == id { return view }
            return view.children.lazy.compactMap { find(id, in: $0) }.first
        }
        let help = try #require(find("help", in: root))
        #expect(help.shape == .ellipse && help.touchMargin == EdgeMargin(all: 16))
        #expect(try #require(find("cancel", in: root)).shape == .roundedRect(radius: 28))
        let pay = try #require(find("pay", in: root))
        #expect(pay.touchMargin == EdgeMargin(top: 16, left: 16, bottom: 40, right: 16))
        #expect(pay.exclusiveTouch && !pay.multipleTouch)
        #expect(try #require(find("offer-ribbon", in: root)).transform == ViewTransform(rotationDegrees: -30))
        #expect(try #require(find("out-of-service", in: root)).hidden)
        #expect(try #require(find("card-reader-bezel", in: root)).interactive == false)
        let arrow = try #require(find("more-tickets", in: root))
        guard case .polygon(let points) = arrow.shape else {
            Issue.record("more-tickets is not a polygon")
            return
        }
        #expect(points.count == 7 && points[3] == Point(160, 60))
        let keypad = try #require(find("keypad", in: root))
        #expect(
            keypad.children.map(\.id) == [
                "key1", "key2", "key3", "key4", "key5", "key6", "key7", "key8", "key9", "key-clear", "key0",
                "key-ok",
            ])
    }

    static let hitCases: [ExampleHitCase] = [
        ExampleHitCase(
            what: "a key's centre", screenPoint: Point(330, 1090),
            path: ["main", "content", "keypad", "key7"],
            localPoint: Point(90, 90)),
        ExampleHitCase(
            what: "a key's margin, in the gap", screenPoint: Point(650, 1050),
            path: ["main", "content", "keypad", "key9"], localPoint: Point(-10, 50)),
        ExampleHitCase(
            what: "mid-gap, past both margins", screenPoint: Point(435, 670),
            path: ["main", "content", "keypad"], localPoint: Point(195, 90)),
        ExampleHitCase(
            what: "outer key margin, reachable through the pad's margin", screenPoint: Point(230, 590),
            path: ["main", "content", "keypad", "key1"], localPoint: Point(-10, 10)),
        ExampleHitCase(
            what: "round button centre", screenPoint: Point(1000, 80), path: ["main", "header", "help"],
            localPoint: Point(48, 48)),
        ExampleHitCase(
            what: "round button's bounding-box corner misses", screenPoint: Point(952, 32),
            path: ["main", "header"], localPoint: Point(952, 32)),
        ExampleHitCase(
            what: "rounded corner + margin misses", screenPoint: Point(61, 1481),
            path: ["main", "content"], localPoint: Point(61, 1321)),
        ExampleHitCase(
            what: "rounded button's side margin hits", screenPoint: Point(70, 1560),
            path: ["main", "content", "cancel"], localPoint: Point(-10, 60)),
        ExampleHitCase(
            what: "per-edge bottom margin", screenPoint: Point(700, 1670),
            path: ["main", "content", "pay"], localPoint: Point(120, 170)),
        ExampleHitCase(
            what: "polygon arrow head", screenPoint: Point(1010, 1780),
            path: ["main", "content", "more-tickets"], localPoint: Point(130, 60)),
        ExampleHitCase(
            what: "polygon's bounding box outside the arrow", screenPoint: Point(890, 1730),
            path: ["main", "content"], localPoint: Point(890, 1570)),
        ExampleHitCase(
            what: "rotated ribbon, where only the rotated shape reaches",
            screenPoint: Point(220 + 150 * 0.8660254037844387, 1770 - 75),
            path: ["main", "content", "offer-ribbon"], localPoint: Point(330, 50)),
        ExampleHitCase(
            what: "disabled display passes to its parent", screenPoint: Point(540, 300),
            path: ["main", "content"], localPoint: Point(540, 140)),
        ExampleHitCase(
            what: "disabled bezel passes to its parent", screenPoint: Point(540, 1880),
            path: ["main", "content"], localPoint: Point(540, 1720)),
        ExampleHitCase(
            what: "hidden overlay's button takes nothing", screenPoint: Point(540, 1570),
            path: ["main", "content"], localPoint: Point(540, 1410)),
        ExampleHitCase(what: "outside the screen", screenPoint: Point(-1, 10), path: nil),
        ExampleHitCase(
            what: "service screen button", screen: "service", screenPoint: Point(600, 150),
            path: ["service", "service-restart"], localPoint: Point(60, 50)),
    ]

    @Test("hit-tests land on the expected views", arguments: hitCases)
    func hits(_ hitCase: ExampleHitCase) throws {
        let screen = try #require(try Self.load().layout.screen(named: hitCase.screen))
        let hit = screen.plainHitTest(hitCase.screenPoint)
        #expect(hit?.path == hitCase.path)
        if let expected = hitCase.localPoint, let local = hit?.localPoint {
            #expect(abs(local.x - expected.x) < 1e-9 && abs(local.y - expected.y) < 1e-9, "\(local)")
        }
    }
}

@Suite("Config input settings")
struct ConfigInputTests {
    @Test(
        "glob matching",
        arguments: [
            ("ILITEK*", "ILITEK ILITEK-TP", true), ("ILITEK*", "eGalax", false), ("*", "", true),
            ("", "", true),
            ("?", "", false), ("a?c", "abc", true), ("a?c", "ac", false),
            ("*Touch*screen", "Atmel maXTouch Touchscreen", true),
            ("[a-c]x", "bx", true), ("[a-c]x", "dx", false), ("[!a-c]x", "dx", true),
            ("[^a-c]x", "ax", false),
            ("[]]", "]", true), ("\\*", "*", true), ("\\*", "a", false), ("a*b*c", "aXbYc", true),
            ("a*b*c", "aXbY", false),
            ("*a", "aaaa", true), ("[ab", "[ab", true),
            ("pci-*-usb-0:1*", "pci-0000:00:14.0-usb-0:1.2:1.0", true),
            ("é*", "ecole", false), ("é*", "étoile", true),
        ] as [(String, String, Bool)])
    func glob(pattern: String, text: String, matches: Bool) {
        #expect(Glob.matches(pattern, text) == matches)
    }

    @Test("a matcher needs every key it gives")
    func matcher() {
        let matcher = DeviceMatcher(
            nameGlob: "ILITEK*", udevProperties: ["ID_PATH": "*usb-0:1*"], node: "/dev/input/event5")
        let udev = ["ID_PATH": "pci-0000:00:14.0-usb-0:1:1.0", "ID_INPUT_TOUCHSCREEN": "1"]
        #expect(matcher.matches(name: "ILITEK Multi-Touch", udevProperties: udev, node: "/dev/input/event5"))
        #expect(!matcher.matches(name: "eGalax", udevProperties: udev, node: "/dev/input/event5"))
        #expect(!matcher.matches(name: "ILITEK Multi-Touch", udevProperties: [:], node: "/dev/input/event5"))
        #expect(!matcher.matches(name: "ILITEK Multi-Touch", udevProperties: udev, node: "/dev/input/event6"))
        #expect(!matcher.matches(name: "ILITEK Multi-Touch", udevProperties: udev, node: nil))
        #expect(DeviceMatcher(nameGlob: "x").matches(name: "x", udevProperties: [:], node: nil))
        #expect(DeviceMatcher().isEmpty)
    }

    @Test("devices go to the first matching screen, else by the unmatched policy")
    func screenForDevice() throws {
        let config = try loadConfig(path: RepositoryPaths.exampleConfig.path)
        let ilitek = ["ID_PATH": "pci-0000:00:14.0-usb-0:1:1.0"]
        #expect(config.screenName(forDeviceNamed: "ILITEK 2302", udevProperties: ilitek, node: nil) == "main")
        #expect(
            config.screenName(forDeviceNamed: "eGalax Inc. USB", udevProperties: [:], node: nil) == "service")
        #expect(
            config.screenName(
                forDeviceNamed: "x", udevProperties: [:], node: "/dev/input/by-path/platform-i2c-touch-event")
                == "service")
        #expect(config.screenName(forDeviceNamed: "Wacom", udevProperties: [:], node: nil) == "main")
        var ignoring = config
        ignoring.unmatchedDevices = .ignore
        #expect(ignoring.screenName(forDeviceNamed: "Wacom", udevProperties: [:], node: nil) == nil)
        // Two screens that both match: the first in the file takes the device.
        let both = try Config.parse(
            Array(
                """
                { screens: [
                    { name: "a", width: 10, height: 10, root: { id: "a" }, devices: [{ name: "panel*" }] },
                    { name: "b", width: 10, height: 10, root: { id: "b" }, devices: [{ name: "panel 2*" }] },
                ] }
                """.utf8), fileName: "both.json5")
        #expect(both.screenName(forDeviceNamed: "panel 2", udevProperties: [:], node: nil) == "a")
    }

    @Test("input keys parse with their defaults")
    func inputKeys() throws {
        let text = """
            { unmatchedDevices: "ignore", screens: [
              { name: "a", width: 10, height: 10, root: { id: "a" } },
              { name: "b", width: 10, height: 10, rotation: 270, calibration: [1, 0, 0, 0, 1, 0],
                devices: [{ udev: { ID_VENDOR_ID: "222a", ID_MODEL_ID: "0001" } }], root: { id: "b" } },
            ] }
            """
        let config = try Config.parse(Data(text.utf8), fileName: "input.json5")
        #expect(config.unmatchedDevices == .ignore)
        #expect(
            config.screenInputs == [
                ScreenInputConfig(screenName: "a"),
                ScreenInputConfig(
                    screenName: "b",
                    devices: [
                        DeviceMatcher(udevProperties: ["ID_VENDOR_ID": "222a", "ID_MODEL_ID": "0001"])
                    ],
                    rotationDegrees: 270, calibration: [1, 0, 0, 0, 1, 0]),
            ])
    }

    @Test("view defaults follow UIKit")
    func viewDefaults() throws {
        let config = try Config.parse(
            Data(fileWithChildren(#"{ id: "k", frame: [1, 2, 3, 4] }"#).utf8), fileName: "x")
        let view = config.layout.screens[0].root.children[0]
        #expect(view == View(id: "k", frame: Rect(x: 1, y: 2, width: 3, height: 4)))
        #expect(
            !view.hidden && view.alpha == 1 && view.interactive && !view.multipleTouch && !view.exclusiveTouch
        )
        #expect(view.shape == .rect && view.touchMargin == .zero && view.transform.isIdentity)
    }

    @Test("transform and shape forms")
    func forms() throws {
        let children = """
            { id: "a", frame: [0, 0, 10, 10], transform: { rotate: 90, scale: [2, 0.5] }, shape: { roundedRect: 3 } },
            { id: "b", frame: [0, 0, 10, 10], transform: { scale: -1 }, touchMargin: 4, shape: { polygon: [[0, 0], [10, 0], [5, 10]] } },
            { id: "c", frame: [0, 0, 10, 10], touchMargin: { left: 2 }, alpha: 0, hidden: false, multipleTouch: true },
            """
        let views = try Config.parse(Data(fileWithChildren(children).utf8), fileName: "x").layout.screens[0]
            .root.children
        #expect(views[0].transform == ViewTransform(rotationDegrees: 90, scaleX: 2, scaleY: 0.5))
        #expect(views[0].shape == .roundedRect(radius: 3))
        #expect(views[1].transform == ViewTransform(scaleX: -1, scaleY: -1))
        #expect(views[1].shape == .polygon([Point(0, 0), Point(10, 0), Point(5, 10)]))
        #expect(views[1].touchMargin == EdgeMargin(all: 4))
        #expect(views[2].touchMargin == EdgeMargin(top: 0, left: 2, bottom: 0, right: 0))
        #expect(views[2].alpha == 0 && views[2].multipleTouch)
    }
}
