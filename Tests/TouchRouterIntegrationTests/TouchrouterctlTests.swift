import Foundation
import Testing
import TouchRouterCommandLine

/// Runs the real `touchrouterctl` binary as a process.
///
/// The binary is found, in order: `$TOUCHROUTERCTL`; next to the test bundle (the build products
/// directory, where `swift test` puts every executable of the package); `.build/debug/` under the
/// package root (found from this file's path). `swift build --product touchrouterctl` makes it.
enum TouchrouterctlProcess {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    static func executable() throws -> URL {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["TOUCHROUTERCTL"] {
            candidates.append(URL(fileURLWithPath: override))
        }
        if let bundle = Bundle.main.executableURL {
            candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("touchrouterctl"))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/touchrouterctl"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
        else {
            throw LookupError(message: "touchrouterctl not built; looked at \(candidates.map(\.path))")
        }
        return found
    }

    struct LookupError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    struct Result {
        var exitCode: Int32
        var stdout: String
        var stderr: String
        var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
        var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// Runs the tool in the package root (so relative paths like `config/kiosk.json5` work).
    static func run(_ arguments: [String]) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ctl-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stdoutURL = directory.appendingPathComponent("stdout")
        let stderrURL = directory.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        process.waitUntilExit()
        try stdout.close()
        try stderr.close()
        return Result(
            exitCode: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
    }

    /// Writes `text` to a temporary file named `name` and returns its path.
    static func temporaryFile(_ name: String, _ text: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ctl-input-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }
}

@Suite("touchrouterctl validate")
struct ValidateCommandTests {
    @Test("the example config validates: exit 0, one summary line")
    func example() throws {
        let result = try TouchrouterctlProcess.run(["validate", "config/kiosk.json5"])
        #expect(result.exitCode == 0)
        #expect(result.stdout == "config/kiosk.json5: OK, 2 screens, 32 views\n")
        #expect(result.stderr.isEmpty)
    }

    @Test("the field kit's example config (filters per device matcher) validates")
    func fieldExample() throws {
        let result = try TouchrouterctlProcess.run(["validate", "config/field-kiosk.json5"])
        #expect(result.exitCode == 0)
        #expect(result.stdout == "config/field-kiosk.json5: OK, 1 screen, 5 views\n")
        #expect(result.stderr.isEmpty)
    }

    @Test("the passthrough recipe's config (browser beside a native PIN pad) validates")
    func browserKioskExample() throws {
        let result = try TouchrouterctlProcess.run(["validate", "config/browser-kiosk.json5"])
        #expect(result.exitCode == 0)
        #expect(result.stdout == "config/browser-kiosk.json5: OK, 1 screen, 3 views\n")
        #expect(result.stderr.isEmpty)
    }

    /// `explain` follows the recipe's routing: the browser's root passes a touch through, the PIN
    /// pad's subscriber takes its own, the card reader (`passthrough: false`) passes nothing.
    @Test("explain on the browser recipe: passed through, the PIN pad's, the card reader's")
    func browserKioskExplain() throws {
        func explain(_ x: String, _ y: String) throws -> String {
            try TouchrouterctlProcess.run([
                "explain", "--config", "config/browser-kiosk.json5", "--subscribed", "pin-pad", x, y,
            ]).stdout
        }
        #expect(try explain("100", "100").contains("responder chain: browser (passes it through)"))
        #expect(try explain("1400", "300").contains("delivered to: pin-pad\n"))
        let card = try explain("1400", "1000")
        #expect(card.contains("card-reader (takes it)") && card.contains("delivered to: card-reader\n"), "\(card)")
    }

