/// A calibration session on one screen: the screen's raw contacts in, one sample per accepted press
/// out (docs/calibration.md). Pure: no I/O; times are passed in.
import TouchRouterModel

/// One accepted press: the median of its positions.
public struct CalibrationMeasurement: Hashable, Sendable {
    /// The device that pressed.
    public var device: InputDevice
    /// The median in normalized device units: 0…1 along the panel's native axes, neither the
    /// screen's calibration nor its rotation applied (what the fit takes).
    public var normalized: Point
    /// The same median in layout units, the rotation applied and the calibration not.
    public var screenPoint: Point
    /// How many positions the median is of (at most `CalibrationSession.maximumPositions`).
    public var positions: Int
}

/// What a session says about a press or about itself.
public enum CalibrationSessionEvent: Hashable, Sendable {
    /// A press was accepted (sent at its release).
    case sample(screen: String, CalibrationMeasurement)
    /// A press gave no sample.
    case refused(screen: String, CalibrationRefusalReason)
    /// The Router ended the session on its own (`timeout`, `reload`); the screen routes again.
    case ended(screen: String, CalibrationEndReason)
}

/// The press → sample logic of a calibration session. Frames come in with their contacts in layout
/// units measured WITHOUT the screen's calibration (the daemon sets libinput's matrix to the
/// rotation alone, or replays without it); the session un-rotates them into normalized units.
///
/// A press is one device's contacts from the first finger down to the last finger up. The
/// session's device is the first device of the screen to press after the start; every press of
/// another device is refused (`otherDevice`). A press during which a second finger came down is
/// refused at its end (`multipleFingers`); one beginning less than `minimumGapMicros` after the
/// previous press's release is a bounce (`tooSoon`). Otherwise its first finger's positions
/// (down and every motion, the latest `maximumPositions` of them) give the sample: the median of
/// each axis.
///
/// Cost per frame: O(contacts in the frame), plus at a press's release the median of at most
/// `maximumPositions` positions per axis (a sort of 2,000 numbers).
public struct CalibrationSession: Sendable {
    /// A press keeps at most this many positions (the latest ones): a finger resting for minutes
    /// costs no more memory or time than one resting for 20 s at 100 Hz.
    public static let maximumPositions = 2000
    /// Contacts of other devices followed at once (to refuse each of their presses once); beyond,
    /// their downs are each refused.
    public static let maximumOtherContacts = 64

    /// The screen being calibrated.
    public let screen: String
    /// The screen's layout size and rotation: what un-rotates a point into normalized units.
    public let screenWidth: Double
    public let screenHeight: Double
    public let rotation: Int
    /// A press beginning sooner than this after the previous release (input clock) is a bounce.
    public let minimumGapMicros: UInt64
    /// The session ends when no press began or ended for this long (caller's clock).
    public let timeoutMicros: UInt64
    /// The device being calibrated: nil until a device of the screen presses.
    public private(set) var device: InputDevice?
    /// Samples sent so far.
    public private(set) var sampleCount = 0
    /// The session device's millimetres per layout unit, when its frames know them (not the
    /// fallback): what a verification error in millimetres is measured with.
    public private(set) var deviceScale: PhysicalScale?
    /// When the session times out, on the caller's clock.
    public private(set) var deadlineMicros: UInt64

    private var press: Press?
    /// The input time of the latest release of the session's device.
    private var lastReleaseMicros: UInt64?
    /// Other devices' contacts down: (device id, slot).
    private var otherContacts: [(deviceID: UInt32, slot: Int32)] = []

    /// One press of the session's device.
    struct Press: Hashable, Sendable {
        /// The slot whose positions are measured (the first finger).
        var slot: Int32
        /// Slots down now.
        var slotsDown: [Int32]
        var multipleFingers = false
        var tooSoon: Bool
        var xs: [Double] = []
        var ys: [Double] = []
        /// Positions seen, kept or not (the kept ones are the latest `maximumPositions`).
        var seen = 0

        mutating func add(_ point: Point) {
            guard point.x.isFinite, point.y.isFinite else { return }
            if xs.count < CalibrationSession.maximumPositions {
                xs.append(point.x)
                ys.append(point.y)
            } else {
                xs[seen % CalibrationSession.maximumPositions] = point.x
                ys[seen % CalibrationSession.maximumPositions] = point.y
            }
            seen += 1
        }
    }

