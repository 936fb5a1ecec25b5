import TouchRouterCore

/// What both recording targets check on what a reader gave: every recording decodes (the fuzzed
/// axes, slots and events through `MultitouchDecoder`, libmtdev for protocol A) and schedules into
/// well-formed frames, and a refusal is a located, excerpted error.
enum FuzzRecording {
    static let mapping = try! ScreenMapping(screenWidth: 1280, screenHeight: 768)

    /// Decodes and schedules `recording`, checking that frames never go back in time, stay within
    /// the decoder's bound, and carry contacts with a life: down, motions, one up or cancel, each
    /// on a seat slot 0…31 and at a finite point, nothing left down after the final cancel.
    static func decode(_ recording: Recording) {
        let frames = MultitouchDecoder.decode(
            recording, inputDevice: InputDevice(id: 1, name: recording.device.name), screen: "main",
            mapping: mapping)
        var down = Set<Int32>()
        var lastTime: UInt64 = 0
        for frame in frames {
            precondition(frame.timestampMicros >= lastTime, "a frame went back in time")
            lastTime = frame.timestampMicros
            precondition(
                frame.contacts.count <= MultitouchDecoder.unframedContactLimit + 200, "a frame too large")
            for contact in frame.contacts {
                precondition((0..<32).contains(contact.slot), "a seat slot out of range")
                switch contact.kind {
                case .down:
                    precondition(down.insert(contact.slot).inserted, "a second down on a seat slot")
                case .motion:
                    precondition(down.contains(contact.slot), "a motion without a down")
                case .up, .cancel:
                    precondition(down.remove(contact.slot) != nil, "an end without a down")
                }
                if contact.kind == .down || contact.kind == .motion {
                    precondition(
                        contact.screenPoint.x.isFinite && contact.screenPoint.y.isFinite, "a point not finite")
                }
            }
        }
        precondition(down.isEmpty, "a contact left down after the final cancel")
        var schedule = try! ReplaySchedule(frames: frames, speed: 1)
        var lastDue: UInt64 = 0
        while let entry = schedule.next() {
            precondition(entry.dueOffsetMicros >= lastDue, "the schedule went back in time")
            lastDue = entry.dueOffsetMicros
        }
    }

    /// A refusal names a line of the text (0: the whole file) and quotes at most an excerpt.
    static func check(_ error: RecordingError, text: String) {
        precondition(!error.message.isEmpty, "an error without a message")
        precondition(error.message.unicodeScalars.count <= 400, "a message too long: \(error.message.prefix(200))")
        // Lines as an editor counts them: a last line without a newline counts, an empty one after it does not.
        let newlines = text.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let lines = max(1, newlines + (text.utf8.last == UInt8(ascii: "\n") ? 0 : 1))
        precondition((0...lines).contains(error.line), "an error at line \(error.line) of \(lines)")
    }

    /// The bytes as text, as `Recording.load` reads a file; nil when they are not UTF-8.
    static func text(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> String? {
        String(validating: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
