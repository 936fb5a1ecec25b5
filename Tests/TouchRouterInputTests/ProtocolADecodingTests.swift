import Foundation
import Testing
import TouchRouterCore

@testable import TouchRouterInput

/// Protocol-A devices (multitouch without slots) decoded through libmtdev, as libinput decodes them:
/// the synthetic recordings in `Fixtures/recordings/protocol-a` (made by `ProtocolAConverter` from the
/// shared slotted ones), fingers in any order, more fingers than libinput's slots, SYN_DROPPED.
@Suite("Protocol A through mtdev")
struct ProtocolADecodingTests {
    /// The slotted source recordings and the protocol-A twins made of them.
    static let sources: [(device: String, gesture: String)] = [
        ("EP0430M09", "2-finger-scroll-down"),
        ("Atmel maXTouch Touchscreen", "4-finger-drag-down"),
    ]

    static func twinDescription(_ device: String) -> String { "protocol-a/\(device) protocol-A.desc" }
    static func twinEvents(_ device: String, _ gesture: String) -> String {
        "protocol-a/\(device) protocol-A.\(gesture).events"
    }

    /// The committed fixtures are exactly what the converter makes of the shared recordings
    /// (`TOUCHROUTER_WRITE_FIXTURES=1` rewrites them).
    @Test(arguments: sources.map { [$0.device, $0.gesture] })
    func fixturesAreTheConvertersOutput(source: [String]) throws {
        let (device, gesture) = (source[0], source[1])
        let descText = try String(contentsOfFile: Fixtures.path("evemu/\(device).desc"), encoding: .utf8)
        let recording = try Recording.load(path: Fixtures.path("evemu/\(device).\(gesture).events"))
        let desc = ProtocolAConverter.descriptionText(
            sourceDescription: descText, source: "\(device).desc", name: "\(device) protocol-A")
        let events = ProtocolAConverter.eventsText(
            ProtocolAConverter.convert(recording.events), source: "\(device).\(gesture).events")
        let descPath = Fixtures.path(Self.twinDescription(device))
        let eventsPath = Fixtures.path(Self.twinEvents(device, gesture))
        if ProcessInfo.processInfo.environment["TOUCHROUTER_WRITE_FIXTURES"] == "1" {
            try desc.write(toFile: descPath, atomically: true, encoding: .utf8)
            try events.write(toFile: eventsPath, atomically: true, encoding: .utf8)
        }
        #expect(try String(contentsOfFile: descPath, encoding: .utf8) == desc)
        #expect(try String(contentsOfFile: eventsPath, encoding: .utf8) == events)
    }

    static func twin(_ device: String, _ gesture: String) throws -> Recording {
        try Recording.load(path: Fixtures.path(twinEvents(device, gesture)))
    }

    /// One contact's life in decoded frames, in the order contacts went down.
    struct Life: Equatable {
        var down: UInt64
        var end: UInt64?
        var endKind: ContactEvent.Kind?
        /// Every reported position with its time (the down's first).
        var points: [(time: UInt64, point: Point)]

        static func == (a: Life, b: Life) -> Bool {
            a.down == b.down && a.end == b.end && a.endKind == b.endKind
                && a.points.map(\.time) == b.points.map(\.time)
                && zip(a.points, b.points).allSatisfy { $0.point == $1.point }
        }
    }

