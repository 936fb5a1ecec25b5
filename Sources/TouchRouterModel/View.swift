#if canImport(Glibc)
    import Glibc
#endif

/// The layout model: screens, each with one root view, views nested back to front as in UIKit.

/// The outline a view's touch area follows, in the view's own coordinates.
public enum Shape: Hashable, Sendable {
    /// The bounds rectangle (the default).
    case rect
    /// The bounds with rounded corners; the radius is clamped to half the shorter side.
    case roundedRect(radius: Double)
    /// The ellipse inscribed in the bounds.
    case ellipse
    /// A polygon in the view's own coordinates, filled by the even-odd rule.
    case polygon([Point])
}

/// A view's transform about its centre, as UIKit applies `transform`: scaled first, then rotated.
/// Positive degrees turn the x axis toward the y axis.
public struct ViewTransform: Hashable, Sendable {
    public var rotationDegrees: Double
    public var scaleX: Double
    public var scaleY: Double

    public init(rotationDegrees: Double = 0, scaleX: Double = 1, scaleY: Double = 1) {
        self.rotationDegrees = rotationDegrees
        self.scaleX = scaleX
        self.scaleY = scaleY
    }

    public var isIdentity: Bool { rotationDegrees == 0 && scaleX == 1 && scaleY == 1 }

    /// The linear part (no translation) mapping local offsets from the centre to parent offsets.
    public var matrix: AffineTransform {
        let radians = rotationDegrees * .pi / 180
        // Exact values for the quarter turns, so a 90° view has no rounding noise on its edges.
        let (cosine, sine): (Double, Double)
        switch rotationDegrees.truncatingRemainder(dividingBy: 360) {
        case 0: (cosine, sine) = (1, 0)
        case 90, -270: (cosine, sine) = (0, 1)
        case 180, -180: (cosine, sine) = (-1, 0)
        case 270, -90: (cosine, sine) = (0, -1)
        default: (cosine, sine) = (cos(radians), sin(radians))
        }
        // rotate ∘ scale
        return AffineTransform(
            a: cosine * scaleX, b: sine * scaleX, c: -sine * scaleY, d: cosine * scaleY, tx: 0, ty: 0)
    }
}

/// One view of a layout. Value type: a layout is immutable once built and swapped as a whole.
///
/// Kept small (80 bytes, not 216): a 100,000-view layout holds 100,000 of them. What most views
/// leave at its default (touch margin, shape, transform) lives in one shared, immutable `Extras`
/// box that plain views do not have; the properties read and write through it.
public struct View: Hashable, Sendable {
    /// Unique in its config file: letters, digits, `-`, `_`, `.`.
    public var id: String
    /// Position and size in the parent's coordinates (before the transform, which turns the view
    /// about the frame's centre).
    public var frame: Rect
    /// Back to front: the last child is on top.
    public var children: [View]
    public var alpha: Double
    private var flags: Flags
    private var extras: Extras?

    public var hidden: Bool {
        get { flags.contains(.hidden) }
        set { flags.set(.hidden, newValue) }
    }
    /// UIKit's userInteractionEnabled.
    public var interactive: Bool {
        get { flags.contains(.interactive) }
        set { flags.set(.interactive, newValue) }
    }
    public var multipleTouch: Bool {
        get { flags.contains(.multipleTouch) }
        set { flags.set(.multipleTouch, newValue) }
    }
    public var exclusiveTouch: Bool {
        get { flags.contains(.exclusiveTouch) }
        set { flags.set(.exclusiveTouch, newValue) }
    }
    public var touchMargin: EdgeMargin {
        get { extras?.touchMargin ?? .zero }
        set { setExtras(touchMargin: newValue, shape: shape, transform: transform) }
    }
    public var shape: Shape {
        get { extras?.shape ?? .rect }
        set { setExtras(touchMargin: touchMargin, shape: newValue, transform: transform) }
    }
    public var transform: ViewTransform {
        get { extras?.transform ?? ViewTransform() }
        set { setExtras(touchMargin: touchMargin, shape: shape, transform: newValue) }
    }

    /// Parent space → local space for a transformed view; nil when the transform is the identity.
    /// For a singular transform (a zero scale) every entry is NaN, so no point is ever inside.
    /// Follows `transform` (recomputed whenever it is set).
    public var parentToLocal: AffineTransform? { extras?.parentToLocal }

