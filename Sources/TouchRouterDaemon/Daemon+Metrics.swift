/// Metrics in the daemon: the counters only the metrics keep (contacts and touches per screen and
/// per view, the stamp-to-written latency), counted on the routing loop, and the `metrics` reply:
/// every counter the daemon keeps as metric families, written as text (docs/metrics.md).
import TouchRouterCore
import TouchRouterInput
import TouchRouterProtocol
import TouchRouterSystem

extension Daemon {
    /// Views with a label of their own, the first to be routed a touch; touches on later views
    /// count under `view="(other)"` (no view id can be that: ids are letters, digits, `-_.`).
    static let metricsViewLabels = 128
    /// Screens with a label of their own (the first seen); a config rarely has more than a few.
    static let metricsScreenLabels = 64
    /// The `state` values of `screen_state`, one sample each per screen: every `ScreenActivity`
    /// (a power backend's new states join here; docs/metrics.md, "Panel power state").
    static let screenStates: [ScreenActivity] = [.active, .idle, .off]
    /// The `view` label value of the touches on views beyond `metricsViewLabels`.
    static let otherViewLabel = "(other)"

    /// A view's touch counter's key.
    struct ViewKey: Hashable, Sendable {
        var screen: String
        var view: String
    }

    /// What only the metrics count. The routing loop is sacred: each count is O(1) per contact or
    /// touch (a hash lookup of a short name in a table of bounded size, ten bucket bounds scanned),
    /// nothing allocates once a key is in, and nothing grows with the layout, the clients or time.
    struct MetricsCounters {
        /// Contacts going down as input reported them, before the field stage, by screen.
        var inputContacts = BoundedCounts<String>(capacity: metricsScreenLabels)
        /// Touches that began and were routed to a view with subscribers, by screen.
        var screenTouches = BoundedCounts<String>(capacity: metricsScreenLabels)
        /// The same by view, for the first `metricsViewLabels` views.
        var viewTouches = BoundedCounts<ViewKey>(capacity: metricsViewLabels)
        /// The same for the views beyond, by screen.
        var otherViewTouches = BoundedCounts<String>(capacity: metricsScreenLabels)
        /// Per input frame that delivered something: from its stamp until its writes were done.
        var frameLatency = LatencyHistogram()
        /// Reloads whose file was read and valid (changed or not).
        var reloadsSucceeded: UInt64 = 0
        /// Connections accepted and served.
        var clientsConnected: UInt64 = 0
        /// Connections refused at once (`--max-clients`, or the daemon stopping).
        var clientsRefused: UInt64 = 0
    }

    /// An input event's contacts going down, per screen. Cost: the frame's contacts.
    func countInput(_ event: InputEvent) {
        guard case .frame(let frame) = event else { return }
        var downs: UInt64 = 0
        for contact in frame.contacts where contact.kind == .down { downs += 1 }
        if downs > 0 { metrics.inputContacts.add(frame.screen, downs) }
    }

    /// A view's routed touches that began, per screen and per view. Cost: the view's touches in the
    /// frame, and two lookups when one began.
    func countRouted(_ viewTouches: ViewTouches) {
        var began: UInt64 = 0
        for touch in viewTouches.touches where touch.phase == .began { began += 1 }
        guard began > 0 else { return }
        metrics.screenTouches.add(viewTouches.screen, began)
        if !metrics.viewTouches.add(ViewKey(screen: viewTouches.screen, view: viewTouches.viewID), began) {
            metrics.otherViewTouches.add(viewTouches.screen, began)
        }
    }

    /// A frame's stamp-to-written time, once its deliveries are written. `stampMicros` is on
    /// CLOCK_MONOTONIC: libinput's event time, or when the replay took the frame.
    func recordLatency(sinceMicros stampMicros: UInt64) {
        let now = monotonicMicros()
        metrics.frameLatency.record(now >= stampMicros ? now - stampMicros : 0)
    }

