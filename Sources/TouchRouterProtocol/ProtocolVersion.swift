/// The wire protocol version this build speaks.
public enum ProtocolVersion { public static let current = 1 }
