/// Why a calibration press gave no sample, and why a calibration session ended: the `reason` of
/// the `calibrationRefused` and `calibrationEnded` messages (docs/calibration.md), shared by the
/// session in Core and the wire.

/// Why a press during a calibration session gave no sample.
public enum CalibrationRefusalReason: String, Hashable, Sendable, CaseIterable {
    /// A second contact came down during the press.
    case multipleFingers
    /// The press came from another device than the session's (the first of the screen's devices
    /// to press after the start).
    case otherDevice
    /// The press began sooner than the session's minimum gap after the previous release: a bounce.
    case tooSoon

    /// One sentence a person calibrating the panel can act on.
    public var sentence: String {
        switch self {
        case .multipleFingers: "more than one finger touched the panel; press the target with one finger"
        case .otherDevice: "this press came from another touch device than the one being calibrated"
        case .tooSoon: "this press came too soon after the previous one (a bounce); press the target again"
        }
    }
}

/// Why a calibration session ended.
public enum CalibrationEndReason: String, Hashable, Sendable, CaseIterable {
    /// The session's client sent `calibrationCancel`.
    case cancelled
    /// No press came for the session's timeout.
    case timeout
    /// A reload removed or changed the session's screen.
    case reload
}
