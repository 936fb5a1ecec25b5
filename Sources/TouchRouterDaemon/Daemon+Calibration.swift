/// The calibration session in the daemon (docs/calibration.md): admin only, one at a time,
/// daemon-wide; its client gets the samples and refusals; it ends on finish, cancel, the client's
/// disconnect, its timeout or a reload that changes its screen. While it runs, the screen's input
/// is measured without the screen's calibration: libinput's matrix for the screen's devices is the
/// rotation alone (also for a device plugged in meanwhile), replayed frames have the calibration
/// taken back out; both are restored when it ends.
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

extension Daemon {
    /// The daemon's side of a calibration session (the session itself is the Router's): the client
    /// running it, and for replayed input the matrix that takes the screen's calibration back out
    /// of its frames. Set together when a session starts and cleared together when it ends, in
    /// this file.
    struct Calibrating {
        private(set) var client: ClientID?
        /// Nil for live input (libinput's matrix is set instead) and for a screen without calibration.
        private(set) var replayUndo: [Double]?

        /// `client` started a session; replayed frames are corrected with `replayUndo`.
        mutating func start(client: ClientID, replayUndo: [Double]?) {
            self.client = client
            self.replayUndo = replayUndo
        }

        /// The session ended.
        mutating func end() { self = Calibrating() }
    }

    /// `calibrationStart`, `calibrationFinish`, `calibrationCancel`: the reply line.
    func handleCalibrationRequest(_ request: RequestMessage, seq: Int64?, from client: ClientConnection) -> [UInt8] {
        guard isAdmin(client) else {
            return errorLine(code: .permissionDenied, message: "calibration is for root or the daemon's user", seq: seq)
        }
        switch request {
        case .calibrationStart(let name, let timeoutMillis, let minimumGapMillis):
            return startCalibration(
                screen: name, timeoutMillis: timeoutMillis, minimumGapMillis: minimumGapMillis, seq: seq,
                from: client)
        case .calibrationFinish(let points, let verify):
            guard calibrating.client == client.id, let session = endCalibrationSession() else {
                return errorLine(code: .invalidMessage, message: "no calibration session", seq: seq)
            }
            return finishCalibration(session, points: points, verify: verify, seq: seq)
        case .calibrationCancel:
            guard calibrating.client == client.id, let session = endCalibrationSession() else {
                return errorLine(code: .invalidMessage, message: "no calibration session", seq: seq)
            }
            logger.info("calibration of screen \(Excerpt.of(session.screen)) cancelled by \(client.label)")
            return line(.calibrationEnded(screen: session.screen, reason: .cancelled, seq: seq))
        default:
            return errorLine(code: .internalError, message: "not a calibration request", seq: seq)
        }
    }

    private func startCalibration(
        screen name: String, timeoutMillis: Int64, minimumGapMillis: Int64, seq: Int64?, from client: ClientConnection
    ) -> [UInt8] {
        guard let screen = layout.screen(named: name) else {
            return errorLine(code: .unknownScreen, message: "no such screen: \(Excerpt.of(name))", seq: seq)
        }
        if let running = router.calibration {
            return errorLine(
                code: .calibrationBusy,
                message: "a calibration session is running on screen \(Excerpt.of(running.screen))", seq: seq)
        }
        let input = config.input(forScreen: name)
        let rotation = input?.rotationDegrees ?? 0
        let session = CalibrationSession(
            screen: name, screenWidth: screen.width, screenHeight: screen.height, rotation: rotation,
            minimumGapMicros: UInt64(minimumGapMillis) * 1000, timeoutMicros: UInt64(timeoutMillis) * 1000,
            nowMicros: monotonicMicros())
        calibrating.start(
            client: client.id, replayUndo: Self.undoMatrix(rotation: rotation, calibration: input?.calibration))
        deliver(router.startCalibration(session, nowMicros: monotonicMicros()))
        reassignLiveDevices()
        logger.info("calibration of screen \(Excerpt.of(name)) started by \(client.label)")
        let scale: PhysicalScale? =
            input?.physicalSize.map {
                PhysicalScale(
                    millimetresPerUnitX: $0.widthMM / screen.width, millimetresPerUnitY: $0.heightMM / screen.height,
                    source: .config)
            } ?? self.input.live?.physicalScale(ofScreen: name).flatMap { $0.source == .fallback ? nil : $0 }
        return line(
            .calibrationStarted(
                CalibrationStarted(
                    screen: name, width: screen.width, height: screen.height, rotation: rotation,
                    millimetresPerUnit: scale.map { ($0.millimetresPerUnitX + $0.millimetresPerUnitY) / 2 },
                    timeoutMillis: timeoutMillis, minimumGapMillis: minimumGapMillis, seq: seq)))
    }

