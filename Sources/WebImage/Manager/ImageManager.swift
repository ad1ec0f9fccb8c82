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
/// Equal loads running at the same time share one job (one download, one decode, one transform); loads of
/// one URL with different thumbnail sizes share the download. A load that fails for good blocks its URL
/// (see ``FailedURLs``). Decoding and transforming run on at most
/// ``Configuration/maxConcurrentDecodes`` jobs at once, never on the caller's task.
public final class ImageManager: Sendable {
    /// The manager used when no other is given: the shared cache, downloader and coders.
    public static let shared = ImageManager()

    /// The cache loads use unless their context names another.
    public let cache: any ImageCaching
    /// The loader loads use unless their context names another.
    public let loader: any ImageLoader
    /// The coders loads use unless their context names others.
    public let coders: ImageCoders
    /// The defaults.
    public let configuration: Configuration
    /// URLs that failed for good.
    public let failedURLs: FailedURLs

    let decodeLimiter: DecodeLimiter
    let events = EventBroadcaster<ImageManagerEvent>()
    let metrics: ManagerMetrics
    private let registry = Locked(JobRegistry())
    var logger: Logger { configuration.logger }

    private struct JobRegistry {
        var shared: [String: PipelineJob] = [:]
        var running: [ObjectIdentifier: PipelineJob] = [:]
        var pendingStores = 0
        var nextTaskID = 0
    }

    /// A manager from its parts; each defaults to the shared one.
    public init(cache: any ImageCaching = ImageCache.shared, loader: any ImageLoader = ImageDownloader.shared,
                coders: ImageCoders = .shared, configuration: Configuration = Configuration()) {
        self.cache = cache
        self.loader = loader
        self.coders = coders
        self.configuration = configuration
        failedURLs = FailedURLs(expiry: configuration.failedURLExpiry)
        decodeLimiter = DecodeLimiter(width: configuration.maxConcurrentDecodes)
        metrics = ManagerMetrics(factory: configuration.metricsFactory)
    }

    // MARK: Loading

    /// Loads the image at `url`. Cancelling the calling task cancels this load (shared work goes on for the
    /// other callers). Throws ``ImageError``: ``ImageError/Code/invalidURL`` for `nil`, malformed or
    /// unsupported URLs (no request is made), ``ImageError/Code/blackListed`` for a blocked URL, and whatever
    /// the cache, loader, decoder or transformer reported.
    public func loadImage(from url: URL?, options: ImageOptions = [],
                          context: ImageContext = ImageContext()) async throws -> ImageResult {
        if let url, let hit = memoryHit(url: url, options: options, context: context) { return hit }
        let task = imageTask(from: url, options: options, context: context)
        return try await withTaskCancellationHandler {
            try await task.result
        } onCancel: {
            task.cancel()
        }
    }

    /// Loads the image at `urlString`; a string that is not a URL fails with ``ImageError/Code/invalidURL``.
    public func loadImage(from urlString: String, options: ImageOptions = [],
                          context: ImageContext = ImageContext()) async throws -> ImageResult {
        try await loadImage(from: Self.url(from: urlString), options: options, context: context)
    }

    /// Starts loading `url` and returns its handle at once; read ``ImageTask/events`` or await
    /// ``ImageTask/result``.
    public func imageTask(from url: URL?, options: ImageOptions = [],
                          context: ImageContext = ImageContext()) -> ImageTask {
        start(url: url, options: options, context: context, progress: nil, completion: nil)
    }

    /// The callback form: `completion` is called exactly once (also after ``ImageTask/cancel()``, with
    /// ``ImageError/Code/cancelled``); `progress` as bytes arrive. Both run on the manager's tasks.
    @discardableResult
    public func loadImage(from url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext(),
                          progress: ImageLoadProgressHandler? = nil,
                          completion: @escaping ImageCompletion) -> ImageTask {
        start(url: url, options: options, context: context, progress: progress, completion: completion)
    }

    /// The final image for `url` if it is in the memory cache: synchronous, no I/O (what a view shows before
    /// a load starts). `nil` when the manager's cache is not queried from memory or misses.
    public func cachedImage(for url: URL, context: ImageContext = ImageContext()) -> Image? {
        let key = cacheKeys(for: url, context: context, transformer: transformer(for: context)).final
        return (context.cache ?? cache).querySynchronously(
            forKey: key, in: .memory, options: ImageCacheQueryOptions())?.image
    }

    /// The key the final image for `url` is cached under with `context`.
    public func cacheKey(for url: URL, context: ImageContext = ImageContext()) -> String {
        cacheKeys(for: url, context: context, transformer: transformer(for: context)).final
    }

    // MARK: Control

    /// Cancels every running load; each caller gets ``ImageError/Code/cancelled``.
    public func cancelAll() {
        let jobs = registry.withLock { registry -> [PipelineJob] in
            defer {
                registry.running = [:]
                registry.shared = [:]
            }
            return Array(registry.running.values)
        }
        for job in jobs {
            job.cancel()
            job.finish(.failure(ImageError(.cancelled, "all loads were cancelled")))
        }
    }

