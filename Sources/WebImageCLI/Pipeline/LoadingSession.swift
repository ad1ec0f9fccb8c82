import Foundation
import WebImage

/// The one place the commands load images: one per process, so repeated URLs share work.
///
/// STAND-IN until `ImageManager` lands: it does the manager's job with the parts that exist (cache query,
/// downloader, decode, transform, store). Wiring the manager in replaces the bodies of ``load(_:progress:)`` and
/// ``prefetch(_:)`` with `manager.loadImage(from:options:context:)` / `ImagePrefetcher(manager:).prefetch(_:)`;
/// the commands only see ``LoadedImage`` and ``PrefetchSummary``.
final class LoadingSession: Sendable {
    let settings: LoadSettings
    let cache: ImageCache
    let downloader: ImageDownloader

    init(settings: LoadSettings) {
        self.settings = settings
        var configuration = ImageDownloaderConfiguration()
        if let concurrency = settings.concurrency { configuration.maxConcurrentDownloads = concurrency }
        if let seconds = settings.timeoutSeconds { configuration.timeout = .milliseconds(Int64(seconds * 1000)) }
        downloader = ImageDownloader(configuration: configuration)
        cache = ImageCache(folder: settings.resolvedCacheFolder,
                           diskConfiguration: DiskCache.Configuration(sweepInterval: nil))
    }

    /// Loads `url` through the caches and the network; `progress(received, expected)` reports body bytes.
    func load(_ url: URL, progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws -> LoadedImage {
        let key = url.absoluteString
        let tiers: ImageCacheType = settings.memoryOnly ? .memory : .all
        var loaded: LoadedImage
        if !settings.refresh, let hit = await cache.query(forKey: key, in: tiers, options: .init(includeData: true)),
           let image = hit.image {
            loaded = LoadedImage(image: image, data: hit.data, cacheType: hit.cacheType, url: url)
        } else if settings.fromCacheOnly {
            throw ImageError(.notFoundInCache, "\(key) is not in the cache")
        } else {
            let response = try await downloader.download(url, progress: { report in
                progress(report.receivedBytes, report.expectedBytes)
            })
            let image = try cache.coders.decode(response.data, options: DecodeOptions(fileNameHint: url.lastPathComponent))
            try await cache.store(image, data: response.data, forKey: key, in: tiers)
            loaded = LoadedImage(image: image, data: response.data, cacheType: .none, url: url)
        }
        if let thumbnail = settings.thumbnail {
            let size = PixelSize(width: thumbnail, height: thumbnail)
            if let data = loaded.data {
                loaded.image = try cache.coders.decode(data, options: DecodeOptions(thumbnailPixelSize: size))
            } else {
                loaded.image = try ImageTransformers.Resize(to: size, fit: .aspectFit).transform(loaded.image)
            }
        }
        loaded.image = try TransformRunner.apply(settings.transforms, to: loaded.image)
        return loaded
    }

    /// Loads every URL into the caches: finished = loaded now, skipped = already cached, failed = the rest.
    /// `onEach(index)` runs as each URL is done.
    func prefetch(_ urls: [URL], onEach: @escaping @Sendable (Int) async -> Void) async -> PrefetchSummary {
        enum Outcome { case finished, skipped, failed }
        return await withTaskGroup(of: Outcome.self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    let outcome: Outcome
                    if await self.cache.contains(forKey: url.absoluteString, in: .all) != .none {
                        outcome = .skipped
                    } else {
                        do {
                            _ = try await self.load(url) { _, _ in }
                            outcome = .finished
                        } catch {
                            outcome = .failed
                        }
                    }
                    await onEach(index)
                    return outcome
                }
            }
            var summary = PrefetchSummary(total: urls.count, finished: 0, skipped: 0, failed: 0)
            for await outcome in group {
                switch outcome {
                case .finished: summary.finished += 1
                case .skipped: summary.skipped += 1
                case .failed: summary.failed += 1
                }
            }
            return summary
        }
    }

    /// Closes the downloader's connections.
    func shutdown() async {
        try? await downloader.shutdown()
    }
}