    @Test("a bad file: exit 1, every error on stderr, nothing on stdout")
    func badFile() throws {
        let path = try TouchrouterctlProcess.temporaryFile(
            "kiosk.json5",
            """
            {
              screens: [{
                name: "main", width: 1080, height: 1920,
                root: { id: "main", children: [
                  { id: "keypad", frame: [0, 0, 500, 500], children: [
                    { id: "key7", frame: [0, 0, 0, 100], alpha: 1.5 },
                    { id: "key8", frame: [0, 0, 10, 10], touchMargn: 12 },
                  ] },
                ] },
              }],
            }
            """)
        let result = try TouchrouterctlProcess.run(["validate", path])
        #expect(result.exitCode == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderrLines == [
                #"\#(path):6:37: view "main/keypad/key7": width must be > 0, found 0"#,
                #"\#(path):6:46: view "main/keypad/key7": alpha must be in 0…1, found 1.5"#,
                #"\#(path):7:46: view "main/keypad/key8": unknown key "touchMargn" (did you mean "touchMargin"?)"#,
            ])
    }

    @Test("several files: each gets its line; exit 1 if any is bad")
    func severalFiles() throws {
        let bad = try TouchrouterctlProcess.temporaryFile("bad.json5", "{ screens: [] }")
        let result = try TouchrouterctlProcess.run([
            "validate", "config/kiosk.json5", bad, "/nonexistent/x.json5",
        ])
        #expect(result.exitCode == 1)
        #expect(result.stdoutLines == ["config/kiosk.json5: OK, 2 screens, 32 views"])
        #expect(
            result.stderrLines == [
                "\(bad):1:3: the config has no screens: \"screens\" is empty",
                "/nonexistent/x.json5: no such file",
            ])
    }

    @Test("the file that traps Foundation's JSON5 decoder is an ordinary error")
    func utf8Trap() throws {
        let result = try TouchrouterctlProcess.run([
            "validate", "Tests/Fixtures/fuzz/json5-invalid-utf8-trap.bin",
        ])
        #expect(result.exitCode == 1)
        #expect(
            result.stderr == "Tests/Fixtures/fuzz/json5-invalid-utf8-trap.bin: not valid UTF-8 at byte 1\n")
    }

    @Test("no file is a usage error")
    func noFile() throws {
        let result = try TouchrouterctlProcess.run(["validate"])
        #expect(result.exitCode == 2)
        #expect(
            result.stderr
                == "touchrouterctl validate: missing FILE...\nSee 'touchrouterctl validate --help'.\n")
    }
}

@Suite("touchrouterctl hit-test")
struct HitTestCommandTests {
    @Test("text output: the path and the local point")
    func text() throws {
        let result = try TouchrouterctlProcess.run([
            "hit-test", "--config", "config/kiosk.json5", "650", "1050",
        ])
        #expect(result.exitCode == 0)
        #expect(result.stdout == "main/content/keypad/key9 at local (-10, 50)\n")
    }

    @Test("--json: exactly one object with view, path and local")
    func json() throws {
        let result = try TouchrouterctlProcess.run([
            "hit-test", "--config", "config/kiosk.json5", "--json", "330", "1090.5",
        ])
        #expect(result.exitCode == 0)
        #expect(result.stdoutLines.count == 1)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["view", "path", "local"])
        #expect(object["view"] as? String == "key7")
        #expect(object["path"] as? [String] == ["main", "content", "keypad", "key7"])
        #expect(object["local"] as? [Double] == [90, 90.5])
    }

    @Test("--json on a miss: view and local are null")
    func jsonMiss() throws {
        let result = try TouchrouterctlProcess.run([
            "hit-test", "--config=config/kiosk.json5", "--json", "--", "-5", "-5",
        ])
        #expect(result.exitCode == 0)
        #expect(result.stdout == #"{"view": null, "path": [], "local": null}"# + "\n")
    }

    @Test("--screen picks the screen; negative numbers are coordinates, not options")
    func screenOption() throws {
        let result = try TouchrouterctlProcess.run([
            "hit-test", "--config", "config/kiosk.json5", "--screen", "service", "600", "150",
        ])
        #expect(result.stdout == "service/service-restart at local (60, 50)\n")
        let miss = try TouchrouterctlProcess.run(["hit-test", "--config", "config/kiosk.json5", "-1", "-2.5"])
        #expect(miss.exitCode == 0)
        #expect(miss.stdout == "no view at (-1, -2.5) on screen \"main\"\n")
    }

