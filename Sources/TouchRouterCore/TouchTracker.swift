/// Touch tracking: binds each touch to a view at touch-down and turns input frames into per-view
/// messages with UIKit's phases, responder chain, multipleTouch and exclusiveTouch.
/// Pure and deterministic: no I/O, no clock; time comes only from the input. docs/tracking.md
/// states every rule with a worked example.

/// The hit-test engine the tracker uses, one per screen, built when a layout is set. Any type with
/// `init(screen:)` and `hitTest(_ screenPoint: Point) -> HitResult?` fits: switching to the
/// accelerated index is this one line (`typealias TrackerHitTester = HitTestIndex`).
typealias TrackerHitTester = PlainScreenHitTester

/// The plain reference recursion behind the hit-tester interface.
struct PlainScreenHitTester {
    let screen: Screen

    init(screen: Screen) {
        self.screen = screen
    }

    @inline(__always)
    func hitTest(_ screenPoint: Point) -> HitResult? {
        screen.plainHitTest(screenPoint)
    }
}

/// Tracks touches from input frames and says which view gets which touch phase.
///
/// Feed it every `InputEvent` in order with `process(_:subscribedViews:)`; tell it about a new
/// layout with `replaceLayout(_:timestampMicros:)`; stop with `cancelAll(reason:timestampMicros:)`.
/// Each call returns the per-view messages to dispatch, in a deterministic order.
public struct TouchTracker: Sendable {
    /// The layout new touches are hit-tested against.
    public private(set) var layout: Layout
    /// The settings given at creation.
    public let configuration: TrackerConfiguration
    /// Counters of everything done, dropped and ignored.
    public private(set) var statistics = TrackerStatistics()

    private var hitTesters: [TrackerHitTester]
    /// Delivered touches not yet ended, in began order (which is also id order).
    private var touches: [TrackedTouch] = []
    /// Contacts that are down but were dropped at touch-down: their later events are consumed quietly.
    private var droppedContacts: [ContactKey] = []
    /// Recent taps per hit view, for tapCount.
    private var recentTaps: [RecentTap] = []
    private var nextTouchID: UInt64 = 1
    private var nextTargetKey = 0
    private var output = DeliveryBuffer()

    /// A tracker with no touches down, hit-testing against `layout`.
    public init(layout: Layout, configuration: TrackerConfiguration = .default) {
        self.layout = layout
        self.configuration = configuration
        self.hitTesters = layout.screens.map { TrackerHitTester(screen: $0) }
        touches.reserveCapacity(configuration.maximumSimultaneousTouches)
        droppedContacts.reserveCapacity(configuration.maximumSimultaneousTouches)
        recentTaps.reserveCapacity(Self.recentTapCapacity)
    }

    /// Delivered touches currently down.
    public var activeTouchCount: Int { touches.count }

    /// The ids of the delivered touches currently down, in began order.
    public var activeTouchIDs: [UInt64] { touches.map(\.id) }

    // MARK: - Entry points

    /// Processes one input event and returns the resulting per-view messages: one per view with a
    /// changed touch (two, in order, only when one contact both begins and changes again within the
    /// frame, so that no message carries a touch twice).
    ///
    /// `subscribedViews` is consulted only at touch-down, to pick each new touch's target along the
    /// responder chain; a touch keeps its target for life whatever happens to subscriptions later.
    /// The returned array reuses the tracker's storage: let go of it before the next call and the
    /// steady state allocates nothing.
    public mutating func process(
        _ event: InputEvent, subscribedViews: some SubscribedViews
    ) -> [ViewTouches] {
        output.reset()
        switch event {
        case .frame(let frame):
            statistics.frames += 1
            for contact in frame.contacts {
                apply(contact, of: frame, subscribedViews: subscribedViews)
            }
            flush(timestampMicros: frame.timestampMicros)
        case .deviceRemoved(let device, let timestampMicros):
            // No touch is pending at the start of a call, so `end` never flushes (indices stay valid).
            for index in touches.indices where touches[index].device.id == device.id {
                end(index, phase: .cancelled, reason: .deviceRemoved, timestampMicros: timestampMicros)
            }
            droppedContacts.removeAll { $0.deviceID == device.id }
            flush(timestampMicros: timestampMicros)
        }
        return output.finish()
    }

