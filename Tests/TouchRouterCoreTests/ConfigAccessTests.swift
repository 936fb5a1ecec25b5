import Foundation
import Testing

@testable import TouchRouterCore

/// The `access` key of a view: parsed into `Config.viewAccess` by view id, names kept as written.
@Suite("Config access lists")
struct ConfigAccessTests {
    @Test("users and groups by name or id; views without a list have no entry")
    func parsed() throws {
        let text = fileWithChildren(
            """
            { id: "pin", frame: [0, 0, 50, 50], access: { users: ["kiosk", 1000], groups: ["touch", 27] },
              children: [{ id: "pin-ok", frame: [0, 0, 10, 10], access: { groups: ["_staff.team-1"] } }] },
            { id: "open", frame: [50, 50, 50, 50] },
            """)
        let config = try Config.parse(Data(text.utf8), fileName: "access.json5")
        #expect(
            config.viewAccess == [
                "pin": AccessList(users: [.name("kiosk"), .id(1000)], groups: [.name("touch"), .id(27)]),
                "pin-ok": AccessList(groups: [.name("_staff.team-1")]),
            ])
        #expect(config.layout.screens[0].root.children.map(\.id) == ["pin", "open"])
    }

    /// Names are at most 32 characters (useradd's limit): 32 is taken, 33 is not.
    @Test("a user name of 32 characters is taken, one of 33 is refused")
    func nameLength() throws {
        let name32 = "k" + String(repeating: "x", count: 31)
        let taken = try Config.parse(
            Data(fileWithChildren(#"{ id: "pin", frame: [0, 0, 50, 50], access: { users: ["\#(name32)"] } },"#).utf8),
            fileName: "access.json5")
        #expect(taken.viewAccess["pin"] == AccessList(users: [.name(name32)]))
        #expect(throws: ConfigErrors.self) {
            try Config.parse(
                Data(
                    fileWithChildren(#"{ id: "pin", frame: [0, 0, 50, 50], access: { users: ["\#(name32)y"] } },"#)
                        .utf8), fileName: "access.json5")
        }
    }

    @Test("the top-level \"access\" key stays reserved")
    func topLevelStillReserved() throws {
        let text = "{ access: {}, screens: [{ name: \"main\", width: 1, height: 1, root: { id: \"r\" } }] }"
        #expect(throws: ConfigErrors.self) { try Config.parse(Data(text.utf8), fileName: "top.json5") }
        do {
            _ = try Config.parse(Data(text.utf8), fileName: "top.json5")
        } catch {
            #expect(error.errors.map(\.code) == [.reservedKey])
        }
    }
}
