/// What a view's `gestures` config asks for: the kinds, their thresholds (millimetres and
/// milliseconds, never layout units) and the named defaults with where they come from
/// (docs/gestures.md has the table and the sources).

/// One recogniser's settings. Every field applies to the kinds its comment names; the others keep
/// their defaults and are ignored.
public struct GestureSpec: Hashable, Sendable {
    /// The kind.
    public var kind: GestureKind
    /// tap: taps required (`taps`).
    public var taps: Int
    /// tap, longPress, swipe: fingers required (`fingers`).
    public var fingers: Int
    /// pan: fewest and most fingers (`minimumFingers`, `maximumFingers`); pinch and rotate use 2.
    public var minimumFingers: Int
    public var maximumFingers: Int
    /// tap, longPress: how far a finger may move before the gesture fails (`movement`, mm).
    public var movementMM: Double
    /// pan, swipe, pinch: how far the fingers must move (pan, swipe: the centroid; pinch: the
    /// change of the distance between two fingers) before the gesture begins (`distance`, mm).
    public var distanceMM: Double
    /// rotate: how far the two fingers must turn before the gesture begins (`angle`, degrees).
    public var angleDegrees: Double
    /// tap: the longest pause between two taps of one multi-tap (`interval`, ms).
    public var intervalMicros: UInt64
    /// longPress: how long the fingers must stay down (`duration`, ms).
    public var durationMicros: UInt64
    /// swipe: the longest time from the first finger down to the swipe's distance (`maximumDuration`, ms).
    public var maximumDurationMicros: UInt64
    /// swipe: the directions that count (`direction`: one or a list); the others fail the swipe.
    public var directions: SwipeDirections
    /// UIKit's `cancelsTouchesInView`: once recognised, the raw touches that took part are cancelled
    /// (reason `gesture`) for clients that receive raw touches (`cancelsTouches`).
    public var cancelsTouches: Bool
    /// false: recognises alongside the view's other recognisers (and never blocks them), UIKit's
    /// `shouldRecognizeSimultaneously` answered yes (`exclusive`).
    public var exclusive: Bool

    /// A recogniser of `kind` with every default.
    public init(_ kind: GestureKind) {
        self.kind = kind
        taps = 1
        fingers = 1
        minimumFingers = kind == .pinch || kind == .rotate ? 2 : 1
        maximumFingers = kind == .pinch || kind == .rotate ? 2 : GestureDefaults.maximumFingers
        movementMM = GestureDefaults.movementMM
        distanceMM =
            switch kind {
            case .swipe: GestureDefaults.swipeDistanceMM
            case .pinch: GestureDefaults.pinchDistanceMM
            default: GestureDefaults.panDistanceMM
            }
        angleDegrees = GestureDefaults.rotateAngleDegrees
        intervalMicros = GestureDefaults.tapIntervalMicros
        durationMicros = GestureDefaults.longPressDurationMicros
        maximumDurationMicros = GestureDefaults.swipeMaximumDurationMicros
        directions = [.left, .right, .up, .down]
        cancelsTouches = true
        exclusive = true
    }
}

/// Some of the four swipe directions, as bits: a spec holds no reference, so copying one (every
/// recogniser keeps its own, and starts over from it) retains and releases nothing.
public struct SwipeDirections: Hashable, Sendable, ExpressibleByArrayLiteral {
    private var bits: UInt8 = 0

    public init(arrayLiteral directions: SwipeDirection...) {
        for direction in directions { insert(direction) }
    }

    public func contains(_ direction: SwipeDirection) -> Bool { bits & Self.bit(direction) != 0 }

    public mutating func insert(_ direction: SwipeDirection) { bits |= Self.bit(direction) }

    private static func bit(_ direction: SwipeDirection) -> UInt8 {
        switch direction {
        case .left: 1
        case .right: 2
        case .up: 4
        case .down: 8
        }
    }
}

/// The named defaults. docs/gestures.md cites each source; values marked "ours" have none.
public enum GestureDefaults {
    /// tap and longPress `movement`: 5 mm. UIKit documents 10 points for UILongPressGestureRecognizer's
    /// `allowableMovement` (about 1.6 mm on a 163-ppi iPhone) and Android's ViewConfiguration a
    /// TOUCH_SLOP of 8 dp (1.3 mm); both are phone values for a fingertip on glass that does not
    /// jitter. Ours is wider for kiosk panels and equals the pan's distance, so a touch is exactly one
    /// of "tap" (moved < 5 mm) or "pan" (moved ≥ 5 mm).
    public static let movementMM = 5.0
    /// pan `distance`: 5 mm (see `movementMM`).
    public static let panDistanceMM = 5.0
    /// pinch `distance`: 5 mm of change in the two fingers' distance (ours, as `panDistanceMM`;
    /// Android's ScaleGestureDetector uses a span slop of twice its touch slop, 2.5 mm).
    public static let pinchDistanceMM = 5.0
    /// rotate `angle`: 5 degrees (ours; UIKit documents none).
    public static let rotateAngleDegrees = 5.0
    /// tap `interval`: 300 ms, Android's DOUBLE_TAP_TIMEOUT (the longest pause between a tap's up and
    /// the next tap's down).
    public static let tapIntervalMicros: UInt64 = 300_000
    /// The farthest the next tap of a multi-tap may land from the previous one: 15.9 mm, Android's
    /// DOUBLE_TAP_SLOP of 100 dp (1 dp = 1/160 inch).
    public static let tapSpacingMM = 100 * 25.4 / 160
    /// longPress `duration`: 500 ms, UIKit's `minimumPressDuration` default (0.5 s) and Android's
    /// DEFAULT_LONG_PRESS_TIMEOUT (500 ms).
    public static let longPressDurationMicros: UInt64 = 500_000
    /// swipe `distance`: 15 mm (ours: UIKit documents none; about one finger's width).
    public static let swipeDistanceMM = 15.0
    /// swipe `maximumDuration`: 500 ms (ours: a slower movement is a pan, not a swipe).
    public static let swipeMaximumDurationMicros: UInt64 = 500_000
    /// A swipe's movement may stray this far from its axis: 30 degrees (ours).
    public static let swipeAngleToleranceDegrees = 30.0
    /// pan `maximumFingers`: 10 (UIKit's default is unbounded; a panel reports at most 10 in practice).
    public static let maximumFingers = 10
    /// The most fingers any setting may ask for.
    public static let fingerLimit = 10
    /// The most taps a tap may ask for.
    public static let tapLimit = 10
    /// The most recognisers one view may have (bounds the work per touch; `RecogniserSet`, a
    /// view's arbitration links, holds 16).
    public static let recognisersPerView = 16
}
