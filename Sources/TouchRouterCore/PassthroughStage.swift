import TouchRouterModel

/// The Router's passthrough stage (docs/passthrough.md): the tracker's output in, what each
/// screen's virtual touchscreen or pointer must play out. A touch is passed through when the
/// responder chain bound it to a view with `passthrough` (the tracker stops there: the Router
/// counts those views among its routing targets); it is decided at its `began` and kept until
/// it ends. Every way the tracker ends a touch (lift, device removed, stuck, a slot reused, a
/// reload removing its view, shutdown) ends its contact here; a reload or run-time change that
/// keeps the view but hides it or drops its passthrough ends it too (`replaceSettings`).
///
/// Cost: `process` is linear in the touches of the tracker's output, each looked up among the
/// contacts passed through (at most `slotsPerScreen` per screen, plus one pointer finger), and one
/// settings lookup per touch-down; `advance` and `nextDeadlineMicros` scan the contacts passed
/// through. Frames are built in storage kept from call to call: nothing is allocated per frame in
/// the steady state.
struct PassthroughStage: Sendable {
    /// Slots of each screen's virtual touchscreen: a screen passes at most this many fingers at once.
    static let slotsPerScreen = 10

    /// The views' `passthrough` keys, by view id.
    private(set) var settings: [String: PassthroughSettings]
    /// The contacts passed through and not yet ended, in the order they began.
    private var contacts: [PassedContact] = []
    /// The screens that passed something through, with their slots, pointer and counters (kept
    /// across reloads by name).
    private var screens: [PassthroughScreen] = []
    /// The next contact's tracking id.
    private var nextTrackingID: Int32 = 0
    /// The frames of the call in progress (`frames[..<frameCount]`), storage reused between calls.
    private var frames: [PassthroughFrame] = []
    private(set) var frameCount = 0

    init(settings: [String: PassthroughSettings]) {
        self.settings = settings
        contacts.reserveCapacity(Self.slotsPerScreen + 1)
    }

    /// Nothing passes through and nothing is down: the Router skips the stage.
    var isIdle: Bool { settings.isEmpty && contacts.isEmpty }

    /// The frame at `index` of the call in progress.
    func frame(_ index: Int) -> PassthroughFrame { frames[index] }

    /// Starts a new Router call: the frames built so far are forgotten (the Router handed them on).
    mutating func startCall() { frameCount = 0 }

    /// The counters of each screen that passed something through, in the order first seen.
    var statistics: [(screen: String, statistics: PassthroughStatistics)] {
        screens.map { ($0.name, $0.statistics) }
    }

    // MARK: - The tracker's output

    /// One tracker output (its touches at `frameMicros`, measured with `scale`): pointer
    /// deadlines due by then first, then each touch of a passthrough view.
    mutating func process(_ batches: [ViewTouches], scale: PhysicalScale, at frameMicros: UInt64) {
        fireDeadlines(upTo: frameMicros)
        for batchIndex in batches.indices {
            let touches = batches[batchIndex].touches
            for index in touches.indices {
                switch touches[index].phase {
                case .stationary: continue
                case .began:
                    let region = batches[batchIndex].viewID
                    guard let settings = settings[region], settings.passesThrough else { continue }
                    begin(touches[index], region: region, screen: batches[batchIndex].screen, settings)
                case .moved:
                    guard let contact = contactIndex(of: touches[index].id) else { continue }
                    move(contact, to: touches[index].screenPoint, scale: scale, at: touches[index].timestampMicros)
                case .ended, .cancelled:
                    guard let contact = contactIndex(of: touches[index].id) else { continue }
                    let point = touches[index].screenPoint
                    contacts[contact].lastPoint = point
                    end(contact, lifted: touches[index].phase == .ended, at: touches[index].timestampMicros)
                }
            }
        }
        closeFrames()
    }

    /// Fires the pointer deadlines due by `inputMicros` (a right click each).
    mutating func advance(to inputMicros: UInt64) {
        fireDeadlines(upTo: inputMicros)
        closeFrames()
    }

    /// The earliest pointer deadline (a finger held still becoming a right click), on the input
    /// clock; nil when none waits.
    var nextDeadlineMicros: UInt64? {
        var earliest: UInt64?
        for contact in contacts.indices {
            if case .waiting(let deadline) = contacts[contact].pointer { earliest = min(earliest ?? .max, deadline) }
        }
        return earliest
    }

    /// New settings and a new layout (a reload or a run-time change, after the tracker cancelled
    /// the touches whose view is gone): a contact whose view no longer passes through in the same
    /// mode, or can no longer take touches (hidden, alpha below 0.01, not interactive, itself or an
    /// ancestor), or whose screen is gone, is cancelled. The others go on. Cost: one id lookup per
    /// contact.
    mutating func replaceSettings(
        _ newSettings: [String: PassthroughSettings], layout: PreparedLayout, at inputMicros: UInt64
    ) {
        settings = newSettings
        var index = 0
        while index < contacts.count {
            let contact = contacts[index]
            let screenName = screens[contact.screen].name
            let kept =
                newSettings[contact.region].map { $0.passesThrough && $0.mode == contact.mode } == true
                && layout.screens.contains { $0.name == screenName && $0.isTouchable(viewID: contact.region) }
            if kept {
                index += 1
            } else {
                end(index, lifted: false, at: inputMicros)
            }
        }
        closeFrames()
    }

