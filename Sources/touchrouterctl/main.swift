// touchrouterctl: a thin entry point; the commands are declared in Commands.swift.
import Foundation

exit(CommandLineTool(commands: allCommands).run(Array(CommandLine.arguments.dropFirst())).rawValue)
