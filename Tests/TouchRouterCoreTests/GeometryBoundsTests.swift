import Foundation
import Testing

@testable import TouchRouterCore

/// Issue 26, item 10: degenerate numbers (`scale: 1e200`, `rotate: 1e308`, a calibration of
/// 1e308s) passed validation and made touches NaN. Every number that reaches geometry is now
/// bounded (`GeometryBounds`), so every composed transform stays finite (the encoders' side is in
/// TouchRouterProtocolTests, `NonFiniteEncodingTests`).
@Suite("Geometry bounds: nothing non-finite is accepted into geometry")
struct GeometryBoundsTests {
    static let badCases: [BadConfigCase] = [
        .view(
            "scale 1e200", #"{ id: "k", frame: [0, 0, 5, 5], transform: { scale: 1e200 } }"#, .outOfRange,
            path: "main/k", at: "scale:", says: "scale must be within 0.001…1000"),
        .view(
            "scale 1e-300", #"{ id: "k", frame: [0, 0, 5, 5], transform: { scale: 1e-300 } }"#, .outOfRange,
            path: "main/k", at: "scale:", says: "scale must be within"),
        .view(
            "one axis's scale beyond", #"{ id: "k", frame: [0, 0, 5, 5], transform: { scale: [1, -2000] } }"#,
            .outOfRange, path: "main/k", at: "scale:", says: "found -2000"),
        .view(
            "rotate 1e308", #"{ id: "k", frame: [0, 0, 5, 5], transform: { rotate: 1e308 } }"#, .outOfRange,
            path: "main/k", at: "rotate:", says: "rotate must be within ±360 degrees"),
        .view(
            "rotate 361", #"{ id: "k", frame: [0, 0, 5, 5], transform: { rotate: -361 } }"#, .outOfRange,
            path: "main/k", at: "rotate:"),
        .view(
            "frame x 1e300", #"{ id: "k", frame: [1e300, 0, 5, 5] }"#, .outOfRange, path: "main/k", at: "1e300",
            says: "the frame's x must be within ±10000000"),
        .view(
            "frame x -1e300", #"{ id: "k", frame: [-1e300, 0, 5, 5] }"#, .outOfRange, path: "main/k",
            at: "-1e300", says: "the frame's x must be within ±10000000"),
        .view(
            "frame height 1e8", #"{ id: "k", frame: [0, 0, 5, 1e8] }"#, .outOfRange, path: "main/k", at: "1e8",
            says: "the frame's height"),
        .view(
            "touchMargin 1e300", #"{ id: "k", frame: [0, 0, 5, 5], touchMargin: 1e300 }"#, .outOfRange,
            path: "main/k", at: "touchMargin", says: "touchMargin must be within"),
        .view(
            "touchMargin edge 1e300", #"{ id: "k", frame: [0, 0, 5, 5], touchMargin: { left: 1e300 } }"#,
            .outOfRange, path: "main/k", at: "left", says: "touchMargin left"),
        .view(
            "corner radius 1e300", #"{ id: "k", frame: [0, 0, 5, 5], shape: { roundedRect: 1e300 } }"#,
            .outOfRange, path: "main/k", at: "roundedRect", says: "the corner radius must be within"),
        .view(
            "polygon point 1e300",
            #"{ id: "k", frame: [0, 0, 5, 5], shape: { polygon: [[0, 0], [1e300, 0], [0, 1]] } }"#,
            .outOfRange, path: "main/k", at: "[1e300", says: "a polygon point's x"),
        .view(
            "scales that multiply beyond 10⁶ down a path",
            #"{ id: "a", frame: [0, 0, 5, 5], transform: { scale: 1000 }, children: [ { id: "b", frame: [0, 0, 1, 1], "#
                + #"transform: { scale: 1000 }, children: [ { id: "c", frame: [0, 0, 1, 1], transform: { scale: 2 } } ] } ] }"#,
            .outOfRange, path: "main/a/b/c", at: "transform: { scale: 2", says: "multiply to ×2000000"),
        .view(
            "scales that multiply below 10⁻⁶ down a path",
            #"{ id: "a", frame: [0, 0, 5, 5], transform: { scale: 0.001 }, children: [ { id: "b", frame: [0, 0, 1, 1], "#
                + #"transform: { scale: [1, 0.001] }, children: [ { id: "c", frame: [0, 0, 1, 1], "#
                + #"transform: { scale: 0.5 } } ] } ] }"#,
            .outOfRange, path: "main/a/b/c", at: "transform: { scale: 0.5",
            says: "multiply to ×0.0005 and ×5e-07, beyond ×10⁻⁶…×10⁶"),
        .screen(
            "screen width 1e300", "", .outOfRange, at: nil, says: "width must be within"),
        .screen(
            "calibration of 1e308s", "calibration: [1e308, 0, 1e308, 0, 1e308, 1e308],", .invalidCalibration,
            at: "calibration", says: "calibration numbers must be within ±1000"),
        .screen(
            "singular calibration", "calibration: [1, 2, 0, 2, 4, 0],", .invalidCalibration, at: "calibration",
            says: "a·e − b·d must be at least 0.001 in magnitude, found 0"),
        .screen(
            "physicalSize 1e-300", "physicalSize: [1e-300, 100],", .outOfRange, at: "1e-300",
            says: "the physicalSize width must be 1…100000 mm"),
        .screen(
            "physicalSize 1e300", "physicalSize: [100, 1e300],", .outOfRange, at: "1e300",
            says: "the physicalSize height"),
    ]

