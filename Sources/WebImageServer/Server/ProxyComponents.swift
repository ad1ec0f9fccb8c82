import WebImage
import Foundation
import WebImageRedis

/// The parts an ``ImageProxy`` is made of, made from its configuration: the source downloader (its limits, its
/// address and source policies, the object stores), the sources' and results' caches with the Redis tier under
/// both, and the render service.
struct ProxyComponents {
    let metrics: ProxyMetrics
    let tracer: RequestTracer?
    let downloader: ImageDownloader
    let sources: SourcePolicy
    /// The results tier in Redis (its sources tier shares its connections), when configured.
    let shared: RedisImageCache?
    let results: ResultCache
    let renders: RenderService
    let watermarks = WatermarkStore()

    init(configuration: ProxyConfiguration, coders: ImageCoders) {
        metrics = ProxyMetrics(registry: configuration.metricsRegistry, imgproxy: ImgproxyMetrics(configuration))
        tracer = configuration.operations.tracing.map(RequestTracer.init)
        let localFiles = configuration.localFilesystemRoot.map {
            LocalFileSource(root: $0, maximumBytes: configuration.maximumSourceBytes)
        }
        sources = SourcePolicy(allowedPrefixes: configuration.allowedSourcePrefixes,
                               objectStores: configuration.objectStores, localFiles: localFiles)
        let download = Self.downloadConfiguration(configuration, sources: sources, metrics: metrics)
        let metricsFactory = metrics.factory
        shared = configuration.redis.map {
            RedisImageCache(configuration: $0, namespace: "webimage-serve:results", metricsFactory: metricsFactory)
        }
        downloader = ImageDownloader(configuration: download)
        ObjectStoreLoader.register(configuration.objectStores, on: downloader, download: download)
        let sourceLoader = SourceLoader(
            downloader: downloader,
            cache: DiskCache(folder: configuration.cacheDirectory.appendingPathComponent("sources"),
                             configuration: Self.diskConfiguration(sizeLimit: configuration.sourceCacheBytes)),
            memoryBytes: configuration.sourceMemoryBytes,
            shared: shared?.sharingConnections(namespace: "webimage-serve:sources", metricsFactory: metricsFactory),
            localFiles: localFiles)
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
    }

    /// How sources are downloaded: the configuration's limits, its address policy, and redirects held to the
    /// allowed sources too.
    private static func downloadConfiguration(_ configuration: ProxyConfiguration, sources: SourcePolicy,
                                              metrics: ProxyMetrics) -> ImageDownloaderConfiguration {
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
        download.hopCheck = sources.hopCheck  // redirects stay under --allow-source too
        download.nameServer = configuration.nameServer
        return download
    }

    /// A disk cache bounded to `sizeLimit` bytes (0: unbounded), swept in the background as it grows.
    private static func diskConfiguration(sizeLimit: Int) -> DiskCache.Configuration {
        var disk = DiskCache.Configuration()
        disk.sizeLimit = sizeLimit > 0 ? sizeLimit : nil
        return disk
    }
}
