import Foundation
import TouchRouterCore

/// libFuzzer entry point for the config parser (`scripts/fuzz config SECONDS`): any bytes must give a
/// config or located errors, never a crash, a hang or a leak, and no message may quote more than an
/// excerpt of the input. At most `maxReportedErrors` errors are listed, then one counting the rest;
/// an accepted config has every number within `GeometryBounds` (so every composed transform is
/// finite).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let limits = ConfigLimits(maxViews: 5000, maxReportedErrors: 50)
    do {
        let config = try Config.parse(data, fileName: "fuzz.json5", limits: limits)
        precondition(!config.layout.screens.isEmpty, "a config without screens was accepted")
        for screen in config.layout.screens {
            precondition(
                GeometryBounds.isCoordinate(screen.width) && GeometryBounds.isCoordinate(screen.height),
                "a screen size beyond the bounds")
            var stack = [(screen.root, ComposedScale.identity)]
            while let (view, above) = stack.popLast() {
                let frame = view.frame
                precondition(
                    [frame.x, frame.y, frame.width, frame.height].allSatisfy(GeometryBounds.isCoordinate)
                        && frame.width > 0 && frame.height > 0, "a frame beyond the bounds: \(frame)")
                let margin = view.touchMargin
                precondition(
                    [margin.top, margin.left, margin.bottom, margin.right].allSatisfy {
                        $0 >= 0 && GeometryBounds.isCoordinate($0)
                    }, "a margin beyond the bounds")
                precondition(GeometryBounds.isWithinBounds(view.transform), "a transform beyond the bounds")
                let composed = above.then(view.transform)
                precondition(composed.isWithinBounds, "scales multiplying beyond the bounds")
                for child in view.children { stack.append((child, composed)) }
            }
        }
    } catch {
        precondition(!error.errors.isEmpty, "an empty error list was thrown")
        precondition(error.errors.count <= limits.maxReportedErrors + 1, "more errors listed than the limit")
        for problem in error.errors {
            precondition(!problem.message.isEmpty, "an error without a message")
            precondition(
                problem.message.unicodeScalars.count <= 400, "a message too long: \(problem.message.prefix(200))")
            precondition(problem.description.unicodeScalars.count <= 1000, "an error line too long")
        }
    }
    return 0
}