    /// A session on `screen` (`screenWidth` × `screenHeight` layout units, mounted at `rotation`)
    /// started at `nowMicros`.
    public init(
        screen: String, screenWidth: Double, screenHeight: Double, rotation: Int, minimumGapMicros: UInt64,
        timeoutMicros: UInt64, nowMicros: UInt64
    ) {
        self.screen = screen
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.rotation = rotation
        self.minimumGapMicros = minimumGapMicros
        self.timeoutMicros = timeoutMicros
        deadlineMicros = nowMicros + timeoutMicros
    }

    /// A frame of the session's screen, handled at `nowMicros`: what it says, appended to `events`.
    public mutating func take(_ frame: InputFrame, nowMicros: UInt64, into events: inout [CalibrationSessionEvent]) {
        if device == nil, frame.contacts.contains(where: { $0.kind == .down }) { device = frame.device }
        guard frame.device.id == device?.id else {
            takeOther(frame, into: &events)
            return
        }
        if frame.physicalScale.source != .fallback { deviceScale = frame.physicalScale }
        for contact in frame.contacts {
            switch contact.kind {
            case .down:
                if press == nil {
                    let bounce = lastReleaseMicros.map { frame.timestampMicros < $0 + minimumGapMicros } ?? false
                    press = Press(slot: contact.slot, slotsDown: [contact.slot], tooSoon: bounce)
                    deadlineMicros = nowMicros + timeoutMicros
                } else if press!.slotsDown.count < Self.maximumOtherContacts {
                    press!.multipleFingers = true
                    press!.slotsDown.append(contact.slot)
                }
                if contact.slot == press!.slot { press!.add(contact.screenPoint) }
            case .motion:
                if contact.slot == press?.slot { press!.add(contact.screenPoint) }
            case .up, .cancel:
                guard var current = press, let index = current.slotsDown.firstIndex(of: contact.slot) else { continue }
                current.slotsDown.remove(at: index)
                press = current
                guard current.slotsDown.isEmpty else { continue }
                press = nil
                lastReleaseMicros = frame.timestampMicros
                deadlineMicros = nowMicros + timeoutMicros
                if let event = end(current, cancelled: contact.kind == .cancel) { events.append(event) }
            }
        }
    }

    /// The device went away: its press, if any, gives nothing; the next device to press becomes
    /// the session's.
    public mutating func deviceRemoved(_ removed: InputDevice) {
        otherContacts.removeAll { $0.deviceID == removed.id }
        guard removed.id == device?.id else { return }
        press = nil
        device = nil
    }

    /// A press ended: its sample or refusal; nothing for one libinput cancelled (a palm, the
    /// kernel gave the contact up), which measured nothing a person did on purpose.
    /// (A cancelled press gives nothing even when it came too soon or with two fingers: its
    /// refusal would ask the person to do again what they did not mean to do.)
    private mutating func end(_ press: Press, cancelled: Bool) -> CalibrationSessionEvent? {
        guard !cancelled else { return nil }
        if press.tooSoon { return .refused(screen: screen, .tooSoon) }
        if press.multipleFingers { return .refused(screen: screen, .multipleFingers) }
        guard !press.xs.isEmpty, let device else { return nil }
        let median = Point(Self.median(press.xs), Self.median(press.ys))
        sampleCount += 1
        return .sample(
            screen: screen,
            CalibrationMeasurement(
                device: device, normalized: normalized(median), screenPoint: median, positions: press.xs.count))
    }

    /// Another device's frame: each of its presses is refused once, when its first finger comes down.
    private mutating func takeOther(_ frame: InputFrame, into events: inout [CalibrationSessionEvent]) {
        for contact in frame.contacts {
            switch contact.kind {
            case .down:
                let pressing = otherContacts.contains { $0.deviceID == frame.device.id }
                if otherContacts.count < Self.maximumOtherContacts {
                    otherContacts.append((frame.device.id, contact.slot))
                }
                if !pressing { events.append(.refused(screen: screen, .otherDevice)) }
            case .up, .cancel:
                otherContacts.removeAll { $0.deviceID == frame.device.id && $0.slot == contact.slot }
            case .motion:
                break
            }
        }
    }

    /// A layout point (rotation applied) in normalized device units (rotation undone).
    public func normalized(_ screenPoint: Point) -> Point {
        let unrotate = ScreenMapping.rotationMatrix((360 - rotation) % 360)
        let x = screenPoint.x / screenWidth
        let y = screenPoint.y / screenHeight
        return Point(
            unrotate[0] * x + unrotate[1] * y + unrotate[2], unrotate[3] * x + unrotate[4] * y + unrotate[5])
    }

    /// The median (the mean of the two middle values for an even count). Not empty.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
