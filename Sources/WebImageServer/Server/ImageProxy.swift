@_spi(ServerSupport) import WebImage
import Foundation
import Synchronization
import WebImageRedis

/// The image proxy behind `webimage serve`, independent of the HTTP framework: a request's path in, an answer out.
///
/// A request is parsed and checked (signature, options, expiry, source policy) before anything is fetched; then the
/// result cache answers, or one rendering per result runs (concurrent requests for it wait for that one) under the
/// work queue's bound: the source comes from the source cache or through the library's downloader (the address
/// policy on every hop, coalescing), is decoded at the size the answer needs, rendered, stored, and served with
/// validators.
public final class ImageProxy: Sendable {
    /// What the proxy was started with.
    public let configuration: ProxyConfiguration
    private let sourceLoader: SourceLoader
    private let coders: ImageCoders
    private let renderer: ProxyRenderer
    private let results: ResultCache
    private let inFlight = RenderCoalescer()
    private let renderCount = Mutex(0)
    private let queue: WorkQueue
    private let sources: SourcePolicy
    private let metrics = ProxyMetrics()
    /// The results tier in Redis (its sources tier shares its connections), when configured.
    private let shared: RedisImageCache?

    /// A proxy with caches under `configuration.cacheDirectory` (`sources/` and `results/`).
    public init(configuration: ProxyConfiguration, coders: ImageCoders = .shared) {
        self.configuration = configuration
        var download = ImageDownloaderConfiguration()
        download.addressPolicy = configuration.allowsLoopbackSources ? .unrestricted : .publicOnly
        download.maximumBodySize = configuration.maximumSourceBytes
        download.timeout = configuration.downloadTimeout
        download.maxConcurrentDownloads = 16
        download.metricsFactory = metrics.factory
        let metricsFactory = metrics.factory
        let shared = configuration.redis.map {
            RedisImageCache(configuration: $0, namespace: "webimage-serve:results", metricsFactory: metricsFactory)
        }
        self.shared = shared
        sourceLoader = SourceLoader(
            downloader: ImageDownloader(configuration: download),
            cache: DiskCache(folder: configuration.cacheDirectory.appendingPathComponent("sources")),
            shared: shared?.sharingConnections(namespace: "webimage-serve:sources", metricsFactory: metricsFactory))
        self.coders = coders
        renderer = ProxyRenderer(coders: coders, metrics: metrics)
        // Memory holds results only: sources are decoded to each request's size, so a decoded source is not
        // worth keeping (a 12 MP photo is 48 MB of pixels), and their bytes stay in the page cache.
        results = ResultCache(folder: configuration.cacheDirectory.appendingPathComponent("results"),
                              memoryBytes: configuration.memoryBytes, shared: shared)
        queue = WorkQueue(workers: configuration.workers, queueLimit: configuration.queueLimit)
        sources = SourcePolicy(allowedPrefixes: configuration.allowedSourcePrefixes)
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
    public var renderingsStarted: Int { renderCount.withLock { $0 } }

    /// Requests waiting for a worker now.
    public var queueDepth: Int { get async { await queue.depth } }

    /// The answer to `request`: an image, a 304, `/health`'s status, or an error status with a one-line reason.
    public func respond(to request: ProxyRequest) async -> ProxyResponse {
        let started = ContinuousClock.now
        var response = await answer(request)
        if request.method == "HEAD" {
            // The length a GET would have (RFC 9110 §9.3.2), and no body.
            response.headers.append(("Content-Length", String(response.body.count)))
            response.body = Data()
        }
        metrics.answered(status: response.status, after: ContinuousClock.now - started)
        return response
    }

    private func answer(_ request: ProxyRequest) async -> ProxyResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return Self.text(405, "only GET and HEAD are served", extra: [("Allow", "GET, HEAD")])
        }
        if request.path == "/health" { return Self.text(200, health) }
        if request.path == "/metrics" {
            metrics.queue(depth: await queue.depth)
            return ProxyResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4"),
                                                        ("Cache-Control", "no-store")],
                                 body: Data(metrics.exposition().utf8))
        }
        do {
            return try await serve(request)
        } catch let error as ProxyError {
            let extra: [(String, String)] = error.status == 429 ? [("Retry-After", "1")] : []
            return Self.text(error.status, error.reason, extra: extra)
        } catch let error as ImageError {
            let mapped = ProxyError(imageError: error)
            return Self.text(mapped.status, mapped.reason)
        } catch {
            return Self.text(500, "internal error: \(error)")
        }
    }

    /// `body`'s answer, or a 504 as soon as the configured request timeout passes. The work is not waited for
    /// then (a task group would wait for it): a rendering that outlives its request finishes and fills the cache.
    /// Only misses pay for it (two tasks and a timer): parsing and cache hits take no time worth bounding.
    private func withRequestTimeout<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value)
        async throws -> Value
    {
        let limit = configuration.requestTimeout
        return try await withCheckedThrowingContinuation { continuation in
            let answer = FirstAnswer(continuation)
            let timer = Task {
                try await Task.sleep(for: limit)
                answer.resume(with: .failure(ProxyError(status: 504, "the request took longer than \(limit)")))
            }
            Task {
                do {
                    answer.resume(with: .success(try await body()))
                } catch {
                    answer.resume(with: .failure(error))
                }
                timer.cancel()
            }
        }
    }

    private func serve(_ request: ProxyRequest) async throws -> ProxyResponse {
        let path = try ProxyPath(parsing: request.path)
        if let signature = configuration.signature,
           !signature.isValid(path.signature[...], for: path.signedPart[...]) {
            throw ProxyError.forbidden("the signature does not match the URL")
        }
        var options = try ProcessingOptions(segments: path.options, presets: configuration.presets,
                                            onlyPresets: configuration.onlyPresets)
        if let expires = options.expires, Double(expires) < Date().timeIntervalSince1970 {
            throw ProxyError(status: 410, "the URL expired at \(expires)")
        }
        if let name = path.outputExtension {
            guard let format = OutputFormat(name: name) else {
                throw ProxyError.badRequest("extension \"\(name)\" is not one of jpg, png, webp, avif, gif")
            }
            options.format = format
        }
        let url = try sources.check(path.source)
        let negotiated = options.format == nil ? configuration.negotiation.format(forAccept: request.accept) : nil
        let varies = options.format == nil && configuration.negotiation.dependsOnAccept
        let chosen = options.format ?? negotiated
        let key = "\(path.source)\n\(options.cacheKey)\n\(chosen?.rawValue ?? "source")"
        let requested = options

        if let format = chosen, !renderer.coders.canEncode(to: format.imageFormat) {
            throw ProxyError.badRequest("this server does not write \(format.rawValue)")
        }
        let result: RenderedResult
        let cached = await results.result(forKey: key)
        metrics.resultLookup(cached?.tier)
        if let cached {
            result = cached.result
        } else {
            result = try await withRequestTimeout { [self] in
                try await inFlight.result(forKey: key) { [self] in
                    try await renderOnce(url, options: requested, format: chosen, key: key)
                }
            }
        }
        return answer(result, ifNoneMatch: request.ifNoneMatch, varies: varies)
    }

    /// Renders under the work queue's bound; with Redis, only while holding the result's lease, or not at all
    /// when another proxy stores the result while this one waits (the wait holds no worker).
    private func renderOnce(_ url: URL, options: ProcessingOptions, format: OutputFormat?, key: String) async throws
        -> RenderedResult
    {
        let render = { [self] in
            try await queue.run(depthObserver: { self.metrics.queue(depth: $0) }) {
                try await self.render(url, options: options, format: format, key: key)
            }
        }
        guard let shared else { return try await render() }
        switch await shared.renderTurn(forKey: key, leaseTime: configuration.redisLeaseTime) {
        case .stored(let stored):
            if let result = await results.adopt(stored, forKey: key) { return result }
            return try await render()
        case .render(let lease):
            let rendered: Result<RenderedResult, any Error>
            do { rendered = .success(try await render()) } catch { rendered = .failure(error) }
            await lease.release()  // stored by now (render stores before it returns), or failed: others may try
            return try rendered.get()
        case .renderWithoutLease:
            return try await render()
        }
    }

    private func render(_ url: URL, options: ProcessingOptions, format: OutputFormat?, key: String) async throws
        -> RenderedResult
    {
        renderCount.withLock { $0 += 1 }
        let loadStarted = ContinuousClock.now
        let source = try await sourceLoader.bytes(for: url)
        metrics.sourceLoaded(after: ContinuousClock.now - loadStarted, from: source.origin)
        let (data, output) = try await RenderThreads.run { [self] in
            let properties = try coders.properties(of: source.data)
            var output = format ?? OutputFormat.matchingSource(properties.format, hasAlpha: properties.hasAlpha)
            if !coders.canEncode(to: output.imageFormat) {
                output = properties.hasAlpha ? .png : .jpeg  // a source format this server reads but does not write
            }
            let plan = try SourceDecodePlan(
                properties: properties, options: options, output: output,
                limits: DecodeLimits(maxPixels: configuration.maximumSourcePixels),
                maximumFrames: renderer.maximumFrames)
            let decodeStarted = ContinuousClock.now
            let image = try coders.decode(source.data, options: plan.decodeOptions)
            metrics.decoded(after: ContinuousClock.now - decodeStarted)
            var rendering = options
            if plan.picksFrame, image.frames.count == 1 { rendering.frame = nil }  // the decoder picked it
            return (try renderer.render(image, options: rendering, format: output, geometry: plan.geometry), output)
        }
        // Only now: the bytes decoded (a render error after decoding is about the options, not the source).
        if source.origin != .disk { await sourceLoader.keep(source.data, for: url) }
        let digest = data.withUnsafeBytes { SHA256.hash($0) }
        let etag = "\"" + SHA256.hex(digest, words: 4) + "\""
        let result = RenderedResult(data: data, format: output, etag: etag,
                                    lastModified: HTTPDate.string(secondsSince1970: Date().timeIntervalSince1970))
        await results.store(result, forKey: key)
        return result
    }

    private func answer(_ result: RenderedResult, ifNoneMatch: String?, varies: Bool) -> ProxyResponse {
        var headers: [(name: String, value: String)] = [
            ("ETag", result.etag), ("Last-Modified", result.lastModified),
            ("Cache-Control", "public, max-age=\(configuration.timeToLive)"),
        ]
        if varies { headers.append(("Vary", "Accept")) }
        if let ifNoneMatch, Self.matches(ifNoneMatch, etag: result.etag) {
            return ProxyResponse(status: 304, headers: headers, body: Data())
        }
        headers.insert(("Content-Type", result.format.mimeType), at: 0)
        return ProxyResponse(status: 200, headers: headers, body: result.data)
    }

    /// `If-None-Match` against a strong tag: `*`, or any listed tag equal to it (weak tags compared weakly).
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    private static func text(_ status: Int, _ reason: String, extra: [(String, String)] = []) -> ProxyResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", "text/plain; charset=utf-8"),
                                                         ("Cache-Control", "no-store")]
        headers += extra.map { (name: $0.0, value: $0.1) }
        return ProxyResponse(status: status, headers: headers, body: Data((reason + "\n").utf8))
    }
}

/// A continuation resumed by whichever of several racing tasks finishes first; the others' results are dropped.
private final class FirstAnswer<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, any Error>?>

    init(_ continuation: CheckedContinuation<Value, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func resume(with result: Result<Value, any Error>) {
        let waiting = continuation.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }
        waiting?.resume(with: result)
    }
}
