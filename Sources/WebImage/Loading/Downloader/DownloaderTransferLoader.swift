import Foundation
import Logging

/// What an ``ImageDownloader`` does for one transfer, without its queue and merging: the downloader's request
/// defaults, its loaders, retries, rate limit, events and counters.
///
/// The downloader's own queue runs its transfers through this, and a manager given the downloader loads through
/// it directly. So a manager's load is merged and queued once, in the manager's stage, where a priority change
/// reaches it; stacking the downloader's queue under the manager's would hide that change behind a second line.
/// A class, so that a manager keys its shared loads by this downloader's identity, not by the type.
final class DownloaderTransferLoader: ImageLoader {
    let loaders: ImageLoaders
    let configuration: ImageDownloaderConfiguration
    let events: EventBroadcaster<DownloadEvent>
    let metrics: DownloadMetrics
    private let rateLimiter: TokenBucket?
    /// Transfers running for a manager (the downloader's own are counted by its slots).
    private let managerTransfers = Locked(0)
    private var logger: Logger { configuration.logger }

    init(loaders: ImageLoaders, configuration: ImageDownloaderConfiguration) {
        self.loaders = loaders
        self.configuration = configuration
        events = EventBroadcaster<DownloadEvent>()
        metrics = DownloadMetrics(factory: configuration.metricsFactory)
        rateLimiter = configuration.rateLimit.map { TokenBucket(limit: $0) }
    }

    /// How many transfers run for managers now.
    var runningForManagers: Int { managerTransfers.withLock { $0 } }

    /// The response modifier a load uses when its caller gives none.
    var responseModifier: DownloadResponseModifier? { configuration.responseModifier }
    /// The decryptor a load uses when its caller gives none.
    var decryptor: (any DownloadDecryptor)? { configuration.decryptor }

    func canLoad(_ url: URL) -> Bool {
        loaders.canLoad(url)
    }

    /// The request this downloader sends for `url` (``ImageDownloaderConfiguration/request(for:options:context:)``),
    /// refused with ``ImageError/Code/invalidURL`` when no loader handles the URL it names, before or after the
    /// request modifier.
    func makeRequest(for url: URL, options: DownloadOptions, context: DownloadContext) throws -> ImageLoadRequest {
        guard loaders.canLoad(url) else {
            throw ImageError(.invalidURL, "no loader handles \(url.absoluteString)")
        }
        let request = try configuration.request(for: url, options: options, context: context)
        guard loaders.canLoad(request.url) else {
            throw ImageError(.invalidURL, "no loader handles \(request.url.absoluteString)")
        }
        return request
    }

    /// A manager's load: one transfer with retries. The caller (the manager) applies the response modifier and
    /// decryptor, once.
    func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws -> ImageLoadResponse {
        managerTransfers.withLock { $0 += 1 }
        defer { managerTransfers.withLock { $0 -= 1 } }
        return try await transfer(request, retries: true, progress: progress)
    }

    /// One transfer: the attempts (retried unless `retries` is off), its events and counters.
    func transfer(_ request: ImageLoadRequest, retries: Bool,
                  progress: ImageLoadProgressHandler?) async throws -> ImageLoadResponse {
        let url = request.url
        guard let loader = loaders.loader(for: url) else {
            let failure = ImageError(.invalidURL, "no loader handles \(url.absoluteString)")
            metrics.recordError(failure.code)
            throw failure
        }
        let attempts = RetryingImageLoader(
            loader, policy: retries ? configuration.retryPolicy : .none, rateLimiter: rateLimiter,
            onAttempt: { [metrics] url, retry in
                let scheme = url.scheme?.lowercased()
                if scheme == "http" || scheme == "https" { metrics.requests.increment() }
                if retry > 0 { metrics.retries.increment() }
            })
        events.emit(.started(url))
        logger.debug("transfer started", metadata: ["url": "\(url)"])
        let result: Result<ImageLoadResponse, ImageError>
        do {
            result = .success(try await attempts.load(request) { [events] report in
                if let response = report.response {
                    events.emit(.receivedResponse(url, statusCode: response.statusCode))
                }
                progress?(report)
            })
        } catch {
            let failure = ImageError.fromTransport(error)
            result = .failure(Task.isCancelled || failure.code == .cancelled ? Self.cancelled : failure)
        }
        events.emit(.stopped(url))
        switch result {
        case .success(let response):
            metrics.bytes.increment(by: Int64(response.data.count))
            events.emit(.finished(url, error: nil))
        case .failure(let failure):
            metrics.recordError(failure.code)
            events.emit(.finished(url, error: failure.code))
        }
        logger.debug("transfer ended", metadata: ["url": "\(url)"])
        return try result.get()
    }

    static var cancelled: ImageError { ImageError(.cancelled, "the download was cancelled") }
}
