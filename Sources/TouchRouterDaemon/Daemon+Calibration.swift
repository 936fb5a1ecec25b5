/// The calibration session in the daemon (docs/calibration.md): who runs it, what its client is
/// sent, and what the session changes in input (libinput's matrix, the replay's mapping) and
/// restores.
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

extension Daemon {
    /// A sample, refusal or end the Router reported, to the session's client.
    func calibrationEvent(_ event: CalibrationSessionEvent) {
    }
}
