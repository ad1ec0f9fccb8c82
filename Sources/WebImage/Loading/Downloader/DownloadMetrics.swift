import Metrics

/// The downloader's counters (swift-metrics): transfers started, bytes received, callers that joined a running
/// transfer, retries, and failures by error code.
struct DownloadMetrics: Sendable {
    /// Network requests sent (every attempt, including retries).
    let requests: Counter
    /// Body bytes received by finished transfers.
    let bytes: Counter
    /// Callers served by a transfer that was already queued or running.
    let coalescedJoins: Counter
    /// Attempts after the first.
    let retries: Counter
    private let errors: ErrorCounters

    static let requestsLabel = "webimage_download_requests_total"
    static let bytesLabel = "webimage_download_bytes_total"
    static let coalescedLabel = "webimage_download_coalesced_joins_total"
    static let retriesLabel = "webimage_download_retries_total"
    static let errorsLabel = "webimage_download_errors_total"

    init(factory: (any MetricsFactory)?) {
        let factory = factory ?? MetricsSystem.factory
        requests = Counter(label: Self.requestsLabel, factory: factory)
        bytes = Counter(label: Self.bytesLabel, factory: factory)
        coalescedJoins = Counter(label: Self.coalescedLabel, factory: factory)
        retries = Counter(label: Self.retriesLabel, factory: factory)
        errors = ErrorCounters(label: Self.errorsLabel, factory: factory)
    }

    func recordError(_ code: ImageError.Code) {
        errors.record(code)
    }
}
