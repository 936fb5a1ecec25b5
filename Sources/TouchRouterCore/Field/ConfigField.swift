/// The config's `idle`, `wake` and `filters` keys of a screen, and the `filters` of a screen's device
/// matcher (docs/field.md), read into `FieldSettings`. Every value is range-checked; a problem is
/// located like any other config error (a matcher's at `devices[N]`).

extension ConfigParser {
    /// The screen keys this file reads.
    static let fieldScreenKeys = ["idle", "wake", "filters"]
    static let idleKeys = ["seconds", "power"]
    static let wakeKeys = ["swallow", "graceMs"]
    static let filterKeys = ["dropStuckPoints", "maxStationarySeconds", "minContactMs", "debounceMs", "debounceMM"]

    /// Reads a screen's `idle`, `wake` and `filters` objects; nil when the screen has none of them.
    mutating func fieldSettings(_ screen: JSONObject, _ subject: Subject) -> FieldSettings? {
        guard Self.fieldScreenKeys.contains(where: { screen[$0] != nil }) else { return nil }
        var settings = FieldSettings()
        if let node = screen["idle"], let idle = object(node, subject, "\"idle\"") {
            checkKeys(idle, allowed: Self.idleKeys, subject)
            if let seconds = bounded(idle, "seconds", in: 0.001...604_800, unit: "seconds", subject) {
                settings.idleMicros = Self.micros(seconds * 1_000_000)
            } else if idle["seconds"] == nil {
                report(.missingKey, node.position, subject, "\"idle\" needs \"seconds\"")
            }
            if let power = idle["power"] {
                settings.power = panelPower(power, idleMicros: settings.idleMicros, subject)
            }
        }
        if let node = screen["wake"], let wake = object(node, subject, "\"wake\"") {
            checkKeys(wake, allowed: Self.wakeKeys, subject)
            settings.swallowsWakingTouch = bool(wake, "swallow", subject) ?? false
            if let grace = bounded(wake, "graceMs", in: 0...10_000, unit: "ms", subject) {
                settings.wakeGraceMicros = Self.micros(grace * 1_000)
            }
        }
        if let node = screen["filters"], let filters = object(node, subject, "\"filters\"") {
            applyFilters(filters, to: &settings, nullTurnsOff: false, subject)
        }
        return settings
    }

    /// A device matcher's `filters`: the screen's settings (`screen`, nil when it has none) with the
    /// keys given here replacing the screen's one by one; `null` turns a filter off for the matcher's
    /// devices. Nil when the matcher has no `filters`.
    mutating func matcherFieldSettings(
        _ matcher: JSONObject, screen: FieldSettings?, _ subject: Subject
    ) -> FieldSettings? {
        guard let node = matcher["filters"], let filters = object(node, subject, "\"filters\"") else { return nil }
        var settings = screen ?? FieldSettings()
        applyFilters(filters, to: &settings, nullTurnsOff: true, subject)
        return settings
    }

    /// Reads the keys of a `filters` object into `settings`, leaving the keys it does not give as
    /// they are. With `nullTurnsOff` (a matcher's), `null` switches a filter off.
    private mutating func applyFilters(
        _ filters: JSONObject, to settings: inout FieldSettings, nullTurnsOff: Bool, _ subject: Subject
    ) {
        checkKeys(filters, allowed: Self.filterKeys, subject)
        func isNull(_ key: String) -> Bool {
            guard nullTurnsOff, case .null? = filters[key]?.value else { return false }
            return true
        }
        if isNull("dropStuckPoints") {
            settings.dropsStuckPoints = false
        } else if let drops = bool(filters, "dropStuckPoints", subject) {
            settings.dropsStuckPoints = drops
        }
        if isNull("maxStationarySeconds") {
            settings.maxStationaryMicros = nil
        } else if let seconds = bounded(filters, "maxStationarySeconds", in: 1...86_400, unit: "seconds", subject) {
            settings.maxStationaryMicros = Self.micros(seconds * 1_000_000)
        }
        if isNull("minContactMs") {
            settings.minContactMicros = nil
        } else if let ms = bounded(filters, "minContactMs", in: 1...1_000, unit: "ms", subject) {
            settings.minContactMicros = Self.micros(ms * 1_000)
        }
        // The pair: `null` on either turns the debounce off; a value needs its partner, given here or
        // already in effect (the screen's, for a matcher).
        if isNull("debounceMs") || isNull("debounceMM") {
            settings.debounceMicros = nil
            settings.debounceMillimetres = nil
            return
        }
        let debounceMs = bounded(filters, "debounceMs", in: 1...1_000, unit: "ms", subject)
        let debounceMM = bounded(filters, "debounceMM", in: 0.1...100, unit: "mm", subject)
        let hasMs = filters["debounceMs"] != nil || settings.debounceMicros != nil
        let hasMM = filters["debounceMM"] != nil || settings.debounceMillimetres != nil
        if hasMs != hasMM, let given = filters["debounceMs"] ?? filters["debounceMM"] {
            report(
                .missingKey, given.position, subject,
                "\"debounceMs\" and \"debounceMM\" go together: a bounce is near in time and in place")
            return
        }
        if let debounceMs { settings.debounceMicros = Self.micros(debounceMs * 1_000) }
        if let debounceMM { settings.debounceMillimetres = debounceMM }
    }

    /// A finite number in `range`, or nil (reported) when it is missing, of another type or outside.
    mutating func bounded(
        _ object: JSONObject, _ key: String, in range: ClosedRange<Double>, unit: String, _ subject: Subject
    ) -> Double? {
        guard let value = number(object, key, subject) else { return nil }
        guard range.contains(value) else {
            report(
                .invalidValue, object[key]?.position, subject,
                "\"\(key)\" must be \(Self.format(range.lowerBound))…\(Self.format(range.upperBound)) \(unit), "
                    + "found \(Self.format(value))")
            return nil
        }
        return value
    }

    static func micros(_ value: Double) -> UInt64 { UInt64(value.rounded()) }
}

extension Config {
    /// The field settings a device gets on the named screen when its `matcherIndex`-th device
    /// matcher took it (nil: none did, the unmatched-device policy chose the screen): that matcher's
    /// `filters` over the screen's, else the screen's, else everything off.
    public func fieldSettings(forScreen name: String, matcherIndex: Int?) -> FieldSettings {
        if let matcherIndex, let devices = input(forScreen: name)?.devices, devices.indices.contains(matcherIndex),
            let settings = devices[matcherIndex].fieldSettings
        {
            return settings
        }
        return fieldSettings[name] ?? .off
    }
}
