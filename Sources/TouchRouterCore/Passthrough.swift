/// What the Router hands the daemon for a screen's virtual input device (passthrough,
/// docs/passthrough.md): contacts and pointer actions in the screen's layout units, already through
/// the field filters, calibration and rotation. The daemon writes them to the screen's uinput
/// devices; nothing here knows about evdev.
import TouchRouterModel

/// A contact's step on a virtual touchscreen.
public enum PassthroughPhase: String, Hashable, Sendable, BitwiseCopyable {
    /// The contact touches down (a new tracking id on its slot).
    case down
    /// The contact moved.
    case move
    /// The contact lifted: the compositor sees a normal release (a tap clicks).
    case up
    /// The contact is withdrawn (device removed, reload, its view left passthrough, shutdown, the
    /// stuck watchdog): the compositor must cancel, not click.
    case cancel
}

/// One contact of a virtual touchscreen in one frame.
public struct PassthroughContact: Hashable, Sendable {
    /// The virtual device's slot (0 ..< the screen's slot count), stable for the contact's life.
    public var slot: Int
    /// The contact's tracking id on the virtual device, new at each `down` (never reused while
    /// the daemon runs, wrapping within 0 ... Int32.max).
    public var trackingID: Int32
    public var phase: PassthroughPhase
    /// Where the contact is, in the screen's layout units.
    public var location: Point

    public init(slot: Int, trackingID: Int32, phase: PassthroughPhase, location: Point) {
        self.slot = slot
        self.trackingID = trackingID
        self.phase = phase
        self.location = location
    }
}

/// A button of a virtual pointer (pointer mode: a touch is the left button, a long press the right).
public enum PointerButton: String, Hashable, Sendable, BitwiseCopyable {
    case left
    case right
}

/// One step of a virtual pointer, in the screen's layout units.
public enum PointerAction: Hashable, Sendable {
    /// The pointer moves to a point with no button change.
    case move(Point)
    /// A button goes down at a point.
    case press(Point, PointerButton)
    /// A button goes up at a point.
    case release(Point, PointerButton)
}

/// What one input frame (or a deadline, or a reload) does to one screen's virtual devices.
public struct PassthroughFrame: Hashable, Sendable {
    /// The screen whose virtual devices this is for.
    public var screen: String
    /// The input frame's time in microseconds (on the frames' clock, like `ViewTouches`).
    public var timestampMicros: UInt64
    /// Touch mode: the contacts that changed in this frame, in slot order.
    public var contacts: [PassthroughContact]
    /// Pointer mode: the pointer's steps in this frame, in order.
    public var pointer: [PointerAction]

    public init(
        screen: String, timestampMicros: UInt64, contacts: [PassthroughContact] = [], pointer: [PointerAction] = []
    ) {
        self.screen = screen
        self.timestampMicros = timestampMicros
        self.contacts = contacts
        self.pointer = pointer
    }
}

/// A screen's passthrough counters, for `status`: counters only grow.
public struct PassthroughStatistics: Hashable, Sendable {
    /// Touches passed to the virtual touchscreen (touch mode).
    public var touchesPassed: UInt64 = 0
    /// Fingers that drove the virtual pointer (pointer mode).
    public var pointerTouches: UInt64 = 0
    /// Touch-downs in a touch-mode region that already had `maxTouches` fingers passed on: not
    /// passed on.
    public var droppedOverMaxTouches: UInt64 = 0
    /// Touch-downs with all of the screen's slots taken (several regions together): not passed on.
    public var droppedNoSlot: UInt64 = 0
    /// Fingers in a pointer region while another finger held the screen's pointer: ignored.
    public var ignoredPointerFingers: UInt64 = 0
    /// Right clicks (a pointer finger held still for `rightClickMs`).
    public var rightClicks: UInt64 = 0
    /// Contacts and pointer fingers ended by a cancel (device removed, stuck, a reload, hidden,
    /// shutdown, a slot reused).
    public var cancelled: UInt64 = 0

    /// All zero.
    public init() {}

    /// Every counter by a stable, kebab-case name, in a fixed order: what `status` prints.
    public var namedCounters: [(name: String, value: UInt64)] {
        [
            ("touches-passed", touchesPassed), ("pointer-touches", pointerTouches),
            ("dropped-over-max-touches", droppedOverMaxTouches), ("dropped-no-slot", droppedNoSlot),
            ("ignored-pointer-fingers", ignoredPointerFingers), ("right-clicks", rightClicks),
            ("cancelled", cancelled),
        ]
    }
}