    /// The reply to `metrics`: for an admin, or for anyone while no view has an access list (touch
    /// counts would tell when a protected view is touched, as in `status`). Cost: the families'
    /// samples, bounded by the label bounds (docs/metrics.md), not by the layout or the clients.
    func metricsReply(format: MetricsFormat, seq: Int64?, for client: ClientConnection) -> [UInt8] {
        guard isAdmin(client) || current.access.isEmpty else {
            return errorLine(
                code: .permissionDenied,
                message: "metrics are for root or the daemon's user while views have access lists", seq: seq)
        }
        return line(.metrics(format: format, text: MetricsText.render(metricFamilies(), format: format), seq: seq))
    }

    /// Every counter the daemon keeps, as metric families (docs/metrics.md lists them in this order).
    func metricFamilies() -> [MetricFamily] {
        var families: [MetricFamily] = []
        func add(
            _ name: String, _ kind: MetricFamily.Kind, _ help: String, unit: String? = nil, _ samples: [MetricSample]
        ) {
            families.append(
                MetricFamily(name: "touchrouter_" + name, kind: kind, help: help, unit: unit, samples: samples))
        }
        func one(_ value: Int) -> [MetricSample] { [MetricSample(.count(UInt64(max(0, value))))] }
        func one(_ value: UInt64) -> [MetricSample] { [MetricSample(.count(value))] }
        func labelled(_ label: String, _ values: [(String, UInt64)]) -> [MetricSample] {
            values.map { MetricSample([MetricLabel(label, $0.0)], .count($0.1)) }
        }
        // Every screen of the layout, 0 until counted, then any other screen counted before a reload.
        func byScreen(_ counts: BoundedCounts<String>) -> [MetricSample] {
            let current = layout.screens.prefix(Self.metricsScreenLabels).map(\.name)
            let gone = counts.entries.map(\.key).filter { !current.contains($0) }
            return labelled("screen", (current + gone).map { ($0, counts[$0]) })
        }

        // The daemon.
        add(
            "build_info", .gauge, "The daemon's version (always 1).",
            [MetricSample([MetricLabel("version", daemonVersion)], .count(1))])
        add(
            "uptime_seconds", .gauge, "Time since the daemon started.", unit: "seconds",
            [MetricSample(.micros(monotonicMicros() - stats.startedMonotonicMicros))])
        add(
            "layout_generation", .gauge,
            "The layout generation in effect (1 at start, +1 per reload or run-time change).", one(current.generation))
        add(
            "reloads", .counter, "Reloads of the config file, by result (failed: the file did not load or validate).",
            labelled("result", [("ok", metrics.reloadsSucceeded), ("failed", UInt64(stats.reloadsFailed))]))
        add(
            "layout_builds", .counter, "Builds the layout worker was given: reloads and batches of run-time changes.",
            one(stats.layoutBuilds))
        add("mounted_subtrees", .gauge, "Subtrees clients have mounted.", one(current.runtime.state.mounts.count))

        // Screens and touches.
        var states: [MetricSample] = []
        for screen in layout.screens.prefix(Self.metricsScreenLabels) {
            let activity = router.field.activity(ofScreen: screen.name) ?? .active
            for state in Self.screenStates {
                states.append(
                    MetricSample(
                        [MetricLabel("screen", screen.name), MetricLabel("state", state.rawValue)],
                        .count(state == activity ? 1 : 0)))
            }
        }
        add(
            "screen_state", .gauge,
            "1 for the state each screen is in: active, idle (no touch for idle.seconds) or off (setScreenState).",
            states)
        // Panel power (docs/field.md, "Panel power"): only while a screen has `idle.power`.
        if !panelPower.machines.isEmpty {
            var levels: [MetricSample] = []
            var commands: [MetricSample] = []
            var failures: [MetricSample] = []
            for (screen, machine) in panelPower.machines.sorted(by: { $0.key < $1.key }).prefix(
                Self.metricsScreenLabels)
            {
                for level in PanelPowerLevel.allCases {
                    levels.append(
                        MetricSample(
                            [MetricLabel("screen", screen), MetricLabel("state", level.rawValue)],
                            .count(level == machine.wanted ? 1 : 0)))
                }
                let counts = machine.counters
                for (result, value) in [
                    ("succeeded", counts.succeeded), ("failed", counts.failed), ("timed-out", counts.timedOut),
                    ("superseded", counts.superseded),
                ] {
                    commands.append(
                        MetricSample([MetricLabel("screen", screen), MetricLabel("result", result)], .count(value)))
                }
                failures.append(MetricSample([MetricLabel("screen", screen)], .count(counts.failed + counts.timedOut)))
            }
            add(
                "panel_power_state", .gauge,
                "1 for the level each powered screen's panel should be at: on, dim or off (idle.power).", levels)
            add("power_commands", .counter, "Panel power backend commands that ended, by result.", commands)
            add(
                "power_failures", .counter, "Panel power backend commands that failed or timed out (a failing panel).",
                failures)
        }
        add(
            "input_contacts", .counter,
            "Contacts going down as the touch device reported them, before the field filters, by screen.",
            byScreen(metrics.inputContacts))
        add(
            "touches", .counter, "Touches that began and were routed to a view with subscribers, by screen.",
            byScreen(metrics.screenTouches))
        var views = metrics.viewTouches.entries.map {
            MetricSample([MetricLabel("screen", $0.key.screen), MetricLabel("view", $0.key.view)], .count($0.count))
        }
        for (screen, count) in metrics.otherViewTouches.entries {
            views.append(
                MetricSample([MetricLabel("screen", screen), MetricLabel("view", Self.otherViewLabel)], .count(count)))
        }
        add(
            "view_touches", .counter,
            "Touches that began, by the view they were routed to (the first \(Self.metricsViewLabels) views; the rest as (other)).",
            views)
        add("active_touches", .gauge, "Touches down and routed now.", one(router.tracker.activeTouchCount))
        let tracker = router.tracker.statistics
        add("input_frames", .counter, "Input frames the tracker handled.", one(tracker.frames))
        add("touches_ended", .counter, "Routed touches that ended with the finger lifted.", one(tracker.touchesEnded))
        add(
            "touches_cancelled", .counter, "Routed touches cancelled, by reason.",
            labelled(
                "reason",
                [
                    (CancelReason.inputCancelled.rawValue, tracker.cancelledInputCancelled),
                    (CancelReason.deviceRemoved.rawValue, tracker.cancelledDeviceRemoved),
                    (CancelReason.viewRemoved.rawValue, tracker.cancelledViewRemoved),
                    (CancelReason.slotReused.rawValue, tracker.cancelledSlotReused),
                    (CancelReason.shutdown.rawValue, tracker.cancelledShutdown),
                    (CancelReason.stuck.rawValue, tracker.cancelledStuck),
                ]))
        add(
            "touches_dropped", .counter, "Touch-downs not routed, by reason.",
            labelled(
                "reason",
                [
                    ("hit-nothing", tracker.droppedHitNothing), ("no-subscriber", tracker.droppedNoSubscriber),
                    ("multiple-touch", tracker.droppedMultipleTouch),
                    ("exclusive-touch", tracker.droppedExclusiveTouch),
                    ("over-cap", tracker.droppedOverCap), ("unknown-screen", tracker.droppedUnknownScreen),
                    ("non-finite", tracker.droppedNonFinite),
                ]))
        add(
            "unknown_slot_events", .counter, "Motions, ups and cancels for a slot with no contact down.",
            one(tracker.ignoredUnknownSlot))
        add(
            "gesture_views_active", .gauge, "Views holding gesture recognition state now.",
            one(router.gestures.activeViewCount))

        // The field filters and the devices.
        for kind in FieldFilterKind.allCases {
            var byDevice = BoundedCounts<String>(capacity: FieldStage.maximumDevices)
            for counters in router.field.deviceCounters { byDevice.add(counters.device.name, counters[kind]) }
            let (name, help) = Self.fieldFamily(kind)
            add(name, .counter, help, labelled("device", byDevice.entries.map { ($0.key, $0.count) }))
        }
        let churn = input.live?.churn ?? DeviceChurn()
        add(
            "device_removals", .counter, "Touch devices removed (unplugged, reset, driver gone), by device name.",
            labelled("device", churn.removals.entries.map { ($0.key, $0.count) }))
        add(
            "controller_resets", .counter,
            "Touch devices that came back under the name of one removed before, by device name.",
            labelled("device", churn.returns.entries.map { ($0.key, $0.count) }))

        // Clients and requests.
        add("clients", .gauge, "Clients connected now.", one(clients.connected.count))
        add("clients_connected", .counter, "Connections accepted and served.", one(metrics.clientsConnected))
        add(
            "clients_refused", .counter, "Connections refused at once (--max-clients reached, or stopping).",
            one(metrics.clientsRefused))
        add(
            "clients_cut_off", .counter,
            "Clients disconnected by the daemon, by reason (queue-overflow: a slow reader; flooding: too many request lines).",
            labelled(
                "reason",
                [("queue-overflow", UInt64(stats.clientsCutOff)), ("flooding", UInt64(stats.clientsFlooding))]))
        add(
            "requests_refused", .counter,
            "Requests refused, by reason (access-denied: an access list; change-budget: run-time changes; flooding: the line that cut a client off).",
            labelled(
                "reason",
                [
                    ("access-denied", UInt64(stats.accessDenials)), ("change-budget", UInt64(stats.changesRefused)),
                    ("flooding", UInt64(stats.clientsFlooding)),
                ]))
        add("subscribed_views", .gauge, "Views with at least one subscriber.", one(subscriptions.subscribedViewCount))
        add(
            "messages_queued", .counter, "Messages queued to clients, by kind.",
            labelled(
                "kind",
                [("touches", UInt64(stats.touchMessagesQueued)), ("gesture", UInt64(stats.gestureMessagesQueued))]))
        add(
            "messages_coalesced", .counter, "touches messages merged away for clients that fell behind.",
            one(
                stats.coalescedByGoneClients + clients.connected.values.map(\.outbox.coalescedMessageCount).reduce(0, +)
            ))
        add(
            "messages_dropped_non_finite", .counter, "Messages not sent because a number in them was not finite.",
            one(stats.nonFiniteMessagesDropped))
        if let replay = input.replay {
            add("replay_frames", .counter, "Recorded frames replayed.", one(replay.playedFrameCount))
        }

        add(
            "frame_latency_seconds", .histogram,
            "Per input frame that delivered something: from its stamp (the kernel's, or when the replay took it) until its writes were done.",
            unit: "seconds", [metrics.frameLatency.sample()])
        return families
    }

    /// A field filter's family: its name after `touchrouter_` and its help.
    static func fieldFamily(_ kind: FieldFilterKind) -> (String, String) {
        switch kind {
        case .blip: ("blips_dropped", "Contacts shorter than filters.minContactMs, dropped (ghost blips), by device.")
        case .stuckPoint:
            (
                "stuck_points_dropped",
                "Contacts at a corner of the sensor, dropped (filters.dropStuckPoints), by device."
            )
        case .bounce:
            (
                "bounces_dropped",
                "Touch-downs right after and beside the last touch-up, dropped (filters.debounceMs), by device."
            )
        case .stuckCancel:
            (
                "stuck_contacts_cancelled",
                "Contacts held still past filters.maxStationarySeconds, cancelled as stuck, by device."
            )
        case .wakeSwallowed:
            ("wake_touches_swallowed", "Touches swallowed for waking the screen (wake.swallow), by device.")
        }
    }
}