    /// The contacts of decoded frames, checking on the way that they are well formed (no motion or end
    /// of a seat slot that is not down, no second down on one) and never more than `maxDown` at once.
    static func lives(_ frames: [InputFrame], maxDown: Int = 32) -> [Life] {
        var lives: [Life] = []
        var current: [Int32: Int] = [:]
        for frame in frames {
            for contact in frame.contacts {
                switch contact.kind {
                case .down:
                    #expect(current[contact.slot] == nil, "second down on seat slot \(contact.slot)")
                    current[contact.slot] = lives.count
                    lives.append(
                        Life(
                            down: frame.timestampMicros,
                            points: [(frame.timestampMicros, contact.screenPoint)]))
                case .motion:
                    guard let index = current[contact.slot] else {
                        Issue.record("motion of seat slot \(contact.slot), which is not down")
                        continue
                    }
                    lives[index].points.append((frame.timestampMicros, contact.screenPoint))
                case .up, .cancel:
                    guard let index = current.removeValue(forKey: contact.slot) else {
                        Issue.record("end of seat slot \(contact.slot), which is not down")
                        continue
                    }
                    lives[index].end = frame.timestampMicros
                    lives[index].endKind = contact.kind
                }
            }
            #expect(current.count <= maxDown)
        }
        return lives
    }

