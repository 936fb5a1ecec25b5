import Testing

@testable import TouchRouterInput

/// Every malformed recording fails with a RecordingError naming the file and the offending line.
@Suite("Malformed recordings")
struct MalformedRecordingTests {
    /// evemu text, the line the error must name (0: the file as a whole), a word the message must contain.
    @Test(arguments: [
        ("N: X\nA: 35 0 99 0\n", 2, "fields"),
        ("N: X\nE: 0.100000 0003 0035\n", 2, "fields"),
        ("E: abc 0003 0035 1", 1, "timestamp"),
        ("E: 1.0000001 0003 0035 1", 1, "timestamp"),
        ("E: 1.000000 00g3 0035 1", 1, "type"),
        ("E: 1.000000 0003 zz 1", 1, "code"),
        ("E: 1.000000 0003 0035 0x1", 1, "value"),
        ("# header\nN: X\nQ: foo", 3, "tag"),
        ("garbage", 1, "tag"),
        ("E: 2.000000 0000 0000 0000\nE: 1.000000 0000 0000 0000", 2, "backwards"),
        ("N: X\nA: 35 10 5 0 0 0", 2, "minimum"),
        ("N: X\nA: 99 0 5 0 0 0", 2, "ABS code"),
        ("N: a\n\nN: b", 3, "second"),
        ("N: X\nP: zz", 2, "hex"),
        ("N: X\nI: 0018 0000 0000", 2, "I:"),
        ("N: X\nB: 01 00 0g", 2, "B:"),
        ("N:  \n", 1, "empty"),
        ("A: 35 0 99 0 0 0", 0, "name"),
    ])
    func evemu(text: String, line: Int, word: String) {
        expectError(file: "bad.events", line: line, word: word, text.debugDescription) { () throws(RecordingError) in
            _ = try EvemuReader.parse(text, file: "bad.events")
        }
    }

    static let validYAML = """
        # libinput record
        version: 1
        ndevices: 1
        devices:
        - node: /dev/input/event4
          evdev:
            name: "Panel"
            absinfo:
              47: [0, 9, 0, 0, 0]
              53: [0, 799, 0, 0, 0]
              54: [0, 479, 0, 0, 0]
            properties: [1]
          events:
          - evdev:
            - [  0,      0,   3,  57,       7] # EV_ABS / ABS_MT_TRACKING_ID        7
            - [  0,      0,   0,   0,       0] # ------------ SYN_REPORT (0) ---------- +0ms
        """

    @Test func validYAMLParses() throws {
        let recordings = try LibinputRecordReader.parse(Self.validYAML, file: "ok.yml")
        #expect(recordings.count == 1 && recordings[0].events.count == 2)
        #expect(recordings[0].device.slotCount == 10)
    }