    /// The fit of a finished session (at most 16 points, so bounded): `calibrationResult`, or the
    /// fit's refusal as `invalid-message`.
    private func finishCalibration(
        _ session: CalibrationSession, points: [CalibrationPress], verify: CalibrationPress?, seq: Int64?
    ) -> [UInt8] {
        let fit: CalibrationFit
        do {
            fit = try CalibrationFit(
                points.map(Self.fitPoint), screenWidth: session.screenWidth, screenHeight: session.screenHeight,
                rotation: session.rotation)
        } catch {
            logger.info("calibration of screen \(Excerpt.of(session.screen)): no fit: \(error)")
            return errorLine(code: .invalidMessage, message: "no calibration: \(error)", seq: seq)
        }
        let configured = config.input(forScreen: session.screen)?.physicalSize.map {
            PhysicalScale(
                millimetresPerUnitX: $0.widthMM / session.screenWidth,
                millimetresPerUnitY: $0.heightMM / session.screenHeight, source: .config)
        }
        let scale = configured ?? session.deviceScale
        let verification = verify.map { press in
            let error = fit.verificationError(
                Self.fitPoint(press), screenWidth: session.screenWidth, screenHeight: session.screenHeight,
                rotation: session.rotation, scale: scale ?? .fallback)
            return CalibrationVerification(units: error.units, millimetres: scale == nil ? nil : error.millimetres)
        }
        logger.info(
            "calibration of screen \(Excerpt.of(session.screen)) finished: \(points.count) points, largest"
                + " residual \(fit.maximumResidual)")
        return line(
            .calibrationResult(
                CalibrationResult(
                    screen: session.screen, matrix: fit.matrix, residuals: fit.residuals,
                    maximumResidual: fit.maximumResidual, verification: verification, seq: seq)))
    }

    private static func fitPoint(_ press: CalibrationPress) -> CalibrationPoint {
        CalibrationPoint(target: press.target, normalizedX: press.normalized.x, normalizedY: press.normalized.y)
    }

    /// Ends the session the daemon was asked to end (finish, cancel, disconnect): the screen routes
    /// again, its input is measured with the calibration again. Returns the session, nil if none ran.
    @discardableResult
    func endCalibrationSession() -> CalibrationSession? {
        guard let session = router.endCalibration(nowMicros: monotonicMicros()) else { return nil }
        calibrating.end()
        reassignLiveDevices()
        armHousekeepingTimer()  // the screen's idle countdown starts again
        return session
    }

    /// A sample, refusal or end the Router reported, to the session's client.
    func calibrationEvent(_ event: CalibrationSessionEvent) {
        let message: DaemonMessage
        let client = calibrating.client.flatMap { clients.connected[$0] }
        switch event {
        case .sample(let screen, let measurement):
            message = .calibrationSample(
                CalibrationSample(
                    screen: screen, deviceName: measurement.device.name, normalized: measurement.normalized,
                    screenPoint: measurement.screenPoint, positions: measurement.positions))
        case .refused(let screen, let reason):
            message = .calibrationRefused(screen: screen, reason: reason, message: reason.sentence)
        case .ended(let screen, let reason):
            message = .calibrationEnded(screen: screen, reason: reason, seq: nil)
            logger.info("calibration of screen \(Excerpt.of(screen)) ended: \(reason.rawValue)")
            calibrating.end()
            // A reload reassigns every device itself, after the swap that ended the session.
            if reason != .reload { reassignLiveDevices() }
        }
        guard let client, client.closing == nil else { return }
        let wasEmpty = client.outbox.isEmpty
        if case .overflow = client.outbox.enqueue(line: line(message)) {
            cutOff(client)
        } else if wasEmpty {
            clients.toFlush.append(client)
        }
    }

    /// libinput's matrices set again from the assigner (`calibrationAware`). Only the matrices
    /// change with the session, never which device drives which screen, so no event comes of it
    /// unless the config changed, which a reload handles first.
    private func reassignLiveDevices() {
        for event in input.live?.reassignDevices() ?? [] { process(event) }
    }

    /// A device's assignment while a session runs on its screen: libinput's matrix is the
    /// rotation alone (the screen's calibration and udev's LIBINPUT_CALIBRATION_MATRIX left out).
    func calibrationAware(_ assignment: ScreenAssignment?) -> ScreenAssignment? {
        guard var assignment, let session = router.calibration, assignment.screen == session.screen else {
            return assignment
        }
        assignment.calibrationMatrix = ScreenMapping.libinputMatrix(
            rotation: session.rotation, calibration: ScreenMapping.identityCalibration)
        return assignment
    }

    /// A replayed frame of the session's screen with the calibration taken back out (the replay
    /// mapped it with the config's calibration): O(contacts).
    func uncalibrateForSession(_ frame: inout InputFrame) {
        guard let undo = calibrating.replayUndo, let session = router.calibration, frame.screen == session.screen
        else { return }
        for index in frame.contacts.indices {
            let point = frame.contacts[index].screenPoint
            let x = point.x / session.screenWidth
            let y = point.y / session.screenHeight
            frame.contacts[index].screenPoint = Point(
                (undo[0] * x + undo[1] * y + undo[2]) * session.screenWidth,
                (undo[3] * x + undo[4] * y + undo[5]) * session.screenHeight)
        }
    }

    /// In normalized units, the matrix from a point mapped with rotation ∘ calibration to the same
    /// press mapped with the rotation alone: rotation ∘ calibration⁻¹ ∘ rotation⁻¹. nil without a
    /// calibration (nothing to undo).
    static func undoMatrix(rotation: Int, calibration: [Double]?) -> [Double]? {
        guard let c = calibration, c.count == 6 else { return nil }
        let determinant = c[0] * c[4] - c[1] * c[3]
        guard determinant != 0, determinant.isFinite else { return nil }
        let (a, b, d, e) = (c[4] / determinant, -c[1] / determinant, -c[3] / determinant, c[0] / determinant)
        let inverse = [a, b, -(a * c[2] + b * c[5]), d, e, -(d * c[2] + e * c[5])]
        let rotate = ScreenMapping.rotationMatrix(rotation)
        let unrotate = ScreenMapping.rotationMatrix((360 - rotation) % 360)
        return ScreenMapping.compose(rotate, after: ScreenMapping.compose(inverse, after: unrotate))
    }
}
