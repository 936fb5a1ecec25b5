/// Touch devices going away and coming back, for the metrics: a controller that resets drops off
/// the bus and enumerates again under the same name (docs/metrics.md). Pure.
import TouchRouterCore

/// Removals per device name, and returns: a touch device taken under the name of one removed
/// before. Both tables keep at most `maximumNames` names (the rest are not counted by name; see
/// `BoundedCounts`), and the names remembered as removed are bounded the same way.
public struct DeviceChurn: Sendable {
    /// The most device names counted, as the field stage's devices (`FieldStage.maximumDevices`).
    public static let maximumNames = 64

    /// Devices removed (unplugged, reset, or gone with their driver), by name.
    public private(set) var removals = BoundedCounts<String>(capacity: maximumNames)
    /// Devices that came back after a removal (a controller reset), by name.
    public private(set) var returns = BoundedCounts<String>(capacity: maximumNames)
    private var removedNames: Set<String> = []

    /// Nothing seen yet.
    public init() {}

    /// A touch device in use was removed.
    public mutating func removed(_ name: String) {
        removals.add(name)
        if removedNames.count < Self.maximumNames { removedNames.insert(name) }
    }

    /// A touch device was taken into use: a return when one of its name was removed before.
    public mutating func taken(_ name: String) {
        if removedNames.contains(name) { returns.add(name) }
    }
}
