import TouchRouterCore

/// A scripted gesture error: which gesture text and what is wrong with it.
public struct GestureScriptError: Error, Equatable, CustomStringConvertible {
    public var gesture: String
    public var reason: String
    public var description: String { "gesture \"\(gesture)\": \(reason)" }
}

/// Small scripted gestures, turned into the raw multitouch events a touchscreen would send: protocol
/// B (slots and tracking ids) when the device has ABS_MT_SLOT, protocol A (every finger in every
/// frame, each closed by SYN_MT_REPORT; a lone SYN_MT_REPORT when the last lifts) when it has not.
///
/// Grammar of one script: gestures separated by `;`, played one after another:
/// - `tap X Y` — one finger down and up (60 ms).
/// - `drag X1 Y1 X2 Y2 [MS]` — one finger moved in a straight line (default 300 ms).
/// - `pinch CX CY R1 R2 [MS]` — two fingers on a horizontal line through (CX, CY), at distance R1
///   from the centre, moving to R2 (default 300 ms).
/// - `hold X Y MS` — one finger down for MS, then up.
/// - `wait MS` — nothing for MS.
/// Several scripts given together play at the same time, each with its own slots (several
/// fingers at once). Coordinates are in layout units of a screen of `screenSize` when one is
/// given, otherwise in the device's axis units.
public enum GestureScript {
    /// Motion samples are this far apart.
    public static let stepMicros: UInt64 = 10_000

    /// One finger's life: positions at times, then up at `upMicros`.
    struct FingerTrack {
        var slot: Int32
        var samples: [(timeMicros: UInt64, point: Point)]
        var upMicros: UInt64
    }

