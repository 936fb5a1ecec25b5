/// UIKit's tapCount: consecutive taps on the same view within the tap interval and the tap slop
/// (docs/tracking.md, "tapCount"). The tracker remembers the last tap per view, at most
/// `recentTapCapacity` of them, so the cost per touch-down and touch-up is bounded.
extension TouchTracker {
    static let recentTapCapacity = 16

    mutating func recordTapEnd(of touch: TrackedTouch) {
        // A hit view a layout reload removed takes no more taps.
        guard touch.hitView >= 0 else { return }
        var existing: Int?
        for index in recentTaps.indices
        where recentTaps[index].hitView == touch.hitView
            && recentTaps[index].screenIndex == touch.screenIndex
        {
            existing = index
            break
        }
        guard touch.pendingPhase == .ended, !touch.leftTapSlop else {
            // A drag or a cancellation breaks the run of taps on that view.
            if let existing { recentTaps.remove(at: existing) }
            return
        }
        let tap = RecentTap(
            screenIndex: touch.screenIndex, hitView: touch.hitView, endScreenPoint: touch.screenPoint,
            endMicros: touch.timestampMicros, tapCount: touch.tapCount)
        if let existing {
            recentTaps[existing] = tap
        } else {
            if recentTaps.count >= Self.recentTapCapacity { recentTaps.removeFirst() }
            recentTaps.append(tap)
        }
    }

    func tapCount(hitView: Int32, screenIndex: Int, at screenPoint: Point, timestampMicros: UInt64)
        -> Int
    {
        for index in recentTaps.indices
        where recentTaps[index].hitView == hitView && recentTaps[index].screenIndex == screenIndex {
            let previous = recentTaps[index]
            guard timestampMicros >= previous.endMicros,
                timestampMicros - previous.endMicros <= configuration.tapIntervalMicros,
                Self.distance(previous.endScreenPoint, screenPoint) <= configuration.tapSlop
            else { return 1 }
            return previous.tapCount + 1
        }
        return 1
    }
}

/// The end of the last tap on a view, for counting consecutive taps.
struct RecentTap {
    var screenIndex: Int
    /// The hit view, an index into the screen's pre-order (remapped by a layout reload).
    var hitView: Int32
    var endScreenPoint: Point
    var endMicros: UInt64
    var tapCount: Int
}