    /// A line of the valid YAML replaced (1-based line number, new text), the line the error must name, a
    /// word the message must contain.
    @Test(arguments: [
        (2, "version: 2", 2, "version"),
        (2, "versions: 1", 1, "version"),
        (16, "    - [  0,      0,   3,  57]", 16, "5 numbers"),
        (16, "    - [  0,      0,   3,  57,  x]", 16, "integer"),
        (16, "    - [  0, 1000000,   3,  57,  7]", 16, "microseconds"),
        (16, "    - [  0,      0,   3,  57,  7", 16, "flow sequence"),
        (16, "      - [  0,      0,   3,  57,  7]", 16, "expected key"),
        (10, "      53: [0, 799, 0, 0]", 10, "5 numbers"),
        (10, "      53: [0, 799, 0, 0, 0, 0]", 10, "5 numbers"),
        (10, "      99: [0, 799, 0, 0, 0]", 10, "ABS code"),
        (10, "      53: [800, 799, 0, 0, 0]", 10, "minimum"),
        // YAML reads `name "Panel"` as a plain scalar running on to line 8, whose `:` is the error.
        (7, "    name \"Panel\"", 8, "mapping values"),
        (7, "    name: \"Panel", 7, "end of stream"),
        (7, "    name: \"Pa\\qnel\"", 7, "escape"),
        (7, "\tname: \"Panel\"", 7, "tab"),
        (12, "    properties: 1", 12, "list"),
        (12, "    properties: [1]\n    id: [24, 0, 0]", 13, "4 numbers"),
        (12, "    properties: [1]\n    codes:\n      40: [1]", 14, "event type"),
        (12, "    properties: [1]\n    codes:\n      1: [330, 99999]", 14, "event code"),
        (3, "ndevices: 1\nndevices: 1", 4, "duplicate"),
        (16, "  - evdev: 3", 16, "list"),
        (16, "  - [1, 2]", 16, "events item"),
        (16, "  - evdev:\n    - [0, 0, 0, 0, 0]\n  - libinput:\n    - {type: TOUCH_UP}", 19, "time"),
        (
            16,
            "  - evdev:\n    - [0, 0, 0, 0, 0]\n  - libinput:\n    - {time: 1.5, type: TOUCH_UP, slot: x}",
            19,
            "slot"
        ),
        (4, "devices: []", 5, "expected key"),
    ])
    func libinputRecord(lineNumber: Int, replacement: String, errorLine: Int, word: String) {
        var lines = Self.validYAML.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[lineNumber - 1] = replacement
        let text = lines.joined(separator: "\n")
        let input = "line \(lineNumber) replaced by \(replacement.debugDescription)"
        expectError(file: "bad.yml", line: errorLine, word: word, input) { () throws(RecordingError) in
            _ = try LibinputRecordReader.parse(text, file: "bad.yml")
        }
    }

    /// What libyaml reads but a recording must not hold, and libyaml's own errors at their lines: the
    /// whole text, the line the error must name, a word the message must contain.
    @Test(arguments: [
        ("version: 1\ndevices: &d\n- node: x\nother: *d\n", 4, "alias"),
        ("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n", 2, "alias"),
        (
            "version: 1\ndevices: " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100), 2,
            "nested"
        ),
        ("version: 1\n---\nversion: 1\n", 2, "second YAML document"),
        ("version: 1\n? [a]\n: 1\n", 2, "key must be a scalar"),
        ("version: 1\ndevices:\u{1}\n", 2, "control characters"),
        ("version: 1\n\tdevices: []\n", 2, "column 1"),
        ("# nothing here\n", 1, "empty"),
        ("", 1, "empty"),
    ])
    func libinputRecordYAML(text: String, line: Int, word: String) {
        expectError(file: "bad.yml", line: line, word: word, text.debugDescription) { () throws(RecordingError) in
            _ = try LibinputRecordReader.parse(text, file: "bad.yml")
        }
    }

    /// A recording nests at most 64 levels (the document's mapping is the first): 64 pass the
    /// depth check (the reader then refuses the devices for what they are), 65 do not.
    @Test(arguments: [(63, false), (64, true)])
    func nestingLimit(brackets: Int, tooDeep: Bool) {
        let text =
            "version: 1\ndevices: " + String(repeating: "[", count: brackets) + String(repeating: "]", count: brackets)
        do {
            _ = try LibinputRecordReader.parse(text, file: "deep.yml")
            Issue.record("a recording without devices was read")
        } catch {
            #expect(error.message.contains("nested deeper than 64 levels") == tooDeep, "\(error)")
        }
    }

    /// `parse` fails with a RecordingError naming `file` and `line` (0: the file as a whole), whose
    /// message contains `word` and whose description starts `file:line: `; `input` says what was read.
    func expectError(
        file: String, line: Int, word: String, _ input: String,
        _ parse: () throws(RecordingError) -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            try parse()
            Issue.record("parsed without error: \(input)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.file == file, sourceLocation: sourceLocation)
            #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(word), "\(error)", sourceLocation: sourceLocation)
            #expect(
                error.description.hasPrefix(line > 0 ? "\(file):\(line): " : "\(file): "),
                sourceLocation: sourceLocation)
        }
    }

    @Test func unreadableAndUnknownFiles() {
        #expect(throws: RecordingError.self) { try Recording.load(path: "/nonexistent/x.yml") }
        do {
            _ = try Recording.load(path: Fixtures.path("README.md"))
            Issue.record("README.md loaded as a recording")
        } catch {
            #expect(error.message.contains("unknown recording type"))
        }
    }
}
