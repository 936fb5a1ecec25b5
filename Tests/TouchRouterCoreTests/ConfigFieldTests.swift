import Foundation
import Testing
import TouchRouterCore

/// The screen keys `idle`, `wake` and `filters`: read into `FieldSettings`, every bad value located.
@Suite("Config: field keys")
struct ConfigFieldTests {
    static func screen(_ keys: String) -> String {
        "{screens: [{name: \"main\", width: 100, height: 100, root: {id: \"r\"}, \(keys)}]}"
    }

    @Test func everyKeyIsRead() throws {
        let config = try Config.parse(
            Data(
                Self.screen(
                    """
                    idle: {seconds: 60}, wake: {swallow: true, graceMs: 300},
                    filters: {dropStuckPoints: true, maxStationarySeconds: 30, minContactMs: 40,
                              debounceMs: 80, debounceMM: 4}
                    """
                ).utf8), fileName: "test.json5")
        let settings = try #require(config.fieldSettings["main"])
        #expect(
            settings
                == FieldSettings(
                    idleMicros: 60_000_000, swallowsWakingTouch: true, wakeGraceMicros: 300_000,
                    dropsStuckPoints: true, maxStationaryMicros: 30_000_000, minContactMicros: 40_000,
                    debounceMicros: 80_000, debounceMillimetres: 4))
    }

    @Test func aScreenWithoutThemHasNoEntryAndWakeDefaultsItsGrace() throws {
        let plain = try Config.parse(Data(Self.screen("").utf8), fileName: "test.json5")
        #expect(plain.fieldSettings.isEmpty)
        let wake = try Config.parse(Data(Self.screen("wake: {swallow: true}").utf8), fileName: "test.json5")
        #expect(wake.fieldSettings["main"]?.wakeGraceMicros == 250_000)
        // Everything is off unless asked for: a `wake` without `swallow` lets the waking touch through.
        let graceOnly = try Config.parse(Data(Self.screen("wake: {graceMs: 300}").utf8), fileName: "test.json5")
        #expect(graceOnly.fieldSettings["main"]?.swallowsWakingTouch == false)
        #expect(graceOnly.fieldSettings["main"]?.wakeGraceMicros == 300_000)
    }

    @Test(arguments: [
        ("idle: {seconds: 0}", ConfigErrorCode.invalidValue, "\"seconds\" must be 0.001…604800 seconds, found 0"),
        ("idle: {}", .missingKey, "\"idle\" needs \"seconds\""),
        ("idle: 60", .wrongType, "\"idle\" must be an object, found a number"),
        ("wake: {swallow: 1}", .wrongType, "\"swallow\" must be true or false, found a number"),
        ("wake: {graceMs: 10001}", .invalidValue, "\"graceMs\" must be 0…10000 ms, found 10001"),
        ("wake: {swalow: true}", .unknownKey, "unknown key \"swalow\" (did you mean \"swallow\"?)"),
        ("filters: {minContactMs: 0}", .invalidValue, "\"minContactMs\" must be 1…1000 ms, found 0"),
        (
            "filters: {maxStationarySeconds: 0.5}", .invalidValue,
            "\"maxStationarySeconds\" must be 1…86400 seconds, found 0.5"
        ),
        (
            "filters: {debounceMs: 80}", .missingKey,
            "\"debounceMs\" and \"debounceMM\" go together: a bounce is near in time and in place"
        ),
        ("filters: {debounceMs: 80, debounceMM: 0}", .invalidValue, "\"debounceMM\" must be 0.1…100 mm, found 0"),
        (
            "filters: {dropStuckPoint: true}", .unknownKey,
            "unknown key \"dropStuckPoint\" (did you mean \"dropStuckPoints\"?)"
        ),
    ])
    func badValuesAreLocatedErrors(keys: String, code: ConfigErrorCode, message: String) {
        do {
            _ = try Config.parse(Data(Self.screen(keys).utf8), fileName: "test.json5")
            Issue.record("accepted \(keys)")
        } catch {
            #expect(error.errors.count == 1)
            #expect(error.errors.first?.code == code)
            #expect(error.errors.first?.message == message)
            #expect(error.errors.first?.line == 1 && error.errors.first?.screenName == "main")
        }
    }
}