    @Test("a number beyond its bound is refused, located", arguments: badCases)
    func badNumber(_ badCase: BadConfigCase) throws {
        var badCase = badCase
        if badCase.name == "screen width 1e300" {
            badCase.text = badCase.text.replacingOccurrences(of: "width: 100,", with: "width: 1e300,")
            badCase.marker = "width: 1e300"
        }
        try expectRejected(badCase)
    }

    @Test("the bounds themselves are accepted")
    func boundsAccepted() {
        let children = """
            { id: "a", frame: [-10000000, 10000000, 10000000, 1], touchMargin: 10000000,
              transform: { scale: 1000, rotate: 360 }, children: [
                { id: "b", frame: [0, 0, 1, 1], transform: { scale: [1000, 0.001], rotate: -360 },
                  shape: { roundedRect: 10000000 } } ] },
            { id: "c", frame: [0, 0, 1, 1], transform: { scale: [-0.001, 0.001] }, children: [
                { id: "d", frame: [0, 0, 1, 1], transform: { scale: 0.002 } } ] }
            """
        #expect(configErrors(fileWithChildren(children)).isEmpty)
        #expect(configErrors(fileWithScreenKeys("calibration: [1000, 0, -1000, 0, 0.00001, 1000],")).isEmpty)
        #expect(configErrors(fileWithScreenKeys("physicalSize: [1, 100000],")).isEmpty)
    }

