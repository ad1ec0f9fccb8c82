import Metrics

/// One swift-metrics counter per `ImageError.Code`, under one label with a `code` dimension: how the
/// downloader and the manager count their failures.
struct ErrorCounters: Sendable {
    private let counters: [ImageError.Code: Counter]

    init(label: String, factory: any MetricsFactory) {
        var counters: [ImageError.Code: Counter] = [:]
        for code in ImageError.Code.allCases {
            counters[code] = Counter(label: label, dimensions: [("code", code.rawValue)], factory: factory)
        }
        self.counters = counters
    }

    func record(_ code: ImageError.Code) {
        counters[code]?.increment()
    }
}
