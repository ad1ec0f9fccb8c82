import Foundation
import Logging

/// Downloads image bytes with a bounded number of transfers at once, a priority queue, one shared transfer per
/// equal request however many callers ask (coalescing), retries, and events — SDWebImageDownloader's role.
///
/// ```swift
/// let downloader = ImageDownloader()
/// let response = try await downloader.download(url, options: [.highPriority])
/// let token = downloader.download(url) { result in … }   // callback form; token.cancel() ends this caller
/// ```
///
/// Requests go to the first loader of ``loaders`` that accepts the URL (HTTP(S), `file:` and `data:` built in).
/// A URL no loader accepts fails at once with ``ImageError/Code/invalidURL`` and sends nothing.
///
/// A downloader is a front door, not a loader: its queue, ``maxConcurrentDownloads`` and coalescing serve the
/// calls made here (``download(_:options:context:progress:completion:)`` and ``load(_:progress:)``). What it
/// lends to an ``ImageManager`` (given as the manager's loader, or as ``loader`` in a context) is its transfers
/// alone: its requests (headers, timeouts, limits), retries, events and counters, merged and queued once in the
/// manager's stage, under ``ImageManager/Configuration/maxConcurrentLoads``, where a priority change reaches
/// them. So no load waits in two queues.
public final class ImageDownloader: Sendable {
    /// A downloader with the default configuration, shared by the process.
    public static let shared = ImageDownloader()

    /// The loaders requests go to.
    public var loaders: ImageLoaders { transferLoader.loaders }
    /// This downloader's transfers as a loader, without its queue and merging: its request defaults, loaders,
    /// retries, rate limit, events and counters. A manager given this downloader loads through it; give it to a
    /// context's ``ImageContext/loader`` to load one request that way.
    public var loader: any ImageLoader { transferLoader }
    /// The HTTP loader the downloader made (nil when loaders were given).
    let httpLoader: HTTPImageLoader?
    /// One transfer as this downloader makes it (request defaults, retries, events, counters), without the queue:
    /// the downloader's queue runs it, and a manager given this downloader loads through it in its own queue.
    let transferLoader: DownloaderTransferLoader
    var configuration: ImageDownloaderConfiguration { transferLoader.configuration }
    /// Running transfers by request: callers of an equal request join one transfer.
    let transfers = TaskPool<ImageLoadKey, ImageLoadResponse, ImageLoadProgress>()
    /// The transfer slots: ``maxConcurrentDownloads`` at once, at most ``maxConcurrentDownloadsPerHost`` of one
    /// origin, the highest priority first.
    let slots: PrioritySlots
    var events: EventBroadcaster<DownloadEvent> { transferLoader.events }
    var metrics: DownloadMetrics { transferLoader.metrics }
    var logger: Logger { configuration.logger }

    /// Creates a downloader with its own HTTP loader (using the configuration's read and connect timeouts) plus,
    /// unless ``ImageDownloaderConfiguration/loadsFileAndDataURLs`` is off, the `file:` and `data:` loaders.
    public convenience init(configuration: ImageDownloaderConfiguration = ImageDownloaderConfiguration()) {
        var httpConfiguration = HTTPImageLoader.Configuration(
            readTimeout: configuration.readTimeout, connectTimeout: configuration.connectTimeout,
            maximumDecompressedSize: configuration.maximumBodySize)
        httpConfiguration.addressPolicy = configuration.addressPolicy
        httpConfiguration.hopCheck = configuration.hopCheck
        httpConfiguration.nameServer = configuration.nameServer
        let http = HTTPImageLoader(configuration: httpConfiguration, logger: configuration.logger)
        let local: [any ImageLoader] = configuration.loadsFileAndDataURLs ? [FileImageLoader(), DataURLImageLoader()] : []
        self.init(configuration: configuration, loaders: ImageLoaders([http] + local), httpLoader: http)
    }

    /// Creates a downloader that sends requests to `loaders`.
    public convenience init(configuration: ImageDownloaderConfiguration = ImageDownloaderConfiguration(),
                            loaders: ImageLoaders) {
        self.init(configuration: configuration, loaders: loaders, httpLoader: nil)
    }

    private init(configuration: ImageDownloaderConfiguration, loaders: ImageLoaders, httpLoader: HTTPImageLoader?) {
        transferLoader = DownloaderTransferLoader(loaders: loaders, configuration: configuration)
        self.httpLoader = httpLoader
        slots = PrioritySlots(width: configuration.maxConcurrentDownloads,
                              widthPerGroup: configuration.maxConcurrentDownloadsPerHost,
                              order: configuration.executionOrder == .fifo ? .fifo : .lifo)
    }

    /// Cancels everything and closes the HTTP loader's connections.
    public func shutdown() async throws {
        cancelAll()
        events.finishAll()
        try await httpLoader?.shutdown()
    }

    /// How many transfers may run at once (at least 1). Raising it starts queued transfers at once; lowering it
    /// lets running transfers finish.
    public var maxConcurrentDownloads: Int {
        get { slots.width }
        set { slots.width = newValue }
    }

