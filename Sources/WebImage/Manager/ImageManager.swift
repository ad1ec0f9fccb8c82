import Foundation
import Logging

/// The whole pipeline behind one call (SDWebImageManager's role): cache key, cache query, load, decode,
/// transform, store, deliver.
///
/// ```swift
/// let result = try await ImageManager.shared.loadImage(from: url)
/// let thumb = try await manager.loadImage(from: url, options: [.highPriority],
///     context: .init(transformer: .use(.resize(to: PixelSize(width: 200, height: 200), fit: .aspectFill))))
/// ```
///
/// Every load is one ``ImageRequest``. Equal loads running at the same time share their work stage by stage
/// (one download, one decode, one transform); loads of one URL with different thumbnail sizes share the
/// download. Shared work runs at the highest priority of the loads that wait for it. A load that fails for good blocks its URL
/// (see ``FailedURLs``). Decoding and transforming run on at most
/// ``Configuration/maxConcurrentDecodes`` jobs at once, never on the caller's task.
public final class ImageManager: Sendable {
    /// The manager used when no other is given: the shared cache, downloader and coders.
    public static let shared = ImageManager()

    /// The cache loads use unless their context names another.
    public let cache: any ImageCaching
    /// The downloader whose transfer stage this manager's loads pass (its merge, its limits, its requests,
    /// retries, events and counters), shared with the downloader's own callers; `nil` for a manager made with a
    /// bare ``ImageLoader``, which has a stage of its own.
    public let downloader: ImageDownloader?
    /// The coders loads use unless their context names others.
    public let coders: ImageCoders
    /// The defaults.
    public let configuration: Configuration
    /// URLs that failed for good.
    public let failedURLs: FailedURLs

    let decoding: CPUExecutor
    /// The stage every load's bytes come from: the downloader's, or this manager's own for a bare loader. The
    /// only queue a load waits in.
    let stage: TransferStage
    let events = EventBroadcaster<ImageManagerEvent>()
    let metrics: ManagerMetrics
    /// The running work of the two stages above the transfer stage, by typed key: final images, decoded originals.
    let finalTasks = TaskPool<FinalImageTaskKey, FinalImage, ImageTaskUpdate>()
    let decodeTasks = TaskPool<DecodeTaskKey, DecodedOriginal, ImageTaskUpdate>()
    private let counters = Locked(Counters())
    var logger: Logger { configuration.logger }

    private struct Counters {
        var pendingStores = 0
        var nextTaskID = 0
        var nextUniqueToken = 0
    }

    /// A manager loading through `downloader` (SDWebImage's manager takes its downloader as its loader): its
    /// requests, retries, events and counters, and its transfer stage, so the manager's loads and the
    /// downloader's direct callers share one merge and one ``ImageDownloader/maxConcurrentDownloads`` limit.
    /// Each part defaults to the shared one.
    public convenience init(cache: any ImageCaching = ImageCache.shared, loader downloader: ImageDownloader = .shared,
                            coders: ImageCoders = .shared, configuration: Configuration = Configuration()) {
        self.init(cache: cache, stage: downloader.stage, downloader: downloader, coders: coders,
                  configuration: configuration)
    }

    /// A manager loading through a bare `loader` (yours, or ``ImageLoaders``), in a transfer stage of its own: at
    /// most ``Configuration/maxConcurrentLoads`` at once, equal loads merged, the library's request defaults.
    public convenience init(cache: any ImageCaching = ImageCache.shared, loader: any ImageLoader,
                            coders: ImageCoders = .shared, configuration: Configuration = Configuration()) {
        let stage = TransferStage(transport: LoaderTransport(loader: loader), defaults: .standard,
                                  slots: PrioritySlots(width: configuration.maxConcurrentLoads))
        self.init(cache: cache, stage: stage, downloader: nil, coders: coders, configuration: configuration)
    }

    private init(cache: any ImageCaching, stage: TransferStage, downloader: ImageDownloader?, coders: ImageCoders,
                 configuration: Configuration) {
        self.cache = cache
        self.stage = stage
        self.downloader = downloader
        self.coders = coders
        self.configuration = configuration
        failedURLs = FailedURLs(expiry: configuration.failedURLExpiry)
        decoding = CPUExecutor(width: configuration.maxConcurrentDecodes, label: "webimage.decode")
        metrics = ManagerMetrics(factory: configuration.metricsFactory)
    }

    // MARK: Loading

    /// Loads the image `request` names. Cancelling the calling task cancels this load (shared work goes on for
    /// the other callers). Throws `ImageError`: `ImageError.Code.invalidURL` for `nil`, malformed or
    /// unsupported URLs (no request is made), `ImageError.Code.blackListed` for a blocked URL, and whatever
    /// the cache, loader, decoder or transformer reported.
    public func loadImage(_ request: ImageRequest) async throws -> ImageResult {
        if let hit = memoryFastPath(request) { return hit }
        let task = imageTask(request)
        return try await withTaskCancellationHandler {
            try await task.result
        } onCancel: {
            task.cancel()
        }
    }

    /// Loads the image at `url` (an ``ImageRequest`` made from the arguments).
    public func loadImage(from url: URL?, options: ImageOptions = [],
                          context: ImageContext = ImageContext()) async throws -> ImageResult {
        try await loadImage(ImageRequest(url: url, options: options, context: context))
    }

