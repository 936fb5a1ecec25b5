/// What hit-testing answers, as the engine computes it and the protocol carries it.

/// What a hit-test found: the hit view, the point in its own space, and the way down to it.
public struct HitResult: Hashable, Sendable {
    /// View ids from the screen's root to the hit view (the last element).
    public var path: [String]
    /// Child indices from the root to the hit view (empty when the root itself was hit).
    public var indexPath: [Int]
    /// The point in the hit view's own coordinates (UIKit's location(in:)).
    public var localPoint: Point

    public init(path: [String], indexPath: [Int], localPoint: Point) {
        self.path = path
        self.indexPath = indexPath
        self.localPoint = localPoint
    }

    /// The hit view's id.
    public var viewID: String { path[path.count - 1] }
}
