import Metrics
import Foundation
import Prometheus
import WebImage

/// The proxy's metrics, in one Prometheus registry with the library's own (the downloader's requests, bytes,
/// joined fetches and errors), served as text by `GET /metrics`. The stages timed here are also the steps of the
/// traced request they work for (``RequestTrace/current``).
final class ProxyMetrics: Sendable {
    /// Where every metric of this proxy lives.
    let registry: PrometheusCollectorRegistry
    /// The factory the downloader is given, so its metrics land in ``registry`` too.
    let factory: PrometheusMetricsFactory
    private let requestTime: CoreMetrics.Timer
    private let sourceTime: CoreMetrics.Timer
    private let decodeTime: CoreMetrics.Timer
    private let sourceHits: CoreMetrics.Counter
    private let sourceMemoryHits: CoreMetrics.Counter
    private let transformTime: CoreMetrics.Timer
    private let encodeTime: CoreMetrics.Timer
    private let queueDepth: CoreMetrics.Gauge
    private let rendersInFlight: CoreMetrics.Gauge
    private let rendering: CoreMetrics.Gauge
    private let downloading: CoreMetrics.Gauge
    private let downloadsQueued: CoreMetrics.Gauge
    private let helperDecodes: CoreMetrics.Gauge
    private let helperDecodesQueued: CoreMetrics.Gauge
    private let memoryHits: CoreMetrics.Counter
    private let diskHits: CoreMetrics.Counter
    private let redisHits: CoreMetrics.Counter
    private let sourceRedisHits: CoreMetrics.Counter
    private let misses: CoreMetrics.Counter
    private let rememberedFailures: CoreMetrics.Counter
    private let fallbackAnswers: CoreMetrics.Counter
    private let stoppedOverBudget: CoreMetrics.Counter
    private let stoppedAbandoned: CoreMetrics.Counter
    private let refusedOverMemory: CoreMetrics.Counter
    private let qualitySearches: CoreMetrics.Counter
    private let qualitySearchEncodes: CoreMetrics.Counter
    /// One counter per status seen: made once, not per request (a factory lookup takes its lock).
    private let byStatus = Locked<[Int: CoreMetrics.Counter]>([:])
    /// The same events under imgproxy's names, for the Prometheus listener, when there is one.
    let imgproxy: ImgproxyMetrics?

    init(registry: PrometheusCollectorRegistry, imgproxy: ImgproxyMetrics? = nil) {
        self.registry = registry
        self.imgproxy = imgproxy
        factory = PrometheusMetricsFactory(registry: registry)
        requestTime = CoreMetrics.Timer(label: "webimage_serve_request_seconds", factory: factory)
        sourceTime = CoreMetrics.Timer(label: "webimage_serve_source_seconds", factory: factory)
        decodeTime = CoreMetrics.Timer(label: "webimage_serve_decode_seconds", factory: factory)
        sourceHits = CoreMetrics.Counter(label: "webimage_serve_source_cache_hits_total", factory: factory)
        sourceMemoryHits = CoreMetrics.Counter(label: "webimage_serve_source_memory_hits_total", factory: factory)
        transformTime = CoreMetrics.Timer(label: "webimage_serve_transform_seconds", factory: factory)
        encodeTime = CoreMetrics.Timer(label: "webimage_serve_encode_seconds", factory: factory)
        qualitySearches = CoreMetrics.Counter(label: "webimage_serve_quality_searches_total", factory: factory)
        qualitySearchEncodes = CoreMetrics.Counter(label: "webimage_serve_quality_search_encodes_total",
                                                   factory: factory)
        queueDepth = CoreMetrics.Gauge(label: "webimage_serve_queue_depth", factory: factory)
        rendersInFlight = CoreMetrics.Gauge(label: "webimage_serve_renders_in_flight", factory: factory)
        rendering = CoreMetrics.Gauge(label: "webimage_serve_render_slots_busy", factory: factory)
        downloading = CoreMetrics.Gauge(label: "webimage_serve_download_slots_busy", factory: factory)
        downloadsQueued = CoreMetrics.Gauge(label: "webimage_serve_downloads_queued", factory: factory)
        helperDecodes = CoreMetrics.Gauge(label: "webimage_serve_helper_decodes_busy", factory: factory)
        helperDecodesQueued = CoreMetrics.Gauge(label: "webimage_serve_helper_decodes_queued", factory: factory)
        memoryHits = CoreMetrics.Counter(label: "webimage_serve_result_hits_total", dimensions: [("tier", "memory")],
                             factory: factory)
        diskHits = CoreMetrics.Counter(label: "webimage_serve_result_hits_total", dimensions: [("tier", "disk")],
                                       factory: factory)
        redisHits = CoreMetrics.Counter(label: "webimage_serve_result_hits_total", dimensions: [("tier", "redis")],
                                        factory: factory)
        sourceRedisHits = CoreMetrics.Counter(label: "webimage_serve_source_redis_hits_total", factory: factory)
        misses = CoreMetrics.Counter(label: "webimage_serve_result_misses_total", factory: factory)
        rememberedFailures = CoreMetrics.Counter(label: "webimage_serve_remembered_failures_total", factory: factory)
        fallbackAnswers = CoreMetrics.Counter(label: "webimage_serve_fallback_answers_total", factory: factory)
        stoppedOverBudget = CoreMetrics.Counter(label: "webimage_serve_renders_stopped_total",
                                                dimensions: [("reason", "cpu_budget")], factory: factory)
        stoppedAbandoned = CoreMetrics.Counter(label: "webimage_serve_renders_stopped_total",
                                               dimensions: [("reason", "abandoned")], factory: factory)
        refusedOverMemory = CoreMetrics.Counter(label: "webimage_serve_renders_stopped_total",
                                                dimensions: [("reason", "memory_budget")], factory: factory)
    }