    public init(
        id: String, frame: Rect, children: [View] = [], hidden: Bool = false, alpha: Double = 1,
        interactive: Bool = true, touchMargin: EdgeMargin = .zero, shape: Shape = .rect,
        transform: ViewTransform = ViewTransform(), multipleTouch: Bool = false,
        exclusiveTouch: Bool = false
    ) {
        self.id = id
        self.frame = frame
        self.children = children
        self.alpha = alpha
        flags = []
        flags.set(.hidden, hidden)
        flags.set(.interactive, interactive)
        flags.set(.multipleTouch, multipleTouch)
        flags.set(.exclusiveTouch, exclusiveTouch)
        setExtras(touchMargin: touchMargin, shape: shape, transform: transform)
    }

    /// The box holds only what differs from the defaults; a plain view has none.
    private mutating func setExtras(touchMargin: EdgeMargin, shape: Shape, transform: ViewTransform) {
        if touchMargin == .zero && shape == .rect && transform.isIdentity {
            extras = nil
        } else {
            extras = Extras(
                touchMargin: touchMargin, shape: shape, transform: transform,
                parentToLocal: View.parentToLocal(transform: transform))
        }
    }

    static func parentToLocal(transform: ViewTransform) -> AffineTransform? {
        guard !transform.isIdentity else { return nil }
        let nan = Double.nan
        return transform.matrix.inverted
            ?? AffineTransform(a: nan, b: nan, c: nan, d: nan, tx: nan, ty: nan)
    }

    /// The four booleans in one byte.
    private struct Flags: OptionSet, Hashable, Sendable {
        let rawValue: UInt8
        static let hidden = Flags(rawValue: 1)
        static let interactive = Flags(rawValue: 2)
        static let multipleTouch = Flags(rawValue: 4)
        static let exclusiveTouch = Flags(rawValue: 8)

        mutating func set(_ flag: Flags, _ on: Bool) {
            if on { insert(flag) } else { remove(flag) }
        }
    }

    /// A view's uncommon properties. Immutable and shared between copies; compared by value.
    private final class Extras: Hashable, Sendable {
        let touchMargin: EdgeMargin
        let shape: Shape
        let transform: ViewTransform
        let parentToLocal: AffineTransform?

        init(touchMargin: EdgeMargin, shape: Shape, transform: ViewTransform, parentToLocal: AffineTransform?) {
            self.touchMargin = touchMargin
            self.shape = shape
            self.transform = transform
            self.parentToLocal = parentToLocal
        }

        static func == (lhs: Extras, rhs: Extras) -> Bool {
            lhs === rhs
                || (lhs.touchMargin == rhs.touchMargin && lhs.shape == rhs.shape && lhs.transform == rhs.transform)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(touchMargin)
            hasher.combine(shape)
            hasher.combine(transform)
        }
    }

    /// The view's bounds in its own space: origin zero, the frame's size.
    public var bounds: Rect { Rect(x: 0, y: 0, width: frame.width, height: frame.height) }

    /// Converts a point from the parent's space into this view's own space (frame origin, then
    /// the transform about the centre). Hit-testing and tracking both go through this one function,
    /// so every engine computes bit-identical local points.
    @inline(__always)
    public func convertFromParent(_ p: Point) -> Point {
        guard let m = parentToLocal else { return Point(p.x - frame.x, p.y - frame.y) }
        let halfWidth = frame.width / 2, halfHeight = frame.height / 2
        let dx = p.x - (frame.x + halfWidth), dy = p.y - (frame.y + halfHeight)
        return Point(m.a * dx + m.c * dy + halfWidth, m.b * dx + m.d * dy + halfHeight)
    }

    /// UIKit's point(inside:): the bounds grown by the touch margin, following the shape.
    /// Rectangles: min edges in, max edges out (CGRect.contains). Shapes grow by the margin's
    /// top value (shaped views take a single number).
    @inline(__always)
    public func containsLocal(_ p: Point) -> Bool {
        switch shape {
        case .rect:
            return bounds.grown(by: touchMargin).contains(p)
        case .roundedRect(let radius):
            return ShapeGeometry.roundedRectContains(
                p, width: frame.width, height: frame.height, radius: radius, margin: touchMargin.top)
        case .ellipse:
            return ShapeGeometry.ellipseContains(
                p, width: frame.width, height: frame.height, margin: touchMargin.top)
        case .polygon(let vertices):
            return ShapeGeometry.polygonContains(p, vertices: vertices, margin: touchMargin.top)
        }
    }
}

