/// The config's `idle`, `wake` and `filters` keys of a screen (docs/field.md), read into
/// `FieldSettings`. Every value is range-checked; a problem is located like any other config error.

extension ConfigParser {
    /// The screen keys this file reads.
    static let fieldScreenKeys = ["idle", "wake", "filters"]
    static let idleKeys = ["seconds"]
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
        }
        if let node = screen["wake"], let wake = object(node, subject, "\"wake\"") {
            checkKeys(wake, allowed: Self.wakeKeys, subject)
            settings.swallowsWakingTouch = bool(wake, "swallow", subject) ?? false
            if let grace = bounded(wake, "graceMs", in: 0...10_000, unit: "ms", subject) {
                settings.wakeGraceMicros = Self.micros(grace * 1_000)
            }
        }
        if let node = screen["filters"], let filters = object(node, subject, "\"filters\"") {
            checkKeys(filters, allowed: Self.filterKeys, subject)
            settings.dropsStuckPoints = bool(filters, "dropStuckPoints", subject) ?? false
            if let seconds = bounded(filters, "maxStationarySeconds", in: 1...86_400, unit: "seconds", subject) {
                settings.maxStationaryMicros = Self.micros(seconds * 1_000_000)
            }
            if let ms = bounded(filters, "minContactMs", in: 1...1_000, unit: "ms", subject) {
                settings.minContactMicros = Self.micros(ms * 1_000)
            }
            let debounceMs = bounded(filters, "debounceMs", in: 1...1_000, unit: "ms", subject)
            let debounceMM = bounded(filters, "debounceMM", in: 0.1...100, unit: "mm", subject)
            switch (filters["debounceMs"], filters["debounceMM"]) {
            case (let given?, nil), (nil, let given?):
                report(
                    .missingKey, given.position, subject,
                    "\"debounceMs\" and \"debounceMM\" go together: a bounce is near in time and in place")
            default:
                settings.debounceMicros = debounceMs.map { Self.micros($0 * 1_000) }
                settings.debounceMillimetres = debounceMM
            }
        }
        return settings
    }

    /// A finite number in `range`, or nil (reported) when it is missing, of another type or outside.
    private mutating func bounded(
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

    private static func micros(_ value: Double) -> UInt64 { UInt64(value.rounded()) }
}
