// touchrouterd: everything lives in TouchRouterDaemon; see Daemon.run() for the lifecycle.
import Glibc
import TouchRouterDaemon

exit(Daemon.main(arguments: Array(CommandLine.arguments.dropFirst())))
