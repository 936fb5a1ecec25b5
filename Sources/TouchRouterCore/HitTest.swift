/// Hit-testing: which view is under a screen point, by UIKit's rules.

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

/// The reference: UIKit's hitTest(_:with:) as the seeds describe it, as a plain recursion.
/// Every faster engine must return exactly what this returns.
public enum PlainHitTest {
    /// Hit-tests a point given in the root's parent space (the screen) against a root view.
    public static func hitTest(_ root: View, screenPoint: Point) -> HitResult? {
        var path: [String] = []
        var indexPath: [Int] = []
        guard let local = hit(root, parentPoint: screenPoint, path: &path, indexPath: &indexPath) else {
            return nil
        }
        return HitResult(path: path, indexPath: indexPath, localPoint: local)
    }

    /// Returns the hit point in the deepest hit view's space, having appended that view's way down
    /// to `path`/`indexPath`; nil (with both left as they were) when nothing in this subtree is hit.
    private static func hit(
        _ view: View, parentPoint: Point, path: inout [String], indexPath: inout [Int]
    ) -> Point? {
        // 1. hidden, transparent or not interactive: the whole subtree is out.
        if view.ignoresTouches { return nil }
        // 2. point(inside:) in the view's own space.
        let local = view.convertFromParent(parentPoint)
        if !view.containsLocal(local) { return nil }
        path.append(view.id)
        // 3. children front to back (the last child is on top); the first hit wins.
        for index in view.children.indices.reversed() {
            indexPath.append(index)
            if let found = hit(view.children[index], parentPoint: local, path: &path, indexPath: &indexPath) {
                return found
            }
            indexPath.removeLast()
        }
        // 4. no child took it: the view itself.
        return local
    }
}

extension Screen {
    /// The plain reference hit-test on this screen.
    public func plainHitTest(_ screenPoint: Point) -> HitResult? {
        PlainHitTest.hitTest(root, screenPoint: screenPoint)
    }
}
