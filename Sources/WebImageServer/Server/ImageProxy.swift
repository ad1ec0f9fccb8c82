import WebImage
import Foundation
import HTTPTypes
import Logging
import ServiceLifecycle
import WebImageRedis

/// The image proxy behind `webimage serve`, independent of the HTTP framework: a request's path in, an answer out.
///
/// A request is read into a route and checked (signature, options, expiry, source policy) before anything is
/// fetched (``ProxyRoute``); then the result cache answers, or the render service makes the result once however
/// many requests wait for it (``RenderService``); the responder turns either into the HTTP answer
/// (``ProxyResponder``).
public final class ImageProxy: Sendable {
    /// What the proxy was started with.
    public let configuration: ProxyConfiguration
    let coders: ImageCoders
    let downloader: ImageDownloader
    private let results: ResultCache
    let renders: RenderService
    private let sources: SourcePolicy
    private let responder: ProxyResponder
    let access: ProxyAccess
    private let routes: RecentRoutes
    let metrics: ProxyMetrics
    /// Which requests are traced and where their spans go, when tracing is configured.
    let tracer: RequestTracer?
    /// The results tier in Redis (its sources tier shares its connections), when configured.
    private let shared: RedisImageCache?
    /// The watermark renderings draw, once ``loadWatermark()`` has read it.
    private let watermarks = WatermarkStore()

    /// A proxy with caches under `configuration.cacheDirectory` (`sources/` and `results/`).
    public init(configuration: ProxyConfiguration, coders: ImageCoders = .shared) {
        self.configuration = configuration
        metrics = ProxyMetrics(registry: configuration.metricsRegistry, imgproxy: ImgproxyMetrics(configuration))
        tracer = configuration.operations.tracing.map(RequestTracer.init)
        var download = ImageDownloaderConfiguration()
        download.addressPolicy = SourcePolicy.addressPolicy(for: configuration)
        download.maximumBodySize = configuration.maximumSourceBytes
        download.maximumRedirects = configuration.maximumRedirects
        if let userAgent = configuration.userAgent { download.headers["User-Agent"] = userAgent }
        download.timeout = configuration.downloadTimeout
        // --download-timeout bounds a source's whole download: a timed-out attempt is not started again. It is
        // the only limit, as imgproxy's: no shorter wait for a connection or for the next bytes cuts it first (an
        // origin that pauses 20 s within a 60 s limit is answered, and a download queued behind the per-host
        // connections under load waits its whole time).
        download.retryPolicy.retriesTimeouts = false
        download.connectTimeout = configuration.downloadTimeout
        download.readTimeout = configuration.downloadTimeout
        download.maxConcurrentDownloads = configuration.maximumDownloads
        // An origin that trickles or never answers fills only its own share of the slots.
        download.maxConcurrentDownloadsPerHost = configuration.maximumDownloadsPerOrigin
            ?? max(1, configuration.maximumDownloads / 4)
        download.metricsFactory = metrics.factory
        let localFiles = configuration.localFilesystemRoot.map {
            LocalFileSource(root: $0, maximumBytes: configuration.maximumSourceBytes)
        }
        let sources = SourcePolicy(allowedPrefixes: configuration.allowedSourcePrefixes,
                                   objectStores: configuration.objectStores, localFiles: localFiles)
        download.hopCheck = sources.hopCheck  // redirects stay under --allow-source too
        download.nameServer = configuration.nameServer
        let metricsFactory = metrics.factory
        let shared = configuration.redis.map {
            RedisImageCache(configuration: $0, namespace: "webimage-serve:results", metricsFactory: metricsFactory)
        }
        self.shared = shared
        downloader = ImageDownloader(configuration: download)
        ObjectStoreLoader.register(configuration.objectStores, on: downloader, download: download)
        let sourceLoader = SourceLoader(
            downloader: downloader,
            cache: DiskCache(folder: configuration.cacheDirectory.appendingPathComponent("sources"),
                             configuration: Self.diskConfiguration(sizeLimit: configuration.sourceCacheBytes)),
            memoryBytes: configuration.sourceMemoryBytes,
            shared: shared?.sharingConnections(namespace: "webimage-serve:sources", metricsFactory: metricsFactory),
            localFiles: localFiles)
        self.coders = coders
        // Memory holds results and recent sources' bytes, never decoded sources: each is decoded to its request's
        // size, so a decoded source is not worth keeping (a 12 MP photo is 48 MB of pixels).
        results = ResultCache(folder: configuration.cacheDirectory.appendingPathComponent("results"),
                              memoryBytes: configuration.memoryBytes,
                              disk: Self.diskConfiguration(sizeLimit: configuration.resultCacheBytes), shared: shared)
        renders = RenderService(
            configuration: configuration, sourceLoader: sourceLoader,
            renderer: ProxyRenderer(coders: coders, defaultQuality: configuration.quality, metrics: metrics,
                                    watermarks: watermarks, autoquality: configuration.autoquality),
            results: results, metrics: metrics,
            cpu: CPUExecutor(width: configuration.workers, queueLimit: configuration.queueLimit,
                             label: "webimage.serve.render"))
        self.sources = sources
        responder = ProxyResponder(configuration: configuration)
        access = ProxyAccess(configuration: configuration)
        routes = RecentRoutes(configuration: configuration)
    }