    /// One answered request: counted by status, timed from parsing to the last header. imgproxy's series count
    /// it only when it reached image processing (`processing`).
    func answered(status: Int, after duration: Duration, processing: Bool = true) {
        if processing { imgproxy?.answered(status: status, seconds: duration.seconds) }
        let counter = byStatus.withLock { counters in
            if let counter = counters[status] { return counter }
            let counter = CoreMetrics.Counter(label: "webimage_serve_requests_total",
                                              dimensions: [("status", String(status))], factory: factory)
            counters[status] = counter
            return counter
        }
        counter.increment()
        requestTime.recordNanoseconds(duration.nanoseconds)
    }

    /// A source's bytes arrived, from memory, the disk cache, Redis or the origin, after `duration`.
    func sourceLoaded(after duration: Duration, from origin: SourceLoader.Origin, bytes: Int = 0) {
        sourceTime.recordNanoseconds(duration.nanoseconds)
        RequestTrace.current?.step("downloading_image", lasting: duration, attributes: [
            ("webimage.source.tier", .string("\(origin)")), ("webimage.source.bytes", .int(Int64(bytes))),
        ])
        imgproxy?.sourceLoaded(seconds: duration.seconds, downloadedBytes: origin == .origin ? bytes : nil)
        switch origin {
        case .memory: sourceMemoryHits.increment()
        case .disk: sourceHits.increment()
        case .redis: sourceRedisHits.increment()
        case .origin: break
        }
    }
    /// A request answered with a failure kept from a recent request for the same result (nothing fetched or
    /// rendered).
    func answeredRememberedFailure() { rememberedFailures.increment() }
    /// A request answered with the fallback image: its source could not be fetched.
    func answeredFallback() { fallbackAnswers.increment() }
    /// A render stopped by its budget: over its CPU time (answered 422), or abandoned by every request.
    func renderStopped(_ reason: WorkBudget.Reason) {
        (reason == .cpu ? stoppedOverBudget : stoppedAbandoned).increment()
    }
    /// A render refused before decoding: the pixels it would hold are over its memory budget (answered 422).
    func refusedOverMemoryBudget() { refusedOverMemory.increment() }
    /// A render got its slot (a render thread, or a decode helper) after waiting `duration` in line.
    func workStarted(after duration: Duration) {
        imgproxy?.queued(seconds: duration.seconds)
        RequestTrace.current?.step("queue", lasting: duration)
    }
    func decoded(after duration: Duration) {
        decodeTime.recordNanoseconds(duration.nanoseconds)
        imgproxy?.decoded(seconds: duration.seconds)
        RequestTrace.current?.step("decoding_image", lasting: duration)
    }
    func transformed(after duration: Duration) {
        transformTime.recordNanoseconds(duration.nanoseconds)
        imgproxy?.transformed(seconds: duration.seconds)
        RequestTrace.current?.step("processing_image", lasting: duration)
    }
    /// Autoquality chose a result's quality in `encodes` encodes.
    func searchedQuality(encodes: Int) {
        qualitySearches.increment()
        qualitySearchEncodes.increment(by: encodes)
    }
    func encoded(after duration: Duration) {
        encodeTime.recordNanoseconds(duration.nanoseconds)
        imgproxy?.encoded(seconds: duration.seconds)
        RequestTrace.current?.step("encoding_image", lasting: duration)
    }

    /// The work in flight now, as gauges (read when `/metrics` is asked for).
    func record(_ load: ProxyLoad) {
        queueDepth.record(load.queued)
        rendersInFlight.record(load.renders)
        rendering.record(load.rendering)
        downloading.record(load.downloading)
        downloadsQueued.record(load.downloadsQueued)
        helperDecodes.record(load.helperDecodes)
        helperDecodesQueued.record(load.helperDecodesQueued)
    }

    /// A result cache lookup: where it was found, or that it was not.
    func resultLookup(_ tier: ResultCache.Tier?) {
        RequestTrace.current?.note("webimage.result_cache", .string(tier.map { "\($0)" } ?? "miss"))
        switch tier {
        case .memory: memoryHits.increment()
        case .disk: diskHits.increment()
        case .redis: redisHits.increment()
        case nil: misses.increment()
        }
    }

    /// The Prometheus text exposition of every metric.
    func exposition() -> String { registry.emitToString() }
}

extension Duration {
    /// Whole nanoseconds, as metrics and span times count them.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