    /// Loads the image at `urlString`; a string that is not a URL fails with `ImageError.Code.invalidURL`.
    public func loadImage(from urlString: String, options: ImageOptions = [],
                          context: ImageContext = ImageContext()) async throws -> ImageResult {
        try await loadImage(from: Self.url(from: urlString), options: options, context: context)
    }

    /// Starts loading `request` and returns its handle at once; read ``ImageTask/events`` or await
    /// ``ImageTask/result``, change ``ImageTask/priority`` while it runs.
    public func imageTask(_ request: ImageRequest) -> ImageTask {
        start(request, progress: nil, completion: nil)
    }

    /// Starts loading `url` (an ``ImageRequest`` made from the arguments) and returns its handle at once.
    public func imageTask(from url: URL?, options: ImageOptions = [],
                          context: ImageContext = ImageContext()) -> ImageTask {
        imageTask(ImageRequest(url: url, options: options, context: context))
    }

    /// The callback form: `completion` is called exactly once (also after ``ImageTask/cancel()``, with
    /// `ImageError.Code.cancelled`); `progress` as bytes arrive. Both run on the manager's tasks.
    @discardableResult
    public func loadImage(_ request: ImageRequest, progress: ImageLoadProgressHandler? = nil,
                          completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void)
        -> ImageTask {
        start(request, progress: progress, completion: completion)
    }

    /// The callback form for `url` (an ``ImageRequest`` made from the arguments).
    @discardableResult
    public func loadImage(from url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext(),
                          progress: ImageLoadProgressHandler? = nil,
                          completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void)
        -> ImageTask {
        start(ImageRequest(url: url, options: options, context: context), progress: progress, completion: completion)
    }

    /// The final image for `url` if it is in the memory cache: synchronous, no I/O (what a view shows before
    /// a load starts). `nil` when the manager's cache is not queried from memory or misses.
    public func cachedImage(for url: URL, context: ImageContext = ImageContext()) -> Image? {
        let key = cacheKeys(for: url, context: context, transformer: transformer(for: context)).final
        return (context.cache ?? cache).image(forKey: key)
    }

    /// The key the final image for `url` is cached under with `context`.
    public func cacheKey(for url: URL, context: ImageContext = ImageContext()) -> String {
        cacheKeys(for: url, context: context, transformer: transformer(for: context)).final
    }

    // MARK: Control

    /// Cancels every running load; each caller gets `ImageError.Code.cancelled`.
    public func cancelAll() {
        let failure = ImageError(.cancelled, "all loads were cancelled")
        for task in finalTasks.all { task.cancel(with: failure) }
    }

    /// Whether any load (or a cache store after one) is running.
    public var isRunning: Bool { finalTasks.count > 0 || counters.withLock { $0.pendingStores > 0 } }

    /// A stream of pipeline events from now on.
    package func eventStream() -> AsyncStream<ImageManagerEvent> { events.makeStream() }

    /// Unblocks `url` after a permanent failure.
    public func removeFailedURL(_ url: URL) { failedURLs.remove(url) }

    /// Unblocks every URL.
    public func removeAllFailedURLs() { failedURLs.removeAll() }

    // MARK: Internals

    /// Parses a URL string strictly: empty strings, strings with spaces and strings without a scheme are not
    /// URLs.
    static func url(from string: String) -> URL? {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let url = URL(string: trimmed), url.scheme?.isEmpty == false else { return nil }
        return url
    }

    func transformer(for context: ImageContext) -> (any ImageTransformer)? {
        switch context.transformer {
        case .managerDefault: configuration.defaultTransformer
        case .none: nil
        case .transformer(let given): given
        }
    }

    /// The original and final keys: filter (or the absolute URL), then the thumbnail suffix, then the
    /// transformer's, then the result encoding's.
    func cacheKeys(for url: URL, context: ImageContext, transformer: (any ImageTransformer)?)
        -> (original: String, final: String) {
        let original = (context.cacheKeyFilter ?? configuration.cacheKeyFilter)?.key(for: url) ?? url.absoluteString
        var final = original
        if let size = context.thumbnailPixelSize {
            final = CacheKeys.key(final, appending: CacheKeys.thumbnailSuffix(
                size, preserveAspectRatio: context.preserveAspectRatio, fill: context.thumbnailFill))
        }
        if let transformer { final = CacheKeys.key(final, appending: transformer.key) }
        if let encoding = context.resultEncoding { final = CacheKeys.key(final, appending: encoding.keySuffix) }
        return (original, final)
    }

    /// The number of the next caller's task.
    func makeTaskID() -> Int {
        counters.withLock { counters in
            defer { counters.nextTaskID += 1 }
            return counters.nextTaskID
        }
    }

    /// Counts a cache store that finishes after delivery, for ``isRunning``.
    func storeStarted() { counters.withLock { $0.pendingStores += 1 } }
    func storeEnded() { counters.withLock { $0.pendingStores -= 1 } }

    /// A number no other load has: the sharing key of a load whose hooks cannot be compared.
    func makeUniqueToken() -> Int {
        counters.withLock { counters in
            defer { counters.nextUniqueToken += 1 }
            return counters.nextUniqueToken
        }
    }
}
