import Testing
import TouchRouterCore

@testable import TouchRouterProtocol

/// A `mount` line in two halves (the loop's header, the worker's decode) answers exactly as the
/// whole line decoded at once: same request, or the same error with the same code, message and seq.
@Suite("Mount lines read in two halves")
struct MountLineTests {
    /// What the daemon ends up answering for a line: the one-step decode, or the two halves when the
    /// header finds the line.
    enum Outcome: Equatable {
        case mount(view: String, children: JSONValue, seq: Int64?)
        case error(ProtocolError)
        case other
    }

    static func whole(_ line: [UInt8]) -> Outcome {
        switch RequestDecoder.decode(line: line) {
        case .request(let request):
            guard case .mount(let view, let children) = request.message else { return .other }
            return .mount(view: view, children: children, seq: request.seq)
        case .error(let error): return .error(error)
        case .emptyLine: return .other
        }
    }

    static func halves(_ line: [UInt8], _ header: MountLineHeader) -> Outcome {
        switch MountRequest.decode(line: line) {
        case .success(let mount):
            #expect(mount.view == header.view && mount.seq == header.seq)
            return .mount(view: mount.view, children: JSONValue(mount.children), seq: mount.seq)
        case .failure(let error): return .error(error)
        }
    }

    /// Lines the header takes: the worker's answer must be the whole decode's.
    static let taken: [String] = [
        #"{"type":"mount","view":"layer","children":[{"id":"x","frame":[0,0,1,1]}],"seq":6}"#,
        #"{"children":[{"id":"}]\"{","frame":[0,0,1,1]}],"seq":0,"view":"layer","type":"mount"}"#,
        " { \"type\" : \"mount\" , \"view\" : \"l\\u00e9\" , \"children\" : [ ] } \r",
        #"{"type":"mount","view":"layer","children":{},"seq":9007199254740991}"#,
        #"{"type":"mount","view":"layer","children":5,"extra":[1,{"a":[]}],"seq":null}"#,
        // Malformed inside the subtree: the worker finds it, with the line's seq.
        #"{"type":"mount","view":"layer","children":[{"id":"x",,}],"seq":7}"#,
        #"{"type":"mount","view":"layer","children":[{"id":"x","id":"y"}],"seq":8}"#,
        #"{"type":"mount","view":"layer","children":[{"id":"x","frame":[0,0,1e999,1]}],"seq":9}"#,
        #"{"type":"mount","view":"layer","children":[{"id":"x","frame":[0,0,01,1]}],"seq":10}"#,
        #"{"type":"mount","view":"layer","children":[{"id":'x'}],"seq":11}"#,
        #"{"type":"mount","view":"layer","children":["a\tb"],"seq":12}"#,
        #"{"type":"mount","view":"layer","children":[tru],"seq":13}"#,
        #"{"type":"mount","view":"layer","seq":14,"children":[1 2]}"#,
    ]

    @Test("a mount line the header takes gets the whole decode's answer from the worker's half", arguments: taken)
    func sameAnswer(text: String) throws {
        let line = Array(text.utf8)
        let header = try #require(MountLineHeader.find(in: line), "not taken: \(text)")
        #expect(Self.halves(line, header) == Self.whole(line))
    }

    /// Lines the header leaves to the whole decode on the loop (not a mount, or not plainly one).
    static let left: [String] = [
        #"{"type":"status","seq":1}"#,
        #"{"type":"mount","type":"mount","view":"layer","children":[]}"#,
        #"{"ty\u0070e":"mount","view":"layer","children":[]}"#,
        #"{"type":"mount","view":"layer","children":null,"seq":1}"#,
        #"{"type":"mount","view":"layer","seq":1}"#,
        #"{"type":"mount","view":5,"children":[]}"#,
        #"{"type":"mount","view":"layer","children":[],"seq":-1}"#,
        #"{"type":"mount","view":"layer","children":[],"seq":1.5}"#,
        #"{"type":"mount","view":"layer","children":[]} x"#,
        #"{"type":"mount","view":"layer","children":[]"#,
        #"{"type":"mount","view":"layer","children":["unterminated]}"#,
        #"["type","mount"]"#,
        "   ",
        "",
    ]

    @Test("other lines are left to the whole decode", arguments: left)
    func leftAlone(text: String) {
        #expect(MountLineHeader.find(in: Array(text.utf8)) == nil)
    }

    @Test("random cuts and byte changes of a mount line: whenever the header takes one, the answers agree")
    func mutatedLines() {
        let base = Array(
            #"{"type":"mount","view":"layer","children":[{"id":"a\"b","frame":[0,0,1,1],"children":[{"id":"c"}]}],"seq":3}"#
                .utf8)
        let alphabet = Array(#"{}[]",:\ 0aé"#.utf8) + [0xFF, 0x09]
        var random = SeededRandom(seed: 10)
        var taken = 0
        for _ in 0..<3000 {
            var line = base
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<line.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: line[index] = alphabet.randomElement(using: &random)!
                case 1: line.remove(at: index)
                default: line.insert(alphabet.randomElement(using: &random)!, at: index)
                }
                if line.isEmpty { line = base }
            }
            guard let header = MountLineHeader.find(in: line) else { continue }
            taken += 1
            #expect(
                Self.halves(line, header) == Self.whole(line), "seed 10, line \(String(decoding: line, as: UTF8.self))")
        }
        #expect(taken > 100)
    }
}