    /// Makes `layout` the one new touches are hit-tested against, at once. A touch whose target view
    /// id still exists on its screen keeps going, its local coordinates now computed through the new
    /// tree; every other touch is cancelled (`viewRemoved`) with its last local point in the old tree.
    public mutating func replaceLayout(_ newLayout: Layout, timestampMicros: UInt64) -> [ViewTouches] {
        output.reset()
        // Find every touch's target in the new tree before anything changes.
        var moves: [(screenIndex: Int, chain: [View])] = []
        for index in touches.indices {
            let screenName = layout.screens[touches[index].screenIndex].name
            let targetViewID = touches[index].targetViewID
            if let screenIndex = newLayout.screens.firstIndex(where: { $0.name == screenName }),
                let chain = Self.chain(to: targetViewID, from: newLayout.screens[screenIndex].root)
            {
                moves.append((screenIndex, chain))
            } else {
                end(index, phase: .cancelled, reason: .viewRemoved, timestampMicros: timestampMicros)
            }
        }
        // Deliver the cancellations through the old tree, then move the survivors (same order) over.
        flush(timestampMicros: timestampMicros)
        for index in touches.indices {
            touches[index].screenIndex = moves[index].screenIndex
            touches[index].chain = moves[index].chain
        }
        layout = newLayout
        hitTesters = newLayout.screens.map { TrackerHitTester(screen: $0) }
        return output.finish()
    }

    /// Cancels every touch (e.g. `.shutdown` when the daemon stops) and forgets dropped contacts.
    public mutating func cancelAll(reason: CancelReason, timestampMicros: UInt64) -> [ViewTouches] {
        output.reset()
        for index in touches.indices {
            end(index, phase: .cancelled, reason: reason, timestampMicros: timestampMicros)
        }
        droppedContacts.removeAll(keepingCapacity: true)
        flush(timestampMicros: timestampMicros)
        return output.finish()
    }

    // MARK: - Contacts

    private mutating func apply(
        _ contact: ContactEvent, of frame: InputFrame, subscribedViews: some SubscribedViews
    ) {
        let key = ContactKey(deviceID: frame.device.id, slot: contact.slot)
        switch contact.kind {
        case .down:
            touchDown(contact, key: key, frame: frame, subscribedViews: subscribedViews)
        case .motion:
            if let index = liveIndex(of: key) {
                guard contact.screenPoint.isFinite else {
                    statistics.droppedNonFinite += 1
                    return
                }
                move(index, to: contact.screenPoint, timestampMicros: frame.timestampMicros)
            } else if !droppedContacts.contains(key) {
                statistics.ignoredUnknownSlot += 1
            }
        case .up, .cancel:
            if let index = liveIndex(of: key) {
                let isUp = contact.kind == .up
                end(
                    index, phase: isUp ? .ended : .cancelled, reason: isUp ? nil : .inputCancelled,
                    timestampMicros: frame.timestampMicros)
            } else if let dropped = droppedContacts.firstIndex(of: key) {
                droppedContacts.remove(at: dropped)
            } else {
                statistics.ignoredUnknownSlot += 1
            }
        }
    }

