// touchrouterctl: a thin entry point; the commands are declared in Commands.swift.
import Glibc

exit(CommandLineTool(commands: allCommands).run(Array(CommandLine.arguments.dropFirst())).rawValue)
