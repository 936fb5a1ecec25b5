import Testing

@testable import TouchRouterProtocol

/// The metrics text: both formats' framing, label escaping, seconds written exactly, the latency
/// histogram's buckets, and the `metrics` request and reply on the wire.
@Suite("Metrics text")
struct MetricsTextTests {
    static let families = [
        MetricFamily(
            name: "touchrouter_touches", kind: .counter, help: "Touches, by screen.",
            samples: [MetricSample([MetricLabel("screen", "main")], .count(3))]),
        MetricFamily(
            name: "touchrouter_clients", kind: .gauge, help: "Clients now.", samples: [MetricSample(.count(2))]),
        MetricFamily(
            name: "touchrouter_uptime_seconds", kind: .gauge, help: "Uptime.", unit: "seconds",
            samples: [MetricSample(.micros(1_500_000))]),
    ]

    @Test("OpenMetrics: HELP, TYPE and UNIT under the family name, counters' samples with _total, # EOF last")
    func openMetrics() {
        #expect(
            MetricsText.render(Self.families, format: .openMetrics) == """
                # HELP touchrouter_touches Touches, by screen.
                # TYPE touchrouter_touches counter
                touchrouter_touches_total{screen="main"} 3
                # HELP touchrouter_clients Clients now.
                # TYPE touchrouter_clients gauge
                touchrouter_clients 2
                # HELP touchrouter_uptime_seconds Uptime.
                # TYPE touchrouter_uptime_seconds gauge
                # UNIT touchrouter_uptime_seconds seconds
                touchrouter_uptime_seconds 1.5
                # EOF

                """)
    }

    @Test("Prometheus text: a counter's HELP and TYPE name its samples (_total); no UNIT, no # EOF")
    func prometheus() {
        #expect(
            MetricsText.render(Self.families, format: .prometheus) == """
                # HELP touchrouter_touches_total Touches, by screen.
                # TYPE touchrouter_touches_total counter
                touchrouter_touches_total{screen="main"} 3
                # HELP touchrouter_clients Clients now.
                # TYPE touchrouter_clients gauge
                touchrouter_clients 2
                # HELP touchrouter_uptime_seconds Uptime.
                # TYPE touchrouter_uptime_seconds gauge
                touchrouter_uptime_seconds 1.5

                """)
    }

    @Test(
        "a label value's backslash, quote and newline are escaped; nothing in it ends the line or the labels",
        arguments: [
            ("plain", "plain"), ("a\"b", "a\\\"b"), ("a\\b", "a\\\\b"), ("a\nb", "a\\nb"),
            ("x\"} 1\n# EOF\n", "x\\\"} 1\\n# EOF\\n"), ("\\\"", "\\\\\\\""), ("Écran ✋", "Écran ✋"),
        ])
    func escaping(value: String, escaped: String) {
        #expect(MetricsText.escapedLabelValue(value) == escaped)
        let text = MetricsText.render(
            [
                MetricFamily(
                    name: "touchrouter_x", kind: .counter, help: "X.",
                    samples: [MetricSample([MetricLabel("device", value)], .count(1))])
            ], format: .openMetrics)
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == 5)
        #expect(text.contains("touchrouter_x_total{device=\"\(escaped)\"} 1\n"))
    }

    @Test("help text: OpenMetrics escapes the quote, Prometheus (which has no such escape in help) does not")
    func helpEscaping() {
        let family = MetricFamily(name: "x", kind: .gauge, help: "a \"b\" \\ c\nd", samples: [])
        #expect(MetricsText.render([family], format: .openMetrics).hasPrefix("# HELP x a \\\"b\\\" \\\\ c\\nd\n"))
        #expect(MetricsText.render([family], format: .prometheus).hasPrefix("# HELP x a \"b\" \\\\ c\\nd\n"))
    }

    @Test(
        "microseconds as seconds, exactly",
        arguments: [
            (0, "0"), (50, "0.00005"), (1, "0.000001"), (2_500, "0.0025"), (1_000_000, "1"), (12_345_678, "12.345678"),
        ] as [(UInt64, String)])
    func seconds(micros: UInt64, text: String) {
        #expect(MetricsText.number(.micros(micros)) == text)
    }

    @Test("the latency histogram: bounds inclusive, cumulative buckets, +Inf, count and sum in seconds")
    func histogram() {
        var histogram = LatencyHistogram()
        for micros: UInt64 in [0, 50, 51, 100, 40_000, 50_001, 2_000_000] { histogram.record(micros) }
        let text = MetricsText.render(
            [
                MetricFamily(
                    name: "touchrouter_frame_latency_seconds", kind: .histogram, help: "Latency.", unit: "seconds",
                    samples: [histogram.sample()])
            ], format: .openMetrics)
        let buckets = text.split(separator: "\n").filter { $0.hasPrefix("touchrouter_frame_latency_seconds_bucket") }
        #expect(
            buckets == [
                "touchrouter_frame_latency_seconds_bucket{le=\"0.00005\"} 2",
                "touchrouter_frame_latency_seconds_bucket{le=\"0.0001\"} 4",
                "touchrouter_frame_latency_seconds_bucket{le=\"0.00025\"} 4",
                "touchrouter_frame_latency_seconds_bucket{le=\"0.0005\"} 4",
                "touchrouter_frame_latency_seconds_bucket{le=\"0.001\"} 4",
                "touchrouter_frame_latency_seconds_bucket{le=\"0.0025\"} 4",
                "touchrouter_frame_latency_seconds_bucket{le=\"0.005\"} 4",
                "touchrouter_frame_latency_seconds_bucket{le=\"0.01\"} 4",
                "touchrouter_frame_latency_seconds_bucket{le=\"0.025\"} 4",
                "touchrouter_frame_latency_seconds_bucket{le=\"0.05\"} 5",
                "touchrouter_frame_latency_seconds_bucket{le=\"+Inf\"} 7",
            ])
        #expect(text.contains("\ntouchrouter_frame_latency_seconds_count 7\n"))
        #expect(text.contains("\ntouchrouter_frame_latency_seconds_sum 2.090202\n"))
    }

    @Test("the metrics request and reply round-trip; a format the daemon does not write is refused")
    func wire() throws {
        let request = ClientRequest(.metrics(format: .prometheus), seq: 4)
        #expect(
            String(decoding: request.encodedLine(), as: UTF8.self)
                == "{\"type\":\"metrics\",\"format\":\"prometheus\",\"seq\":4}\n")
        #expect(
            RequestDecoder.decode(line: Array("{\"type\":\"metrics\"}".utf8))
                == .request(ClientRequest(.metrics(format: .openMetrics))))
        let reply = DaemonMessage.metrics(format: .openMetrics, text: "a 1\n# EOF\n", seq: 4)
        let line = reply.encodedLine()
        #expect(
            String(decoding: line, as: UTF8.self)
                == "{\"type\":\"metrics\",\"format\":\"openmetrics\",\"text\":\"a 1\\n# EOF\\n\",\"seq\":4}\n")
        #expect(try DaemonMessageDecoder.decode(line: line.dropLast()).get() == reply)
        guard
            case .error(let error) = RequestDecoder.decode(
                line: Array("{\"type\":\"metrics\",\"format\":\"json\"}".utf8))
        else {
            Issue.record("a bad format was accepted")
            return
        }
        #expect(error.message.contains("openmetrics"))
    }
}
