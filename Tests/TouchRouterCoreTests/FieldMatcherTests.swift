import Foundation
import Testing
import TouchRouterCore

/// `filters` on a screen's device matcher (docs/field.md, "Per device matcher"): read over the
/// screen's key by key, located at `devices[N]`, picked per frame by the matcher that took the
/// device, so two panels on one screen are filtered apart.
@Suite("Field filters per device matcher")
struct FieldMatcherTests {
    typealias S = FieldStageTests

    /// One screen "main" with the given screen keys and `devices` entries.
    static func config(screen keys: String = "", devices: String) -> String {
        "{screens: [{name: \"main\", width: 1000, height: 1000, root: {id: \"r\"}, \(keys) devices: [\(devices)]}]}"
    }

    static func parse(_ text: String) throws(ConfigErrors) -> Config {
        try Config.parse(Data(text.utf8), fileName: "test.json5")
    }

    // MARK: - Config

    @Test func aMatchersFiltersReplaceTheScreensKeyByKey() throws {
        let config = try Self.parse(
            Self.config(
                screen: "idle: {seconds: 60}, filters: {dropStuckPoints: true, debounceMs: 80, debounceMM: 4},",
                devices: """
                    {name: "flaky*", filters: {minContactMs: 40, debounceMs: 100}},
                    {name: "good*", filters: {dropStuckPoints: false, debounceMM: null}},
                    {name: "plain*"}
                    """))
        let screen = FieldSettings(
            idleMicros: 60_000_000, dropsStuckPoints: true, debounceMicros: 80_000, debounceMillimetres: 4)
        var flaky = screen
        flaky.minContactMicros = 40_000
        flaky.debounceMicros = 100_000
        var good = screen
        good.dropsStuckPoints = false
        good.debounceMicros = nil
        good.debounceMillimetres = nil
        let devices = try #require(config.input(forScreen: "main")).devices
        #expect(devices.map(\.fieldSettings) == [flaky, good, nil])
        #expect(config.fieldSettings(forScreen: "main", matcherIndex: 0) == flaky)
        #expect(config.fieldSettings(forScreen: "main", matcherIndex: 1) == good)
        #expect(config.fieldSettings(forScreen: "main", matcherIndex: 2) == screen)
        #expect(config.fieldSettings(forScreen: "main", matcherIndex: nil) == screen)
        #expect(config.fieldSettings(forScreen: "main", matcherIndex: 3) == screen)
    }

