import TouchRouterCore

/// Random protocol values for property tests, from a seeded generator.
enum TestData {
    /// Names that exercise JSON string escaping and non-ASCII UTF-8.
    static let awkwardNames: [String] = [
        "main", "keypad/7", "quote\"inside", "back\\slash", "tab\there", "new\nline", "\r\u{8}\u{c}",
        "nul\u{0}byte", "\u{1}\u{1f}\u{7f}", "ünïcødé", "日本語のビュー", "emoji 👆🏽", "", " ", "</script>",
        "\u{2028}\u{2029}", "a\"b\\c\"d",
    ]

    static func name(_ random: inout SeededRandom) -> String {
        if Bool.random(using: &random) { return awkwardNames.randomElement(using: &random)! }
        let length = Int.random(in: 0...12, using: &random)
        let scalars = (0..<length).map { _ -> Character in
            let value = [
                UInt32.random(in: 0...0x7F, using: &random), UInt32.random(in: 0x80...0x7FF, using: &random),
                UInt32.random(in: 0x800...0xD7FF, using: &random),
                UInt32.random(in: 0x1F300...0x1F6FF, using: &random),
            ].randomElement(using: &random)!
            return Character(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }

    static func coordinate(_ random: inout SeededRandom) -> Double {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return Double(Int.random(in: -2000...4000, using: &random))
        case 1: return Double.random(in: 0..<1920, using: &random)
        case 2: return Double.random(in: -1e-3...1e-3, using: &random)
        case 3: return Double.random(in: -1e22...1e22, using: &random)
        case 4:
            return [
                0.0, -0.0, 0.1, 1e-7, 1e16, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude,
                -1.5,
            ].randomElement(
                using: &random)!
        case 5: return Double(Int.random(in: 0...1920, using: &random)) + 0.5
        case 6: return Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random)).finiteOrZero
        default: return Double.random(in: -100...100, using: &random)
        }
    }

    static func point(_ random: inout SeededRandom) -> Point {
        Point(coordinate(&random), coordinate(&random))
    }

    static func touch(_ random: inout SeededRandom, id: UInt64? = nil, phase: TouchPhase? = nil)
        -> RoutedTouch
    {
        let phase = phase ?? TouchPhase.allCases.randomElement(using: &random)!
        return RoutedTouch(
            id: id ?? UInt64.random(in: 0...(1 << 53 - 1), using: &random), phase: phase,
            localPoint: point(&random), screenPoint: point(&random), previousLocalPoint: point(&random),
            timestampMicros: UInt64.random(in: 0...(1 << 53 - 1), using: &random),
            tapCount: Int.random(in: 0...5, using: &random),
            device: InputDevice(id: UInt32.random(in: 0...9, using: &random), name: name(&random)),
            cancelReason: phase == .cancelled ? CancelReason.allCases.randomElement(using: &random)! : nil)
    }

    static func viewTouches(_ random: inout SeededRandom, touchCount: Int? = nil) -> ViewTouches {
        let count = touchCount ?? Int.random(in: 0...10, using: &random)
        return ViewTouches(
            viewID: name(&random), screen: name(&random),
            timestampMicros: UInt64.random(in: 0...(1 << 53 - 1), using: &random),
            touches: (0..<count).map { _ in touch(&random) })
    }
}

extension Double {
    var finiteOrZero: Double { isFinite ? self : 0 }
}
