/// The daemon's answers to client requests: hello, hitTest, status, metrics, reload on the loop
/// (each costs O(1) unless stated; metrics are bounded by their label bounds); subscribe, unsubscribe, layout and explain, whose cost grows with
/// the layout, are queued for the layout worker (`queueQuery`).
import Glibc
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

extension Daemon {
    /// Carries out one request and returns its reply line.
    func handle(_ request: RequestMessage, seq: Int64?, from client: ClientConnection) -> [UInt8]? {
        switch request {
        case .hello(let version, let name):
            client.name = name
            guard version == Int64(ProtocolVersion.current) else {
                return errorLine(
                    code: .unsupportedVersion,
                    message: "this daemon speaks protocol version \(ProtocolVersion.current)", seq: seq)
            }
            logger.info("\(client.label) said hello")
            return line(
                .welcome(
                    Welcome(
                        daemonVersion: daemonVersion, generation: current.generation,
                        screens: layout.screens.map {
                            ScreenInfo(name: $0.name, width: $0.width, height: $0.height)
                        },
                        seq: seq)))
        case .subscribe, .unsubscribe, .layout, .explain:
            // Their cost grows with the layout: answered by the layout worker (Daemon+Runtime.swift).
            return queueQuery(request, seq: seq, from: client)
        case .hitTest(let screenName, let screenPoint):
            guard let screen = screenName.map(layout.screen(named:)) ?? layout.screens.first else {
                return errorLine(
                    code: .unknownScreen, message: "no such screen: \(Excerpt.of(screenName ?? ""))", seq: seq)
            }
            var hit = router.tracker.hitTest(screen: screen.name, screenPoint)
            // A view the client may not see is, to it, no view: the point hits nothing it can know of
            // (a touch there never reaches a view open to it either: the view stops it).
            if let found = hit, !current.access.permits(client.credentials, viewID: found.viewID) {
                stats.accessDenials += 1
                hit = nil
            }
            return line(
                .hitTestResult(
                    HitTestReply(
                        screen: screen.name, screenPoint: screenPoint, viewID: hit?.viewID,
                        path: hit?.path ?? [],
                        localPoint: hit?.localPoint, seq: seq)))
        case .status:
            return line(.status(StatusReply(counters: statusCounters(for: client), seq: seq)))
        case .metrics(let format):
            return metricsReply(format: format, seq: seq, for: client)
        case .reload:
            guard isAdmin(client) else {
                return errorLine(
                    code: .permissionDenied, message: "reload is for root or the daemon's user", seq: seq)
            }
            // Answered when the reload is done (`handleReloadOutcome`).
            requestReload(trigger: "reload request from \(client.label)", replyTo: (client.id, seq))
            return nil
        case .setView, .mount, .unmount:
            return handleRuntimeRequest(request, seq: seq, from: client)
        case .setScreenState(let screen, let off):
            return setScreenState(screen, off: off, seq: seq, from: client)
        case .calibrationStart, .calibrationFinish, .calibrationCancel:
            return handleCalibrationRequest(request, seq: seq, from: client)
        }
    }

    /// The client is an admin (`AccessPolicy.isAdmin`).
    func isAdmin(_ client: ClientConnection) -> Bool { AccessPolicy.isAdmin(client.credentials) }

