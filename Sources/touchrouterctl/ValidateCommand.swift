import TouchRouterCommandLine
import TouchRouterCore
import TouchRouterInput

/// `touchrouterctl validate FILE...`: checks config files, one summary line each, every error listed.
enum ValidateCommand: Command {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Check config files and list every error.",
        arguments: [ArgumentSpec(.file, help: "A config file (JSON5).", repeats: true)],
        discussion: """
            Prints 'FILE: OK, N screens, N views' for each valid file. For a file with errors, prints
            each one on stderr as 'FILE:LINE:COLUMN: view "PATH": what is wrong'. Exits 1 if any file
            has errors.
            """)

    static func run(_ arguments: ParsedArguments) -> ExitCode {
        var exitCode = ExitCode.success
        for path in arguments.arguments(.file) {
            do {
                let config = try loadConfig(path: path)
                print("\(path): OK, \(summary(config))")
            } catch {
                StandardError.print(error.description)
                exitCode = .failure
            }
        }
        return exitCode
    }

    /// `2 screens, 34 views`
    static func summary(_ config: Config) -> String {
        let screens = config.layout.screens.count
        let views = config.layout.viewCount
        return "\(screens) screen\(screens == 1 ? "" : "s"), \(views) view\(views == 1 ? "" : "s")"
    }
}