    /// Builds the evdev events for `scripts` played at once on a device described by `spec`.
    public static func events(
        scripts: [String], spec: VirtualDeviceSpec, screenSize: (width: Double, height: Double)? = nil
    ) throws(GestureScriptError) -> [EvdevEvent] {
        guard let xAxis = spec.axis(EvdevCode.absMtPositionX),
            let yAxis = spec.axis(EvdevCode.absMtPositionY)
        else {
            throw GestureScriptError(
                gesture: scripts.joined(separator: " | "), reason: "the device has no MT axes")
        }
        let isProtocolA = spec.axis(EvdevCode.absMtSlot) == nil
        let slotCount =
            isProtocolA ? Int32.max : Int32((spec.axis(EvdevCode.absMtSlot)?.maximum ?? 0) + 1)
        var tracks: [FingerTrack] = []
        var firstSlot: Int32 = 0
        for script in scripts {
            let (scriptTracks, slotsUsed) = try parse(script, firstSlot: firstSlot)
            tracks += scriptTracks
            firstSlot += slotsUsed
        }
        guard firstSlot <= slotCount else {
            throw GestureScriptError(
                gesture: scripts.joined(separator: " | "),
                reason: "needs \(firstSlot) fingers at once, the device has \(slotCount) slots")
        }
        func axisValue(_ value: Double, _ axis: AbsoluteAxis, _ size: Double?) -> Int32 {
            let range = Double(axis.maximum) - Double(axis.minimum) + 1
            let scaled = size.map { value / $0 * range } ?? value
            return Int32(
                min(max(Double(axis.minimum) + scaled.rounded(), Double(axis.minimum)), Double(axis.maximum)))
        }
        // Every change at a time, as (slot, point or nil for up).
        var changesByTime: [UInt64: [(slot: Int32, point: Point?)]] = [:]
        for track in tracks {
            for sample in track.samples {
                changesByTime[sample.timeMicros, default: []].append((track.slot, sample.point))
            }
            changesByTime[track.upMicros, default: []].append((track.slot, nil))
        }
        if isProtocolA {
            return protocolAEvents(changesByTime, spec: spec) { point, axis, isX in
                axisValue(isX ? point.x : point.y, axis, isX ? screenSize?.width : screenSize?.height)
            }
        }
        var events: [EvdevEvent] = []
        var activeTrackingIDs: [Int32: Int32] = [:]
        var nextTrackingID: Int32 = 1
        var currentSlot: Int32 = -1
        for time in changesByTime.keys.sorted() {
            let wasTouching = !activeTrackingIDs.isEmpty
            func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
                events.append(EvdevEvent(timestampMicros: time, type: type, code: code, value: value))
            }
            for change in changesByTime[time]!.sorted(by: { $0.slot < $1.slot }) {
                if change.slot != currentSlot {
                    emit(EvdevCode.evAbs, EvdevCode.absMtSlot, change.slot)
                    currentSlot = change.slot
                }
                guard let point = change.point else {
                    emit(EvdevCode.evAbs, EvdevCode.absMtTrackingId, -1)
                    activeTrackingIDs[change.slot] = nil
                    continue
                }
                if activeTrackingIDs[change.slot] == nil {
                    activeTrackingIDs[change.slot] = nextTrackingID
                    emit(EvdevCode.evAbs, EvdevCode.absMtTrackingId, nextTrackingID)
                    nextTrackingID = nextTrackingID % 65535 + 1
                }
                emit(
                    EvdevCode.evAbs, EvdevCode.absMtPositionX,
                    axisValue(point.x, xAxis, screenSize?.width))
                emit(
                    EvdevCode.evAbs, EvdevCode.absMtPositionY,
                    axisValue(point.y, yAxis, screenSize?.height))
                // Single-touch emulation follows the lowest slot, as the kernel's helpers do.
                if change.slot == activeTrackingIDs.keys.min(), let x = spec.axis(EvdevCode.absX),
                    let y = spec.axis(EvdevCode.absY)
                {
                    emit(EvdevCode.evAbs, EvdevCode.absX, axisValue(point.x, x, screenSize?.width))
                    emit(EvdevCode.evAbs, EvdevCode.absY, axisValue(point.y, y, screenSize?.height))
                }
            }
            if wasTouching != !activeTrackingIDs.isEmpty {
                emit(EvdevCode.evKey, EvdevCode.btnTouch, activeTrackingIDs.isEmpty ? 0 : 1)
            }
            emit(EvdevCode.evSyn, EvdevCode.synReport, 0)
        }
        return events
    }

    /// Protocol A: at each time, every finger down (by finger number) with its position and
    /// SYN_MT_REPORT, or a lone SYN_MT_REPORT once none is; BTN_TOUCH when that changes; the lowest
    /// finger as ABS_X/ABS_Y; SYN_REPORT.
    private static func protocolAEvents(
        _ changesByTime: [UInt64: [(slot: Int32, point: Point?)]], spec: VirtualDeviceSpec,
        axisValue: (Point, AbsoluteAxis, Bool) -> Int32
    ) -> [EvdevEvent] {
        let xAxis = spec.axis(EvdevCode.absMtPositionX)!
        let yAxis = spec.axis(EvdevCode.absMtPositionY)!
        var events: [EvdevEvent] = []
        var down: [Int32: Point] = [:]
        for time in changesByTime.keys.sorted() {
            let wasTouching = !down.isEmpty
            for change in changesByTime[time]! { down[change.slot] = change.point }
            func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
                events.append(EvdevEvent(timestampMicros: time, type: type, code: code, value: value))
            }
            let fingers = down.sorted { $0.key < $1.key }
            for (_, point) in fingers {
                emit(EvdevCode.evAbs, EvdevCode.absMtPositionX, axisValue(point, xAxis, true))
                emit(EvdevCode.evAbs, EvdevCode.absMtPositionY, axisValue(point, yAxis, false))
                emit(EvdevCode.evSyn, EvdevCode.synMtReport, 0)
            }
            if fingers.isEmpty { emit(EvdevCode.evSyn, EvdevCode.synMtReport, 0) }
            if wasTouching != !fingers.isEmpty {
                emit(EvdevCode.evKey, EvdevCode.btnTouch, fingers.isEmpty ? 0 : 1)
            }
            if let (_, point) = fingers.first, let x = spec.axis(EvdevCode.absX),
                let y = spec.axis(EvdevCode.absY)
            {
                emit(EvdevCode.evAbs, EvdevCode.absX, axisValue(point, x, true))
                emit(EvdevCode.evAbs, EvdevCode.absY, axisValue(point, y, false))
            }
            emit(EvdevCode.evSyn, EvdevCode.synReport, 0)
        }
        return events
    }

    /// Parses one `;`-separated script into finger tracks starting at time 0 on slots from
    /// `firstSlot`; returns the tracks and how many slots the script needs.
    static func parse(_ script: String, firstSlot: Int32) throws(GestureScriptError) -> ([FingerTrack], Int32) {
        var tracks: [FingerTrack] = []
        var startMicros: UInt64 = 0
        var slotsUsed: Int32 = 0
        for gesture in script.split(separator: ";").map({ $0.trimmingWhitespace() }) where !gesture.isEmpty {
            let words = gesture.split(separator: " ", omittingEmptySubsequences: true)
            var numbers: [Double] = []
            for word in words.dropFirst() {
                guard let number = Double(word), number.isFinite else {
                    throw GestureScriptError(gesture: gesture, reason: "\"\(word)\" is not a number")
                }
                numbers.append(number)
            }
            func require(_ counts: ClosedRange<Int>, _ usage: String) throws(GestureScriptError) {
                guard counts.contains(numbers.count) else {
                    throw GestureScriptError(gesture: gesture, reason: "usage: \(usage)")
                }
            }
            func micros(_ index: Int, default defaultMillis: Double) throws(GestureScriptError) -> UInt64 {
                let millis = index < numbers.count ? numbers[index] : defaultMillis
                guard millis >= 0, millis < 3_600_000 else {
                    throw GestureScriptError(
                        gesture: gesture, reason: "duration \(millis) ms is out of range")
                }
                return UInt64(millis * 1000)
            }
            func line(_ from: Point, _ to: Point, slot: Int32, duration: UInt64) -> FingerTrack {
                let steps = max(1, duration / stepMicros)
                var samples: [(UInt64, Point)] = []
                for step in 0...steps {
                    let t = Double(step) / Double(steps)
                    samples.append(
                        (
                            startMicros + step * duration / steps,
                            Point(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t)
                        ))
                }
                return FingerTrack(
                    slot: slot, samples: samples, upMicros: startMicros + duration + stepMicros)
            }
            var duration: UInt64
            switch words.first.map(String.init) {
            case "tap":
                try require(2...2, "tap X Y")
                duration = 60_000
                let point = Point(numbers[0], numbers[1])
                tracks.append(
                    FingerTrack(
                        slot: firstSlot, samples: [(startMicros, point)], upMicros: startMicros + duration))
                slotsUsed = max(slotsUsed, 1)
            case "hold":
                try require(3...3, "hold X Y MS")
                duration = try micros(2, default: 0)
                let point = Point(numbers[0], numbers[1])
                tracks.append(
                    FingerTrack(
                        slot: firstSlot, samples: [(startMicros, point)], upMicros: startMicros + duration))
                slotsUsed = max(slotsUsed, 1)
            case "drag":
                try require(4...5, "drag X1 Y1 X2 Y2 [MS]")
                duration = try micros(4, default: 300)
                tracks.append(
                    line(
                        Point(numbers[0], numbers[1]), Point(numbers[2], numbers[3]), slot: firstSlot,
                        duration: duration))
                duration += stepMicros
                slotsUsed = max(slotsUsed, 1)
            case "pinch":
                try require(4...5, "pinch CX CY R1 R2 [MS]")
                duration = try micros(4, default: 300)
                let (cx, cy, r1, r2) = (numbers[0], numbers[1], numbers[2], numbers[3])
                tracks.append(
                    line(Point(cx - r1, cy), Point(cx - r2, cy), slot: firstSlot, duration: duration))
                tracks.append(
                    line(Point(cx + r1, cy), Point(cx + r2, cy), slot: firstSlot + 1, duration: duration))
                duration += stepMicros
                slotsUsed = max(slotsUsed, 2)
            case "wait":
                try require(1...1, "wait MS")
                duration = try micros(0, default: 0)
            default:
                throw GestureScriptError(
                    gesture: gesture, reason: "unknown gesture (tap, drag, pinch, hold, wait)")
            }
            startMicros += duration + 50_000
        }
        return (tracks, slotsUsed)
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
