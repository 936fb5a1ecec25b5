import TouchRouterModel

/// The bounds every number that reaches geometry is held to, so that every transform a touch goes
/// through, composed from a screen's root down to the deepest view, and every point it is converted
/// to, stays finite (docs/configuration.md, "Numbers"). The config walk, `setView` and `mount`
/// apply the same bounds; a number outside is refused with `outOfRange`.
public enum GeometryBounds {
    /// The largest magnitude of a coordinate or length in layout units: a frame's origin and size,
    /// a screen's size, a touch margin, a corner radius, a polygon point.
    public static let maxCoordinate = 10_000_000.0
    /// A view's scale on each axis, in magnitude (0 is `zeroScale`; a negative scale mirrors).
    public static let scale = 0.001...1000.0
    /// The product of the scales from a screen's root down to any view, per axis, in magnitude.
    public static let composedScale = 0.000_001...1_000_000.0
    /// `composedScale` as messages say it.
    static let composedScaleText = "×10⁻⁶…×10⁶"
    /// A view's rotation in degrees, either way.
    public static let maxRotationDegrees = 360.0
    /// The largest magnitude of a calibration matrix entry (normalised units; libinput's are
    /// near 1).
    public static let maxCalibrationEntry = 1000.0
    /// The smallest magnitude of the determinant `a·e − b·d` of a calibration's linear part: below
    /// it the panel maps onto (nearly) a line and no touch could be placed.
    public static let minCalibrationDeterminant = 0.001
    /// A screen's physical size per side in millimetres.
    public static let physicalSizeMillimetres = 1.0...100_000.0

    /// Whether a coordinate or length is within ±`maxCoordinate` (and finite).
    public static func isCoordinate(_ value: Double) -> Bool { abs(value) <= maxCoordinate }

    /// Whether a transform's own numbers are within bounds (finite, scales within `scale`,
    /// rotation within ±`maxRotationDegrees`).
    public static func isWithinBounds(_ transform: ViewTransform) -> Bool {
        abs(transform.rotationDegrees) <= maxRotationDegrees && scale.contains(abs(transform.scaleX))
            && scale.contains(abs(transform.scaleY))
    }
}

/// The products of the scales from a screen's root down to a view: the largest and the smallest
/// per-axis factor (their magnitudes), what `GeometryBounds.composedScale` bounds.
public struct ComposedScale: Hashable, Sendable {
    /// The product of each view's larger scale magnitude.
    public var largest: Double
    /// The product of each view's smaller scale magnitude.
    public var smallest: Double

    /// No scaling (a screen's root's parent).
    public static let identity = ComposedScale(largest: 1, smallest: 1)

    /// A product.
    public init(largest: Double, smallest: Double) {
        self.largest = largest
        self.smallest = smallest
    }

    /// This composed with one more view's transform below it.
    public func then(_ transform: ViewTransform) -> ComposedScale {
        let x = abs(transform.scaleX)
        let y = abs(transform.scaleY)
        return ComposedScale(largest: largest * max(x, y), smallest: smallest * min(x, y))
    }

    /// This composed with a span below it (`inner` measured from this one's view).
    public func then(_ inner: ComposedScale) -> ComposedScale {
        ComposedScale(largest: largest * inner.largest, smallest: smallest * inner.smallest)
    }

    /// Both products within `GeometryBounds.composedScale`.
    public var isWithinBounds: Bool {
        largest <= GeometryBounds.composedScale.upperBound && smallest >= GeometryBounds.composedScale.lowerBound
    }

    /// The most extreme products below `view` (its descendants', measured from the view itself,
    /// which is not counted): `identity` for a leaf. Cost: linear in the subtree.
    public static func extremes(below view: View) -> ComposedScale {
        var extremes = ComposedScale.identity
        var stack: [(View, ComposedScale)] = view.children.map { ($0, ComposedScale.identity.then($0.transform)) }
        while let (child, span) = stack.popLast() {
            extremes.largest = max(extremes.largest, span.largest)
            extremes.smallest = min(extremes.smallest, span.smallest)
            for grandchild in child.children { stack.append((grandchild, span.then(grandchild.transform))) }
        }
        return extremes
    }
}
