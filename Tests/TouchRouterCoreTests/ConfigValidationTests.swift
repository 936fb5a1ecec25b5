import Foundation
import Testing

@testable import TouchRouterCore

/// One bad config and the error it must produce.
struct BadConfigCase: CustomTestStringConvertible, Sendable {
    var name: String
    var text: String
    var code: ConfigErrorCode
    /// The error's view path, or nil when the error is not about a view.
    var viewPath: String?
    var screenName: String?
    /// The error must point at the first occurrence of this text (nil: no position expected).
    var marker: String?
    /// Words the message must contain.
    var messageContains: String = ""

    var testDescription: String { name }

    static func view(
        _ name: String, _ children: String, _ code: ConfigErrorCode, path: String?, at marker: String?,
        says message: String = ""
    ) -> BadConfigCase {
        BadConfigCase(
            name: name, text: fileWithChildren(children), code: code, viewPath: path, marker: marker,
            messageContains: message)
    }

    static func screen(
        _ name: String, _ keys: String, _ code: ConfigErrorCode, at marker: String?, says message: String = ""
    ) -> BadConfigCase {
        BadConfigCase(
            name: name, text: fileWithScreenKeys(keys), code: code, screenName: "main", marker: marker,
            messageContains: message)
    }

    static func file(
        _ name: String, _ text: String, _ code: ConfigErrorCode, at marker: String?, says message: String = ""
    ) -> BadConfigCase {
        BadConfigCase(name: name, text: text, code: code, marker: marker, messageContains: message)
    }
}

