import Foundation
import Glibc
import Testing
import TouchRouterProtocol

/// Touches in flight through a run-time change: a finger on a view that is hidden, moved, mounted or
/// unmounted, and a mounted view's gestures.
extension RuntimeChangeTests {
    /// Waits for a `moved` of the subscribed view, then makes `change`; returns what the
    /// subscriber got from then until its touch ended or was cancelled (touches and layoutChanged,
    /// in order: a touch after a layoutChanged was routed through that layout).
    static func touchThrough(_ subscriber: LineClient, view: String, change: () throws -> Void) throws
        -> [DaemonMessage]
    {
        while let message = try subscriber.readMessage() {
            guard let touches = message.touches else { continue }
            if touches.viewID == view && touches.touches.contains(where: { $0.phase == .moved }) { break }
        }
        try change()
        var after: [DaemonMessage] = []
        while let message = try subscriber.readMessage() {
            after.append(message)
            if let touches = message.touches, touches.touches.contains(where: { $0.phase.isTerminal }) { break }
        }
        return after
    }

    @Test("a finger on a view that is hidden, then moved, keeps going to it, in its new coordinates")
    func hideAndMoveUnderAFinger() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        let owner = try LineClient(socketPath: daemon.socketPath)
        // The empty mount layer on top lets touches through to pad.
        _ = try Self.exchange(owner, #"{"type":"setView","views":{"layer":{"interactive":false}},"seq":0}"#)
        let subscriber = try LineClient(socketPath: daemon.socketPath)
        try subscriber.send(ClientRequest(.subscribe(views: ["pad"], subtree: false), seq: 1))
        guard case .subscribed = try subscriber.readReply() else { throw HarnessError("not subscribed") }
        let after = try Self.touchThrough(subscriber, view: "pad") {
            _ = try Self.exchange(owner, #"{"type":"setView","views":{"pad":{"hidden":true}},"seq":1}"#)
            _ = try Self.exchange(owner, #"{"type":"setView","views":{"pad":{"frame":[100,50,1280,768]}},"seq":2}"#)
        }
        let messages = after.compactMap(\.touches)
        let touches = messages.flatMap(\.touches)
        #expect(!touches.isEmpty)
        #expect(messages.allSatisfy { $0.viewID == "pad" })
        #expect(touches.allSatisfy { $0.phase != .cancelled }, "a hidden view's touch is not cancelled")
        #expect(touches.last?.phase == .ended)
        // Every touch after the frame change's layoutChanged is in the moved view's coordinates.
        guard let moved = after.lastIndex(where: { if case .viewsChanged = $0 { true } else { false } }) else {
            throw HarnessError("no layoutChanged for the frame")
        }
        let shifted = after[moved...].compactMap(\.touches).flatMap(\.touches)
        #expect(!shifted.isEmpty)
        for touch in shifted {
            #expect(touch.localPoint.x == touch.screenPoint.x - 100 && touch.localPoint.y == touch.screenPoint.y - 50)
        }
        // New touch-downs miss the hidden view.
        let (hit, _) = try Self.exchange(owner, #"{"type":"hitTest","point":[600,300],"seq":3}"#)
        guard case .hitTestResult(let result) = hit else { throw HarnessError("no hit-test result") }
        #expect(result.viewID == "app")
    }

    @Test(
        "a touch on a mounted view: cancelled (view-removed) by unmount or the mounter's disconnect, not by a remount",
        arguments: ["unmount", "disconnect", "remount"])
    func mountedViewUnderAFinger(change: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        var mounter: LineClient? = try LineClient(socketPath: daemon.socketPath)
        let mount = #"{"type":"mount","view":"layer","children":[{"id":"popup","frame":[0,0,1280,768]}],"seq":1}"#
        guard case .mounted = try Self.exchange(mounter!, mount).reply else { throw HarnessError("not mounted") }
        let subscriber = try LineClient(socketPath: daemon.socketPath)
        try subscriber.send(ClientRequest(.subscribe(views: ["popup"], subtree: false), seq: 1))
        guard case .subscribed = try subscriber.readReply() else { throw HarnessError("not subscribed") }
        let after = try Self.touchThrough(subscriber, view: "popup") {
            switch change {
            case "unmount": _ = try Self.exchange(mounter!, #"{"type":"unmount","view":"layer","seq":2}"#)
            case "disconnect": mounter = nil
            default: _ = try Self.exchange(mounter!, mount.replacingOccurrences(of: "1280", with: "1000"))
            }
        }
        let last = after.last?.touches?.touches.last
        if change == "remount" {
            #expect(last?.phase == .ended)
        } else {
            #expect(last?.phase == .cancelled && last?.cancelReason == .viewRemoved, "\(after)")
        }
        _ = mounter
    }

    @Test("a mounted view's gestures are recognised, and an unmount cancels its pan")
    func mountedViewGestures() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try Self.startDaemon(directory)
        defer { daemon.stop() }
        let mounter = try LineClient(socketPath: daemon.socketPath)
        let mount =
            #"{"type":"mount","view":"layer","children":[{"id":"map","frame":[0,0,1280,768],"gestures":["pan"]}],"seq":1}"#
        guard case .mounted = try Self.exchange(mounter, mount).reply else { throw HarnessError("not mounted") }
        let subscriber = try LineClient(socketPath: daemon.socketPath)
        try subscriber.send(
            ClientRequest(
                .subscribe(views: ["map"], subtree: false, delivery: Delivery(touches: false, gestures: true)), seq: 1))
        guard case .subscribed = try subscriber.readReply() else { throw HarnessError("not subscribed") }
        // The one-finger drag pans the mounted view: began, then changed.
        var states: [String] = []
        while states.count < 2, let message = try subscriber.readMessage() {
            guard let gesture = message.gesture else { continue }
            #expect(gesture.viewID == "map" && gesture.gesture == "pan")
            states.append(gesture.state)
        }
        #expect(states == ["began", "changed"])
        // Unmounting under the finger cancels the pan (its touch is cancelled: view-removed).
        _ = try Self.exchange(mounter, #"{"type":"unmount","view":"layer","seq":2}"#)
        while let message = try subscriber.readMessage() {
            guard let gesture = message.gesture else { continue }
            if gesture.state != "changed" {
                states.append(gesture.state)
                break
            }
        }
        #expect(states.last == "cancelled")
    }
}
