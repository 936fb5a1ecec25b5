/// The package's version, the one every executable prints for `--version`, the daemon reports in
/// `welcome` and `status`, and `scripts/package` puts on the .deb.
public enum PackageVersion {
    public static let current = "0.1.0"

    /// `--version`'s line: the tool's name and the version, e.g. `touchrouterd 0.1.0`.
    public static func line(tool: String) -> String { "\(tool) \(current)" }
}
