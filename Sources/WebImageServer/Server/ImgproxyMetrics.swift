import Foundation
import Prometheus
import WebImage

/// The metrics imgproxy exports to Prometheus, under imgproxy's names, types, labels and buckets, so that its
/// dashboards and alerts read this server too. They live in a registry of their own, served on the Prometheus
/// listener (``ProxyOperations/prometheusBind``), beside `/metrics`' `webimage_serve_*` series.
///
/// As in imgproxy, the request series count the requests that reach image processing: not `/health`, not
/// `/metrics`, not a request outside the path prefix or without the secret (imgproxy refuses those before its
/// processing handler's monitoring starts). Spans are what this pipeline times: `queue` (a render waiting for a
/// render thread, or a decode helper), `downloading` (a source's bytes arriving, from a cache tier or the origin),
/// `decoding`, `transforming` and `encoding`.
final class ImgproxyMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let namespace: String
    private let workerCount: Int
    private let requests: Counter
    private let requestDuration: ValueHistogram
    private let workers: Gauge
    private let requestsInProgress: Gauge
    private let imagesInProgress: Gauge
    private let workersUtilization: Gauge
    private let downloadBuffers: ValueHistogram
    private let queue: ValueHistogram
    private let downloading: ValueHistogram
    private let decoding: ValueHistogram
    private let transforming: ValueHistogram
    private let encoding: ValueHistogram
    /// Requests counted in ``requestsInProgress``: kept here, as the gauge is set from it.
    private let inProgress = Locked(0)
    private let counters = Locked<[String: Counter]>([:])

    /// Prometheus client_golang's default histogram buckets, in seconds, which imgproxy's durations use.
    static let durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// imgproxy's download buffer buckets: 1 KiB doubling 14 times, to 8 MiB.
    static let bufferBuckets = (0..<14).map { 1024 * pow(2, Double($0)) }

    /// The metrics, each name after `namespace_` when `namespace` is not empty, with `workers` the render slots.
    init(namespace: String, workers: Int) {
        self.namespace = namespace
        workerCount = workers
        requests = registry.makeCounter(descriptor: Self.name(namespace, "requests", "total",
            "A counter of the total number of HTTP requests imgproxy processed."))
        requestDuration = registry.makeValueHistogram(
            descriptor: Self.name(namespace, "request_duration", "seconds", "A histogram of the response latency."),
            buckets: Self.durationBuckets)
        self.workers = registry.makeGauge(descriptor: Self.name(namespace, "workers", "",
            "A gauge of the number of running workers."))
        self.workers.set(Double(workers))
        requestsInProgress = registry.makeGauge(descriptor: Self.name(namespace, "requests_in_progress", "",
            "A gauge of the number of requests currently being in progress."))
        imagesInProgress = registry.makeGauge(descriptor: Self.name(namespace, "images_in_progress", "",
            "A gauge of the number of images currently being in progress."))
        workersUtilization = registry.makeGauge(descriptor: Self.name(namespace, "workers_utilization", "",
            "A gauge of the workers utilization in percents."))
        downloadBuffers = registry.makeValueHistogram(
            descriptor: Self.name(namespace, "buffer_size", "bytes", "A histogram of the buffer size in bytes."),
            labels: [("type", "download")], buckets: Self.bufferBuckets)
        let registry = registry
        func span(_ name: String) -> ValueHistogram {
            registry.makeValueHistogram(
                descriptor: Self.name(namespace, "request_span_duration", "seconds",
                                      "A histogram of the request spans duration separated by span name."),
                labels: [("span", name)], buckets: Self.durationBuckets)
        }
        queue = span("queue")
        downloading = span("downloading")
        decoding = span("decoding")
        transforming = span("transforming")
        encoding = span("encoding")
    }

    private static func name(_ namespace: String, _ metric: String, _ unit: String, _ help: String)
        -> MetricNameDescriptor
    {
        MetricNameDescriptor(namespace: namespace, metricName: metric, unitName: unit, helpText: help)
    }

    /// A request began: it is in progress until ``requestEnded()``.
    func requestStarted() {
        let count = inProgress.withLock { count in
            count += 1
            return count
        }
        requestsInProgress.set(Double(count))
    }

    func requestEnded() {
        let count = inProgress.withLock { count in
            count -= 1
            return count
        }
        requestsInProgress.set(Double(count))
    }

    /// A request that reached image processing was answered with `status` after `seconds`.
    func answered(status: Int, seconds: Double) {
        requests.increment()
        counter("status_codes", "A counter of the response status codes.", label: ("status", String(status)))
            .increment()
        requestDuration.record(seconds)
        if let type = Self.errorType(status: status) {
            counter("errors", "A counter of the occurred errors separated by type.", label: ("type", type))
                .increment()
        }
    }

    /// The counter `NAME_total{LABEL}`, made on its first use and kept (a registry lookup takes its lock).
    private func counter(_ metric: String, _ help: String, label: (String, String)) -> Counter {
        let key = metric + "\u{0}" + label.1
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = registry.makeCounter(descriptor: Self.name(namespace, metric, "total", help),
                                               labels: [label])
            counters[key] = counter
            return counter
        }
    }

    /// imgproxy's error category of an answer's status; `nil` for a success or a 304.
    static func errorType(status: Int) -> String? {
        switch status {
        case ..<400: nil
        case 400, 403: "security"       // a bad signature, a URL past its expiry
        case 404: "path_parsing"        // a URL that does not parse (also a source not allowed or not found)
        case 413: "image_data_size"
        case 429: "queue"
        case 499, 504: "timeout"        // a client gone, or the request or the download out of time
        case 502, 503: "download"
        default: "processing"           // 422 (a source that does not decode or is over a limit), 500
        }
    }

    /// A source's bytes arrived after `seconds`; `downloadedBytes` when they came from the origin.
    func sourceLoaded(seconds: Double, downloadedBytes: Int?) {
        downloading.record(seconds)
        if let downloadedBytes { downloadBuffers.record(Double(downloadedBytes)) }
    }

    func queued(seconds: Double) { queue.record(seconds) }
    func decoded(seconds: Double) { decoding.record(seconds) }
    func transformed(seconds: Double) { transforming.record(seconds) }
    func encoded(seconds: Double) { encoding.record(seconds) }

    /// The text exposition, with the gauges of work in flight read from `load` now.
    func exposition(_ load: ProxyLoad) -> String {
        let requestCount = inProgress.withLock { $0 }
        imagesInProgress.set(Double(load.renders))
        // imgproxy's measure: requests in progress over workers, in percent (above 100 when requests wait).
        workersUtilization.set(workerCount > 0 ? Double(requestCount) / Double(workerCount) * 100 : 0)
        return registry.emitToString()
    }
}

extension ImgproxyMetrics {
    /// The metrics for `configuration`'s Prometheus listener; `nil` without one (nothing to count for).
    convenience init?(_ configuration: ProxyConfiguration) {
        guard configuration.operations.prometheusBind != nil else { return nil }
        self.init(namespace: configuration.operations.prometheusNamespace, workers: configuration.workers)
    }
}

extension ImageProxy {
    /// Whether imgproxy would have counted `request`: a `GET` or `HEAD` inside the path prefix, with the secret,
    /// for neither health path nor `/metrics`.
    func reachesProcessing(_ request: ProxyRequest) -> Bool {
        guard request.method == "GET" || request.method == "HEAD", let inner = access.inside(request),
              access.admits(request)
        else { return false }
        return !isOperationsPath(inner.path)
    }

    /// imgproxy's metrics as Prometheus text, for the Prometheus listener; `nil` without one.
    var imgproxyExposition: String? { metrics.imgproxy?.exposition(load) }
}
