import Testing
import TouchRouterInput

/// Removals and controller resets as the reader counts them: a device taken under the name of one
/// removed before is a return; names are bounded.
@Suite("Device churn")
struct DeviceChurnTests {
    @Test("a device removed and taken again under its name is one removal and one return; a new one is neither")
    func resetCounted() {
        var churn = DeviceChurn()
        churn.taken("ILITEK")
        churn.taken("eGalax")
        #expect(churn.removals.entries.isEmpty && churn.returns.entries.isEmpty)
        churn.removed("ILITEK")
        churn.taken("ILITEK")
        churn.removed("ILITEK")
        churn.taken("ILITEK")
        #expect(churn.removals["ILITEK"] == 2 && churn.returns["ILITEK"] == 2)
        #expect(churn.removals["eGalax"] == 0 && churn.returns["eGalax"] == 0)
    }

    @Test("10,000 device names: at most 64 are counted by name")
    func boundedNames() {
        var churn = DeviceChurn()
        for index in 0..<10_000 {
            churn.removed("device \(index)")
            churn.taken("device \(index)")
        }
        #expect(churn.removals.entries.count == DeviceChurn.maximumNames)
        #expect(churn.returns.entries.count == DeviceChurn.maximumNames)
    }
}
