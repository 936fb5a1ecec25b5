import Testing
import TouchRouterCore

/// `touchrouterctl calibrate`'s pure parts: where the targets go, how the matrix is written, and the
/// `--apply` edit of the config text (one value changed, every other byte kept).
@Suite("Calibration tool")
struct CalibrationToolTests {
    // MARK: - Targets

    @Test func fourTargetsAreTheCornersInsetTenPercentInReadingOrder() throws {
        let targets = try #require(CalibrationTargets.targets(count: 4, width: 800, height: 480))
        #expect(targets == [Point(80, 48), Point(720, 48), Point(80, 432), Point(720, 432)])
    }

    @Test func threeTargetsAreTheTopCornersAndTheBottomMiddle() throws {
        let targets = try #require(CalibrationTargets.targets(count: 3, width: 800, height: 480))
        #expect(targets == [Point(80, 48), Point(720, 48), Point(400, 432)])
    }

    @Test func nineTargetsAreAThreeByThreeGridAndFiveAddTheCentre() throws {
        let nine = try #require(CalibrationTargets.targets(count: 9, width: 1080, height: 1920))
        let xs: [Double] = [108, 540, 972]
        let ys: [Double] = [192, 960, 1728]
        #expect(nine == ys.flatMap { y in xs.map { Point($0, y) } })
        let five = try #require(CalibrationTargets.targets(count: 5, width: 1080, height: 1920))
        #expect(five == [Point(108, 192), Point(972, 192), Point(540, 960), Point(108, 1728), Point(972, 1728)])
        #expect(CalibrationTargets.targets(count: 6, width: 1080, height: 1920) == nil)
    }

    /// Every count's targets give the fit an exact matrix back (so three are not on one line and
    /// all spread enough), and the verification target is none of them.
    @Test(arguments: CalibrationTargets.counts)
    func everyCountFitsAndTheVerificationPointIsHeldOut(count: Int) throws {
        let targets = try #require(CalibrationTargets.targets(count: count, width: 1080, height: 1920))
        #expect(targets.count == count && Set(targets.map { "\($0.x),\($0.y)" }).count == count)
        let matrix = CalibrationFitTests.distortion
        let points = targets.map { CalibrationFitTests.press(at: $0, matrix: matrix, rotation: 90) }
        let fit = try CalibrationFit(points, screenWidth: 1080, screenHeight: 1920, rotation: 90)
        for (got, want) in zip(fit.matrix, matrix) { #expect(abs(got - want) < 1e-9) }
        let verification = CalibrationTargets.verification(width: 1080, height: 1920)
        #expect(verification == Point(324, 1152))
        #expect(!targets.contains(verification))
    }

    // MARK: - Numbers

    @Test func matrixEntriesAreWrittenWithSixDecimals() {
        #expect(CalibrationEdit.decimal(1) == "1")
        #expect(CalibrationEdit.decimal(0.95) == "0.95")
        #expect(CalibrationEdit.decimal(-0.0314159265) == "-0.031416")
        #expect(CalibrationEdit.decimal(-0.0000001) == "0")
        #expect(CalibrationEdit.decimal(1.0000004) == "1")
        #expect(CalibrationEdit.decimal(-12.5) == "-12.5")
        #expect(CalibrationEdit.decimal(0.000001) == "0.000001")
        #expect(CalibrationEdit.matrixText([0, -1, 1, 1, 0, 0]) == "[0, -1, 1, 1, 0, 0]")
    }

    /// A re-run that gets the same presses prints the same matrix, to the byte.
    @Test func theSamePressesPrintTheSameMatrix() throws {
        var random = SeededRandom(seed: 29)
        let targets = try #require(CalibrationTargets.targets(count: 5, width: 800, height: 480))
        let points = targets.map { target in
            let press = CalibrationFitTests.press(at: target, matrix: CalibrationFitTests.distortion, rotation: 0)
            return CalibrationPoint(
                target: target, normalizedX: press.normalizedX + Double.random(in: -0.001...0.001, using: &random),
                normalizedY: press.normalizedY)
        }
        let first = try CalibrationFit(points, screenWidth: 800, screenHeight: 480, rotation: 0)
        let second = try CalibrationFit(points, screenWidth: 800, screenHeight: 480, rotation: 0)
        #expect(CalibrationEdit.matrixText(first.matrix) == CalibrationEdit.matrixText(second.matrix))
    }

    // MARK: - The config edit

    static let matrix = [0.95, 0.01, 0.02, -0.015, 1.04, -0.03]
    static let matrixText = "[0.95, 0.01, 0.02, -0.015, 1.04, -0.03]"

    static func edit(_ text: String, screen: String = "main", matrix: [Double] = matrix) throws -> String {
        String(decoding: try CalibrationEdit.apply(matrix: matrix, screen: screen, to: Array(text.utf8)), as: UTF8.self)
    }

    /// The screen's calibration as the config parser reads the edited text.
    static func parsedCalibration(_ text: String, screen: String = "main") throws -> [Double]? {
        try Config.parse(Array(text.utf8), fileName: "test.json5").input(forScreen: screen)?.calibration
    }

    static let twoScreens = """
        // Two screens; comments and trailing commas must survive.
        {
            screens: [
                {
                    name: "main", // the customer panel
                    width: 800,
                    height: 480,
                    rotation: 90, /* mounted on its side */
                    calibration: [ 1, 0, 0,   0, 1, 0 ], // factory
                    root: { id: "main" },
                },
                {
                    name: "service",
                    width: 800,
                    height: 480,
                    calibration: [1, 0, 0, 0, 1, 0],
                    root: { id: "service" },
                },
            ],
        }

        """

    @Test func anExistingCalibrationIsReplacedInPlaceAndNothingElseChanges() throws {
        let edited = try Self.edit(Self.twoScreens)
        let expected = Self.twoScreens.replacingFirst(
            "calibration: [ 1, 0, 0,   0, 1, 0 ], // factory", with: "calibration: \(Self.matrixText), // factory")
        #expect(edited == expected)
        #expect(try Self.parsedCalibration(edited) == Self.matrix)
        #expect(try Self.parsedCalibration(edited, screen: "service") == [1, 0, 0, 0, 1, 0])
    }

    /// The reader's columns are characters: non-ASCII text before the key on its line (a comment
    /// saying "café") does not shift the edit.
    @Test func nonASCIITextBeforeTheKeyOnItsLine() throws {
        let text = """
            { screens: [{ name: "main", /* café – écran */ width: 800, height: 480, calibration: [1, 0, 0, 0, 1, 0],
                root: { id: "r" } }] }

            """
        let edited = try Self.edit(text)
        #expect(edited == text.replacingFirst("[1, 0, 0, 0, 1, 0]", with: Self.matrixText))
        #expect(try Self.parsedCalibration(edited) == Self.matrix)
    }

    @Test func aSecondApplyChangesOnlyTheMatrix() throws {
        let once = try Self.edit(Self.twoScreens)
        let second = [1.01, 0, -0.005, 0, 0.99, 0.004]
        let twice = try Self.edit(once, matrix: second)
        #expect(
            twice
                == Self.twoScreens.replacingFirst(
                    "calibration: [ 1, 0, 0,   0, 1, 0 ]", with: "calibration: [1.01, 0, -0.005, 0, 0.99, 0.004]"))
        #expect(try Self.parsedCalibration(twice) == second)
    }