    /// Whether any load (or a cache store after one) is running.
    public var isRunning: Bool { registry.withLock { !$0.running.isEmpty || $0.pendingStores > 0 } }

    /// A stream of pipeline events from now on.
    public func eventStream() -> AsyncStream<ImageManagerEvent> { events.makeStream() }

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
    /// transformer's.
    func cacheKeys(for url: URL, context: ImageContext, transformer: (any ImageTransformer)?)
        -> (original: String, final: String) {
        let original = (context.cacheKeyFilter ?? configuration.cacheKeyFilter)?.key(for: url) ?? url.absoluteString
        var final = original
        if let size = context.thumbnailPixelSize {
            final = CacheKeys.key(final, appending: CacheKeys.thumbnailSuffix(
                size, preserveAspectRatio: context.preserveAspectRatio))
        }
        if let transformer { final = CacheKeys.key(final, appending: transformer.key) }
        return (original, final)
    }

    /// The synchronous memory path of ``loadImage(from:options:context:)``: a plain memory hit is returned
    /// without starting a job.
    private func memoryHit(url: URL, options: ImageOptions, context: ImageContext) -> ImageResult? {
        guard !options.contains(.fromLoaderOnly), !options.contains(.refreshCached),
              !options.contains(.queryMemoryData), configuration.optionsProcessor == nil,
              context.queryCacheType.contains(.memory),
              !failedURLs.contains(url) || options.contains(.retryFailed) else { return nil }
        let key = cacheKeys(for: url, context: context, transformer: transformer(for: context)).final
        guard let image = (context.cache ?? cache).querySynchronously(
            forKey: key, in: .memory, options: ImageCacheQueryOptions())?.image else { return nil }
        metrics.recordHit(.memory)
        if events.hasListeners {
            events.emit(.started(url))
            events.emit(.cacheHit(url, .memory))
            events.emit(.finished(url, error: nil))
        }
        return ImageResult(image: image, data: nil, cacheType: .memory, url: url)
    }

    /// Makes the caller's task and joins or starts the job for it.
    private func start(url: URL?, options: ImageOptions, context: ImageContext,
                       progress: ImageLoadProgressHandler?, completion: ImageCompletion?) -> ImageTask {
        let id = registry.withLock { registry -> Int in
            defer { registry.nextTaskID += 1 }
            return registry.nextTaskID
        }
        let task = ImageTask(id: id, url: url, completion: completion, progress: progress)
        guard let url else {
            task.finish(.failure(ImageError(.invalidURL, "no URL was given")))
            return task
        }
        var options = options, context = context
        if let processor = configuration.optionsProcessor { (options, context) = processor(url, options, context) }
        if events.hasListeners { events.emit(.started(url)) }
        if failedURLs.contains(url), !options.contains(.retryFailed) {
            let error = ImageError(.blackListed, "\(url.absoluteString) failed before; pass retryFailed to try again")
            finishUnstarted(task, url: url, error: error)
            return task
        }
        let plan = LoadPlan(url: url, options: options, context: context, manager: self)
        guard plan.loader.canLoad(url) || options.contains(.fromCacheOnly) else {
            let error = ImageError(.invalidURL, "no loader handles \(url.absoluteString)")
            failedURLs.insert(url)
            finishUnstarted(task, url: url, error: error)
            return task
        }
        attach(task, to: plan)
        return task
    }

    private func finishUnstarted(_ task: ImageTask, url: URL, error: ImageError) {
        metrics.recordError(error.code)
        if events.hasListeners { events.emit(.finished(url, error: error.code)) }
        logger.debug("load refused", metadata: ["url": "\(url)", "error": "\(error)"])
        task.finish(.failure(error))
    }

    /// Joins a running equal job or starts a new one.
    private func attach(_ task: ImageTask, to plan: LoadPlan) {
        let priority = plan.options.priority
        while true {
            let (job, isNew) = registry.withLock { registry -> (PipelineJob, Bool) in
                if let key = plan.sharingKey, let existing = registry.shared[key] { return (existing, false) }
                let job = PipelineJob(plan: plan)
                registry.running[ObjectIdentifier(job)] = job
                if let key = plan.sharingKey { registry.shared[key] = job }
                return (job, true)
            }
            // A shared job that closed between the lookup and the join: retire it and look again.
            guard job.add(task, priority: priority) else {
                retire(job)
                continue
            }
            task.setCancellation { [weak self, weak job] in
                guard let self, let job, job.remove(task) else { return }
                self.retire(job)
                job.cancel()
            }
            if isNew { job.start { [self] in await self.run(job) } }
            return
        }
    }

    /// Takes `job` out of the registry so no new caller joins it.
    func retire(_ job: PipelineJob) {
        registry.withLock { registry in
            registry.running.removeValue(forKey: ObjectIdentifier(job))
            if let key = job.plan.sharingKey, registry.shared[key] === job { registry.shared.removeValue(forKey: key) }
        }
    }

    /// Counts a cache store that finishes after delivery, for ``isRunning``.
    func storeStarted() { registry.withLock { $0.pendingStores += 1 } }
    func storeEnded() { registry.withLock { $0.pendingStores -= 1 } }
}