@Suite("Config validation")
struct ConfigValidationTests {
    static let badCases: [BadConfigCase] = [
        .view(
            "width 0", #"{ id: "k", frame: [0, 0, 0, 10] }"#, .nonPositiveSize, path: "main/k", at: "0, 10]",
            says: "width must be > 0"),
        .view(
            "negative height", #"{ id: "k", frame: [0, 0, 5, -5] }"#, .nonPositiveSize, path: "main/k",
            at: "-5", says: "height must be > 0"),
        .view(
            "alpha above 1", #"{ id: "k", frame: [0, 0, 5, 5], alpha: 1.5 }"#, .alphaOutOfRange,
            path: "main/k", at: "alpha"),
        .view(
            "alpha below 0", #"{ id: "k", frame: [0, 0, 5, 5], alpha: -0.1 }"#, .alphaOutOfRange,
            path: "main/k", at: "alpha"),
        .view(
            "polygon of 2 points", #"{ id: "k", frame: [0, 0, 5, 5], shape: { polygon: [[0, 0], [1, 1]] } }"#,
            .polygonTooFewPoints, path: "main/k", at: "polygon", says: "at least 3 points"),
        .view(
            "zero scale", #"{ id: "k", frame: [0, 0, 5, 5], transform: { scale: 0 } }"#, .zeroScale,
            path: "main/k", at: "scale"),
        .view(
            "zero y scale", #"{ id: "k", frame: [0, 0, 5, 5], transform: { rotate: 10, scale: [2, 0] } }"#,
            .zeroScale, path: "main/k", at: "scale"),
        .view(
            "unknown key, near miss", #"{ id: "k", frame: [0, 0, 5, 5], hiden: true }"#, .unknownKey,
            path: "main/k", at: "hiden", says: #"did you mean "hidden"?"#),
        .view(
            "unknown key, far", #"{ id: "k", frame: [0, 0, 5, 5], colour: "red" }"#, .unknownKey,
            path: "main/k", at: "colour", says: #"unknown key "colour""#),
        .view(
            "bool as string", #"{ id: "k", frame: [0, 0, 5, 5], hidden: "yes" }"#, .wrongType,
            path: "main/k", at: "hidden", says: "must be true or false, found a string"),
        .view(
            "number as bool", #"{ id: "k", frame: [0, 0, 5, 5], alpha: true }"#, .wrongType,
            path: "main/k", at: "alpha", says: "found a boolean"),
        .view(
            "frame of 3", #"{ id: "k", frame: [0, 0, 5] }"#, .wrongType, path: "main/k", at: "frame",
            says: "found 3 values"),
        .view(
            "frame element string", #"{ id: "k", frame: [0, "0", 5, 5] }"#, .wrongType, path: "main/k",
            at: #""0""#),
        .view(
            "children not an array", #"{ id: "k", frame: [0, 0, 5, 5], children: {} }"#, .wrongType,
            path: "main/k", at: "children: {}"),
        .view(
            "space in id", #"{ id: "key 7", frame: [0, 0, 5, 5] }"#, .invalidID, path: "main/key 7",
            at: #"id: "key 7""#),
        .view(
            "slash in id", #"{ id: "a/b", frame: [0, 0, 5, 5] }"#, .invalidID, path: "main/a/b",
            at: #"id: "a/b""#),
        .view("empty id", #"{ id: "", frame: [0, 0, 5, 5] }"#, .invalidID, path: "main/#0", at: #"id: """#),
        .view("id is a number", #"{ id: 7, frame: [0, 0, 5, 5] }"#, .wrongType, path: "main/#0", at: "id: 7"),
        .view(
            "missing id", #"{ frame: [0, 0, 5, 5] }"#, .missingKey, path: "main/#0", at: "{ frame",
            says: #"missing "id""#),
        .view("missing frame", #"{ id: "k" }"#, .missingKey, path: "main/k", at: "{ id", says: "frame"),
        .view(
            "duplicate id", #"{ id: "k", frame: [0, 0, 5, 5] }, { id: "k", frame: [1, 1, 5, 5] }"#,
            .duplicateID, path: "main/k", at: #"id: "k", frame: [1"#, says: #"already used by view "main/k""#),
        .view(
            "id of the root reused", #"{ id: "main", frame: [0, 0, 5, 5] }"#, .duplicateID,
            path: "main/main", at: #"id: "main", frame"#),
        .view(
            "per-edge margin on an ellipse",
            #"{ id: "k", frame: [0, 0, 5, 5], shape: "ellipse", touchMargin: { top: 4 } }"#,
            .perEdgeMarginOnShape, path: "main/k", at: "touchMargin"),
        .view(
            "negative margin", #"{ id: "k", frame: [0, 0, 5, 5], touchMargin: -3 }"#, .negativeMargin,
            path: "main/k", at: "touchMargin"),
        .view(
            "slightly negative margin", #"{ id: "k", frame: [0, 0, 5, 5], touchMargin: -0.5 }"#,
            .negativeMargin, path: "main/k", at: "touchMargin", says: "found -0.5"),
        .view(
            "negative edge", #"{ id: "k", frame: [0, 0, 5, 5], touchMargin: { left: -3 } }"#, .negativeMargin,
            path: "main/k", at: "left"),
        .view(
            "unknown edge", #"{ id: "k", frame: [0, 0, 5, 5], touchMargin: { botom: 3 } }"#, .unknownKey,
            path: "main/k", at: "botom", says: #"did you mean "bottom"?"#),
        .view(
            "unknown shape", #"{ id: "k", frame: [0, 0, 5, 5], shape: "elipse" }"#, .invalidValue,
            path: "main/k", at: "shape", says: #"did you mean "ellipse"?"#),
        .view(
            "shape with two keys",
            #"{ id: "k", frame: [0, 0, 5, 5], shape: { roundedRect: 2, polygon: [] } }"#,
            .invalidValue, path: "main/k", at: "shape"),
        .view(
            "negative radius", #"{ id: "k", frame: [0, 0, 5, 5], shape: { roundedRect: -2 } }"#,
            .invalidValue,
            path: "main/k", at: "roundedRect"),
        .view(
            "rotate as string", #"{ id: "k", frame: [0, 0, 5, 5], transform: { rotate: "90" } }"#, .wrongType,
            path: "main/k", at: "rotate"),
        .view(
            "access as an array", #"{ id: "k", frame: [0, 0, 5, 5], access: [] }"#, .wrongType,
            path: "main/k", at: "access", says: "\"access\" must be an object"),
        .view(
            "empty access list", #"{ id: "k", frame: [0, 0, 5, 5], access: { users: [] } }"#, .invalidValue,
            path: "main/k", at: "access", says: "at least one user or group"),
        .view(
            "unknown access key", #"{ id: "k", frame: [0, 0, 5, 5], access: { user: ["a"] } }"#,
            .unknownKey, path: "main/k", at: "user:", says: "did you mean \"users\""),
        .view(
            "access users not an array", #"{ id: "k", frame: [0, 0, 5, 5], access: { users: "kiosk" } }"#,
            .wrongType, path: "main/k", at: "users", says: "an array of names or ids"),
        .view(
            "bad user name", #"{ id: "k", frame: [0, 0, 5, 5], access: { users: ["-rf"] } }"#,
            .invalidValue, path: "main/k", at: "\"-rf\"", says: "not a user or group name"),
        .view(
            "negative gid", #"{ id: "k", frame: [0, 0, 5, 5], access: { groups: [-1] } }"#,
            .invalidValue, path: "main/k", at: "-1", says: "integer in 0…4294967294"),
        .view(
            "uid 4294967295, which is (uid_t)-1", #"{ id: "k", frame: [0, 0, 5, 5], access: { users: [4294967295] } }"#,
            .invalidValue, path: "main/k", at: "4294967295", says: "integer in 0…4294967294"),
        .view(
            "fractional uid", #"{ id: "k", frame: [0, 0, 5, 5], access: { users: [1000.5] } }"#,
            .invalidValue, path: "main/k", at: "1000.5"),
        .view(
            "boolean in a group list", #"{ id: "k", frame: [0, 0, 5, 5], access: { groups: [true] } }"#,
            .wrongType, path: "main/k", at: "true", says: "a name or a numeric id"),
        .view(
            "nested path",
            #"{ id: "keypad", frame: [0, 0, 50, 50], children: [{ id: "key7", frame: [0, 0, 0, 1] }] }"#,
            .nonPositiveSize, path: "main/keypad/key7", at: "0, 1] }"),
        .view("NaN", #"{ id: "k", frame: [0, 0, NaN, 5] }"#, .nonFinite, path: nil, at: "NaN"),
        .view(
            "Infinity", #"{ id: "k", frame: [0, 0, 5, -Infinity] }"#, .nonFinite, path: nil, at: "-Infinity"),
        .view(
            "overflowing number", #"{ id: "k", frame: [0, 0, 1e999, 5] }"#, .nonFinite, path: nil, at: "1e999"
        ),
        .view(
            "duplicate key", #"{ id: "k", frame: [0, 0, 5, 5], alpha: 1, alpha: 0 }"#, .duplicateKey,
            path: nil,
            at: "alpha: 0"),
        .view(
            "missing comma", #"{ id: "k" frame: [0, 0, 5, 5] }"#, .syntax, path: nil, at: "frame",
            says: "expected ',' or '}'"),
        .view("unclosed string", #"{ id: "k, frame: [0, 0, 5, 5] }"#, .syntax, path: nil, at: #""k,"#),
        .view(
            "leading zero", #"{ id: "k", frame: [0, 0, 5, 05] }"#, .syntax, path: nil, at: "05",
            says: "must not start with 0"),
        .view(
            "no-break space", "{ id: \"k\",\u{A0}frame: [0, 0, 5, 5] }", .syntax, path: nil, at: "\u{A0}",
            says: "U+00A0"),
        .view("bare word", #"{ id: "k", frame: [0, 0, 5, 5], hidden: yes }"#, .syntax, path: nil, at: "yes"),

        .screen("rotation 45", "rotation: 45,", .invalidRotation, at: "rotation", says: "0, 90, 180 or 270"),
        .screen("rotation as string", #"rotation: "90","#, .wrongType, at: "rotation"),
        .screen(
            "calibration of 5", "calibration: [1, 0, 0, 0, 1],", .invalidCalibration, at: "calibration",
            says: "found 5 values"),
        .screen(
            "calibration of 7", "calibration: [1, 0, 0, 0, 1, 0, 0],", .invalidCalibration,
            at: "calibration", says: "found 7 values"),
        .screen(
            "calibration with a string", #"calibration: [1, 0, 0, 0, 1, "0"],"#, .invalidCalibration,
            at: "calibration"),
        .screen(
            "calibration of 6 numbers and a string", #"calibration: [1, 0, 0, 0, 1, 0, "x"],"#, .invalidCalibration,
            at: "calibration"),
        .screen("empty matcher", "devices: [{}],", .invalidValue, at: "{}", says: "at least one of"),
        .screen(
            "unknown matcher key", #"devices: [{ nmae: "x" }],"#, .unknownKey, at: "nmae",
            says: #"did you mean "name"?"#),
        .screen("udev value not a string", "devices: [{ udev: { ID_PATH: 3 } }],", .wrongType, at: "ID_PATH"),
        .screen("relative node", #"devices: [{ node: "event3" }],"#, .invalidValue, at: "node"),
        .screen("devices not a list", #"devices: "ILITEK*","#, .wrongType, at: "devices"),
        .screen("unknown screen key", "colour: 3,", .unknownKey, at: "colour"),

        .file("no screens", "{ screens: [] }", .noScreens, at: "screens"),
        .file("screens missing", "{ }", .noScreens, at: "{"),
        .file("screens not an array", "{ screens: {} }", .wrongType, at: "screens"),
        .file("top level is an array", "[]", .wrongType, at: "["),
        .file("empty file", "", .syntax, at: nil),
        .file("comment only", "// nothing", .syntax, at: nil),
        .file("trailing garbage", "{ screens: [] } x", .syntax, at: "x"),
        .file("unclosed object", "{ screens: [", .syntax, at: nil, says: "not closed"),
        .file("unclosed comment", "{ /* screens", .syntax, at: "/*"),
        .file(
            "reserved socket",
            #"{ socket: "/run/x.sock", screens: [{ name: "a", width: 1, height: 1, root: { id: "a" } }] }"#,
            .reservedKey, at: "socket"),
        .file(
            "unknown policy",
            #"{ unmatchedDevices: "drop", screens: [{ name: "a", width: 1, height: 1, root: { id: "a" } }] }"#,
            .invalidValue, at: "unmatchedDevices", says: "first-screen"),
        .file(
            "duplicate screen name",
            """
            { screens: [
              { name: "a", width: 1, height: 1, root: { id: "a" } },
              { name: "a", width: 1, height: 1, root: { id: "b" } },
            ] }
            """, .duplicateScreenName, at: #"name: "a", width: 1, height: 1, root: { id: "b""#),
        .file(
            "screen width 0", #"{ screens: [{ name: "a", width: 0, height: 1, root: { id: "a" } }] }"#,
            .nonPositiveSize, at: "width"),
        .file(
            "screen without root", #"{ screens: [{ name: "a", width: 1, height: 1 }] }"#, .missingKey,
            at: "{ name", says: "root"),
        .file(
            "bad screen name", #"{ screens: [{ name: "a b", width: 1, height: 1, root: { id: "a" } }] }"#,
            .invalidID, at: "name"),
    ]

    /// An id may hold letters, digits, `-`, `_` and `.` (configuration.md, View: id).
    @Test func idsTakeLettersDigitsDashUnderscoreAndDot() {
        let errors = configErrors(
            fileWithChildren(
                #"{ id: "key-7", frame: [0, 0, 5, 5] }, { id: "key_8", frame: [0, 0, 5, 5] }, "#
                    + #"{ id: "menu.item.2", frame: [0, 0, 5, 5] }, { id: "Z9", frame: [0, 0, 5, 5] }"#))
        #expect(errors.isEmpty, "\(errors)")
    }

    /// Of a key given twice in a view, the first is read (the duplicate is reported, and the
    /// second value is not checked: `alpha: 2` would be out of range).
    @Test func theFirstOfADuplicateKeyIsRead() {
        let errors = configErrors(fileWithChildren(#"{ id: "k", frame: [0, 0, 5, 5], alpha: 0.5, alpha: 2 }"#))
        #expect(errors.map(\.code) == [.duplicateKey], "\(errors)")
    }

    @Test("a bad config is rejected with the expected error and location", arguments: badCases)
    func badConfig(_ badCase: BadConfigCase) throws {
        try expectRejected(badCase)
    }

    @Test("every error in a file is reported, in file order, one per line")
    func everyError() throws {
        let text = """
            {
              screens: [{
                name: "main", width: 100, height: 100, rotation: 45,
                root: { id: "main", children: [
                  { id: "keypad", frame: [0, 0, 50, 50], children: [
                    { id: "key7", frame: [0, 0, 0, 10], alpha: 2 },
                    { id: "key7", frame: [0, 0, 10, 10], interactve: false },
                  ] },
                ] },
              }],
            }
            """
        let errors = configErrors(text)
        #expect(
            errors.map(\.code) == [
                .invalidRotation, .nonPositiveSize, .alphaOutOfRange, .duplicateID, .unknownKey,
            ])
        let described = ConfigErrors(errors).description.split(separator: "\n").map(String.init)
        #expect(
            described == [
                #"test.json5:3:44: screen "main": rotation must be 0, 90, 180 or 270, found 45"#,
                #"test.json5:6:37: view "main/keypad/key7": width must be > 0, found 0"#,
                #"test.json5:6:45: view "main/keypad/key7": alpha must be in 0…1, found 2"#,
                #"test.json5:7:11: view "main/keypad/key7": duplicate id "key7": already used by view "main/keypad/key7""#,
                #"test.json5:7:46: view "main/keypad/key7": unknown key "interactve" (did you mean "interactive"?)"#,
            ])
    }

    @Test("errors past the report limit are summed up in one line")
    func tooManyErrors() {
        let children = (0..<20).map { #"{ id: "k\#($0)", frame: [0, 0, 0, 1] }"# }.joined(separator: ", ")
        let errors = configErrors(fileWithChildren(children), limits: ConfigLimits(maxReportedErrors: 5))
        #expect(errors.count == 6)
        #expect(errors.last?.code == .tooManyErrors)
        #expect(errors.last?.message == "15 more errors not listed")
    }

    @Test(
        "did you mean: near misses only",
        arguments: [
            ("interactve", "interactive"), ("touchmargin", "touchMargin"), ("chidlren", "children"),
            ("multipletouch", "multipleTouch"), ("Frame", "frame"), ("xyz", nil), ("colour", nil), ("a", nil),
        ] as [(String, String?)])
    func didYouMean(word: String, expected: String?) {
        #expect(NearMiss.suggestion(for: word, among: ConfigParser.viewKeys) == expected)
    }

    @Test("the view keys, listed once as ViewKey's cases, are the config's keys in their documented order")
    func viewKeys() {
        #expect(
            ConfigParser.viewKeys == [
                "id", "frame", "children", "hidden", "alpha", "interactive", "touchMargin", "shape", "transform",
                "multipleTouch", "exclusiveTouch", "access", "gestures", "owner", "mount", "resetOnDisconnect",
                "passthrough",
            ])
    }

    @Test("edit distance")
    func editDistance() {
        func distance(_ a: String, _ b: String) -> Int {
            NearMiss.editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars))
        }
        #expect(distance("kitten", "sitting") == 3)
        #expect(distance("", "abc") == 3)
        #expect(distance("abc", "abc") == 0)
        #expect(distance("alpha", "alhpa") == 1)
        #expect(distance("nmae", "name") == 1)
    }
}