    // MARK: - Contacts

    private mutating func begin(
        _ touch: RoutedTouch, region: String, screen screenName: String, _ settings: PassthroughSettings
    ) {
        let screen = screenIndex(screenName)
        switch settings.mode {
        case .touch:
            var inRegion = 0
            for index in contacts.indices where contacts[index].screen == screen && contacts[index].region == region {
                inRegion += 1
            }
            guard inRegion < settings.maxTouches else {
                screens[screen].statistics.droppedOverMaxTouches += 1
                return
            }
            guard let slot = screens[screen].takeSlot() else {
                screens[screen].statistics.droppedNoSlot += 1
                return
            }
            let trackingID = nextTrackingID
            nextTrackingID = nextTrackingID == .max ? 0 : nextTrackingID + 1
            contacts.append(
                PassedContact(
                    touchID: touch.id, screen: screen, region: region, mode: .touch, slot: slot,
                    trackingID: trackingID, downPoint: touch.screenPoint, lastPoint: touch.screenPoint))
            screens[screen].statistics.touchesPassed += 1
            add(.down, slot: slot, trackingID: trackingID, at: touch.screenPoint, screen, touch.timestampMicros)
        case .pointer:
            guard !screens[screen].pointerHeld else {
                screens[screen].statistics.ignoredPointerFingers += 1
                return
            }
            screens[screen].pointerHeld = true
            var contact = PassedContact(
                touchID: touch.id, screen: screen, region: region, mode: .pointer, slot: -1, trackingID: -1,
                downPoint: touch.screenPoint, lastPoint: touch.screenPoint)
            contact.pointer = .waiting(deadline: touch.timestampMicros &+ settings.rightClickMicros)
            contacts.append(contact)
            screens[screen].statistics.pointerTouches += 1
            add(.move(touch.screenPoint), screen, touch.timestampMicros)
        }
    }

    private mutating func move(_ index: Int, to point: Point, scale: PhysicalScale, at micros: UInt64) {
        contacts[index].lastPoint = point
        let contact = contacts[index]
        switch contact.mode {
        case .touch:
            add(.move, slot: contact.slot, trackingID: contact.trackingID, at: point, contact.screen, micros)
        case .pointer:
            switch contact.pointer {
            case .waiting:
                // Held still so far: the button goes down once the finger leaves the slop (a drag).
                let start = contact.downPoint
                let moved = scale.millimetres(dx: point.x - start.x, dy: point.y - start.y)
                guard moved > GestureDefaults.movementMM else { return }
                contacts[index].pointer = .pressed
                add(.press(start, .left), contact.screen, micros)
                add(.move(point), contact.screen, micros)
            case .pressed:
                add(.move(point), contact.screen, micros)
            case .rightClicked:
                return
            }
        }
    }

    /// Ends a contact (`lifted`: a normal lift, else a cancel) at its last point and forgets it.
    private mutating func end(_ index: Int, lifted: Bool, at micros: UInt64) {
        let contact = contacts.remove(at: index)
        let screen = contact.screen
        switch contact.mode {
        case .touch:
            screens[screen].releaseSlot(contact.slot)
            if !lifted { screens[screen].statistics.cancelled += 1 }
            add(
                lifted ? .up : .cancel, slot: contact.slot, trackingID: contact.trackingID, at: contact.lastPoint,
                screen, micros)
        case .pointer:
            screens[screen].pointerHeld = false
            if !lifted { screens[screen].statistics.cancelled += 1 }
            switch contact.pointer {
            case .waiting:
                // A tap (lifted within the slop before the deadline) is a left click where it went
                // down; a cancelled one never pressed anything.
                guard lifted else { return }
                add(.press(contact.downPoint, .left), screen, micros)
                add(.release(contact.downPoint, .left), screen, micros)
            case .pressed:
                // A pointer has no cancel: the button comes up where the finger last was.
                add(.release(contact.lastPoint, .left), screen, micros)
            case .rightClicked:
                return
            }
        }
    }

    /// Right clicks for the pointer fingers held still until their deadline, in deadline order
    /// (each at its own time).
    private mutating func fireDeadlines(upTo inputMicros: UInt64) {
        while let due = nextDeadlineMicros, due <= inputMicros {
            for index in contacts.indices {
                guard case .waiting(let deadline) = contacts[index].pointer, deadline == due else { continue }
                contacts[index].pointer = .rightClicked
                let point = contacts[index].downPoint
                let screen = contacts[index].screen
                screens[screen].statistics.rightClicks += 1
                add(.press(point, .right), screen, due)
                add(.release(point, .right), screen, due)
            }
        }
    }

    private func contactIndex(of touchID: UInt64) -> Int? {
        for index in contacts.indices where contacts[index].touchID == touchID { return index }
        return nil
    }

