/// The `metrics` reply's text: metric families written as OpenMetrics 1.0 text (what
/// `touchrouterctl metrics` prints) or as Prometheus' text format 0.0.4 (what node_exporter's
/// textfile collector reads). Pure; the daemon fills the families (docs/metrics.md lists them).

/// The two text formats a `metrics` request may ask for.
public enum MetricsFormat: String, Hashable, Sendable, CaseIterable {
    /// OpenMetrics 1.0 text: `# UNIT` lines, counter families named without `_total` in `# HELP`
    /// and `# TYPE`, and `# EOF` at the end.
    case openMetrics = "openmetrics"
    /// Prometheus text format 0.0.4, for node_exporter's textfile collector, whose parser reads a
    /// counter's `# TYPE` under its sample's name (`…_total`) and knows no `# UNIT` or `# EOF`.
    case prometheus
}

/// One metric family: a name, its type, one line of help and its samples.
public struct MetricFamily: Sendable {
    /// The family's type. Enumerations (a screen's state) are gauges with a `state` label, valid in
    /// both formats.
    public enum Kind: String, Hashable, Sendable {
        case counter, gauge, histogram
    }

    /// The name without `_total`: `touchrouter_touches` for the samples `touchrouter_touches_total`.
    /// With a `unit`, it ends with `_` and the unit.
    public var name: String
    public var kind: Kind
    /// One line, no newline.
    public var help: String
    /// `seconds`, `bytes`…; nil for a plain count.
    public var unit: String?
    public var samples: [MetricSample]

    /// A family; `unit`, when given, must end `name` (`…_seconds`).
    public init(name: String, kind: Kind, help: String, unit: String? = nil, samples: [MetricSample]) {
        self.name = name
        self.kind = kind
        self.help = help
        self.unit = unit
        self.samples = samples
    }
}

/// A label name and its value (any text: it is escaped when written).
public struct MetricLabel: Hashable, Sendable {
    public var name: String
    public var value: String

    /// A label.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A value: a count, or a time in microseconds written in seconds.
public enum MetricValue: Hashable, Sendable {
    case count(UInt64)
    case micros(UInt64)
}

/// One sample of a family: its labels and its value, or a histogram's buckets.
public struct MetricSample: Sendable {
    public var labels: [MetricLabel]
    public var value: MetricValue
    /// For a histogram: `(upper bound, how many values were at most that)` per bucket, bounds
    /// increasing, the counts cumulative; `value` is the sum, `count` how many values in all
    /// (the `+Inf` bucket).
    public var buckets: [(upperBound: MetricValue, cumulativeCount: UInt64)]
    public var count: UInt64

    /// A counter's or gauge's sample without labels.
    public init(_ value: MetricValue) {
        self.init([], value)
    }

    /// A counter's or gauge's sample.
    public init(_ labels: [MetricLabel], _ value: MetricValue) {
        self.labels = labels
        self.value = value
        buckets = []
        count = 0
    }

    /// A histogram's sample: cumulative buckets, the count of every value and their sum.
    public init(
        _ labels: [MetricLabel] = [], buckets: [(upperBound: MetricValue, cumulativeCount: UInt64)], count: UInt64,
        sum: MetricValue
    ) {
        self.labels = labels
        self.value = sum
        self.buckets = buckets
        self.count = count
    }
}

/// Writes families as text. Cost: linear in the samples and their labels' bytes.
public enum MetricsText {
    /// The families in `format`, in the order given, each with its `# HELP` and `# TYPE` lines.
    public static func render(_ families: [MetricFamily], format: MetricsFormat) -> String {
        var text = ""
        for family in families {
            let typed = format == .prometheus && family.kind == .counter ? family.name + "_total" : family.name
            text += "# HELP \(typed) \(escapedHelp(family.help, format: format))\n"
            text += "# TYPE \(typed) \(family.kind.rawValue)\n"
            if format == .openMetrics, let unit = family.unit { text += "# UNIT \(family.name) \(unit)\n" }
            for sample in family.samples {
                switch family.kind {
                case .counter:
                    text += line(family.name + "_total", sample.labels, number(sample.value))
                case .gauge:
                    text += line(family.name, sample.labels, number(sample.value))
                case .histogram:
                    for bucket in sample.buckets {
                        text += line(
                            family.name + "_bucket", sample.labels + [MetricLabel("le", number(bucket.upperBound))],
                            String(bucket.cumulativeCount))
                    }
                    text += line(
                        family.name + "_bucket", sample.labels + [MetricLabel("le", "+Inf")], String(sample.count))
                    text += line(family.name + "_count", sample.labels, String(sample.count))
                    text += line(family.name + "_sum", sample.labels, number(sample.value))
                }
            }
        }
        if format == .openMetrics { text += "# EOF\n" }
        return text
    }

    /// A label value as both formats quote it: backslash, double quote and newline escaped; every
    /// other character (a carriage return, `}`, `#`) is written as it is, inside the quotes.
    public static func escapedLabelValue(_ value: String) -> String {
        escaped(value, quote: true)
    }

    /// Help text: backslash and newline escaped (both formats), and the double quote in OpenMetrics,
    /// whose grammar has no bare one (Prometheus' parser takes no escaped quote in help).
    static func escapedHelp(_ help: String, format: MetricsFormat) -> String {
        escaped(help, quote: format == .openMetrics)
    }

    private static func escaped(_ text: String, quote: Bool) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"" where quote: escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    static func line(_ name: String, _ labels: [MetricLabel], _ value: String) -> String {
        guard !labels.isEmpty else { return "\(name) \(value)\n" }
        let written = labels.map { "\($0.name)=\"\(escapedLabelValue($0.value))\"" }.joined(separator: ",")
        return "\(name){\(written)} \(value)\n"
    }

    /// A count as an integer; microseconds as seconds, exactly (`0.00005`, `1.5`, `0`).
    static func number(_ value: MetricValue) -> String {
        switch value {
        case .count(let count):
            return String(count)
        case .micros(let micros):
            let fraction = micros % 1_000_000
            guard fraction != 0 else { return String(micros / 1_000_000) }
            var digits = String(fraction)
            digits = String(repeating: "0", count: 6 - digits.count) + digits
            while digits.last == "0" { digits.removeLast() }
            return "\(micros / 1_000_000).\(digits)"
        }
    }
}
