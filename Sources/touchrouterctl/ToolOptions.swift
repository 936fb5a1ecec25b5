import TouchRouterClient
import TouchRouterCommandLine

// The options several touchrouterctl commands share, each declared once (name, type, default, help);
// a command that words one differently says so with `described(_:)`. An option of one command is
// declared in that command. Then every argument key: a misspelt one does not compile.

/// The options several commands share.
enum ToolOption {
    /// `--socket PATH`: the running daemon's socket.
    static let socket = Option.text(
        "socket", valueName: "PATH", help: "The daemon's socket.", default: TouchRouterClient.defaultSocketPath)
    /// `--json`: print the daemon's reply as it sent it.
    static let json = Option.flag("json", help: "Print the reply as one JSON line.")
    /// `--config FILE`: work offline on this config file.
    static let config = Option.text("config", valueName: "FILE", help: "The config file.")
    /// `--screen NAME`: which of the config's screens.
    static let screen = Option.text("screen", valueName: "NAME", help: "The screen (default: the first).")
    /// `--subscribed IDS`: the views taken to have subscribers, offline.
    static let subscribed = Option.text(
        "subscribed", valueName: "IDS", help: "Views with subscribers, comma-separated (default: every view).")
}

extension ArgumentKey {
    static let actual = ArgumentKey("ACTUAL")
    static let expected = ArgumentKey("EXPECTED")
    static let assignment = ArgumentKey("KEY=VALUE")
    static let file = ArgumentKey("FILE")
    static let script = ArgumentKey("SCRIPT")
    static let screenName = ArgumentKey("SCREEN")
    static let screenState = ArgumentKey("STATE")
    static let view = ArgumentKey("VIEW")
    static let x = ArgumentKey("X")
    static let y = ArgumentKey("Y")
}
