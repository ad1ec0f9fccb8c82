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
/// A URL no loader accepts fails at once with `ImageError.Code.invalidURL` and sends nothing.
///
/// The downloader owns the one stage its transfers pass: a manager given this downloader as its loader loads
/// through the same merge and the same ``maxConcurrentDownloads`` slots as the calls made here, so a manager's
/// load and a direct download of one URL are one transfer, under one limit, and a priority change reaches the
/// transfer whoever asked.
public final class ImageDownloader: Sendable {
    /// A downloader with the default configuration, shared by the process.
    public static let shared = ImageDownloader()

    /// The loaders requests go to.
    public var loaders: ImageLoaders { transport.loaders }
    /// The HTTP loader the downloader made (nil when loaders were given).
    let httpLoader: HTTPImageLoader?
    /// One transfer as this downloader makes it (loaders, retries, rate limit, events, counters).
    let transport: DownloaderTransport
    /// The merge and the slots every load through this downloader passes, a manager's included.
    let stage: TransferStage
    var configuration: ImageDownloaderConfiguration { transport.configuration }
    var events: EventBroadcaster<DownloadEvent> { transport.events }
    var metrics: DownloadMetrics { transport.metrics }
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
        transport = DownloaderTransport(loaders: loaders, configuration: configuration)
        self.httpLoader = httpLoader
        stage = TransferStage(
            transport: transport, defaults: configuration,
            slots: PrioritySlots(width: configuration.maxConcurrentDownloads,
                                 widthPerGroup: configuration.maxConcurrentDownloadsPerHost,
                                 order: configuration.executionOrder == .fifo ? .fifo : .lifo))
    }

    /// Cancels everything and closes the HTTP loader's connections.
    public func shutdown() async throws {
        cancelAll()
        events.finishAll()
        try await httpLoader?.shutdown()
    }

    /// How many transfers may run at once (at least 1), for the calls made here and every manager loading through
    /// this downloader together. Raising it starts queued transfers at once; lowering it lets running transfers
    /// finish.
    public var maxConcurrentDownloads: Int {
        get { stage.slots.width }
        set { stage.slots.width = newValue }
    }

    /// How many transfers may go to one origin (scheme, host and port) at once; `nil` for no bound but
    /// ``maxConcurrentDownloads`` (at least 1 when set). Raising or removing it starts queued transfers at once;
    /// lowering it lets running transfers finish.
    public var maxConcurrentDownloadsPerHost: Int? {
        get { stage.slots.widthPerGroup }
        set { stage.slots.widthPerGroup = newValue }
    }

    /// Transfers running now, for direct callers and managers alike.
    public var runningCount: Int { stage.slots.running }
    /// Transfers waiting for a slot.
    public var queuedCount: Int { stage.slots.waiting }

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
                         completion: @escaping @Sendable (Result<ImageLoadResponse, ImageError>) -> Void)
        -> DownloadToken {
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
                       hooks: stage.hooks(responseModifier: context.responseModifier, decryptor: context.decryptor),
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
    /// through the queue, coalescing and retries; the configured response modifier and decryptor apply. A request
    /// with an `ImageLoadRequest.earlyStop` that joined a transfer stopped earlier than its own rule needs
    /// reads the whole file.
    public func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws
        -> ImageLoadResponse {
        let hooks = stage.hooks(responseModifier: nil, decryptor: nil)
        return try await TransferStage.complete(request) { request in
            try await withCancellableToken { completion in
                self.enqueue(request, retries: true, hooks: hooks, progress: progress, completion: completion)
            }
        }
    }

    /// The request the downloader would send for `url`: its headers, the context's, the headers filter, then the
    /// request modifier. Throws `ImageError.Code.invalidURL` when no loader accepts the URL and
    /// `ImageError.Code.cancelled` when the request modifier cancels it.
    public func makeRequest(for url: URL, options: DownloadOptions = [],
                            context: DownloadContext = DownloadContext()) throws -> ImageLoadRequest {
        try stage.makeRequest(for: url, options: options, context: context)
    }

    /// Cancels every queued and running download; each caller gets `ImageError.Code.cancelled`.
    public func cancelAll() {
        let failure = ImageError(.cancelled, "all downloads were cancelled")
        for transfer in stage.transfers.all { transfer.cancel(with: failure) }
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
