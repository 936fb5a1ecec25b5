import Foundation
import Testing
import TouchRouterCore

/// A panel for the passthrough tests: screen "main" (1000 × 1000 layout units at the fallback
/// 0.2646 mm per unit) whose root passes through, with native regions in it, and a second
/// screen "side" whose root passes through too.
enum PassthroughFixture {
    static let panel = InputDevice(id: 1, name: "panel")
    static let sidePanel = InputDevice(id: 2, name: "side panel")

    /// `rootKeys` go on main's root (`passthrough: true,` unless given), `screenKeys` on main.
    /// Views: `native` (subscribed in `router()`), `banner` (nobody subscribed), `dead`
    /// (`passthrough: false`), `locked` (an access list), `pinch` (`maxTouches: 1`), `mouse`
    /// (pointer mode).
    static func text(
        rootKeys: String = "passthrough: true,", screenKeys: String = "",
        pinchKeys: String =
            "passthrough: { maxTouches: 1 },", mouseKeys: String = #"passthrough: { mode: "pointer" },"#
    ) -> String {
        """
        {
          screens: [{
            name: "main", width: 1000, height: 1000, \(screenKeys)
            root: {
              id: "root", \(rootKeys)
              children: [
                { id: "native", frame: [0, 0, 200, 200] },
                { id: "banner", frame: [300, 0, 200, 200] },
                { id: "dead", frame: [600, 0, 200, 200], passthrough: false },
                { id: "locked", frame: [0, 300, 200, 200], access: { users: [0] } },
                { id: "pinch", frame: [300, 300, 400, 400], \(pinchKeys) },
                { id: "mouse", frame: [0, 750, 400, 250], \(mouseKeys) },
              ],
            },
          }, {
            name: "side", width: 500, height: 500,
            root: { id: "sideRoot", passthrough: true },
          }],
        }
        """
    }

    static func config(_ text: String = text()) throws -> Config {
        try Config.parse(Data(text.utf8), fileName: "passthrough.json5")
    }

    /// A Router with client 7 subscribed to `native`, and `more` subscriptions.
    static func router(_ config: Config, subscribing more: [String: ClientID] = [:]) -> Router {
        var router = Router(config: config, nowMicros: 0)
        var table = router.subscriptions
        for (view, client) in (more.merging(["native": 7]) { first, _ in first }).sorted(by: { $0.key < $1.key }) {
            #expect(table.subscribe(client, to: [view], subtree: false).isEmpty)
        }
        router.replaceSubscriptions(table)
        return router
    }

    static func frame(_ time: UInt64, _ contacts: ContactEvent..., screen: String = "main") -> InputEvent {
        .frame(
            InputFrame(
                device: screen == "main" ? panel : sidePanel, screen: screen, timestampMicros: time,
                contacts: contacts))
    }

    static func down(_ slot: Int32, _ x: Double, _ y: Double) -> ContactEvent {
        ContactEvent(kind: .down, slot: slot, screenPoint: Point(x, y))
    }

    static func move(_ slot: Int32, _ x: Double, _ y: Double) -> ContactEvent {
        ContactEvent(kind: .motion, slot: slot, screenPoint: Point(x, y))
    }

    static func up(_ slot: Int32) -> ContactEvent { ContactEvent(kind: .up, slot: slot) }

    /// Each passthrough frame as `screen: phase slot#id (x,y), …` or `screen: move(x,y) press(x,y,left) …`.
    static func passed(_ routed: [Routed]) -> [String] {
        routed.compactMap { item in
            guard case .passthrough(let frame) = item else { return nil }
            let contacts = frame.contacts.map {
                "\($0.phase.rawValue) \($0.slot)#\($0.trackingID) \(point($0.location))"
            }
            let pointer = frame.pointer.map { action -> String in
                switch action {
                case .move(let p): "move\(point(p))"
                case .press(let p, let button): "press\(point(p)) \(button.rawValue)"
                case .release(let p, let button): "release\(point(p)) \(button.rawValue)"
                }
            }
            return "\(frame.screen): " + (contacts + pointer).joined(separator: ", ")
        }
    }

    /// The socket deliveries as `view phases → clients`.
    static func socket(_ routed: [Routed]) -> [String] {
        routed.compactMap { item in
            guard case .touches(let touches, let clients) = item else { return nil }
            return "\(touches.viewID) \(touches.touches.map(\.phase.rawValue).joined(separator: ",")) → \(clients)"
        }
    }

    static func point(_ p: Point) -> String {
        "(\(ConfigNumber.text(p.x)),\(ConfigNumber.text(p.y)))"
    }

    static func statistics(_ router: Router, _ screen: String = "main") -> PassthroughStatistics? {
        router.passthroughStatistics.first { $0.screen == screen }?.statistics
    }
}

/// Numbers as a person writes them (10, not 10.0).
enum ConfigNumber {
    static func text(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : "\(value)"
    }
}
