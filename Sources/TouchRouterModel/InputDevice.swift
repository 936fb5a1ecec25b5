/// A touch device as the router knows it. `id` is unique for the daemon's lifetime: a device that
/// is unplugged and comes back gets a new one.
public struct InputDevice: Hashable, Sendable {
    public var id: UInt32
    public var name: String

    public init(id: UInt32, name: String) {
        self.id = id
        self.name = name
    }
}