    @Test func aMatcherOnAScreenWithoutFieldKeysStartsFromEverythingOff() throws {
        let config = try Self.parse(Self.config(devices: "{name: \"a\", filters: {maxStationarySeconds: 5}}"))
        #expect(config.fieldSettings.isEmpty)
        #expect(
            config.fieldSettings(forScreen: "main", matcherIndex: 0) == FieldSettings(maxStationaryMicros: 5_000_000))
    }

    @Test func theFirstMatchingMatcherTakesTheDevice() throws {
        let config = try Self.parse(
            Self.config(devices: "{name: \"panel A\"}, {name: \"panel *\", filters: {minContactMs: 20}}"))
        func match(_ name: String) -> ScreenMatch? {
            config.screenMatch(forDeviceNamed: name, udevProperties: [:], node: nil)
        }
        #expect(match("panel A") == ScreenMatch(screen: "main", matcherIndex: 0))
        #expect(match("panel B") == ScreenMatch(screen: "main", matcherIndex: 1))
        // Unmatched: the first screen by the default policy, with no matcher (the screen's filters).
        #expect(match("other") == ScreenMatch(screen: "main", matcherIndex: nil))
        #expect(config.screenName(forDeviceNamed: "panel B", udevProperties: [:], node: nil) == "main")
    }

    @Test(arguments: [
        (
            "{name: \"a\"}, {name: \"b\", filters: {minContactMs: 0}}", ConfigErrorCode.invalidValue,
            "devices[1]: \"minContactMs\" must be 1…1000 ms, found 0"
        ),
        (
            "{name: \"a\", filters: {minContact: 20}}", .unknownKey,
            "devices[0]: unknown key \"minContact\" (did you mean \"minContactMs\"?)"
        ),
        ("{name: \"a\", filters: 20}", .wrongType, "devices[0]: \"filters\" must be an object, found a number"),
        (
            "{name: \"a\", filters: {dropStuckPoints: \"yes\"}}", .wrongType,
            "devices[0]: \"dropStuckPoints\" must be true or false, found a string"
        ),
        (
            "{name: \"a\", filters: {debounceMM: 3}}", .missingKey,
            "devices[0]: \"debounceMs\" and \"debounceMM\" go together: a bounce is near in time and in place"
        ),
        (
            "{name: \"a\", filters: {maxStationarySeconds: 86401}}", .invalidValue,
            "devices[0]: \"maxStationarySeconds\" must be 1…86400 seconds, found 86401"
        ),
        (
            "{filters: {minContactMs: 20}}", .invalidValue,
            "devices[0]: a device matcher needs at least one of \"name\", \"udev\", \"node\""
        ),
        ("{name: \"\"}", .invalidValue, "devices[0]: a device name glob must not be empty"),
    ])
    func badMatcherFiltersAreLocatedAtTheMatcher(devices: String, code: ConfigErrorCode, message: String) {
        do {
            _ = try Self.parse(Self.config(devices: devices))
            Issue.record("accepted \(devices)")
        } catch {
            #expect(error.errors.count == 1)
            #expect(error.errors.first?.code == code)
            #expect(error.errors.first?.message == message)
            #expect(error.errors.first?.line == 1 && error.errors.first?.screenName == "main")
        }
    }

    @Test func aScreensNullIsStillAWrongType() {
        #expect(throws: ConfigErrors.self) {
            _ = try Self.parse(Self.config(screen: "filters: {minContactMs: null},", devices: "{name: \"a\"}"))
        }
    }

    @Test func aMatcherMayCompleteTheScreensDebouncePair() throws {
        // The screen gives the pair; a matcher changing one half keeps the other.
        let config = try Self.parse(
            Self.config(
                screen: "filters: {debounceMs: 80, debounceMM: 4},", devices: "{name: \"a\", filters: {debounceMM: 2}}")
        )
        let settings = config.fieldSettings(forScreen: "main", matcherIndex: 0)
        #expect(settings.debounceMicros == 80_000 && settings.debounceMillimetres == 2)
    }

    @Test func theExampleConfigGivesEachPanelItsFilters() throws {
        let config = try loadConfig(path: RepositoryPaths.root.appendingPathComponent("config/field-kiosk.json5").path)
        let screen = FieldSettings(
            idleMicros: 120_000_000, swallowsWakingTouch: true, wakeGraceMicros: 300_000, dropsStuckPoints: true,
            maxStationaryMicros: 30_000_000)
        #expect(config.fieldSettings["panel"] == screen)
        var replacement = screen
        replacement.minContactMicros = 20_000
        replacement.debounceMicros = 60_000
        replacement.debounceMillimetres = 3
        var testPanel = screen
        testPanel.maxStationaryMicros = nil
        #expect(
            (0...2).map { config.fieldSettings(forScreen: "panel", matcherIndex: $0) } == [
                screen, replacement, testPanel,
            ])
        let egalax = config.screenMatch(
            forDeviceNamed: "eGalax Inc. USB TouchController", udevProperties: ["ID_INPUT_TOUCHSCREEN": "1"], node: nil)
        #expect(egalax == ScreenMatch(screen: "panel", matcherIndex: 1))
        #expect(config.screenMatch(forDeviceNamed: "Wacom", udevProperties: [:], node: nil) == nil)
    }

    // MARK: - The stage: two panels on one screen

    static let flaky = InputDevice(id: 1, name: "flaky panel")
    static let good = InputDevice(id: 2, name: "good panel")

    /// `flaky` (matcher 0) has `minContactMs: 30`; `good` (matcher 1) has no filters of its own, and
    /// the screen none.
    static func twoPanels() throws -> (Config, FieldStage) {
        let config = try parse(
            config(devices: "{name: \"flaky*\", filters: {minContactMs: 30}}, {name: \"good*\"}"))
        return (config, FieldStage(config: config, nowMicros: 0))
    }

    static func frame(
        _ time: UInt64, _ contact: ContactEvent, _ device: InputDevice, matcher: Int?
    ) -> InputEvent {
        .frame(
            InputFrame(
                device: device, screen: "main", timestampMicros: time, contacts: [contact], matcherIndex: matcher))
    }

    /// A tap of `duration` µs from each panel at once: only the flaky panel's short one is a blip.
    @Test(arguments: [(29_000 as UInt64, true), (30_000, false), (31_000, false)])
    func onlyTheMatchedPanelsBlipsAreDropped(lasting duration: UInt64, dropped: Bool) throws {
        var (_, stage) = try Self.twoPanels()
        #expect(!stage.isInert)
        let start: UInt64 = 1_000_000
        let outputs = S.run(
            &stage,
            [
                Self.frame(start, S.down(0, 100, 100), Self.flaky, matcher: 0),
                Self.frame(start, S.down(0, 600, 100), Self.good, matcher: 1),
                Self.frame(start + duration, S.up(0), Self.flaky, matcher: 0),
                Self.frame(start + duration, S.up(0), Self.good, matcher: 1),
            ])
        // The good panel's contact passes at once, whole; the flaky one's began is held.
        #expect(S.contacts(outputs[0]).isEmpty)
        #expect(S.contacts(outputs[1]) == [S.down(0, 600, 100)])
        #expect(S.contacts(outputs[2]) == (dropped ? [] : [S.down(0, 100, 100), S.up(0)]))
        #expect(S.contacts(outputs[3]) == [S.up(0)])
        let counters = Dictionary(uniqueKeysWithValues: stage.deviceCounters.map { ($0.device.name, $0) })
        #expect((counters["flaky panel"]?[.blip] ?? 0) == (dropped ? 1 : 0))
        #expect((counters["good panel"]?[.blip] ?? 0) == 0)
    }

    /// Debounce follows the matcher's `filters` too: a bounce 20 ms after an up is dropped from the
    /// panel whose matcher turns debounce on over a screen without it, and delivered from the one
    /// whose matcher turns the screen's debounce off (`debounceMs: null`).
    @Test(arguments: [
        ("", "{name: \"flaky*\", filters: {debounceMs: 60, debounceMM: 3}}", true),
        ("filters: {debounceMs: 60, debounceMM: 3},", "{name: \"flaky*\", filters: {debounceMs: null}}", false),
    ])
    func debounceFollowsTheMatchersFilters(screen keys: String, devices: String, bounce: Bool) throws {
        let config = try Self.parse(Self.config(screen: keys, devices: devices))
        #expect((config.fieldSettings(forScreen: "main", matcherIndex: 0).debounceMicros != nil) == bounce)
        var stage = FieldStage(config: config, nowMicros: 0)
        let outputs = S.run(
            &stage,
            [
                Self.frame(0, S.down(0, 100, 100), Self.flaky, matcher: 0),
                Self.frame(100_000, S.up(0), Self.flaky, matcher: 0),
                Self.frame(120_000, S.down(0, 101, 100), Self.flaky, matcher: 0),
                Self.frame(150_000, S.up(0), Self.flaky, matcher: 0),
            ])
        #expect(S.contacts(outputs[0]) == [S.down(0, 100, 100)] && S.contacts(outputs[1]) == [S.up(0)])
        #expect(S.contacts(outputs[2]) == (bounce ? [] : [S.down(0, 101, 100)]))
        #expect(S.contacts(outputs[3]) == (bounce ? [] : [S.up(0)]))
        #expect((stage.deviceCounters.first?[.bounce] ?? 0) == (bounce ? 1 : 0))
    }

    @Test func aFrameWithoutAMatcherGetsTheScreensFilters() throws {
        var (_, stage) = try Self.twoPanels()
        let outputs = S.run(
            &stage,
            [
                Self.frame(0, S.down(0), Self.good, matcher: nil),
                Self.frame(1_000, S.up(0), Self.good, matcher: nil),
            ])
        #expect(S.contacts(outputs[0]) == [S.down(0)] && S.contacts(outputs[1]) == [S.up(0)])
    }

    @Test func aReloadAppliesTheMatchersNewFilters() throws {
        var (_, stage) = try Self.twoPanels()
        // The new config moves the filter to the good panel's matcher.
        let reloaded = try Self.parse(
            Self.config(devices: "{name: \"flaky*\"}, {name: \"good*\", filters: {minContactMs: 30}}"))
        stage.replaceSettings(config: reloaded, nowMicros: 0)
        let outputs = S.run(
            &stage,
            [
                Self.frame(0, S.down(0), Self.flaky, matcher: 0), Self.frame(0, S.down(0, 600), Self.good, matcher: 1),
                Self.frame(10_000, S.up(0), Self.flaky, matcher: 0), Self.frame(10_000, S.up(0), Self.good, matcher: 1),
            ])
        #expect(outputs.map(S.contacts) == [[S.down(0)], [], [S.up(0)], []])
    }

    @Test func aContactFollowsItsDevicesMatcherAsItsFramesNameItAfterAReload() throws {
        let config = try Self.parse(
            Self.config(devices: "{name: \"flaky*\", filters: {maxStationarySeconds: 5}}, {name: \"good*\"}"))
        var stage = FieldStage(config: config, nowMicros: 0)
        _ = stage.process(Self.frame(0, S.down(0), Self.flaky, matcher: 0), nowMicros: 0)
        #expect(stage.nextDeadlineMicros == 5_000_000)
        // The new config lists the flaky panel second, with a shorter limit; input now says matcher 1.
        let reloaded = try Self.parse(
            Self.config(devices: "{name: \"good*\"}, {name: \"flaky*\", filters: {maxStationarySeconds: 2}}"))
        stage.replaceSettings(config: reloaded, nowMicros: 0)
        _ = stage.process(Self.frame(1_000_000, S.move(0, 100, 100), Self.flaky, matcher: 1), nowMicros: 1_000_000)
        #expect(stage.nextDeadlineMicros == 2_000_000)
    }

    @Test func aStuckLimitOnOneMatcherCancelsOnlyThatPanelsStillFinger() throws {
        let config = try Self.parse(
            Self.config(devices: "{name: \"flaky*\", filters: {maxStationarySeconds: 2}}, {name: \"good*\"}"))
        var stage = FieldStage(config: config, nowMicros: 0)
        _ = S.run(
            &stage,
            [Self.frame(0, S.down(0), Self.flaky, matcher: 0), Self.frame(0, S.down(0, 600), Self.good, matcher: 1)])
        #expect(stage.nextDeadlineMicros == 2_000_000)
        #expect(S.contacts(stage.advance(nowMicros: 1_999_999)).isEmpty)
        let fired = stage.advance(nowMicros: 2_000_000)
        #expect(S.contacts(fired) == [ContactEvent(kind: .cancel, slot: 0, cancelReason: .stuck)])
        guard case .frame(let frame) = fired.events.first else {
            Issue.record("no frame")
            return
        }
        #expect(frame.device == Self.flaky)
        #expect(stage.nextDeadlineMicros == nil)
    }
}
