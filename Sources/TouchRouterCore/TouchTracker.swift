import TouchRouterModel

/// Touch tracking: binds each touch to a view at touch-down and turns input frames into per-view
/// messages with UIKit's phases, responder chain, multipleTouch and exclusiveTouch.
/// Pure and deterministic: no I/O, no clock; time comes only from the input. docs/tracking.md
/// states every rule with a worked example.
///
/// Touch-downs are hit-tested with each screen's `HitTestIndex` (built once per layout, in
/// `TrackerScreen`); a bound touch is kept as a view index into that screen's flattened views, so
/// the hot path copies no `View`, builds no array and allocates nothing.
///
/// One file over 400 lines on purpose: the tracker's rules (touch-down, the responder chain,
/// multipleTouch and exclusiveTouch, ends, reload) all read and write its private touch table;
/// split across files, that table would have to be open to the whole module. Taps are apart
/// (TouchTracker+Taps.swift), as are the screens' tables (TrackerScreen.swift).

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

    /// Per screen of `layout`, same order: the hit-test index and the flattened views.
    private var screens: [TrackerScreen]
    /// Delivered touches not yet ended, in began order (which is also id order).
    private var touches: [TrackedTouch] = []
    /// Contacts that are down but were dropped at touch-down: their later events are consumed quietly.
    private var droppedContacts: [ContactKey] = []
    /// Recent taps per hit view, for tapCount.
    var recentTaps: [RecentTap] = []
    /// The devices of the delivered touches (a touch keeps only the id: a touch with no strings in
    /// it is copied and scanned without retains). Emptied whenever no touch is down.
    private var devices: [InputDevice] = []
    private var nextTouchID: UInt64 = 1
    private var nextTargetKey = 0
    private var output = DeliveryBuffer()

    /// A tracker with no touches down, hit-testing against `layout`.
    public init(layout: Layout, configuration: TrackerConfiguration = .default) {
        self.init(prepared: PreparedLayout(layout), configuration: configuration)
    }

    /// A tracker with no touches down, on a layout whose tables are already built.
    public init(prepared: PreparedLayout, configuration: TrackerConfiguration = .default) {
        self.layout = prepared.layout
        self.configuration = configuration
        self.screens = prepared.screens
        touches.reserveCapacity(configuration.maximumSimultaneousTouches)
        droppedContacts.reserveCapacity(configuration.maximumSimultaneousTouches)
        recentTaps.reserveCapacity(Self.recentTapCapacity)
        devices.reserveCapacity(4)
    }

    /// Delivered touches currently down.
    public var activeTouchCount: Int { touches.count }

    /// Hit-tests a point of the named screen with the index new touches use (exactly what
    /// `PlainHitTest` answers); nil when nothing is hit or there is no such screen.
    public func hitTest(screen name: String, _ screenPoint: Point) -> HitResult? {
        screens.first { $0.name == name }?.hitIndex.hitTest(screenPoint)
    }

    /// The delivered touches currently down: device, slot, screen and where each is (the field stage
    /// follows them across a reload). Cost: linear in the touches down.
    public var touchesDown: [(device: InputDevice, slot: Int32, screen: String, screenPoint: Point)] {
        touches.compactMap { touch in
            guard let device = devices.first(where: { $0.id == touch.deviceID }),
                screens.indices.contains(touch.screenIndex)
            else { return nil }
            return (device, touch.slot, screens[touch.screenIndex].name, touch.screenPoint)
        }
    }

    /// The ids of the delivered touches currently down, in began order.
    public var activeTouchIDs: [UInt64] { touches.map(\.id) }

    /// The hit views (UITouch.view) of the delivered touches down on the named screen, in began
    /// order: what multipleTouch and exclusiveTouch look at for the next touch-down (`explain`).
    public func touchedViews(screen name: String) -> [HitTestExplanation.TouchedView] {
        guard let screenIndex = screens.firstIndex(where: { $0.name == name }) else { return [] }
        return touches.filter { $0.screenIndex == screenIndex && $0.isLive && $0.hitView >= 0 }.map {
            HitTestExplanation.TouchedView(
                viewID: screens[screenIndex].ids[Int($0.hitView)], exclusiveTouch: $0.hitViewIsExclusive)
        }
    }

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
            let screenIndex = screens.firstIndex { $0.name == frame.screen }
            for contact in frame.contacts {
                apply(contact, of: frame, screenIndex: screenIndex, subscribedViews: subscribedViews)
            }
            flush(timestampMicros: frame.timestampMicros)
        case .deviceRemoved(let device, let timestampMicros):
            // No touch is pending at the start of a call, so `end` never flushes (indices stay valid).
            for index in touches.indices where touches[index].deviceID == device.id {
                end(index, phase: .cancelled, reason: .deviceRemoved, timestampMicros: timestampMicros)
            }
            droppedContacts.removeAll { $0.deviceID == device.id }
            flush(timestampMicros: timestampMicros)
            devices.removeAll { $0.id == device.id }
        }
        return output.finish()
    }

    /// Makes `layout` the one new touches are hit-tested against, at once. A touch whose target view
    /// id still exists on its screen keeps going, its local coordinates now computed through the new
    /// tree; every other touch is cancelled (`viewRemoved`) with its last local point in the old tree.
    public mutating func replaceLayout(_ newLayout: Layout, timestampMicros: UInt64) -> [ViewTouches] {
        replaceLayout(PreparedLayout(newLayout), timestampMicros: timestampMicros)
    }

    /// The current layout with its tables, to hand back to a worker (so that releasing the old
    /// tables after a swap can happen off the routing thread too).
    public var preparedLayout: PreparedLayout { PreparedLayout(layout: layout, screens: screens) }

    /// `replaceLayout(_:timestampMicros:)` with the new tables already built (`PreparedLayout`,
    /// made off the routing thread). Cost: one id lookup per live touch and per remembered tap,
    /// plus the messages of the touches cancelled; nothing proportional to the layout's size.
    public mutating func replaceLayout(_ prepared: PreparedLayout, timestampMicros: UInt64) -> [ViewTouches] {
        let newLayout = prepared.layout
        output.reset()
        let newScreens = prepared.screens
        // Find every touch's target in the new tree before anything changes.
        var moves: [(screenIndex: Int, target: Int32, hitView: Int32)] = []
        for index in touches.indices {
            let screenName = screens[touches[index].screenIndex].name
            let targetViewID = screens[touches[index].screenIndex].ids[Int(touches[index].target)]
            if let (screenIndex, target) = Self.find(targetViewID, preferring: screenName, in: newScreens) {
                // The hit view may be gone while its ancestor target stays: -1 matches no view.
                let oldHitView = touches[index].hitView
                let hitView =
                    oldHitView < 0
                    ? -1
                    : newScreens[screenIndex].firstView(
                        withID: screens[touches[index].screenIndex].ids[Int(oldHitView)]) ?? -1
                moves.append((screenIndex, target, hitView))
            } else {
                end(index, phase: .cancelled, reason: .viewRemoved, timestampMicros: timestampMicros)
            }
        }
        // Deliver the cancellations through the old tree, then move the survivors (same order) over.
        flush(timestampMicros: timestampMicros)
        for index in touches.indices {
            let move = moves[index]
            touches[index].screenIndex = move.screenIndex
            touches[index].target = move.target
            touches[index].hitView = move.hitView
            touches[index].previousLocalPoint = newScreens[move.screenIndex].localPoint(
                of: move.target, screenPoint: touches[index].previousScreenPoint)
        }
        // Taps go on on views that are still there.
        var keptTaps = 0
        for tapIndex in recentTaps.indices {
            let tap = recentTaps[tapIndex]
            let oldScreen = screens[tap.screenIndex]
            if let (screenIndex, hitView) = Self.find(
                oldScreen.ids[Int(tap.hitView)], preferring: oldScreen.name, in: newScreens)
            {
                recentTaps[keptTaps] = tap
                recentTaps[keptTaps].screenIndex = screenIndex
                recentTaps[keptTaps].hitView = hitView
                keptTaps += 1
            }
        }
        recentTaps.removeLast(recentTaps.count - keptTaps)
        layout = newLayout
        screens = newScreens
        return output.finish()
    }

    /// Where view `viewID` is in `screens`: on the screen named `screenName` if it still exists,
    /// else on any screen (ids are unique in a whole config, so a renamed screen keeps its
    /// touches and taps). Cost: one id lookup per screen.
    private static func find(_ viewID: String, preferring screenName: String, in screens: [TrackerScreen])
        -> (screenIndex: Int, view: Int32)?
    {
        if let named = screens.firstIndex(where: { $0.name == screenName }) {
            return screens[named].firstView(withID: viewID).map { (named, $0) }
        }
        for index in screens.indices {
            if let view = screens[index].firstView(withID: viewID) { return (index, view) }
        }
        return nil
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

    /// Cancels every touch down on the named screen (a calibration session takes the screen over);
    /// the rest go on. Cost: the touches down.
    public mutating func cancel(screen name: String, reason: CancelReason, timestampMicros: UInt64) -> [ViewTouches] {
        output.reset()
        if let screenIndex = screens.firstIndex(where: { $0.name == name }) {
            let ids = touches.filter { $0.screenIndex == screenIndex && $0.isLive }.map(\.id)
            for id in ids {
                if let index = touches.firstIndex(where: { $0.id == id }) {
                    end(index, phase: .cancelled, reason: reason, timestampMicros: timestampMicros)
                }
            }
        }
        flush(timestampMicros: timestampMicros)
        return output.finish()
    }

    // MARK: - Contacts

    private mutating func apply(
        _ contact: ContactEvent, of frame: InputFrame, screenIndex: Int?,
        subscribedViews: some SubscribedViews
    ) {
        let key = ContactKey(deviceID: frame.device.id, slot: contact.slot)
        switch contact.kind {
        case .down:
            touchDown(
                contact, key: key, frame: frame, screenIndex: screenIndex, subscribedViews: subscribedViews)
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
                    index, phase: isUp ? .ended : .cancelled,
                    reason: isUp ? nil : (contact.cancelReason ?? .inputCancelled),
                    timestampMicros: frame.timestampMicros)
            } else if let dropped = droppedContacts.firstIndex(of: key) {
                droppedContacts.remove(at: dropped)
            } else {
                statistics.ignoredUnknownSlot += 1
            }
        }
    }

    private mutating func touchDown(
        _ contact: ContactEvent, key: ContactKey, frame: InputFrame, screenIndex: Int?,
        subscribedViews: some SubscribedViews
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
        guard let screenIndex else {
            statistics.droppedUnknownScreen += 1
            return drop(key)
        }
        let screen = screens[screenIndex]
        guard let hitView = screen.hitView(screenPoint) else {
            statistics.droppedHitNothing += 1
            return drop(key)
        }
        // The responder chain: the hit view, else its nearest subscribed ancestor.
        var candidate: Int32? = hitView
        while let view = candidate, !subscribedViews.hasSubscribers(screen.ids[Int(view)]) {
            candidate = screen.parent(of: view)
        }
        guard let target = candidate else {
            statistics.droppedNoSubscriber += 1
            return drop(key)
        }
        let hitViewIsExclusive = screen.isExclusive(hitView)
        if blockedByExclusiveTouch(hitView, isExclusive: hitViewIsExclusive, screenIndex: screenIndex) {
            statistics.droppedExclusiveTouch += 1
            return drop(key)
        }
        // The loops over `touches` go by index: iterating copies each touch (and retains its strings).
        if !screen.allowsMultipleTouch(hitView) {
            for index in touches.indices
            where touches[index].hitView == hitView && touches[index].screenIndex == screenIndex
                && touches[index].isLive
            {
                // A passthrough region takes every finger (its `maxTouches` bounds what is passed on).
                if subscribedViews.passesThrough(screen.ids[Int(target)]) { break }
                statistics.droppedMultipleTouch += 1
                return drop(key)
            }
        }
        // Touches with the same target share a number, so grouping compares integers.
        var targetKey = nextTargetKey
        for index in touches.indices
        where touches[index].target == target && touches[index].screenIndex == screenIndex {
            targetKey = touches[index].targetKey
            break
        }
        if targetKey == nextTargetKey { nextTargetKey += 1 }
        register(frame.device)
        let touch = TrackedTouch(
            id: nextTouchID, deviceID: frame.device.id, slot: contact.slot, screenIndex: screenIndex,
            target: target, targetKey: targetKey, hitView: hitView,
            hitViewIsExclusive: hitViewIsExclusive, screenPoint: screenPoint,
            localPoint: screen.localPoint(of: target, screenPoint: screenPoint),
            tapCount: tapCount(
                hitView: hitView, screenIndex: screenIndex, at: screenPoint,
                timestampMicros: frame.timestampMicros),
            timestampMicros: frame.timestampMicros)
        nextTouchID += 1
        statistics.touchesBegan += 1
        touches.append(touch)
    }

    /// Remembers the device of a touch about to be delivered.
    private mutating func register(_ device: InputDevice) {
        let known = devices.withUnsafeBufferPointer { devices in
            devices.contains { $0.id == device.id }
        }
        if !known { devices.append(device) }
    }

    /// The device of a delivered touch.
    private func device(withID deviceID: UInt32) -> InputDevice {
        devices.withUnsafeBufferPointer { devices in
            for index in devices.indices where devices[index].id == deviceID { return devices[index] }
            // Unreachable: every delivered touch's device was registered at its touch-down.
            return InputDevice(id: deviceID, name: "")
        }
    }

    /// UIKit's exclusiveTouch, both ways, among the live touches of the screen (by hit view).
    private func blockedByExclusiveTouch(_ hitView: Int32, isExclusive: Bool, screenIndex: Int) -> Bool {
        for index in touches.indices
        where touches[index].hitView != hitView && touches[index].screenIndex == screenIndex
            && touches[index].isLive
        {
            // Another view is being touched: an exclusive view takes nothing new, and an exclusive
            // view being touched lets no other view take anything new.
            if isExclusive || touches[index].hitViewIsExclusive { return true }
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
    /// ones, in began order; views in the order of their earliest-began changed touch (stationary
    /// ones do not count, docs/tracking.md). Then forgets ended touches.
    private mutating func flush(timestampMicros: UInt64) {
        var anyEnded = false
        for first in touches.indices where touches[first].pendingPhase != nil && !touches[first].delivered {
            let screenIndex = touches[first].screenIndex
            let screen = screens[screenIndex]
            output.startGroup(
                viewID: screen.ids[Int(touches[first].target)], screen: screen.name,
                timestampMicros: timestampMicros)
            let targetKey = touches[first].targetKey
            for index in touches.indices where touches[index].targetKey == targetKey {
                // The local point is computed only when the touch has moved since its last delivery.
                let localPoint =
                    touches[index].screenPoint == touches[index].previousScreenPoint
                    ? touches[index].previousLocalPoint
                    : screen.localPoint(of: touches[index].target, screenPoint: touches[index].screenPoint)
                output.append(routed(touches[index], localPoint: localPoint))
                touches[index].delivered = true
                touches[index].previousScreenPoint = touches[index].screenPoint
                touches[index].previousLocalPoint = localPoint
                if touches[index].pendingPhase?.isTerminal == true { anyEnded = true }
            }
        }
        if anyEnded {
            touches.removeAll { !$0.isLive }
            if touches.isEmpty { devices.removeAll(keepingCapacity: true) }
        }
        for index in touches.indices {
            touches[index].pendingPhase = nil
            touches[index].delivered = false
        }
    }

    private func routed(_ touch: TrackedTouch, localPoint: Point) -> RoutedTouch {
        RoutedTouch(
            id: touch.id, phase: touch.pendingPhase ?? .stationary, localPoint: localPoint,
            screenPoint: touch.screenPoint, previousLocalPoint: touch.previousLocalPoint,
            timestampMicros: touch.timestampMicros, tapCount: touch.tapCount,
            device: device(withID: touch.deviceID), cancelReason: touch.cancelReason)
    }

    // MARK: - Lookup

    private var liveTouchCount: Int {
        var count = 0
        for index in touches.indices where touches[index].isLive { count += 1 }
        return count
    }

    @inline(__always)
    private func liveIndex(of key: ContactKey) -> Int? {
        for index in touches.indices
        where touches[index].slot == key.slot && touches[index].deviceID == key.deviceID
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
}

/// A device's slot: which contact an event is about.
struct ContactKey: Hashable {
    var deviceID: UInt32
    var slot: Int32
}

/// One delivered touch, bound for life to its target view (wlroots' wlr_touch_point in spirit).
/// Views are indices into the touch's screen's pre-order (its `HitTestIndex` nodes): no `View` copies, no arrays.
/// Holds no reference (no strings, no arrays), so scanning and copying touches costs no retains.
struct TrackedTouch {
    let id: UInt64
    /// The device's id; the device itself is in `TouchTracker.devices`.
    let deviceID: UInt32
    let slot: Int32
    var screenIndex: Int
    /// The delivery target: the hit view or its nearest subscribed ancestor, fixed at touch-down.
    var target: Int32
    /// Equal for touches with the same target (screen and view), unique otherwise.
    let targetKey: Int
    /// The view hit-testing returned (UITouch.view): what multipleTouch, exclusiveTouch and tap
    /// counting look at; -1 once a layout reload removed it (its target stayed).
    var hitView: Int32
    let hitViewIsExclusive: Bool
    var screenPoint: Point
    /// Where the touch was at its previous delivery, in screen space and in the target's space.
    var previousScreenPoint: Point
    var previousLocalPoint: Point
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
        id: UInt64, deviceID: UInt32, slot: Int32, screenIndex: Int, target: Int32, targetKey: Int,
        hitView: Int32, hitViewIsExclusive: Bool, screenPoint: Point,
        localPoint: Point, tapCount: Int, timestampMicros: UInt64
    ) {
        self.id = id
        self.deviceID = deviceID
        self.slot = slot
        self.screenIndex = screenIndex
        self.target = target
        self.targetKey = targetKey
        self.hitView = hitView
        self.hitViewIsExclusive = hitViewIsExclusive
        self.screenPoint = screenPoint
        self.previousScreenPoint = screenPoint
        self.previousLocalPoint = localPoint
        self.beganScreenPoint = screenPoint
        self.tapCount = tapCount
        self.timestampMicros = timestampMicros
        self.pendingPhase = .began
    }

    /// Not yet given its terminal phase.
    @inline(__always)
    var isLive: Bool { pendingPhase?.isTerminal != true }

}
