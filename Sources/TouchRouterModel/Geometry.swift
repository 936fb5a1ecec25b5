/// Geometry in layout units. Every value says which space it lives in: a screen point, a point in a
/// view's own (local) space, or a point in its parent's space.

/// A point in some coordinate space (layout units; y grows downward as on screen).
public struct Point: Hashable, Sendable, CustomStringConvertible, BitwiseCopyable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public init(_ x: Double, _ y: Double) {
        self.init(x: x, y: y)
    }

    /// Both coordinates are finite (not NaN, not infinite).
    public var isFinite: Bool { x.isFinite && y.isFinite }

    public var description: String { "(\(x), \(y))" }
}

/// An axis-aligned rectangle with its origin at the top-left corner.
public struct Rect: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var center: Point { Point(x + width / 2, y + height / 2) }

    /// Whether the point is inside as CGRect.contains decides: the min edges are inside, the max
    /// edges are outside.
    @inline(__always)
    public func contains(_ point: Point) -> Bool {
        point.x >= x && point.x < x + width && point.y >= y && point.y < y + height
    }

    /// The rectangle grown outward by the given margin on each edge.
    public func grown(by margin: EdgeMargin) -> Rect {
        Rect(
            x: x - margin.left, y: y - margin.top,
            width: width + margin.left + margin.right, height: height + margin.top + margin.bottom)
    }
}

/// How far a view's touch area reaches beyond its bounds, per edge (UIKit's negative insets).
public struct EdgeMargin: Hashable, Sendable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// The same margin on all four edges (the seeds' `bounds.insetBy(dx: -m, dy: -m)`).
    public init(all value: Double) {
        self.init(top: value, left: value, bottom: value, right: value)
    }

    public static let zero = EdgeMargin(all: 0)

    /// The margin is the same on every edge.
    public var isUniform: Bool { top == left && left == bottom && bottom == right }
}

/// A 2-D affine transform `p' = (a·x + c·y + tx, b·x + d·y + ty)`, as CGAffineTransform.
public struct AffineTransform: Hashable, Sendable {
    public var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    @inline(__always)
    public func apply(_ p: Point) -> Point {
        Point(a * p.x + c * p.y + tx, b * p.x + d * p.y + ty)
    }

    /// The inverse, or nil when the transform is singular (a zero scale).
    public var inverted: AffineTransform? {
        let det = a * d - b * c
        guard det != 0, det.isFinite else { return nil }
        let ia = d / det, ib = -b / det, ic = -c / det, id = a / det
        return AffineTransform(
            a: ia, b: ib, c: ic, d: id, tx: -(ia * tx + ic * ty), ty: -(ib * tx + id * ty))
    }
}