    private mutating func touchDown(
        _ contact: ContactEvent, key: ContactKey, frame: InputFrame, subscribedViews: some SubscribedViews
    ) {
        // A down on a slot still in use: the old contact is over.
        if let index = liveIndex(of: key) {
            end(index, phase: .cancelled, reason: .slotReused, timestampMicros: frame.timestampMicros)
        } else if let dropped = droppedContacts.firstIndex(of: key) {
            droppedContacts.remove(at: dropped)
        }
        let screenPoint = contact.screenPoint
        guard liveTouchCount + droppedContacts.count < configuration.maximumSimultaneousTouches else {
            statistics.droppedOverCap += 1
            return
        }
        guard screenPoint.isFinite else {
            statistics.droppedNonFinite += 1
            return drop(key)
        }
        guard let screenIndex = layout.screens.firstIndex(where: { $0.name == frame.screen }) else {
            statistics.droppedUnknownScreen += 1
            return drop(key)
        }
        guard let hit = hitTesters[screenIndex].hitTest(screenPoint) else {
            statistics.droppedHitNothing += 1
            return drop(key)
        }
        // The responder chain: the hit view, else its nearest subscribed ancestor.
        guard let targetDepth = hit.path.lastIndex(where: subscribedViews.hasSubscribers) else {
            statistics.droppedNoSubscriber += 1
            return drop(key)
        }
        var chain: [View] = []
        chain.reserveCapacity(hit.path.count)
        chain.append(layout.screens[screenIndex].root)
        for childIndex in hit.indexPath {
            chain.append(chain[chain.count - 1].children[childIndex])
        }
        let hitView = chain[chain.count - 1]
        if blockedByExclusiveTouch(hitView, screenIndex: screenIndex) {
            statistics.droppedExclusiveTouch += 1
            return drop(key)
        }
        if !hitView.multipleTouch, touches.contains(where: {
            $0.isLive && $0.screenIndex == screenIndex && $0.hitViewID == hitView.id
        }) {
            statistics.droppedMultipleTouch += 1
            return drop(key)
        }
        chain.removeLast(chain.count - 1 - targetDepth)
        let targetViewID = hit.path[targetDepth]
        // Touches with the same target share a number, so grouping compares integers.
        let targetKey = touches.first {
            $0.screenIndex == screenIndex && $0.targetViewID == targetViewID
        }?.targetKey ?? nextTargetKey
        if targetKey == nextTargetKey { nextTargetKey += 1 }
        let touch = TrackedTouch(
            id: nextTouchID, device: frame.device, slot: contact.slot, screenIndex: screenIndex,
            targetViewID: targetViewID, targetKey: targetKey, hitViewID: hitView.id,
            hitViewIsExclusive: hitView.exclusiveTouch, chain: chain, screenPoint: screenPoint,
            tapCount: tapCount(hitViewID: hitView.id, screenIndex: screenIndex, at: screenPoint,
                timestampMicros: frame.timestampMicros),
            timestampMicros: frame.timestampMicros)
        nextTouchID += 1
        statistics.touchesBegan += 1
        touches.append(touch)
    }

    /// UIKit's exclusiveTouch, both ways, among the live touches of the screen (by hit view).
    private func blockedByExclusiveTouch(_ hitView: View, screenIndex: Int) -> Bool {
        for touch in touches where touch.isLive && touch.screenIndex == screenIndex {
            if touch.hitViewID == hitView.id { continue }
            // Another view is being touched: an exclusive view takes nothing new, and an exclusive
            // view being touched lets no other view take anything new.
            if hitView.exclusiveTouch || touch.hitViewIsExclusive { return true }
        }
        return false
    }

    private mutating func drop(_ key: ContactKey) {
        if droppedContacts.count < configuration.maximumSimultaneousTouches {
            droppedContacts.append(key)
        }
    }

    private mutating func move(_ index: Int, to screenPoint: Point, timestampMicros: UInt64) {
        if touches[index].screenPoint == screenPoint { return }
        let index = deliverBeganFirst(index)
        touches[index].screenPoint = screenPoint
        touches[index].timestampMicros = timestampMicros
        if touches[index].pendingPhase == nil { touches[index].pendingPhase = .moved }
        if !touches[index].leftTapSlop {
            let start = touches[index].beganScreenPoint
            touches[index].leftTapSlop = Self.distance(start, screenPoint) > configuration.tapSlop
        }
    }

