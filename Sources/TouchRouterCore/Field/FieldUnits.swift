/// Millimetres on the panel → layout units, for the filters that are given in millimetres
/// (`debounceMM`). The one place that knows how; docs/field.md says what it assumes.
public enum FieldUnits {
    /// What a screen without a known physical size is taken to have: 96 layout units per inch
    /// (the CSS pixel), 3.78 per millimetre.
    public static let fallbackUnitsPerMillimetre = 96 / 25.4

    /// Layout units per millimetre for every screen of the config, by name.
    public static func unitsPerMillimetre(_ config: Config) -> [String: Double] {
        var density: [String: Double] = [:]
        for screen in config.layout.screens { density[screen.name] = fallbackUnitsPerMillimetre }
        return density
    }
}
