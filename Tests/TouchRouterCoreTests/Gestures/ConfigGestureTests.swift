import Foundation
import Testing

@testable import TouchRouterCore

@Suite("Config: gestures")
struct ConfigGestureTests {
    static func padView(_ gestures: String) -> String {
        #"{ id: "pad", frame: [0, 0, 50, 50], gestures: \#(gestures) }"#
    }

    static let badCases: [BadConfigCase] = [
        .view("not an array", Self.padView(#""tap""#), .wrongType, path: "main/pad", at: "gestures", says: "an array"),
        .view(
            "unknown kind, near miss", Self.padView(#"["tapp"]"#), .invalidValue, path: "main/pad", at: #""tapp""#,
            says: #"did you mean "tap"?"#),
        .view(
            "unknown kind, far", Self.padView(#"["wave"]"#), .invalidValue, path: "main/pad", at: #""wave""#,
            says: "the kinds are tap, longPress, pan, swipe, pinch, rotate"),
        .view(
            "object without type", Self.padView("[{ taps: 2 }]"), .missingKey, path: "main/pad", at: "{ taps",
            says: "needs \"type\""),
        .view("type not a string", Self.padView("[{ type: 3 }]"), .wrongType, path: "main/pad", at: "type"),
        .view("a number", Self.padView("[3]"), .wrongType, path: "main/pad", at: "3]"),
        .view(
            "a key of another kind", Self.padView(#"[{ type: "tap", direction: "left" }]"#), .unknownKey,
            path: "main/pad", at: "direction"),
        .view(
            "a rotate's key on a pinch", Self.padView(#"[{ type: "pinch", angle: 10 }]"#), .unknownKey,
            path: "main/pad", at: "angle"),
        .view(
            "misspelt key", Self.padView(#"[{ type: "tap", tapps: 2 }]"#), .unknownKey, path: "main/pad", at: "tapps",
            says: #"did you mean "taps"?"#),
        .view(
            "taps 0", Self.padView(#"[{ type: "tap", taps: 0 }]"#), .invalidValue, path: "main/pad", at: "taps",
            says: "whole number in 1…10, found 0"),
        .view(
            "fractional fingers", Self.padView(#"[{ type: "longPress", fingers: 1.5 }]"#), .invalidValue,
            path: "main/pad", at: "fingers"),
        .view(
            "11 fingers", Self.padView(#"[{ type: "pan", maximumFingers: 11 }]"#), .invalidValue, path: "main/pad",
            at: "maximumFingers"),
        .view(
            "minimum above maximum", Self.padView(#"[{ type: "pan", minimumFingers: 3, maximumFingers: 2 }]"#),
            .invalidValue, path: "main/pad", at: "minimumFingers", says: "must not exceed"),
        .view(
            "movement 0", Self.padView(#"[{ type: "tap", movement: 0 }]"#), .invalidValue, path: "main/pad",
            at: "movement", says: "> 0 mm"),
        .view(
            "negative distance", Self.padView(#"[{ type: "swipe", distance: -3 }]"#), .invalidValue,
            path: "main/pad", at: "distance"),
        .view(
            "duration as string", Self.padView(#"[{ type: "longPress", duration: "1s" }]"#), .wrongType,
            path: "main/pad", at: "duration"),
        .view(
            "interval over an hour", Self.padView(#"[{ type: "tap", interval: 3600001 }]"#), .invalidValue,
            path: "main/pad", at: "interval", says: "an hour"),
        .view(
            "angle 180", Self.padView(#"[{ type: "rotate", angle: 180 }]"#), .invalidValue, path: "main/pad",
            at: "angle", says: "below 180"),
        .view(
            "bad direction", Self.padView(#"[{ type: "swipe", direction: "north" }]"#), .invalidValue,
            path: "main/pad", at: "direction", says: #"found "north""#),
        .view(
            "empty direction list", Self.padView(#"[{ type: "swipe", direction: [] }]"#), .wrongType,
            path: "main/pad", at: "direction"),
        .view(
            "cancelsTouches not a bool", Self.padView(#"[{ type: "pan", cancelsTouches: 1 }]"#), .wrongType,
            path: "main/pad", at: "cancelsTouches"),
        .view(
            "the same gesture twice", Self.padView(#"["tap", { type: "tap" }]"#), .invalidValue, path: "main/pad",
            at: "{ type", says: "twice"),
        .view(
            "17 gestures", Self.padView("[" + Array(repeating: #""tap""#, count: 17).joined(separator: ",") + "]"),
            .invalidValue, path: "main/pad", at: "gestures", says: "at most 16"),
    ]

    @Test("a bad gesture is rejected with the expected error and location", arguments: badCases)
    func badGesture(_ badCase: BadConfigCase) throws {
        try expectRejected(badCase)
    }

    @Test("strings take the defaults; objects override; the result is keyed by view id")
    func parses() throws {
        let text = fileWithChildren(
            Self.padView(
                #"["tap", { type: "tap", taps: 2, fingers: 1, interval: 250 }, { type: "swipe", direction: ["left", "up"], distance: 20 }, { type: "pinch", cancelsTouches: false }, { type: "pan", minimumFingers: 2, exclusive: false }, { type: "longPress", duration: 800, movement: 3 }, { type: "rotate", angle: 10 }]"#
            ))
        let config = try Config.parse(Data(text.utf8), fileName: "test.json5")
        let specs = try #require(config.viewGestures["pad"])
        #expect(specs.map(\.kind) == [.tap, .tap, .swipe, .pinch, .pan, .longPress, .rotate])
        #expect(specs[0] == GestureSpec(.tap))
        #expect(specs[1].taps == 2 && specs[1].intervalMicros == 250_000)
        #expect(specs[2].directions == [.left, .up] && specs[2].distanceMM == 20)
        #expect(!specs[3].cancelsTouches)
        #expect(specs[4].minimumFingers == 2 && !specs[4].exclusive)
        #expect(specs[5].durationMicros == 800_000 && specs[5].movementMM == 3)
        #expect(specs[6].angleDegrees == 10)
        #expect(config.viewGestures.count == 1)
    }

    @Test("no gestures anywhere: an empty table (the daemon then bypasses recognition)")
    func none() throws {
        let config = try Config.parse(Data(fileWithChildren(Self.padView("[]")).utf8), fileName: "test.json5")
        #expect(config.viewGestures.isEmpty)
    }
}
