import Foundation
import WebImage

/// The one place the commands load images: one ``ImageManager`` per session (one per process for `fetch` and
/// `prefetch`), so repeated URLs share work. The commands only see ``LoadedImage`` and ``PrefetchSummary``.
final class LoadingSession: Sendable {
    let settings: LoadSettings
    let cache: ImageCache
    let downloader: ImageDownloader
    let manager: ImageManager

    init(settings: LoadSettings) {
        self.settings = settings
        var configuration = ImageDownloaderConfiguration()
        if let concurrency = settings.concurrency { configuration.maxConcurrentDownloads = concurrency }
        if let seconds = settings.timeoutSeconds { configuration.timeout = .milliseconds(Int64(seconds * 1000)) }
        downloader = ImageDownloader(configuration: configuration)
        cache = ImageCache(folder: settings.resolvedCacheFolder,
                           diskConfiguration: DiskCache.Configuration(sweepInterval: nil))
        // The manager's loads pass the downloader's stage: the concurrency asked for is the downloader's.
        manager = ImageManager(cache: cache, loader: downloader)
    }

    /// The manager's options for these settings.
    var options: ImageOptions {
        // The process ends when the last load is delivered: a cache write still running then would be lost.
        var options: ImageOptions = [.waitStoreCache]
        if settings.refresh { options.insert(.refreshCached) }
        if settings.refreshIfStale { options.insert(.refreshIfStale) }
        if settings.retryFailed { options.insert(.retryFailed) }
        if settings.fromCacheOnly { options.insert(.fromCacheOnly) }
        // A memory hit comes with the original bytes too, for `fetch --out` and the byte counts.
        if settings.wantsData { options.insert(.queryMemoryData) }
        return options
    }

    /// The manager's context for these settings: thumbnail size, transforms, which caches to use.
    var context: ImageContext {
        var context = ImageContext(thumbnailPixelSize: settings.thumbnail.map { PixelSize(width: $0, height: $0) })
        context.transformer = settings.transforms.isEmpty
            ? .none : .transformer(ImageTransformers.Pipeline(settings.transforms.map(TransformRunner.transformer(for:))))
        if settings.memoryOnly {
            context.queryCacheType = .memory
            context.storeCacheType = .memory
            context.originalQueryCacheType = .none
            context.originalStoreCacheType = .none
        }
        return context
    }

    /// Loads `url` through the manager; `progress(received, expected)` reports body bytes as they arrive.
    func load(_ url: URL, progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws -> LoadedImage {
        let task = manager.imageTask(from: url, options: options, context: context)
        return try await withTaskCancellationHandler {
            var received: Int64 = 0
            for try await event in task.events {
                switch event {
                case .progress(let bytes, let expected):
                    received = bytes
                    progress(bytes, expected)
                case .preview:
                    continue
                case .finished(let result):
                    return LoadedImage(image: result.image, data: result.data,
                                       byteCount: result.data?.count ?? Int(received), cacheType: result.cacheType,
                                       url: url)
                }
            }
            // The stream ends with `finished` or by throwing; an end without either means the load was cut off.
            throw ImageError(.cancelled, "the load of \(url.absoluteString) ended without a result")
        } onCancel: {
            task.cancel()
        }
    }

    /// Loads every URL into the caches with the manager's prefetcher. `onEach(done, total)` runs after each
    /// URL that finished or failed.
    func prefetch(_ urls: [URL], onEach: @escaping @Sendable (Int, Int) -> Void) async -> PrefetchSummary {
        let width = settings.concurrency ?? ImageDownloaderConfiguration().maxConcurrentDownloads
        let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: width, options: [])
        let report = await prefetcher.prefetch(urls, options: options, context: context, progress: onEach)
        return PrefetchSummary(total: report.total, finished: report.finished, skipped: report.skipped,
                               failed: report.failed)
    }

    /// Closes the downloader's connections.
    func shutdown() async {
        try? await downloader.shutdown()
    }
}