    /// The screen's state, made the first time the screen passes something through.
    private mutating func screenIndex(_ name: String) -> Int {
        if let index = screens.firstIndex(where: { $0.name == name }) { return index }
        screens.append(PassthroughScreen(name: name))
        return screens.count - 1
    }

    // MARK: - Frames

    /// A contact's step into its screen's open frame. Two steps of one slot in one frame would be
    /// one evdev frame with the first lost: a move after a down or a move updates it; anything else
    /// closes the frame and opens another.
    private mutating func add(
        _ phase: PassthroughPhase, slot: Int, trackingID: Int32, at point: Point, _ screen: Int, _ micros: UInt64
    ) {
        var frame = openFrame(screen, micros)
        if let earlier = frames[frame].contacts.firstIndex(where: { $0.slot == slot }) {
            if phase == .move {
                frames[frame].contacts[earlier].location = point
                return
            }
            closeFrame(of: screen)
            frame = openFrame(screen, micros)
        }
        frames[frame].contacts.append(
            PassthroughContact(slot: slot, trackingID: trackingID, phase: phase, location: point))
    }

    /// A pointer step into its screen's open frame.
    private mutating func add(_ action: PointerAction, _ screen: Int, _ micros: UInt64) {
        let frame = openFrame(screen, micros)
        frames[frame].pointer.append(action)
    }

    /// The screen's open frame (opened now at `micros` if none).
    private mutating func openFrame(_ screen: Int, _ micros: UInt64) -> Int {
        if screens[screen].openFrame >= 0 { return screens[screen].openFrame }
        if frameCount < frames.count {
            frames[frameCount].screen = screens[screen].name
            frames[frameCount].timestampMicros = micros
            frames[frameCount].contacts.removeAll(keepingCapacity: true)
            frames[frameCount].pointer.removeAll(keepingCapacity: true)
        } else {
            var frame = PassthroughFrame(screen: screens[screen].name, timestampMicros: micros)
            frame.contacts.reserveCapacity(Self.slotsPerScreen)
            frame.pointer.reserveCapacity(4)
            frames.append(frame)
        }
        screens[screen].openFrame = frameCount
        frameCount += 1
        return frameCount - 1
    }

    /// Closes a screen's open frame: its contacts in slot order (at most `slotsPerScreen`, sorted in
    /// place), its slots freed by this frame free again.
    private mutating func closeFrame(of screen: Int) {
        let frame = screens[screen].openFrame
        guard frame >= 0 else { return }
        // Insertion sort: a handful of contacts, mostly in order already, and no allocation.
        var index = 1
        while index < frames[frame].contacts.count {
            var position = index
            while position > 0, frames[frame].contacts[position - 1].slot > frames[frame].contacts[position].slot {
                frames[frame].contacts.swapAt(position - 1, position)
                position -= 1
            }
            index += 1
        }
        screens[screen].openFrame = -1
        screens[screen].slotsFreedThisFrame = 0
    }

    private mutating func closeFrames() {
        for screen in screens.indices { closeFrame(of: screen) }
    }
}

/// One touch passed through: its screen, its region (the passthrough view it is bound to) and
/// its slot and tracking id, or its pointer state.
private struct PassedContact {
    /// What a pointer finger has done so far.
    enum PointerState {
        /// Down and held within the slop: a lift now is a left click, the deadline a right click.
        case waiting(deadline: UInt64)
        /// Left the slop: the left button is down (a drag).
        case pressed
        /// Held still to its deadline: right clicked, nothing more until it lifts.
        case rightClicked
    }

    let touchID: UInt64
    let screen: Int
    let region: String
    let mode: PassthroughMode
    /// Touch mode: the virtual device's slot and the contact's tracking id (-1 in pointer mode).
    let slot: Int
    let trackingID: Int32
    let downPoint: Point
    var lastPoint: Point
    /// Pointer mode: what the finger has done (touch mode: never read; `rightClicked` has no deadline).
    var pointer = PointerState.rightClicked
}

/// One screen's virtual devices as the stage sees them.
private struct PassthroughScreen {
    let name: String
    /// Slots held by a contact, one bit each.
    var slotsHeld: UInt32 = 0
    /// Slots released in the open frame: not given again until it closes (an evdev frame cannot
    /// end a contact and start another on one slot).
    var slotsFreedThisFrame: UInt32 = 0
    /// A finger holds the screen's pointer.
    var pointerHeld = false
    /// The index of the screen's open frame in the call's frames, or -1.
    var openFrame = -1
    var statistics = PassthroughStatistics()

    init(name: String) { self.name = name }

    /// The lowest free slot, now held; nil when all are taken.
    mutating func takeSlot() -> Int? {
        for slot in 0..<PassthroughStage.slotsPerScreen {
            let bit: UInt32 = 1 << UInt32(slot)
            if (slotsHeld | slotsFreedThisFrame) & bit == 0 {
                slotsHeld |= bit
                return slot
            }
        }
        return nil
    }

    mutating func releaseSlot(_ slot: Int) {
        let bit: UInt32 = 1 << UInt32(slot)
        slotsHeld &= ~bit
        slotsFreedThisFrame |= bit
    }
}
