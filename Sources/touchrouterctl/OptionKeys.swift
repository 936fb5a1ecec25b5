import TouchRouterCommandLine

// Every option and argument key of touchrouterctl, declared once: a misspelt key does not compile.

extension OptionKey {
    static let config = OptionKey("config")
    static let `default` = OptionKey("default")
    static let deviceDesc = OptionKey("device-desc")
    static let gesture = OptionKey("gesture")
    static let gestures = OptionKey("gestures")
    static let hidden = OptionKey("hidden")
    static let hold = OptionKey("hold")
    static let json = OptionKey("json")
    static let keyboard = OptionKey("keyboard")
    static let linger = OptionKey("linger")
    static let live = OptionKey("live")
    static let name = OptionKey("name")
    static let output = OptionKey("output")
    static let path = OptionKey("path")
    static let protocolA = OptionKey("protocol-a")
    static let recording = OptionKey("recording")
    static let replay = OptionKey("replay")
    static let screen = OptionKey("screen")
    static let seat = OptionKey("seat")
    static let seconds = OptionKey("seconds")
    static let size = OptionKey("size")
    static let socket = OptionKey("socket")
    static let speed = OptionKey("speed")
    static let startDelay = OptionKey("start-delay")
    static let subscribed = OptionKey("subscribed")
    static let subtree = OptionKey("subtree")
    static let tolerance = OptionKey("tolerance")
    static let verbose = OptionKey("verbose")
    static let view = OptionKey("view")
    static let waitStdin = OptionKey("wait-stdin")
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