    /// The `status` counters for `client` (docs/operations.md lists each). Every count is a total
    /// since start. A client learns nothing of other clients' interests, and, while any view has an
    /// access list, nothing of touches unless it is an admin: touch counts and their timing would
    /// tell it when a protected view is touched. Its own subscriptions are listed (at most 1,000).
    func statusCounters(for client: ClientConnection) -> [String: JSONValue] {
        var counters: [String: JSONValue] = [
            "daemonVersion": .string(daemonVersion),
            "generation": .integer(Int64(current.generation)),
            "clients": .integer(Int64(clients.connected.count)),
            "uptimeMicros": .integer(Int64(monotonicMicros() - stats.startedMonotonicMicros)),
            "clientsCutOff": .integer(Int64(stats.clientsCutOff)),
            "clientsFlooding": .integer(Int64(stats.clientsFlooding)),
            "reloadsFailed": .integer(Int64(stats.reloadsFailed)),
            "changesRefused": .integer(Int64(stats.changesRefused)),
            "mountedSubtrees": .integer(Int64(current.runtime.state.mounts.count)),
            "layoutBuilds": .integer(Int64(stats.layoutBuilds)),
            // Builds running or queued (0, 1 or 2): 0 means every request so far is live.
            "layoutBuildsPending": .integer(Int64(reloading.pendingBuilds)),
            "config": .string(options.configPath),
            "input": .string(options.replayPath.map { "replay \($0)" } ?? "live"),
        ]
        let own = subscriptions.requestedViews(of: client.id)
        counters["ownSubscriptionCount"] = .integer(Int64(own.count))
        // At most 1,000 listed and at most 16 KiB of ids: a reply stays small whatever the ids.
        var listed: [JSONValue] = []
        var idBytes = 0
        for subscription in own.prefix(1000) {
            idBytes += subscription.viewID.utf8.count
            if idBytes > 16 * 1024 { break }
            listed.append(.object(["view": .string(subscription.viewID), "subtree": .bool(subscription.subtree)]))
        }
        counters["ownSubscriptions"] = .array(listed)
        if listed.count < own.count { counters["ownSubscriptionsTruncated"] = .bool(true) }
        let admin = isAdmin(client)
        if admin {
            counters["accessDenials"] = .integer(Int64(stats.accessDenials))
            counters["subscribedViewCount"] = .integer(Int64(subscriptions.subscribedViewCount))
            if loop.measuresTurns {
                let turn = loop.takeLongestTurn()
                counters["loopLongestTurnMicros"] = .integer(Int64(turn.micros))
                counters["loopLongestTurnCPUMicros"] = .integer(Int64(turn.cpuMicros))
                counters["lastLayoutBuildCPUMicros"] = .integer(Int64(reloading.lastBuildCPUMicros))
                if let histogram = benchmark.stampToWritten, let p50 = histogram.percentile(0.5),
                    let p99 = histogram.percentile(0.99)
                {
                    counters["frameStampToWrittenP50Micros"] = .integer(Int64(p50))
                    counters["frameStampToWrittenP99Micros"] = .integer(Int64(p99))
                }
                if let slowest = benchmark.slowestFrames?.slowestFirst, !slowest.isEmpty {
                    counters["frameStampToWrittenSlowest"] = .array(
                        slowest.map { .array([.integer(Int64($0.frameNumber)), .integer(Int64($0.micros))]) })
                }
                benchmark.stampToWritten?.reset()
                benchmark.slowestFrames?.reset()
                if input.replay != nil, options.replaySpeed != 0 {
                    let lateness = benchmark.takeLongestLateness()
                    counters["replayLongestLatenessMicros"] = .integer(Int64(lateness.micros))
                    counters["replayLongestBusyLatenessMicros"] = .integer(Int64(lateness.busyMicros))
                }
            }
            counters["coalescedMessages"] = .integer(
                Int64(
                    stats.coalescedByGoneClients
                        + clients.connected.values.map(\.outbox.coalescedMessageCount).reduce(0, +)))
            counters["coalescedMostInOneStep"] = .integer(
                Int64(
                    clients.connected.values.map(\.outbox.mostCoalescedInOneStep).reduce(
                        stats.coalescedMostInOneStepByGoneClients, max)))
        }
        if admin, let session = router.calibration {
            counters["calibration"] = .object([
                "screen": .string(session.screen),
                "clientPid": calibrating.client.flatMap { clients.connected[$0]?.credentials }.map {
                    .integer(Int64($0.pid))
                }
                    ?? .null,
                "samples": .integer(Int64(session.sampleCount)),
            ])
        }
        if admin || current.access.isEmpty {
            counters["touchMessages"] = .integer(Int64(stats.touchMessagesQueued))
            counters["gestureMessages"] = .integer(Int64(stats.gestureMessagesQueued))
            counters["nonFiniteMessagesDropped"] = .integer(Int64(stats.nonFiniteMessagesDropped))
            counters["gestureViewsActive"] = .integer(Int64(router.gestures.activeViewCount))
            counters["activeTouches"] = .integer(Int64(router.tracker.activeTouchCount))
            for (name, value) in router.tracker.statistics.namedCounters { counters[name] = .integer(Int64(value)) }
            counters["fieldDevices"] = fieldCounters()
            if !panelPower.machines.isEmpty { counters["panelPower"] = panelPowerStatus() }
            if !passthrough.isEmpty { counters["passthrough"] = passthroughStatus() }
            if let replay = input.replay {
                counters["replayFramesPlayed"] = .integer(Int64(replay.playedFrameCount))
                counters["replayFinished"] = .bool(replay.isFinished)
            }
        }
        return counters
    }
}
