import Foundation
import Testing
import TouchRouterCore
import TouchRouterInput
import TouchRouterRender

/// `touchrouterctl render`, rasterised by rsvg-convert (librsvg2-bin, installed by scripts/setup)
/// and checked by reading pixels back (scripts/png-pixels, zlib only): a point the hit-test gives
/// to view X is filled in X's region colour, a touch the tracker delivered to X has its touch-down
/// dot in X's colour, a miss is red.
@Suite("touchrouterctl render", .serialized)
struct RenderCommandTests {
    static let kioskConfig = Paths.packageRoot.appendingPathComponent("config/kiosk.json5").path
    static let splitConfig = Paths.fixtures.appendingPathComponent("layouts/ep0430m09-split.json5").path
    static let fourFingers = Paths.recordings.appendingPathComponent(
        "libinput/ep0430m09-4-finger-drag-down.yml"
    ).path
    static let atmelTwoFingers = Paths.recordings.appendingPathComponent(
        "libinput/atmel-2-fingers-touch-release.yml"
    ).path

    /// Renders with touchrouterctl, rasterises, and returns the colours at the given points.
    static func renderAndRead(_ arguments: [String], at points: [Point], in directory: TemporaryDirectory)
        throws -> [RGB?]
    {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/rsvg-convert") else {
            throw HarnessError("rsvg-convert is missing: run scripts/setup (it installs librsvg2-bin)")
        }
        let svg = directory.file("out.svg")
        let png = directory.file("out.png")
        let render = try TouchrouterctlProcess.run(["render"] + arguments + ["-o", svg])
        #expect(render.exitCode == 0, "\(render.stderr)")
        #expect(render.stdout.isEmpty && render.stderr.isEmpty)
        try run("/usr/bin/rsvg-convert", [svg, "-o", png])
        let specs = points.map { "\(Int($0.x.rounded(.down))),\(Int($0.y.rounded(.down)))" }
        let output = try run(
            "/usr/bin/env",
            ["python3", Paths.packageRoot.appendingPathComponent("scripts/png-pixels").path, png] + specs)
        return output.split(separator: "\n").map { line in
            let hex = line.split(separator: " ").last.map(String.init) ?? ""
            guard hex.count == 7, let value = UInt32(hex.dropFirst(), radix: 16) else { return nil }
            return RGB(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xff), blue: UInt8(value & 0xff))
        }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(executable) \(arguments.prefix(2))")
        return String(decoding: data, as: UTF8.self)
    }

    static func screen(_ path: String) throws -> Screen {
        try loadConfig(path: path).layout.screens[0]
    }

    @Test("the kiosk: every sampled point is filled in the colour of the view the hit-test gives it")
    func kioskRegions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let screen = try Self.screen(Self.kioskConfig)
        let index = screen.makeHitTestIndex()
        let picture = LayoutPicture(index: index)
        // A grid of probes, plus each key's upper-left area (away from outlines and labels).
        var probes: [Point] = []
        for y in stride(from: 11.0, to: screen.height, by: 29) {
            for x in stride(from: 7.0, to: screen.width, by: 31) { probes.append(Point(x + 0.5, y + 0.5)) }
        }
        let keys = [
            "key1", "key2", "key3", "key4", "key5", "key6", "key7", "key8", "key9", "key-clear", "key0",
            "key-ok",
        ]
        for (k, _) in keys.enumerated() {
            let column = Double(k % 3)
            let row = Double(k / 3)
            probes.append(Point(240 + column * 210 + 25.5, 580 + row * 210 + 30.5))
        }
        // The keypad itself wins only the 6-unit strips between its keys' margins.
        probes.append(Point(240 + 195 + 0.5, 680.5))
        let colours = try Self.renderAndRead(["--config", Self.kioskConfig], at: probes, in: directory)
        var matched = 0
        var matchedViews = Set<String>()
        for (point, colour) in zip(probes, colours) {
            guard let hit = index.hit(point), let viewColour = picture.colour(ofView: hit.viewID) else {
                continue
            }
            if colour == Palette.regionColour(viewColour) {
                matched += 1
                matchedViews.insert(hit.viewID)
            }
        }
        // Outlines, labels and the dashed halos cover a few probes; the fill is everywhere else.
        #expect(Double(matched) > 0.85 * Double(probes.count), "\(matched) of \(probes.count)")
        for view in keys + ["content", "header", "logo", "cancel", "pay", "keypad"] {
            #expect(matchedViews.contains(view), "no probe in \(view) drawn in its colour")
        }
        // Inside the non-interactive amount display, the region is content's (its parent) under grey.
        #expect(index.hit(Point(300, 300))?.viewID == "content")
    }

    /// The began touches of a recording on `screen`, routed by the tracker with every view subscribed.
    static func routedTouchDowns(_ recordingPath: String, screen: Screen) throws
        -> [(point: Point, viewID: String)]
    {
        let recording = try Recording.load(path: recordingPath)
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: InputDevice(id: 1, name: recording.device.name), screen: screen.name,
            mapping: try ScreenMapping(screenWidth: screen.width, screenHeight: screen.height))
        var tracker = TouchTracker(layout: Layout(screens: [screen]))
        var all = Set<String>()
        var stack = [screen.root]
        while let view = stack.popLast() {
            all.insert(view.id)
            stack += view.children
        }
        var downs: [(Point, String)] = []
        for frame in frames {
            for message in tracker.process(.frame(frame), subscribedViews: all) {
                for touch in message.touches where touch.phase == .began {
                    downs.append((touch.screenPoint, message.viewID))
                }
            }
        }
        return downs
    }

    @Test("the split layout with the 4-finger recording: each touch-down dot in its view's colour")
    func splitRecording() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let screen = try Self.screen(Self.splitConfig)
        let picture = LayoutPicture(index: screen.makeHitTestIndex())
        let downs = try Self.routedTouchDowns(Self.fourFingers, screen: screen)
        #expect(Set(downs.map(\.viewID)) == ["left-edge", "left", "right", "right-edge"])
        let colours = try Self.renderAndRead(
            ["--config", Self.splitConfig, "--recording", Self.fourFingers], at: downs.map(\.point),
            in: directory)
        for (down, colour) in zip(downs, colours) {
            #expect(colour == picture.colour(ofView: down.viewID), "\(down.viewID) at \(down.point)")
        }
    }

    @Test("a touch-down where no view is: the dot is red")
    func missIsRed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The split layout with its root cut to x < 1000: the finger near x = 1107 hits nothing.
        let text = try String(contentsOfFile: Self.splitConfig, encoding: .utf8)
            .replacingOccurrences(of: #"id: "panel","#, with: #"id: "panel", frame: [0, 0, 1000, 768],"#)
        try directory.write("narrow.json5", text)
        let screen = try Self.screen(directory.file("narrow.json5"))
        let picture = LayoutPicture(index: screen.makeHitTestIndex())
        let recording = try Recording.load(path: Self.fourFingers)
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: InputDevice(id: 1, name: "x"), screen: "main",
            mapping: try ScreenMapping(screenWidth: 1280, screenHeight: 768))
        let downPoints = frames.flatMap { $0.contacts.filter { $0.kind == .down }.map(\.screenPoint) }
        let misses = downPoints.filter { screen.plainHitTest($0) == nil }
        let hits = downPoints.filter { screen.plainHitTest($0) != nil }
        #expect(misses.count == 1 && hits.count == 3)
        let colours = try Self.renderAndRead(
            ["--config", directory.file("narrow.json5"), "--recording", Self.fourFingers], at: misses + hits,
            in: directory)
        #expect(colours[0] == Palette.miss)
        for (point, colour) in zip(hits, colours.dropFirst()) {
            #expect(colour == picture.colour(ofView: screen.plainHitTest(point)!.viewID), "\(point)")
        }
        // Right of the root nothing takes touches: the background is white (no region).
        let outside = try Self.renderAndRead(
            ["--config", directory.file("narrow.json5")], at: [Point(1200, 20)], in: directory)
        #expect(outside == [RGB(red: 255, green: 255, blue: 255)])
    }

    @Test("the kiosk with a shared recording: touch-downs in their delivered view's colour")
    func kioskRecording() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let screen = try Self.screen(Self.kioskConfig)
        let picture = LayoutPicture(index: screen.makeHitTestIndex())
        let downs = try Self.routedTouchDowns(Self.atmelTwoFingers, screen: screen)
        #expect(!downs.isEmpty)
        // A dot drawn over by a later dot of another colour is not checked.
        let checked = downs.enumerated().filter { index, down in
            !downs[(index + 1)...].contains { other in
                other.viewID != down.viewID && abs(other.point.x - down.point.x) < 24
                    && abs(other.point.y - down.point.y) < 24
            }
        }.map(\.element)
        #expect(!checked.isEmpty)
        let colours = try Self.renderAndRead(
            ["--config", Self.kioskConfig, "--recording", Self.atmelTwoFingers], at: checked.map(\.point),
            in: directory)
        for (down, colour) in zip(checked, colours) {
            #expect(colour == picture.colour(ofView: down.viewID), "\(down.viewID) at \(down.point)")
        }
    }

    @Test("the SVG names every view, marks access lists, and leaves hidden views out unless asked")
    func svgContents() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let plain = try TouchrouterctlProcess.run(["render", "--config", Self.kioskConfig])
        #expect(plain.exitCode == 0)
        #expect(plain.stdout.hasPrefix("<?xml"))
        for key in ["key1", "key0", "key-clear", "key-ok", "help", "pay"] {
            #expect(plain.stdout.contains(#"<text data-view="\#(key)""#), "label of \(key)")
        }
        #expect(!plain.stdout.contains(#"data-view="out-of-service""#))
        let hidden = try TouchrouterctlProcess.run(["render", "--config", Self.kioskConfig, "--hidden"])
        #expect(hidden.stdout.contains(#"<g data-view="out-of-service""#))
        // An access list on the keypad: a padlock in the picture and in the legend.
        let text = try String(contentsOfFile: Self.kioskConfig, encoding: .utf8)
            .replacingOccurrences(
                of: #"id: "keypad","#, with: #"id: "keypad", access: { users: ["root"] },"#)
        try directory.write("access.json5", text)
        let marked = try TouchrouterctlProcess.run(["render", "--config", directory.file("access.json5")])
        #expect(marked.exitCode == 0, "\(marked.stderr)")
        #expect(marked.stdout.contains("keypad  1.0%  [access list]"))
        #expect(marked.stdout.components(separatedBy: "<rect x=\"1\" y=\"8\"").count == 3)  // mark + legend
    }

    @Test("--live: the touches a running daemon delivers, drawn per view")
    func live() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The replay waits for the first subscriber: render's own subscription starts it.
        let daemon = try DaemonProcess(
            directory: directory,
            arguments: [
                "--config", Self.splitConfig, "--replay", Self.fourFingers, "--replay-wait", "--speed", "0",
            ])
        defer { daemon.stop() }
        let result = try TouchrouterctlProcess.run(
            ["render", "--config", Self.splitConfig, "--live", daemon.socketPath, "--seconds", "3"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        for view in ["left-edge", "left", "right", "right-edge"] {
            #expect(result.stdout.contains(#"<polyline data-view="\#(view)""#), "\(view)")
        }
        #expect(result.stdout.contains("4 touch-downs, 4 delivered"))
    }

    @Test("--subscribed: touches climb the responder chain to the subscribed view")
    func subscribed() throws {
        let result = try TouchrouterctlProcess.run(
            [
                "render", "--config", Self.splitConfig, "--recording", Self.fourFingers, "--subscribed",
                "left,panel",
            ])
        #expect(result.exitCode == 0)
        let paths = result.stdout.components(separatedBy: "<polyline data-view=\"").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
        #expect(paths.sorted() == ["left", "left", "panel", "panel"])
        #expect(result.stdout.contains("4 touch-downs, 4 delivered"))
    }

    @Test("passthrough keys: the climb stops at them with --subscribed; the hatch and the mark are drawn")
    func passthrough() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = try String(contentsOfFile: Self.splitConfig, encoding: .utf8)
            .replacingOccurrences(of: #"id: "right","#, with: #"id: "right", passthrough: true,"#)
            .replacingOccurrences(of: #"id: "left-edge","#, with: #"id: "left-edge", passthrough: false,"#)
        try directory.write("passthrough.json5", text)
        let result = try TouchrouterctlProcess.run(
            [
                "render", "--config", directory.file("passthrough.json5"), "--recording", Self.fourFingers,
                "--subscribed", "left,panel",
            ])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let paths = result.stdout.components(separatedBy: "<polyline data-view=\"").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
        // x ≈ 263 stops at left-edge (passthrough: false), 500 at left, 750 and 1107 at right.
        #expect(paths.sorted() == ["left", "left-edge", "right", "right"])
        #expect(
            result.stdout.contains(
                #"<path data-view="right" data-mode="touch" fill="url(#passthrough-hatch)" d="M640 0h300v768h-300zM940 0h340v768h-340z"/>"#
            )
        )
        #expect(result.stdout.contains(#"<g data-view="left-edge" class="passthrough-stop""#))
        #expect(result.stdout.contains("(as if only left, panel subscribed)"))
    }

    @Test("usage errors: both sources, a bad --seconds, a missing config")
    func usageErrors() throws {
        let both = try TouchrouterctlProcess.run(
            ["render", "--config", Self.kioskConfig, "--recording", "x", "--live", "y"])
        #expect(both.exitCode == 2)
        #expect(both.stderr.contains("--recording and --live are alternatives"))
        let seconds = try TouchrouterctlProcess.run([
            "render", "--config", Self.kioskConfig, "--seconds", "0",
        ])
        #expect(seconds.exitCode == 2)
        let missing = try TouchrouterctlProcess.run(["render"])
        #expect(missing.exitCode == 2)
        #expect(
            missing.stderr
                == "touchrouterctl render: missing --config FILE\nSee 'touchrouterctl render --help'.\n")
        let badRecording = try TouchrouterctlProcess.run(
            ["render", "--config", Self.kioskConfig, "--recording", "/nonexistent.yml"])
        #expect(badRecording.exitCode == 1)
    }
}

