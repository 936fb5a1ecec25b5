import TouchRouterCommandLine
import TouchRouterInput

/// `touchrouterctl transcript-diff EXPECTED ACTUAL`: compares two `input-events` transcripts
/// contact by contact (the VM suite's check that libinput and the replay decoder agree).
enum TranscriptDiffCommand: Command {
    static let spec = CommandSpec(
        name: "transcript-diff",
        abstract: "(diagnostic) Compare two input-events transcripts contact by contact.",
        options: [tolerance],
        arguments: [
            ArgumentSpec(.expected, help: "The reference transcript (e.g. from --replay)."),
            ArgumentSpec(.actual, help: "The transcript to check (e.g. live libinput)."),
        ],
        discussion: """
            Frames must match in number and order, each contact in kind and position (within the
            tolerance, in layout units); slot numbers may differ as long as each contact keeps its
            own. Prints 'N frames agree' or the first differences; exits 1 when they differ.
            """)

    static let tolerance = Option.number(
        "tolerance", valueName: "UNITS", help: "Allowed position difference.", in: 0...Double.infinity, default: 0.01)

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        let tolerance = arguments.value(Self.tolerance)
        guard let expectedPath = arguments.argument(.expected),
            let actualPath = arguments.argument(.actual),
            case .success(let expected) = TextFile.read(expectedPath),
            case .success(let actual) = TextFile.read(actualPath)
        else {
            StandardError.print("touchrouterctl transcript-diff: cannot read the transcripts")
            return .failure
        }
        let differences = InputTranscript.differences(
            expected: expected, actual: actual, tolerance: tolerance)
        guard differences.isEmpty else {
            differences.forEach { print($0) }
            return .failure
        }
        print("\(InputTranscript.frames(actual).count) frames agree")
        return .success
    }
}