    @Test("ScreenMapping refuses what the config refuses")
    func screenMappingRefuses() {
        #expect(throws: ScreenMappingError.calibrationOutOfRange) {
            try ScreenMapping(screenWidth: 100, screenHeight: 100, calibration: [1e308, 0, 1e308, 0, 1e308, 1e308])
        }
        #expect(throws: ScreenMappingError.singularCalibration(determinant: 0)) {
            try ScreenMapping(screenWidth: 100, screenHeight: 100, calibration: [1, 0, 0, 0, 0, 0])
        }
    }

    // MARK: Run time

    static let runtimeText = """
        { screens: [{ name: "main", width: 1000, height: 1000, root: { id: "main", children: [
            { id: "app", frame: [0, 0, 800, 800], owner: { users: [1000] }, transform: { scale: 1000 }, children: [
                { id: "ok", frame: [0, 0, 100, 100], children: [ { id: "deep", frame: [0, 0, 10, 10] } ] },
                { id: "panel", frame: [200, 200, 400, 400], mount: true },
            ] },
        ] } }] }
        """

    static func runtime() throws -> RuntimeLayout {
        RuntimeLayout(base: try Config.parse(Data(runtimeText.utf8), fileName: "runtime.json5"))
    }

    static let owner = RuntimeClient(id: 1) { $0.users.contains(.id(1000)) }

    @Test(
        "setView refuses a degenerate transform with the config's rule",
        arguments: [#"{"scale":1e200}"#, #"{"scale":1e-300}"#, #"{"rotate":1e308}"#])
    func setViewDegenerate(transform: String) throws {
        var layout = try Self.runtime()
        let result = layout.apply(
            .setView([("ok", RuntimeLayoutTests.node(#"{"transform":\#(transform)}"#))]), by: Self.owner)
        guard case .failure(let failures) = result else { throw HarnessFailure("accepted \(transform)") }
        #expect(failures.failures.map(\.code) == [.config(.outOfRange)])
        #expect(RuntimeLayoutTests.view("ok", in: layout)?.transform == ViewTransform())
    }

    func setTransform(_ layout: inout RuntimeLayout, _ viewID: String, _ transform: String) -> [RuntimeFailure] {
        let request = RuntimeRequest.setView([(viewID, RuntimeLayoutTests.node(#"{"transform":\#(transform)}"#))])
        if case .failure(let failures) = layout.apply(request, by: Self.owner) { return failures.failures }
        return []
    }

    @Test("setView refuses a transform whose product with the scales above or below goes beyond")
    func setViewComposed() throws {
        // app scales by 1000 in the file: deep at 1000 more makes 10⁶, the bound.
        var layout = try Self.runtime()
        #expect(setTransform(&layout, "deep", #"{"scale":1000}"#).isEmpty)
        // Then ok between them may shrink but not grow: deep would be at 2·10⁶.
        #expect(setTransform(&layout, "ok", #"{"scale":0.5}"#).isEmpty)
        let below = setTransform(&layout, "ok", #"{"scale":[1,2]}"#)
        #expect(below.map(\.code) == [.config(.outOfRange)])
        #expect(below.first?.viewPath == "main/app/ok")
        #expect(RuntimeLayoutTests.view("ok", in: layout)?.transform == ViewTransform(scaleX: 0.5, scaleY: 0.5))
        // Above: ok at 1000 under app makes 10⁶; deep may then not scale up at all.
        layout = try Self.runtime()
        #expect(setTransform(&layout, "ok", #"{"scale":1000}"#).isEmpty)
        #expect(setTransform(&layout, "deep", #"{"scale":2}"#).map(\.code) == [.config(.outOfRange)])
        #expect(setTransform(&layout, "deep", #"{"scale":0.5,"rotate":30}"#).isEmpty)
    }

    @Test("a mount composes with the scales above its mount point")
    func mountComposed() throws {
        var layout = try Self.runtime()
        let children =
            #"[{"id":"m","frame":[0,0,10,10],"transform":{"scale":1000},"#
            + #""children":[{"id":"n","frame":[0,0,1,1],"transform":{"scale":2}}]}]"#
        let result = layout.apply(.mount(viewID: "panel", children: RuntimeLayoutTests.node(children)), by: Self.owner)
        guard case .failure(let failures) = result else { throw HarnessFailure("accepted") }
        #expect(failures.failures.map(\.code) == [.config(.outOfRange)])
        #expect(failures.failures.first?.viewPath == "main/app/panel/m/n")
        let fine = #"[{"id":"m","frame":[0,0,10,10],"transform":{"scale":1000}}]"#
        #expect(throws: Never.self) {
            try layout.apply(.mount(viewID: "panel", children: RuntimeLayoutTests.node(fine)), by: Self.owner).get()
        }
    }
}

/// A test failure with a message (for `guard … else { throw }`).
struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
