import Foundation
import TouchRouterCore

/// libFuzzer entry point for the config parser (`scripts/fuzz config SECONDS`): any bytes must give a
/// config or located errors, never a crash, a hang or a leak, and no message may quote more than an
/// excerpt of the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    do {
        let config = try Config.parse(data, fileName: "fuzz.json5", limits: ConfigLimits(maxViews: 5000))
        precondition(!config.layout.screens.isEmpty, "a config without screens was accepted")
    } catch {
        precondition(!error.errors.isEmpty, "an empty error list was thrown")
        for problem in error.errors {
            precondition(!problem.message.isEmpty, "an error without a message")
            precondition(problem.message.unicodeScalars.count <= 400, "a message too long: \(problem.message.prefix(200))")
            precondition(problem.description.unicodeScalars.count <= 1000, "an error line too long")
        }
    }
    return 0
}