/// Point-in-shape tests, in the view's own coordinates.
public enum ShapeGeometry {
    /// The rounded rectangle grown by `margin`: the bounds grown by the margin with corner radius
    /// `radius + margin` (the Minkowski sum with a disk). Straight edges follow CGRect.contains.
    public static func roundedRectContains(
        _ p: Point, width: Double, height: Double, radius: Double, margin: Double
    ) -> Bool {
        let outer = Rect(x: -margin, y: -margin, width: width + 2 * margin, height: height + 2 * margin)
        guard outer.contains(p) else { return false }
        let r = max(0, min(radius, width / 2, height / 2))
        // Nearest point of the inner (un-rounded) core rectangle.
        let cx = min(max(p.x, r), width - r)
        let cy = min(max(p.y, r), height - r)
        let dx = p.x - cx, dy = p.y - cy
        let reach = r + margin
        return dx * dx + dy * dy <= reach * reach
    }

    /// The ellipse inscribed in the bounds, with both semi-axes grown by `margin`.
    public static func ellipseContains(_ p: Point, width: Double, height: Double, margin: Double) -> Bool {
        let rx = width / 2 + margin, ry = height / 2 + margin
        guard rx > 0, ry > 0 else { return false }
        let nx = (p.x - width / 2) / rx, ny = (p.y - height / 2) / ry
        return nx * nx + ny * ny <= 1
    }

    /// Even-odd fill (crossing test, half-open on edges), or within `margin` of an edge.
    public static func polygonContains(_ p: Point, vertices: [Point], margin: Double) -> Bool {
        let count = vertices.count
        guard count >= 3 else { return false }
        var inside = false
        var j = count - 1
        for i in 0..<count {
            let vi = vertices[i], vj = vertices[j]
            if (vi.y > p.y) != (vj.y > p.y) {
                let crossX = (vj.x - vi.x) * (p.y - vi.y) / (vj.y - vi.y) + vi.x
                if p.x < crossX { inside.toggle() }
            }
            j = i
        }
        if inside || margin <= 0 { return inside }
        let reach = margin * margin
        j = count - 1
        for i in 0..<count {
            if squaredDistance(p, segmentFrom: vertices[j], to: vertices[i]) <= reach { return true }
            j = i
        }
        return false
    }

    static func squaredDistance(_ p: Point, segmentFrom a: Point, to b: Point) -> Double {
        let ex = b.x - a.x, ey = b.y - a.y
        let lengthSquared = ex * ex + ey * ey
        var t = lengthSquared > 0 ? ((p.x - a.x) * ex + (p.y - a.y) * ey) / lengthSquared : 0
        t = min(max(t, 0), 1)
        let dx = p.x - (a.x + t * ex), dy = p.y - (a.y + t * ey)
        return dx * dx + dy * dy
    }
}

/// One screen: a layout space of `width` × `height` units with one root view.
public struct Screen: Hashable, Sendable {
    public var name: String
    public var width: Double
    public var height: Double
    public var root: View

    public init(name: String, width: Double, height: Double, root: View) {
        self.name = name
        self.width = width
        self.height = height
        self.root = root
    }
}

/// A whole configuration's layout: every screen, in file order.
public struct Layout: Hashable, Sendable {
    public var screens: [Screen]

    public init(screens: [Screen]) {
        self.screens = screens
    }

    public func screen(named name: String) -> Screen? {
        screens.first { $0.name == name }
    }

    /// Total number of views on every screen.
    public var viewCount: Int {
        screens.reduce(0) { $0 + $1.root.subtreeCount }
    }
}

extension View {
    /// This view and all its descendants.
    public var subtreeCount: Int {
        var count = 0
        var stack: [View] = [self]
        while let view = stack.popLast() {
            count += 1
            stack.append(contentsOf: view.children)
        }
        return count
    }
}