    @Test("an unknown screen is an error with the screens listed")
    func unknownScreen() throws {
        let result = try TouchrouterctlProcess.run([
            "hit-test", "--config", "config/kiosk.json5", "--screen", "servise", "1", "1",
        ])
        #expect(result.exitCode == 1)
        #expect(
            result.stderr
                == "config/kiosk.json5: no screen named \"servise\" (did you mean \"service\"?); screens: main, service\n"
        )
    }

    @Test("a bad config prints its errors and exits 1")
    func badConfig() throws {
        let result = try TouchrouterctlProcess.run([
            "hit-test", "--config", "Tests/Fixtures/fuzz/json5-invalid-utf8-trap.bin", "1", "1",
        ])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("not valid UTF-8 at byte 1"))
    }

    @Test(
        "command-line mistakes exit 2 with a clear message",
        arguments: [
            (
                ["hit-test", "--config", "config/kiosk.json5", "--jsn", "1", "2"],
                "touchrouterctl hit-test: unknown option '--jsn' (did you mean '--json'?)"
            ),
            (["hit-test", "--config", "config/kiosk.json5", "1"], "touchrouterctl hit-test: missing Y"),
            (
                ["hit-test", "--config", "config/kiosk.json5", "1", "2", "3"],
                "touchrouterctl hit-test: unexpected argument '3'"
            ),
            (
                ["hit-test", "--config", "config/kiosk.json5", "x", "2"],
                "touchrouterctl hit-test: X and Y must be finite numbers"
            ),
            (
                ["hit-test", "--config", "c", "--socket", "s", "1", "2"],
                "touchrouterctl hit-test: --config and --socket are alternatives: give one"
            ),
            (["hit-test", "--config"], "touchrouterctl hit-test: '--config' needs a value (--config FILE)"),
            (
                ["hit-test", "--json=yes", "--config", "c", "1", "2"],
                "touchrouterctl hit-test: '--json' takes no value"
            ),
            (["hit-tset"], "touchrouterctl: unknown command 'hit-tset' (did you mean 'hit-test'?)"),
            (["--verbose"], "touchrouterctl: unknown option '--verbose'"),
        ] as [([String], String)])
    func usageErrors(arguments: [String], message: String) throws {
        let result = try TouchrouterctlProcess.run(arguments)
        #expect(result.exitCode == 2)
        #expect(result.stderrLines.first == message)
        #expect(result.stderrLines.last?.hasPrefix("See 'touchrouterctl") == true)
        #expect(result.stdout.isEmpty)
    }
}

@Suite("touchrouterctl help")
struct HelpTests {
    @Test("--help lists the commands; no arguments prints it on stderr with exit 2")
    func overview() throws {
        let help = try TouchrouterctlProcess.run(["--help"])
        #expect(help.exitCode == 0)
        #expect(
            help.stdout == """
                OVERVIEW: Check touchrouter layouts and ask where a touch lands.

                USAGE: touchrouterctl COMMAND [OPTIONS] [ARGUMENTS]

                COMMANDS:
                  validate              Check config files and list every error.
                  hit-test              Find the view under a screen point.
                  explain               Explain the hit-test walk for a screen point, view by view.
                  render                Draw a screen's layout, touch regions and touches as SVG.
                  monitor               Show the touches the running daemon routes, live.
                  status                Show the running daemon's state and counters.
                  metrics               Print the running daemon's counters as OpenMetrics text.
                  screen                Tell the running daemon a screen is off or on (admin).
                  calibrate             Calibrate a screen's touch panel: one press per target, the matrix printed or applied.
                  layout                Show the layout the running daemon uses.
                  set                   Change a view of the running daemon's layout (hidden, alpha, frame, …).
                  mount                 Mount a subtree (a JSON5 file of views) at a mount point of the running daemon.
                  unmount               Remove what is mounted at a mount point of the running daemon.
                  inject                Create a virtual touchscreen (uinput) and play a recording or gestures into it.
                  input-events          (diagnostic) Print live touch frames from libinput, one line each.
                  transcript-diff       (diagnostic) Compare two input-events transcripts contact by contact.

                OPTIONS:
                  -h, --help            Show this help.
                  --version             Show the version.

                See 'touchrouterctl help COMMAND' or 'touchrouterctl COMMAND --help' for a command's options.

                """)
        let bare = try TouchrouterctlProcess.run([])
        #expect(bare.exitCode == 2)
        #expect(bare.stderr == help.stdout)
    }

    @Test("--version prints the package's version, the one the daemon reports, and exits 0")
    func version() throws {
        let version = try TouchrouterctlProcess.run(["--version"])
        #expect(version.exitCode == 0 && version.stderr.isEmpty)
        #expect(version.stdout == "touchrouterctl \(PackageVersion.current)\n")
        #expect(PackageVersion.current.split(separator: ".").count == 3)
    }

    @Test("a command's help, exactly")
    func commandHelp() throws {
        let help = try TouchrouterctlProcess.run(["validate", "--help"])
        #expect(help.exitCode == 0)
        #expect(
            help.stdout == """
                OVERVIEW: Check config files and list every error.

                USAGE: touchrouterctl validate FILE...

                ARGUMENTS:
                  FILE...               A config file (JSON5).

                OPTIONS:
                  -h, --help            Show this help.

                Prints 'FILE: OK, N screens, N views' for each valid file. For a file with errors, prints
                each one on stderr as 'FILE:LINE:COLUMN: view "PATH": what is wrong'. Exits 1 if any file
                has errors.

                """)
        #expect(try TouchrouterctlProcess.run(["help", "validate"]).stdout == help.stdout)
        let hitTest = try TouchrouterctlProcess.run(["hit-test", "-h"])
        #expect(
            hitTest.stdout.contains(
                "USAGE: touchrouterctl hit-test [--config FILE] [--screen NAME] [--json] [--socket PATH] X Y"))
    }
}