    /// A disk cache bounded to `sizeLimit` bytes (0: unbounded), swept in the background as it grows.
    private static func diskConfiguration(sizeLimit: Int) -> DiskCache.Configuration {
        var disk = DiskCache.Configuration()
        disk.sizeLimit = sizeLimit > 0 ? sizeLimit : nil
        return disk
    }

    /// Reads and decodes the watermark image of ``ProxyConfiguration/watermarkPath`` or
    /// ``ProxyConfiguration/watermarkURL``, once, before serving: until then (and without either) the `watermark`
    /// option draws nothing.
    /// - Throws: ``ProxyConfigurationError`` when the file cannot be read, the download fails, the image does
    ///   not decode, or ``ProxyConfiguration/watermarkOpacity`` is not above 0 and at most 1.
    public func loadWatermark() async throws(ProxyConfigurationError) {
        let data: Data
        if let path = configuration.watermarkPath {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ProxyConfigurationError("cannot read the watermark file \(path)")
            }
            data = contents
        } else if let url = configuration.watermarkURL {
            do {
                data = try await configuredImage(at: url)
            } catch {
                throw ProxyConfigurationError("cannot download the watermark \(url.absoluteString): \(error)")
            }
        } else {
            return
        }
        watermarks.current = try ProxyWatermark(data: data, coders: coders, opacity: configuration.watermarkOpacity)
        // Routes read before the watermark was there carry keys without it.
        routes.removeAll()
    }

    /// The bytes of an image the configuration names by URL (the watermark, the fallback image): a `local:` file
    /// under the local root, or a download (`s3:` and `gs:` objects included), as a source's would be.
    func configuredImage(at url: URL) async throws -> Data {
        if let localFiles = sources.localFiles,
           let file = try localFiles.url(for: url.absoluteString, allowedPrefixes: []) {
            return try await localFiles.contents(of: file).data
        }
        return try await downloader.download(url).data
    }

    /// What must run beside the HTTP server for the whole of its life, stopping after it: the trace exporter when
    /// ``ProxyOperations/tracing`` is set (none otherwise). `ProxyServer` runs them; an application that mounts
    /// ``ImageProxyMiddleware`` in its own server adds them to its service group, before its server.
    public func backgroundServices(logger: Logger) -> [any Service] {
        tracer.map { [TraceExportService(exporter: $0.exporter, logger: logger)] } ?? []
    }

    /// Connects to Redis when one is configured. Throws ``RedisError/authenticationFailed(_:)`` for credentials it
    /// refuses (a start-up mistake); an unreachable Redis is not an error: the proxy starts with the tier degraded
    /// and uses it once it answers (the returned error says why it is degraded).
    public func connectSharedCache() async throws(RedisError) -> RedisError? {
        guard let shared else { return nil }
        do {
            try await shared.connect()
            return nil
        } catch {
            if case .authenticationFailed = error { throw error }
            return error
        }
    }

    /// `/health`'s text: `ok`, and the Redis tier's state when there is one (`degraded` while it answers misses).
    var health: String {
        guard let shared else { return "ok" }
        return shared.isDegraded ? "ok\nredis: degraded" : "ok\nredis: ok"
    }

    /// Renderings started since the proxy was made (cache hits and coalesced requests start none).
    public var renderingsStarted: Int { renders.renderingsStarted }

    /// Renders waiting for a CPU slot now.
    public var queueDepth: Int { renders.cpu.slots.waiting }

    /// What is in flight now: every gauge is zero when the proxy is idle.
    var load: ProxyLoad {
        ProxyLoad(renders: renders.inFlight, rendering: renders.cpu.slots.running,
                  queued: renders.cpu.slots.waiting, downloading: downloader.runningCount,
                  downloadsQueued: downloader.queuedCount,
                  helperDecodes: renders.helperWaits?.slots.running ?? 0,
                  helperDecodesQueued: renders.helperWaits?.slots.waiting ?? 0)
    }

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

    /// The answer to `request` when it is a result the memory tier holds (or a 304 for one), made without a task
    /// or a suspension, so that a hot result is answered on the thread that read the request; `nil` for anything
    /// else, which ``respond(to:)`` answers (a result's first repeat among them: it writes the result to disk).
    ///
    /// - Parameter server: for an answer written to the connection as it is, the `Server` it names: the answer
    ///   then carries `Content-Length`, `Date` and `Server` too, and a hot result's plain `GET` is answered with
    ///   the head its route made earlier in the same second.
    public func immediateResponse(to request: ProxyRequest, server: String? = nil) -> ProxyResponse? {
        let started = ContinuousClock.now
        // A request without the secret is left to respond(to:), which refuses it.
        guard request.method == "GET" || request.method == "HEAD",
              let inner = access.inside(request), access.admits(request),
              case .image(let image)? = try? route(inner),
              let result = results.memoryResult(forKey: image.key)
        else { return nil }
        metrics.resultLookup(.memory)
        let trace = tracer?.start(traceparent: request.traceparent)
        trace?.note("webimage.result_cache", .string("memory"))
        let now = Date().timeIntervalSince1970
        let second = Int(now)
        let plain = request.method == "GET" && request.ifNoneMatch == nil, bytes = result.body.readableBytes
        if plain, let fields = image.hitHead.fields(etag: result.etag, bytes: bytes, second: second, server: server) {
            metrics.answered(status: 200, after: ContinuousClock.now - started)
            trace?.end(method: request.method, path: request.path, status: 200, reason: "")
            return ProxyResponse(status: 200, headers: fields, body: result.body)
        }
        var response = finish(responder.image(result, for: image, ifNoneMatch: request.ifNoneMatch, now: now),
                              for: request, started: started, trace: trace)
        // Before the head is kept: a hit answered from the kept head carries them too.
        access.addCORS(to: &response)
        if let server { Self.stamp(&response, server: server, second: second) }
        if plain {
            image.hitHead.keep(response.headers, etag: result.etag, bytes: bytes, second: second, server: server)
        }
        return response
    }

    /// Adds what the HTTP server would add to `response`: its length, the date (of `second`) and `server`.
    private static func stamp(_ response: inout ProxyResponse, server: String, second: Int) {
        if !response.headers.contains(.contentLength) {
            response.headers[.contentLength] = String(response.body.readableBytes)
        }
        response.headers[.date] = HTTPDate.string(secondsSince1970: Double(second))
        response.headers[.server] = server
    }

    /// What `request` asks for; a hot URL's image route is read once, then found among the recent ones.
    func route(_ request: ProxyRequest) throws(ProxyError) -> ProxyRoute {
        try ProxyRoute(request, configuration: configuration, sources: sources, coders: coders,
                       watermark: watermarks.current?.identity, recent: routes)
    }

    private func finish(_ response: ProxyResponse, for request: ProxyRequest, started: ContinuousClock.Instant,
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

    /// Whether `path` (inside the prefix) is `/health`, the extra health path or `/metrics`.
    func isOperationsPath(_ path: String) -> Bool {
        path == "/health" || path == "/metrics" || path == configuration.operations.healthCheckPath
    }

    /// imgproxy's order: the prefix (outside it there is no route: 404), then a preflight, which browsers send
    /// without credentials, then the method, `/health` (open to probes), the secret, and the route. Answers to
    /// image requests, refusals included, carry the CORS fields; `/health` and `/metrics` do not.
    private func answer(_ request: ProxyRequest) async -> ProxyResponse {
        guard let inner = access.inside(request) else {
            return responder.text(404, "not found: the path is outside the path prefix \(access.pathPrefix)")
        }
        if request.method == "OPTIONS", access.answersPreflights {
            var preflight = responder.empty(200)
            access.addCORS(to: &preflight)
            return preflight
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            var refusal = responder.text(405, "only GET and HEAD are served")
            refusal.headers[.allow] = access.answersPreflights ? "GET, HEAD, OPTIONS" : "GET, HEAD"
            return refusal
        }
        if inner.path == "/health" || inner.path == configuration.operations.healthCheckPath {
            return responder.text(200, health)
        }
        guard access.admits(request) else {
            var refusal = responder.failure(ProxyError.forbidden("Forbidden: the Authorization header does not carry "
                                                                 + "the secret"))
            access.addCORS(to: &refusal)
            return refusal
        }
        do {
            switch try route(inner) {
            case .health:
                return responder.text(200, health)
            case .metrics:
                metrics.record(load)
                return responder.metrics(metrics.exposition())
            case .image(let image):
                let result: RenderedResult
                let cached = await results.result(forKey: image.key)
                metrics.resultLookup(cached?.tier)
                if let cached { result = cached.result } else {
                    do {
                        result = try await renders.result(for: image)
                    } catch let fallback as FallbackAnswer {
                        metrics.answeredFallback()
                        var answer = responder.fallback(fallback, for: image, settings: configuration.fallbackImage,
                                                        ifNoneMatch: request.ifNoneMatch)
                        access.addCORS(to: &answer)
                        return answer
                    }
                }
                var answer = responder.image(result, for: image, ifNoneMatch: request.ifNoneMatch)
                access.addCORS(to: &answer)
                return answer
            case .info(let info):
                let cached = await results.result(forKey: info.key)
                metrics.resultLookup(cached?.tier)
                let result = if let cached { cached.result } else { try await renders.info(for: info) }
                var answer = responder.info(result, for: info, ifNoneMatch: request.ifNoneMatch)
                access.addCORS(to: &answer)
                return answer
            }
        } catch {
            var failure = responder.failure(error)
            access.addCORS(to: &failure)
            return failure
        }
    }
}

/// The proxy's work in flight, for `/metrics` and for checking that everything returned to zero.
struct ProxyLoad: Sendable, Equatable {
    /// Results being made (each however many requests wait for it).
    var renders: Int
    /// Renders holding a CPU slot.
    var rendering: Int
    /// Renders waiting for a CPU slot.
    var queued: Int
    /// Source downloads holding a transfer slot.
    var downloading: Int
    /// Source downloads waiting for one.
    var downloadsQueued: Int
    /// Renders whose source a decode helper is decoding (they hold no render slot meanwhile).
    var helperDecodes: Int
    /// Renders waiting for a decode helper.
    var helperDecodesQueued: Int

    /// Nothing in flight.
    static let idle = ProxyLoad(renders: 0, rendering: 0, queued: 0, downloading: 0, downloadsQueued: 0,
                                helperDecodes: 0, helperDecodesQueued: 0)
}