    /// The twin delivers every finger of the slotted source: the same contacts going down and up at the
    /// same times, downs at the same positions, and every reported position within libmtdev's filter
    /// (its default fuzz of range/250 lets a position lag the finger by less than two fuzz) of where the
    /// source's finger was then.
    @Test(arguments: sources.map { [$0.device, $0.gesture] })
    func twinDeliversEveryFingerOfTheSource(source: [String]) throws {
        let (device, gesture) = (source[0], source[1])
        let slotted = try Recording.load(path: Fixtures.path("evemu/\(device).\(gesture).events"))
        let twin = try Self.twin(device, gesture)
        #expect(twin.device.isProtocolA && !twin.device.isMultitouch)
        let expected = Self.lives(try MultitouchDecoderTests.decode(slotted, cancelAtEnd: false))
        let got = Self.lives(try MultitouchDecoderTests.decode(twin, cancelAtEnd: false))
        #expect(got.count == expected.count && got.count >= 2)
        let x = twin.device.xAxis!
        let y = twin.device.yAxis!
        let tolerance = Point(
            Double(2 * ((x.maximum - x.minimum) / 250)), Double(2 * ((y.maximum - y.minimum) / 250)))
        for (wanted, life) in zip(expected, got) {
            #expect(life.down == wanted.down && life.end == wanted.end && life.endKind == .up)
            #expect(life.points.first?.point == wanted.points.first?.point)
            for (time, point) in life.points {
                let fingerThen = wanted.points.last { $0.time <= time }!.point
                #expect(
                    Swift.abs(point.x - fingerThen.x) < tolerance.x
                        && Swift.abs(point.y - fingerThen.y) < tolerance.y,
                    "at \(time) µs: \(point), the finger was at \(fingerThen)")
            }
        }
        // Fingers start and lift at different times in both recordings.
        #expect(Set(got.map(\.down)).count > 1 && Set(got.map(\.end)).count > 1)
    }

    // MARK: - Generated protocol-A streams

    /// A protocol-A test device: 1000 × 1000 units, BTN_TOUCH and the ABS_X/ABS_Y emulation.
    static let device = RecordedDevice(
        name: "protocol A",
        absinfo: [
            EvdevCode.absX: AbsInfo(minimum: 0, maximum: 999),
            EvdevCode.absY: AbsInfo(minimum: 0, maximum: 999),
            EvdevCode.absMtPositionX: AbsInfo(minimum: 0, maximum: 999),
            EvdevCode.absMtPositionY: AbsInfo(minimum: 0, maximum: 999),
        ],
        properties: [EvdevCode.inputPropDirect],
        codes: [EvdevCode.evKey: [EvdevCode.btnTouch]])

    /// One frame of a protocol-A device at `time`: each finger's position and SYN_MT_REPORT in the order
    /// given (a lone SYN_MT_REPORT when there is none), BTN_TOUCH, SYN_REPORT.
    static func frame(_ fingers: [(x: Int32, y: Int32)], at time: UInt64) -> [EvdevEvent] {
        func event(_ type: UInt16, _ code: UInt16, _ value: Int32) -> EvdevEvent {
            EvdevEvent(timestampMicros: time, type: type, code: code, value: value)
        }
        var events: [EvdevEvent] = []
        for finger in fingers {
            events += [
                event(EvdevCode.evAbs, EvdevCode.absMtPositionX, finger.x),
                event(EvdevCode.evAbs, EvdevCode.absMtPositionY, finger.y),
                event(EvdevCode.evSyn, EvdevCode.synMtReport, 0),
            ]
        }
        if fingers.isEmpty { events.append(event(EvdevCode.evSyn, EvdevCode.synMtReport, 0)) }
        events.append(event(EvdevCode.evKey, EvdevCode.btnTouch, fingers.isEmpty ? 0 : 1))
        events.append(event(EvdevCode.evSyn, EvdevCode.synReport, 0))
        return events
    }

    static func decode(_ events: [EvdevEvent], device: RecordedDevice = device) throws -> [InputFrame] {
        MultitouchDecoder.decode(
            Recording(device: device, events: events), inputDevice: MultitouchDecoderTests.device,
            screen: "main", mapping: try ScreenMapping(screenWidth: 1000, screenHeight: 1000),
            cancelRemainingAtEnd: false)
    }

    /// Seeded: fingers (2–9) land, move and lift at random frames, listed in a new random order in every
    /// frame (protocol A promises no order). Each finger is one contact, down where and when it landed,
    /// up when it lifted, its positions never further from the finger than libmtdev's filter allows.
    /// A finger never lands in a frame where another lifts: protocol A carries no identities, so that is
    /// one finger jumping to libmtdev (and to libinput). Replay one seed with
    /// `TOUCHROUTER_PROTOCOL_A_SEED=<seed> swift test --filter ProtocolADecodingTests`.
    @Test func fingersInAnyOrder() throws {
        let seeds =
            ProcessInfo.processInfo.environment["TOUCHROUTER_PROTOCOL_A_SEED"].flatMap { UInt64($0) }.map {
                [$0]
            }
            ?? Array(1...40)
        for seed in seeds {
            var random = SeededRandom(seed: seed)
            let fingerCount = Int.random(in: 2...9, using: &random)
            let frameCount = 40
            struct Finger {
                var start: Int
                var end: Int
                var x: Int32
                var y: Int32
                var path: [(x: Int32, y: Int32)] = []
            }
            var fingers: [Finger] = []
            var lifts = Set<Int>()
            var lands = Set<Int>()
            for index in 0..<fingerCount {
                var start: Int
                var end: Int
                repeat {
                    start = Int.random(in: 0..<(frameCount - 2), using: &random)
                    end = Int.random(in: (start + 1)..<frameCount, using: &random)
                } while lifts.contains(start) || lands.contains(end)
                lands.insert(start)
                lifts.insert(end)
                // Columns 110 units apart, steps of at most 8: no two fingers are ever confused.
                fingers.append(
                    Finger(
                        start: start, end: end, x: Int32(60 + 110 * index),
                        y: Int32.random(in: 200...800, using: &random)))
            }
            var events: [EvdevEvent] = []
            var wasTouching = false
            for frame in 0..<frameCount {
                var listed: [(x: Int32, y: Int32)] = []
                for index in fingers.indices where fingers[index].start <= frame && frame < fingers[index].end {
                    if frame > fingers[index].start {
                        fingers[index].x += Int32.random(in: -8...8, using: &random)
                        fingers[index].y += Int32.random(in: -8...8, using: &random)
                    }
                    fingers[index].path.append((fingers[index].x, fingers[index].y))
                    listed.append((fingers[index].x, fingers[index].y))
                }
                guard !listed.isEmpty || wasTouching else { continue }
                wasTouching = !listed.isEmpty
                events += Self.frame(listed.shuffled(using: &random), at: UInt64(frame) * 10_000)
            }
            let lives = Self.lives(try Self.decode(events))
            let byStart = fingers.sorted { ($0.start, $0.x) < ($1.start, $1.x) }
            #expect(lives.count == fingers.count, "seed \(seed)")
            for life in lives {
                guard
                    let finger = byStart.first(where: {
                        UInt64($0.start) * 10_000 == life.down
                            && Point(Double($0.path[0].x), Double($0.path[0].y)) == life.points[0].point
                    })
                else {
                    Issue.record(
                        "seed \(seed): a contact down at \(life.points[0].point) is no finger's landing")
                    continue
                }
                #expect(life.end == UInt64(finger.end) * 10_000 && life.endKind == .up, "seed \(seed)")
                for (time, point) in life.points {
                    let then = finger.path[Int(time / 10_000) - finger.start]
                    // libmtdev's default fuzz here is 999 / 250 = 3: a position lags by less than 6.
                    #expect(
                        Swift.abs(point.x - Double(then.x)) < 6 && Swift.abs(point.y - Double(then.y)) < 6,
                        "seed \(seed): at \(time) µs \(point), the finger was at \(then)")
                }
            }
        }
    }

    /// The order fingers are listed in within a frame is not their identity: two fingers swapping
    /// places in the list stay the same two contacts.
    @Test func listingOrderIsNotIdentity() throws {
        let events =
            Self.frame([(100, 100), (800, 800)], at: 0) + Self.frame([(810, 790), (110, 90)], at: 10_000)
            + Self.frame([(120, 80)], at: 20_000) + Self.frame([], at: 30_000)
        let frames = try Self.decode(events)
        #expect(
            frames.map { $0.contacts.map(\.kind) } == [
                [.down, .down], [.motion, .motion], [.motion, .up], [.up],
            ])
        #expect(frames[1].contacts.map(\.slot) == [0, 1])
        #expect(frames[1].contacts.map(\.screenPoint) == [Point(110, 90), Point(810, 790)])
        #expect(
            frames[2].contacts.map(\.slot) == [0, 1] && frames[2].contacts[0].screenPoint == Point(120, 80))
        #expect(frames[3].contacts.map(\.slot) == [0])
    }

    /// More fingers than the 10 slots libinput gives a protocol-A device: libmtdev numbers them on, and
    /// every slot from 10 on lands in slot 9 (libinput logs "exceeded slot count"), whose contact goes
    /// down where the last of them is and ends when that one lifts; fingers 1–9 are unaffected. libmtdev
    /// is handed 31 fingers a frame at most (it hangs on 32).
    @Test(arguments: [11, 12, 31, 40])
    func moreFingersThanSlots(fingerCount: Int) throws {
        let start = (0..<fingerCount).map { (x: Int32(10 + 24 * $0), y: Int32(500)) }
        let moved = start.map { (x: $0.x, y: $0.y + 50) }
        var events = Self.frame(start, at: 0) + Self.frame(moved, at: 10_000)
        // The fingers lift from the last to the first, one a frame.
        for remaining in stride(from: fingerCount - 1, through: 0, by: -1) {
            events += Self.frame(
                Array(moved.prefix(remaining)), at: UInt64(fingerCount - remaining + 1) * 10_000)
        }
        let frames = try Self.decode(events)
        let lives = Self.lives(frames, maxDown: MultitouchDecoder.protocolASlotCount)
        #expect(lives.count == MultitouchDecoder.protocolASlotCount)
        #expect(frames[0].contacts.count == 10 && frames[0].contacts.allSatisfy { $0.kind == .down })
        let lastSeen = Swift.min(fingerCount, MultitouchDecoder.protocolAFingerLimit) - 1
        for (index, life) in lives.enumerated() {
            let finger = index < 9 ? index : lastSeen
            #expect(life.points.first?.point == Point(Double(start[finger].x), 500))
            #expect(life.points.last?.point == Point(Double(start[finger].x), 550))
            #expect(life.endKind == .up)
        }
        // Slot 9's contact ends when its finger (the last one libmtdev was given) lifts, fingers 1–9 with
        // their own.
        #expect(lives[9].end == UInt64(fingerCount - lastSeen + 1) * 10_000)
        #expect(lives[0].end == UInt64(fingerCount + 1) * 10_000)
    }

    /// A SYN_DROPPED in the middle of the EP0430M09 twin (both fingers down): the partial frame before it
    /// lifts nobody, the discarded rest of it ends with both contacts cancelled, and the next whole frame
    /// brings both fingers back as new contacts at their positions; they then lift as recorded.
    @Test func synDroppedInTheMiddle() throws {
        let twin = try Self.twin("EP0430M09", "2-finger-scroll-down")
        let reports = twin.events.indices.filter {
            twin.events[$0].type == EvdevCode.evSyn && twin.events[$0].code == EvdevCode.synReport
        }
        // Frame 51 (index 50): SYN_DROPPED after its first finger's SYN_MT_REPORT.
        let frameStart = reports[49] + 1
        let dropAt = frameStart + 3
        let droppedTime = twin.events[dropAt].timestampMicros
        var events = twin.events
        events.insert(
            EvdevEvent(
                timestampMicros: droppedTime, type: EvdevCode.evSyn, code: EvdevCode.synDropped, value: 0),
            at: dropAt)
        var recording = twin
        recording.events = events
        var decoder = MultitouchDecoder(
            device: twin.device, inputDevice: MultitouchDecoderTests.device, screen: "main",
            mapping: try ScreenMapping(screenWidth: 1280, screenHeight: 768))
        let frames = events.compactMap { decoder.feed($0) }
        #expect(decoder.droppedCount == 1)
        let lives = Self.lives(frames)
        #expect(lives.count == 4)
        #expect(lives[0].endKind == .cancel && lives[1].endKind == .cancel)
        #expect(lives[0].end == droppedTime && lives[1].end == droppedTime)
        let nextFrame = twin.events[reports[51]].timestampMicros
        #expect(lives[2].down == nextFrame && lives[3].down == nextFrame)
        // Back where the fingers are in that frame: its first two fingers' positions, as recorded.
        let positions = twin.events[(reports[50] + 1)..<reports[51]].filter {
            $0.type == EvdevCode.evAbs
                && ($0.code == EvdevCode.absMtPositionX || $0.code == EvdevCode.absMtPositionY)
        }.map(\.value)
        #expect(
            Set(lives[2...3].map { $0.points[0].point })
                == [
                    Point(Double(positions[0]), Double(positions[1])),
                    Point(Double(positions[2]), Double(positions[3])),
                ])
        #expect(lives[2...3].allSatisfy { $0.endKind == .up })
        let slottedEnds = Self.lives(
            try MultitouchDecoderTests.decode(
                try Recording.load(path: Fixtures.path("evemu/EP0430M09.2-finger-scroll-down.events")),
                cancelAtEnd: false)
        ).compactMap(\.end)
        #expect(Set(lives[2...3].compactMap(\.end)) == Set(slottedEnds))
    }

    /// A decoder copied in the middle of a protocol-A recording carries on independently: both copies
    /// decode the rest exactly as one decoder that was never copied.
    @Test func copiesAreIndependent() throws {
        let twin = try Self.twin("EP0430M09", "2-finger-scroll-down")
        let mapping = try ScreenMapping(screenWidth: 1280, screenHeight: 768)
        var original = MultitouchDecoder(
            device: twin.device, inputDevice: MultitouchDecoderTests.device, screen: "main", mapping: mapping)
        let half = twin.events.count / 2
        let head = twin.events[..<half].compactMap { original.feed($0) }
        var copy = original
        let originalTail = twin.events[half...].compactMap { original.feed($0) }
        let copyTail = twin.events[half...].compactMap { copy.feed($0) }
        let whole = MultitouchDecoder.decode(
            twin, inputDevice: MultitouchDecoderTests.device, screen: "main", mapping: mapping,
            cancelRemainingAtEnd: false)
        #expect(head + originalTail == whole)
        #expect(head + copyTail == whole)
    }
}