    /// A touch that began in the frame being built is delivered as began (where it was hit-tested)
    /// before it changes again, so no message carries one touch twice. Returns its index after that.
    private mutating func deliverBeganFirst(_ index: Int) -> Int {
        guard touches[index].pendingPhase == .began else { return index }
        // Flushing forgets touches that ended earlier in the frame: find this one again.
        let id = touches[index].id
        flush(timestampMicros: touches[index].timestampMicros)
        return touches.firstIndex { $0.id == id }!
    }

    /// Gives a live touch its terminal phase.
    private mutating func end(
        _ index: Int, phase: TouchPhase, reason: CancelReason?, timestampMicros: UInt64
    ) {
        let index = deliverBeganFirst(index)
        touches[index].pendingPhase = phase
        touches[index].cancelReason = reason
        touches[index].timestampMicros = timestampMicros
        if let reason {
            statistics.countCancel(reason)
        } else {
            statistics.touchesEnded += 1
        }
        recordTapEnd(of: touches[index])
    }

    // MARK: - Delivery

    /// Emits one message per view with a changed touch: its changed touches plus its stationary
    /// ones, in began order; views in the order of their earliest touch. Then forgets ended touches.
    private mutating func flush(timestampMicros: UInt64) {
        var anyEnded = false
        for first in touches.indices where touches[first].pendingPhase != nil && !touches[first].delivered {
            let screenIndex = touches[first].screenIndex
            output.startGroup(
                viewID: touches[first].targetViewID, screen: layout.screens[screenIndex].name,
                timestampMicros: timestampMicros)
            let targetKey = touches[first].targetKey
            for index in touches.indices where touches[index].targetKey == targetKey {
                output.append(routed(touches[index]))
                touches[index].delivered = true
                touches[index].previousScreenPoint = touches[index].screenPoint
                if touches[index].pendingPhase?.isTerminal == true { anyEnded = true }
            }
        }
        if anyEnded { touches.removeAll { !$0.isLive } }
        for index in touches.indices {
            touches[index].pendingPhase = nil
            touches[index].delivered = false
        }
    }

    private func routed(_ touch: TrackedTouch) -> RoutedTouch {
        RoutedTouch(
            id: touch.id, phase: touch.pendingPhase ?? .stationary,
            localPoint: Self.localPoint(touch.screenPoint, through: touch.chain),
            screenPoint: touch.screenPoint,
            previousLocalPoint: Self.localPoint(touch.previousScreenPoint, through: touch.chain),
            timestampMicros: touch.timestampMicros, tapCount: touch.tapCount, device: touch.device,
            cancelReason: touch.cancelReason)
    }

    /// UIKit's location(in:): the screen point through every view from the root down to the target,
    /// with the same conversion hit-testing uses, so the results are bit-identical.
    @inline(__always)
    static func localPoint(_ screenPoint: Point, through chain: [View]) -> Point {
        var point = screenPoint
        for index in chain.indices {
            point = chain[index].convertFromParent(point)
        }
        return point
    }

    // MARK: - Taps

    private static let recentTapCapacity = 16

    private mutating func recordTapEnd(of touch: TrackedTouch) {
        let existing = recentTaps.firstIndex {
            $0.screenIndex == touch.screenIndex && $0.hitViewID == touch.hitViewID
        }
        guard touch.pendingPhase == .ended, !touch.leftTapSlop else {
            // A drag or a cancellation breaks the run of taps on that view.
            if let existing { recentTaps.remove(at: existing) }
            return
        }
        let tap = RecentTap(
            screenIndex: touch.screenIndex, hitViewID: touch.hitViewID, endScreenPoint: touch.screenPoint,
            endMicros: touch.timestampMicros, tapCount: touch.tapCount)
        if let existing {
            recentTaps[existing] = tap
        } else {
            if recentTaps.count >= Self.recentTapCapacity { recentTaps.removeFirst() }
            recentTaps.append(tap)
        }
    }

