import WebImage
import Foundation
import Logging
import ServiceLifecycle
import WebImageRedis

/// The image proxy behind `webimage serve`, independent of the HTTP framework: a request's path in, an answer out.
///
/// A request is read into a route and checked (signature, options, expiry, source policy) before anything is
/// fetched (`ProxyRoute`); then the result cache answers, or the render service makes the result once however
/// many requests wait for it (`RenderService`); the responder turns either into the HTTP answer
/// (`ProxyResponder`).
///
/// The proxy is a `Service`: list it in the server's service group before the server, and it starts up (Redis,
/// the watermark, the fallback image), sends its traces while the server runs, and closes its source connections
/// once the server has stopped (a group stops its services last to first).
public final class ImageProxy: Service, Sendable {
    /// What the proxy was started with.
    public let configuration: ProxyConfiguration
    let coders: ImageCoders
    let logger: Logger
    let downloader: ImageDownloader
    let results: ResultCache
    let renders: RenderService
    let sources: SourcePolicy
    let responder: ProxyResponder
    let access: ProxyAccess
    let routes: RecentRoutes
    let metrics: ProxyMetrics
    /// Which requests are traced and where their spans go, when tracing is configured.
    let tracer: RequestTracer?
    /// The results tier in Redis (its sources tier shares its connections), when configured.
    let shared: RedisImageCache?
    /// The watermark renderings draw, once ``loadWatermark()`` has read it.
    let watermarks: WatermarkStore
    /// Whether ``start()`` has succeeded.
    let started = Locked(false)

    /// A proxy with caches under `configuration.cacheDirectory` (`sources/` and `results/`), decoding with
    /// `coders`, and writing its start-up warnings and trace-export failures to `logger`.
    public init(configuration: ProxyConfiguration, coders: ImageCoders = .shared,
                logger: Logger = Logger(label: "webimage.proxy")) {
        self.configuration = configuration
        self.coders = coders
        self.logger = logger
        let parts = ProxyComponents(configuration: configuration, coders: coders)
        (metrics, tracer, downloader, sources) = (parts.metrics, parts.tracer, parts.downloader, parts.sources)
        (shared, results, renders, watermarks) = (parts.shared, parts.results, parts.renders, parts.watermarks)
        responder = ProxyResponder(configuration: configuration)
        access = ProxyAccess(configuration: configuration)
        routes = RecentRoutes(configuration: configuration)
    }

    /// The proxy's life beside a server: ``start()`` (unless done already), then, until the group's graceful
    /// shutdown, the export of traces when ``ProxyOperations/tracing`` is set (the last requests' spans are sent
    /// on the way out); then the source downloader's connections close.
    public func run() async throws {
        try await start()
        if let tracer {
            try await TraceExportService(exporter: tracer.exporter, logger: logger).run()
        } else {
            try? await gracefulShutdown()
        }
        try? await downloader.shutdown()
    }

    /// Renderings started since the proxy was made (cache hits and coalesced requests start none).
    public var renderingsStarted: Int { renders.renderingsStarted }

    /// Renders waiting for a CPU slot now.
    public var queueDepth: Int { renders.cpu.slots.waiting }

    /// The answer to `request`: an image, a 304, an operations endpoint's answer, or an error status with a
    /// one-line reason.
    public func respond(to request: ProxyRequest) async -> ProxyResponse {
        let started = ContinuousClock.now
        metrics.imgproxy?.requestStarted()
        defer { metrics.imgproxy?.requestEnded() }
        // Probes and scrapes are not traced: they would outnumber the images in a trace store.
        guard let tracer, !(access.inside(request).map { isOperationsPath($0.path) } ?? false),
              let trace = tracer.start(traceparent: request.traceparent)
        else {
            return finish(await answer(request), for: request, started: started)
        }
        let response = await RequestTrace.$current.withValue(trace) { await answer(request) }
        return finish(response, for: request, started: started, trace: trace)
    }

    /// What `request` asks for; a hot URL's image route is read once, then found among the recent ones.
    func route(_ request: ProxyRequest) throws(ProxyError) -> ProxyRoute {
        try ProxyRoute(request, configuration: configuration, sources: sources, coders: coders,
                       watermark: watermarks.current?.identity, recent: routes)
    }

    func finish(_ response: ProxyResponse, for request: ProxyRequest, started: ContinuousClock.Instant,
                        trace: RequestTrace? = nil) -> ProxyResponse
    {
        var response = response
        if request.method == "HEAD" { response = responder.head(response) }
        metrics.answered(status: response.status, after: ContinuousClock.now - started,
                         processing: metrics.imgproxy != nil && reachesProcessing(request))
        // A server error's span says why: the answer's one-line reason.
        trace?.end(method: request.method, path: request.path, status: response.status,
                   reason: response.body.getString(at: response.body.readerIndex,
                                                   length: min(response.body.readableBytes, 300)) ?? "")
        return response
    }
}
