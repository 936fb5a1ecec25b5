/// One view's recognisers and touches while the view is touched or a recogniser waits: each step
/// of the tracker's messages goes to every recogniser (GestureArbitration.swift decides between
/// them), and the view's raw touches go on minus what gestures took.
struct ViewGestures: Sendable {
    let viewID: String
    var screen: String
    var recognisers: [Recogniser]
    /// The view's touches: every live one, plus those that ended in the step being processed.
    var touches: [GestureTouch] = []
    /// Every state change, `failed` included, is an event (tests).
    var recordsTransitions: Bool
    /// The devices of the touches (a touch keeps the device's id only), for the message a deadline
    /// builds: at most one more than the touches down (`noteDevice`).
    private var devices: [InputDevice] = []
    /// The earliest deadline of any recogniser (nil: none), kept by every change.
    private(set) var nextDeadlineMicros: UInt64?

    /// A view's recognisers for its `gestures`, nothing seen yet.
    init(viewID: String, screen: String, specs: [GestureSpec], recordsTransitions: Bool) {
        self.viewID = viewID
        self.screen = screen
        self.recordsTransitions = recordsTransitions
        recognisers = Self.recognisers(for: specs)
    }

    static func recognisers(for specs: [GestureSpec]) -> [Recogniser] {
        let links = RecogniserLinks.links(for: specs)
        return specs.indices.map { Recogniser(spec: specs[$0], index: $0, links: links[$0]) }
    }

    /// Nothing down and nothing waiting: the view's state can go. Cost: one read per recogniser
    /// once no touch is down.
    var isIdle: Bool {
        guard touches.isEmpty else { return false }
        for index in recognisers.indices where !recognisers[index].isIdleOrEnded { return false }
        return true
    }

    /// The earliest deadline of any recogniser, noted after each change. Cost: one read per recogniser.
    private mutating func noteNextDeadline() {
        var earliest: UInt64?
        // The stored fields, not `deadlineMicros`: calling a computed property on an element copied
        // the recogniser first (see `Recogniser.ruleDeadlineMicros`).
        for index in recognisers.indices where recognisers[index].state == .possible && !recognisers[index].pending {
            if let deadline = recognisers[index].ruleDeadlineMicros, deadline < earliest ?? .max {
                earliest = deadline
            }
        }
        nextDeadlineMicros = earliest
    }

    /// Keeps a touch's device for the message a deadline builds; a device no touch down uses any
    /// more leaves when a new one comes. Cost: devices × touches, a handful.
    private mutating func noteDevice(_ device: InputDevice) {
        if let index = devices.firstIndex(where: { $0.id == device.id }) {
            if devices[index].name != device.name { devices[index] = device }
            return
        }
        devices.removeAll { known in !touches.contains { $0.isDown && $0.touch.deviceID == known.id } }
        devices.append(device)
    }

    /// The device of a touch of the view.
    private func device(_ id: UInt32) -> InputDevice {
        devices.first { $0.id == id } ?? InputDevice(id: id, name: "")
    }

    /// One tracker message of this view: its touches noted, every recogniser that has not ended
    /// and is not waiting looks at them, in list order; then the view's raw message, minus what
    /// gestures took, and the gesture events go into `output`. Cost: recognisers × touches of the
    /// view × the touches each follows.
    mutating func step(_ message: ViewTouches, scale: PhysicalScale, into output: inout GestureOutput) {
        if screen != message.screen { screen = message.screen }
        let now = message.timestampMicros
        if touches.isEmpty {
            // A new sequence of touches: the recognisers that ended in the last one start over.
            for index in recognisers.indices where recognisers[index].state.isTerminal {
                recognisers[index].startOver()
            }
        }
        for routed in message.touches {
            if let position = touches.firstIndex(where: { $0.id == routed.id }) {
                touches[position].update(routed)
            } else if routed.phase == .began {
                noteDevice(routed.device)
                touches.append(GestureTouch(routed))
                claimIfJoiningActivePan(touches.count - 1)
            }
        }
        for index in recognisers.indices where !recognisers[index].state.isTerminal && !recognisers[index].pending {
            let request = recognisers[index].observe(touches, scale, now: now)
            apply(request, to: index, now: now, into: &output)
        }
        appendRaw(message, into: &output)
        touches.removeAll { !$0.isDown }
        noteNextDeadline()
    }

    /// Fires every deadline up to `now`, earliest first (the first recogniser of equal ones),
    /// each at its own time. Cost: recognisers per deadline fired.
    mutating func fireDeadlines(upTo now: UInt64, into output: inout GestureOutput) {
        while let deadline = nextDeadlineMicros, deadline <= now,
            let index = recognisers.firstIndex(where: { $0.deadlineMicros == deadline })
        {
            let claimedBefore = claimedCount
            let request = recognisers[index].deadlinePassed(touches)
            apply(request, to: index, now: deadline, into: &output)
            // A long press that began took its touches.
            if claimedCount != claimedBefore {
                appendClaimedCancellations(timestampMicros: deadline, into: &output)
            }
            noteNextDeadline()
        }
    }

    /// How many of the view's touches a gesture took.
    private var claimedCount: Int { touches.reduce(0) { $0 + ($1.claimed ? 1 : 0) } }

    /// New recognisers (a reload changed the view's gestures): they sit out the touches already
    /// down and start with the next sequence.
    mutating func adopt(_ specs: [GestureSpec]) {
        recognisers = Self.recognisers(for: specs)
        if !touches.isEmpty {
            for index in recognisers.indices { recognisers[index].state = .failed }
        }
        noteNextDeadline()
    }

    // MARK: - Raw touches

    /// The tracker's message of this view minus what gestures took: a taken touch is delivered
    /// once more as `cancelled` (reason `gesture`), then never again. Nothing when nothing is left.
    private mutating func appendRaw(_ message: ViewTouches, into output: inout GestureOutput) {
        guard touches.contains(where: \.claimed) else { return output.touches.append(message) }
        var filtered = message
        filtered.touches = []
        for routed in message.touches {
            guard let position = touches.firstIndex(where: { $0.id == routed.id }), touches[position].claimed
            else {
                filtered.touches.append(routed)
                continue
            }
            guard !touches[position].cancellationSent else { continue }
            touches[position].cancellationSent = true
            var cancelled = routed
            cancelled.phase = .cancelled
            cancelled.cancelReason = .gesture
            filtered.touches.append(cancelled)
        }
        if !filtered.touches.isEmpty { output.touches.append(filtered) }
    }

    /// A deadline made a gesture take touches (a long press began): their `cancelled` (reason
    /// `gesture`), with the view's other live touches as `stationary`, in one message.
    private mutating func appendClaimedCancellations(timestampMicros: UInt64, into output: inout GestureOutput) {
        var message = ViewTouches(viewID: viewID, screen: screen, timestampMicros: timestampMicros, touches: [])
        for position in touches.indices where touches[position].isDown {
            var routed = touches[position].touch.routed(device: device(touches[position].touch.deviceID))
            if touches[position].claimed {
                guard !touches[position].cancellationSent else { continue }
                touches[position].cancellationSent = true
                routed.phase = .cancelled
                routed.cancelReason = .gesture
                routed.timestampMicros = timestampMicros
            } else {
                routed.phase = .stationary
            }
            routed.previousLocalPoint = routed.localPoint
            message.touches.append(routed)
        }
        if message.touches.contains(where: { $0.phase == .cancelled }) { output.touches.append(message) }
    }
}