    private func tapCount(hitViewID: String, screenIndex: Int, at screenPoint: Point, timestampMicros: UInt64)
        -> Int
    {
        guard let previous = recentTaps.first(where: {
            $0.screenIndex == screenIndex && $0.hitViewID == hitViewID
        }) else { return 1 }
        guard timestampMicros >= previous.endMicros,
            timestampMicros - previous.endMicros <= configuration.tapIntervalMicros,
            Self.distance(previous.endScreenPoint, screenPoint) <= configuration.tapSlop
        else { return 1 }
        return previous.tapCount + 1
    }

    // MARK: - Lookup

    private var liveTouchCount: Int {
        var count = 0
        for touch in touches where touch.isLive { count += 1 }
        return count
    }

    @inline(__always)
    private func liveIndex(of key: ContactKey) -> Int? {
        for index in touches.indices
        where touches[index].slot == key.slot && touches[index].device.id == key.deviceID
            && touches[index].isLive
        {
            return index
        }
        return nil
    }

    @inline(__always)
    static func distance(_ a: Point, _ b: Point) -> Double {
        let dx = a.x - b.x, dy = a.y - b.y
        return (dx * dx + dy * dy).squareRoot()
    }

    /// The views from `root` down to the view with `viewID`, or nil when the tree has no such view.
    static func chain(to viewID: String, from root: View) -> [View]? {
        var chain: [View] = [root]
        func search(_ view: View) -> Bool {
            if view.id == viewID { return true }
            for child in view.children {
                chain.append(child)
                if search(child) { return true }
                chain.removeLast()
            }
            return false
        }
        return search(root) ? chain : nil
    }
}

/// A device's slot: which contact an event is about.
struct ContactKey: Hashable {
    var deviceID: UInt32
    var slot: Int32
}

/// One delivered touch, bound for life to its target view (wlroots' wlr_touch_point in spirit).
struct TrackedTouch {
    let id: UInt64
    let device: InputDevice
    let slot: Int32
    var screenIndex: Int
    /// The delivery target: the hit view or its nearest subscribed ancestor, fixed at touch-down.
    let targetViewID: String
    /// Equal for touches with the same target (screen and view), unique otherwise.
    let targetKey: Int
    /// The view hit-testing returned (UITouch.view): what multipleTouch, exclusiveTouch and tap
    /// counting look at.
    let hitViewID: String
    let hitViewIsExclusive: Bool
    /// The views from the screen's root down to the target.
    var chain: [View]
    var screenPoint: Point
    /// Where the touch was at its previous delivery, in screen space.
    var previousScreenPoint: Point
    let beganScreenPoint: Point
    let tapCount: Int
    var timestampMicros: UInt64
    /// Moved farther than the tap slop from where it began: not a tap.
    var leftTapSlop = false
    /// The phase this touch gets in the frame being built; nil when it has not changed.
    var pendingPhase: TouchPhase?
    var cancelReason: CancelReason?
    /// Already placed in a message of the frame being built.
    var delivered = false

    init(
        id: UInt64, device: InputDevice, slot: Int32, screenIndex: Int, targetViewID: String, targetKey: Int,
        hitViewID: String, hitViewIsExclusive: Bool, chain: [View], screenPoint: Point, tapCount: Int,
        timestampMicros: UInt64
    ) {
        self.id = id
        self.device = device
        self.slot = slot
        self.screenIndex = screenIndex
        self.targetViewID = targetViewID
        self.targetKey = targetKey
        self.hitViewID = hitViewID
        self.hitViewIsExclusive = hitViewIsExclusive
        self.chain = chain
        self.screenPoint = screenPoint
        self.previousScreenPoint = screenPoint
        self.beganScreenPoint = screenPoint
        self.tapCount = tapCount
        self.timestampMicros = timestampMicros
        self.pendingPhase = .began
    }

    /// Not yet given its terminal phase.
    @inline(__always)
    var isLive: Bool { pendingPhase?.isTerminal != true }

}

/// The end of the last tap on a view, for counting consecutive taps.
struct RecentTap {
    var screenIndex: Int
    var hitViewID: String
    var endScreenPoint: Point
    var endMicros: UInt64
    var tapCount: Int
}
