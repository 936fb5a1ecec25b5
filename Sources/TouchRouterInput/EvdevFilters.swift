// What the kernel and libinput do to a position value before the decoder uses it, as pure
// arithmetic: the kernel's defuzz and drop of unchanged values, libinput's touch hysteresis.

/// The value filters `MultitouchDecoder` applies, each a pure function of its inputs.
enum EvdevFilters {
    /// The kernel's handling of an ABS value before a client sees it (`input_defuzz_abs_event`):
    /// defuzzed against the current value `old` (nil: unknown) with the axis's `fuzz`, then dropped
    /// (nil) when it equals the current value. Updates `old` with the value passed on.
    static func kernelFilter(_ value: Int32, fuzz: Int64, old: inout Int32?) -> Int32? {
        var value = value
        if let current = old {
            if fuzz != 0 {
                let v = Int64(value)
                let o = Int64(current)
                if v > o - fuzz / 2 && v < o + fuzz / 2 {
                    value = current
                } else if v > o - fuzz && v < o + fuzz {
                    value = Int32(truncatingIfNeeded: (o * 3 + v) / 4)
                } else if v > o - fuzz * 2 && v < o + fuzz * 2 {
                    value = Int32(truncatingIfNeeded: (o + v) / 2)
                }
            }
            guard value != current else { return nil }
        }
        old = value
        return value
    }

    /// libinput's touch hysteresis (`evdev_hysteresis`): the position a finger at (`x`, `y`) is
    /// reported at, given the centre it last dragged and the ellipse's radii `margin`. Inside the
    /// ellipse: the centre (libinput drops the motion); outside: the finger's position pulled back
    /// onto the ellipse, so the centre follows the finger.
    static func hysteresis(x: Int32, y: Int32, centreX: Int32, centreY: Int32, margin: (x: Int32, y: Int32))
        -> (x: Int32, y: Int32)
    {
        guard margin.x != 0 && margin.y != 0 else { return (x, y) }
        // In Double: a jump across the whole Int32 range squares past Int64.
        let dx = Double(Int64(x) - Int64(centreX))
        let dy = Double(Int64(y) - Int64(centreY))
        let a = Double(margin.x)
        let b = Double(margin.y)
        let normalized = (dx * dx / (a * a) + dy * dy / (b * b)).squareRoot()
        if normalized < 1 { return (centreX, centreY) }
        let fingerDistance = (dx * dx + dy * dy).squareRoot()
        let marginDistance = fingerDistance / normalized
        let lagX: Double
        let lagY: Double
        if dx != 0 {
            let gradient = dy / dx
            lagX = marginDistance / (gradient * gradient + 1).squareRoot()
            lagY = ((marginDistance + lagX) * (marginDistance - lagX)).squareRoot()
        } else {
            lagX = 0
            lagY = marginDistance
        }
        return (
            truncated(dx >= 0 ? Double(x) - lagX : Double(x) + lagX),
            truncated(dy >= 0 ? Double(y) - lagY : Double(y) + lagY)
        )
    }

    /// C's double → int conversion (toward zero), clamped.
    static func truncated(_ value: Double) -> Int32 {
        guard value.isFinite else { return 0 }
        return Int32(Swift.max(Double(Int32.min), Swift.min(Double(Int32.max), value.rounded(.towardZero))))
    }
}