    /// How many transfers may go to one origin (scheme, host and port) at once; `nil` for no bound but
    /// ``maxConcurrentDownloads`` (at least 1 when set). Raising or removing it starts queued transfers at once;
    /// lowering it lets running transfers finish.
    public var maxConcurrentDownloadsPerHost: Int? {
        get { slots.widthPerGroup }
        set { slots.widthPerGroup = newValue }
    }

    /// Transfers running now: those holding one of this downloader's slots, and those of managers that load
    /// through this downloader (which wait in the manager's queue, not in this one).
    public var runningCount: Int { slots.running + transferLoader.runningForManagers }
    /// Transfers waiting for a slot.
    public var queuedCount: Int { slots.waiting }

    /// A stream of transfer events from now on; it ends when the downloader shuts down or the reader stops.
    public func eventStream() -> AsyncStream<DownloadEvent> {
        events.makeStream()
    }

    // MARK: Downloading

    /// Starts (or joins) the download of `url` and returns this caller's token.
    ///
    /// `completion` is called exactly once: with the response, or with the error. A request that cannot be
    /// made (no loader for the URL, or the request modifier cancelled it) completes before this returns.
    /// `progress` and `completion` run on the transfer's task (a cancellation's completion on the cancelling
    /// thread), one at a time per caller, and nothing follows the completion.
    @discardableResult
    public func download(_ url: URL, options: DownloadOptions = [], context: DownloadContext = DownloadContext(),
                         progress: ImageLoadProgressHandler? = nil,
                         completion: @escaping DownloadCompletion) -> DownloadToken {
        let request: ImageLoadRequest
        do {
            request = try makeRequest(for: url, options: options, context: context)
        } catch {
            let failure = ImageError.fromTransport(error)
            metrics.recordError(failure.code)
            logger.debug("download refused", metadata: ["url": "\(url)", "error": "\(failure)"])
            completion(.failure(failure))
            return DownloadToken(url: url, cancellation: nil)
        }
        return enqueue(request, retries: !options.contains(.noRetry),
                       responseModifier: context.responseModifier ?? configuration.responseModifier,
                       decryptor: context.decryptor ?? configuration.decryptor,
                       progress: progress, completion: completion)
    }

    /// Downloads `url`; cancelling the calling task cancels this caller (and the transfer, if it was the last).
    public func download(_ url: URL, options: DownloadOptions = [], context: DownloadContext = DownloadContext(),
                         progress: ImageLoadProgressHandler? = nil) async throws -> ImageLoadResponse {
        try await withCancellableToken { completion in
            self.download(url, options: options, context: context, progress: progress, completion: completion)
        }
    }

    /// Whether some loader accepts `url`.
    public func canLoad(_ url: URL) -> Bool {
        loaders.canLoad(url)
    }

    /// Loads `request` as given (the downloader's headers, filter and request modifier are not applied again)
    /// through the queue, coalescing and retries; the configured response modifier and decryptor apply.
    public func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws
        -> ImageLoadResponse {
        try await withCancellableToken { completion in
            guard self.loaders.canLoad(request.url) else {
                completion(.failure(ImageError(.invalidURL, "no loader handles \(request.url.absoluteString)")))
                return DownloadToken(url: request.url, cancellation: nil)
            }
            return self.enqueue(request, retries: true, responseModifier: self.configuration.responseModifier,
                                decryptor: self.configuration.decryptor, progress: progress, completion: completion)
        }
    }

    /// The request the downloader would send for `url`: its headers, the context's, the headers filter, then the
    /// request modifier. Throws ``ImageError/Code/invalidURL`` when no loader accepts the URL and
    /// ``ImageError/Code/cancelled`` when the request modifier cancels it.
    public func makeRequest(for url: URL, options: DownloadOptions = [],
                            context: DownloadContext = DownloadContext()) throws -> ImageLoadRequest {
        try transferLoader.makeRequest(for: url, options: options, context: context)
    }

    /// Cancels every queued and running download; each caller gets ``ImageError/Code/cancelled``.
    public func cancelAll() {
        let failure = ImageError(.cancelled, "all downloads were cancelled")
        for transfer in transfers.all { transfer.cancel(with: failure) }
    }

    /// Bridges the callback form to async: Swift task cancellation cancels the token.
    private func withCancellableToken(
        _ start: @escaping @Sendable (@escaping DownloadCompletion) -> DownloadToken
    ) async throws -> ImageLoadResponse {
        let bridge = CancellationBridge()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ImageLoadResponse, any Error>) in
                let token = start { result in continuation.resume(with: result) }
                bridge.attach(token)
            }
        } onCancel: {
            bridge.cancel()
        }
    }
}

/// Holds a token for a task-cancellation handler that may run before the token exists.
private final class CancellationBridge: Sendable {
    private let state = Locked<(token: DownloadToken?, cancelled: Bool)>((nil, false))

    func attach(_ token: DownloadToken) {
        let cancelNow = state.withLock { state -> Bool in
            state.token = token
            return state.cancelled
        }
        if cancelNow { token.cancel() }
    }

    func cancel() {
        let token = state.withLock { state -> DownloadToken? in
            state.cancelled = true
            return state.token
        }
        token?.cancel()
    }
}
