import TouchRouterModel

/// Where `touchrouterctl calibrate` asks for presses: targets in the screen's layout units, inset
/// from the edges (a finger cannot centre on a target at the very edge, and panels are least
/// linear there), in the order they are shown: row by row, left to right. Pure.
public enum CalibrationTargets {
    /// The target counts the tool offers.
    public static let counts = [3, 4, 5, 9]

    /// The targets' inset from each edge, in tenths of the screen's size (10 %).
    public static let insetTenths = 1

    /// The targets for `count` presses (one of `counts`) on a `width` × `height` screen:
    /// 3: top-left, top-right, bottom-centre (not on one line); 4: the corners; 5: the corners and the
    /// centre; 9: a 3 × 3 grid. Nil for any other count.
    public static func targets(count: Int, width: Double, height: Double) -> [Point]? {
        let near = insetTenths
        let far = 10 - insetTenths
        let tenths: [(Int, Int)]
        switch count {
        case 3: tenths = [(near, near), (far, near), (5, far)]
        case 4: tenths = [(near, near), (far, near), (near, far), (far, far)]
        case 5: tenths = [(near, near), (far, near), (5, 5), (near, far), (far, far)]
        case 9: tenths = [near, 5, far].flatMap { y in [near, 5, far].map { x in (x, y) } }
        default: return nil
        }
        return tenths.map { point(width: width, height: height, tenths: $0) }
    }

    /// The held-out verification target: at 30 % across and 60 % down, which no set of `targets`
    /// contains, so it checks the fit where no press shaped it.
    public static func verification(width: Double, height: Double) -> Point {
        point(width: width, height: height, tenths: (3, 6))
    }

    /// `size · tenths / 10`, multiplied first so that whole sizes give whole targets exactly
    /// (800 · 9 / 10 = 720, where 800 · 0.9 is 720.0000000000001).
    private static func point(width: Double, height: Double, tenths: (Int, Int)) -> Point {
        Point(width * Double(tenths.0) / 10, height * Double(tenths.1) / 10)
    }
}
