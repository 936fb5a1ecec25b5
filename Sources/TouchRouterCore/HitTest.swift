import TouchRouterModel

/// Hit-testing: which view is under a screen point, by UIKit's rules.

/// Why hit-testing leaves a view and its whole subtree out without looking at the point (rule 1).
public enum HitTestIgnoreReason: String, Hashable, Sendable, CaseIterable {
    /// `hidden: true`.
    case hidden
    /// `alpha` below 0.01.
    case transparent
    /// `interactive: false` (UIKit's userInteractionEnabled = NO).
    case notInteractive = "not-interactive"
}

/// What the rules say about one view for a point given in its parent's space: the one decision
/// every walk (the plain recursion, the explanation) takes from here, so they cannot differ.
public enum HitTestVerdict: Hashable, Sendable {
    /// Rule 1: the view and its subtree are out; the point was not even converted.
    case ignored(HitTestIgnoreReason)
    /// Rule 2 failed: the point (in the view's own space) is outside its touch area.
    case outside(localPoint: Point)
    /// Rule 2 passed: the point (in the view's own space) is inside; children are asked next.
    case inside(localPoint: Point)
}

extension View {
    /// Why rule 1 leaves this view out (the first of hidden, transparent, not interactive), or nil.
    @inline(__always)
    public var ignoreReason: HitTestIgnoreReason? {
        if hidden { return .hidden }
        if alpha < 0.01 { return .transparent }
        if !interactive { return .notInteractive }
        return nil
    }

    /// Hit-testing skips the view and its whole subtree (hidden, alpha < 0.01 or not interactive).
    @inline(__always)
    public var ignoresTouches: Bool { ignoreReason != nil }
}

/// Sees every view the plain recursion visits, in order. The plain hit-test uses a recorder that
/// does nothing (specialised away); the explanation records each visit.
public protocol HitTestWalkObserver {
    /// `view` was visited at `indexPath` (child indices from the root) and judged `verdict`.
    mutating func visited(_ view: View, indexPath: [Int], verdict: HitTestVerdict)
}

/// The observer of the plain hit-test: records nothing.
public struct NoHitTestObserver: HitTestWalkObserver {
    public init() {}
    @inline(__always)
    public mutating func visited(_ view: View, indexPath: [Int], verdict: HitTestVerdict) {}
}

/// The reference: UIKit's hitTest(_:with:) as the seeds describe it, as a plain recursion.
/// Every faster engine must return exactly what this returns.
public enum PlainHitTest {
    /// Hit-tests a point given in the root's parent space (the screen) against a root view.
    public static func hitTest(_ root: View, screenPoint: Point) -> HitResult? {
        var observer = NoHitTestObserver()
        return hitTest(root, screenPoint: screenPoint, observer: &observer)
    }

    /// The same walk, telling `observer` about every view it visits.
    public static func hitTest<Observer: HitTestWalkObserver>(
        _ root: View, screenPoint: Point, observer: inout Observer
    ) -> HitResult? {
        var path: [String] = []
        var indexPath: [Int] = []
        guard
            let local = hit(
                root, parentPoint: screenPoint, path: &path, indexPath: &indexPath, observer: &observer)
        else {
            return nil
        }
        return HitResult(path: path, indexPath: indexPath, localPoint: local)
    }

    /// Rules 1 and 2 for one view: ignored, or the point in its own space and whether it is inside.
    @inline(__always)
    public static func verdict(_ view: View, parentPoint: Point) -> HitTestVerdict {
        // 1. hidden, transparent or not interactive: the whole subtree is out.
        if let reason = view.ignoreReason { return .ignored(reason) }
        // 2. point(inside:) in the view's own space.
        let local = view.convertFromParent(parentPoint)
        return view.containsLocal(local) ? .inside(localPoint: local) : .outside(localPoint: local)
    }

    /// Returns the hit point in the deepest hit view's space, having appended that view's way down
    /// to `path`/`indexPath`; nil (with both left as they were) when nothing in this subtree is hit.
    private static func hit<Observer: HitTestWalkObserver>(
        _ view: View, parentPoint: Point, path: inout [String], indexPath: inout [Int],
        observer: inout Observer
    ) -> Point? {
        let verdict = verdict(view, parentPoint: parentPoint)
        observer.visited(view, indexPath: indexPath, verdict: verdict)
        guard case .inside(let local) = verdict else { return nil }
        path.append(view.id)
        // 3. children front to back (the last child is on top); the first hit wins.
        for index in view.children.indices.reversed() {
            indexPath.append(index)
            if let found = hit(
                view.children[index], parentPoint: local, path: &path, indexPath: &indexPath,
                observer: &observer)
            {
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