    @Test func anAbsentCalibrationIsInsertedAfterRotationIndentedLikeItsNeighbours() throws {
        let text = """
            {
              screens: [{
                name: "main",
                width: 800, height: 480,
                rotation: 90, // on its side
                root: { id: "main", children: [] },
              }],
            }
            """
        let edited = try Self.edit(text)
        #expect(
            edited
                == text.replacingFirst(
                    "rotation: 90, // on its side\n",
                    with: "rotation: 90, // on its side\n    calibration: \(Self.matrixText),\n"))
        #expect(try Self.parsedCalibration(edited) == Self.matrix)
    }

    @Test func insertedAfterHeightWithoutRotationQuotedLikeItsNeighbourAndWithCRLF() throws {
        let text =
            "{\r\n\t\"screens\": [{\r\n\t\t\"name\": \"main\",\r\n\t\t\"width\": 800,\r\n\t\t\"height\": 480\r\n"
            + "\t\t, \"root\": {\"id\": \"main\"}\r\n\t}]\r\n}\r\n"
        let edited = try Self.edit(text)
        #expect(
            edited
                == text.replacingFirst(
                    "\"height\": 480\r\n", with: "\"height\": 480,\r\n\t\t\"calibration\": \(Self.matrixText)\r\n"))
        #expect(try Self.parsedCalibration(edited) == Self.matrix)
    }

    @Test func aOneLineScreenGetsTheKeyOnTheSameLine() throws {
        let text = #"{ screens: [{ name: "main", width: 800, height: 480, root: { id: "main" } }] }"#
        let edited = try Self.edit(text)
        #expect(edited == text.replacingFirst("height: 480,", with: "height: 480, calibration: \(Self.matrixText),"))
        #expect(try Self.parsedCalibration(edited) == Self.matrix)
    }

    /// The screen sits between deeply nested layouts, with look-alike keys inside its views' text.
    @Test func aScreenAmongDeeplyNestedLayoutsIsFound() throws {
        func nested(_ depth: Int, _ id: String) -> String {
            (0..<depth).reduce("{ id: '\(id)-leaf', frame: [0, 0, 1, 1] }") { inner, level in
                "{ id: \"\(id)-\(level)\", frame: [0, 0, 10, 10], /* ] } calibration: [] */ children: [\(inner), ], }"
            }
        }
        let text = """
            {
                screens: [
                    { name: "left", width: 100, height: 100, root: \(nested(30, "l")) },
                    {
                        name: "main",
                        width: 800,
                        height: 480,
                        root: \(nested(50, "m")),
                        calibration: [2, 0, 0, 0, 2, 0]
                    },
                ],
            }
            """
        let edited = try Self.edit(text)
        #expect(
            edited == text.replacingFirst("calibration: [2, 0, 0, 0, 2, 0]", with: "calibration: \(Self.matrixText)"))
        #expect(try Self.parsedCalibration(edited) == Self.matrix)
        #expect(try Self.parsedCalibration(edited, screen: "left") == nil)
    }

    @Test func aScreenNotInTheFileIsRefusedByName() {
        #expect(throws: CalibrationEdit.Failure.screenNotFound("side", available: ["main", "service"])) {
            try Self.edit(Self.twoScreens, screen: "side")
        }
        #expect(throws: CalibrationEdit.Failure.self) { try Self.edit("{ screens: [ ", screen: "main") }
        let refused = CalibrationEdit.Failure.screenNotFound("side", available: ["main", "service"])
        #expect(refused.description == "no screen named \"side\" in the file (its screens: main, service)")
    }
}

extension String {
    /// The text with the first occurrence of `target` replaced (the test fails if there is none).
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        let characters = Array(self)
        let wanted = Array(target)
        guard wanted.count <= characters.count else { return self + "<no \(target)>" }
        for start in 0...(characters.count - wanted.count)
        where Array(characters[start..<start + wanted.count]) == wanted {
            return String(characters[..<start]) + replacement + String(characters[(start + wanted.count)...])
        }
        return self + "<no \(target)>"
    }
}