/// Every shared recording drawn on the example kiosk: one touch-down dot per contact that went
/// down, each classified as the tracker routed it.
@Suite("touchrouterctl render on every shared recording")
struct RenderEveryRecordingTests {
    static let recordings: [String] = ["evemu", "libinput"].flatMap { folder in
        let directory = Paths.recordings.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".events") || $0.hasSuffix(".yml") }.sorted().map {
            "\(folder)/\($0)"
        }
    }

    @Test(arguments: recordings)
    func kiosk(recording: String) throws {
        let path = Paths.recordings.appendingPathComponent(recording).path
        let result = try TouchrouterctlProcess.run(
            ["render", "--config", RenderCommandTests.kioskConfig, "--recording", path])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let screen = try RenderCommandTests.screen(RenderCommandTests.kioskConfig)
        let decoded = try Recording.load(path: path)
        let frames = MultitouchDecoder.decode(
            decoded, inputDevice: InputDevice(id: 1, name: decoded.device.name), screen: screen.name,
            mapping: try ScreenMapping(screenWidth: screen.width, screenHeight: screen.height))
        let downs = frames.reduce(0) { $0 + $1.contacts.filter { $0.kind == .down }.count }
        let dots = result.stdout.components(separatedBy: #" r="10" fill=""#).count - 1
        #expect(downs > 0 && dots == downs, "\(recording): \(downs) touch-downs, \(dots) dots")
        let delivered = try RenderCommandTests.routedTouchDowns(path, screen: screen).count
        #expect(result.stdout.contains("\(downs) touch-downs, \(delivered) delivered"))
    }
}
