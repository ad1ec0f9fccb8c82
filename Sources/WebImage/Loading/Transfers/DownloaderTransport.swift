import Foundation
import Logging

/// One transfer as an ``ImageDownloader`` makes it: its loaders, retries, rate limit, events and counters. The
/// downloader's transfer stage sends through it, for the downloader's own callers and for every manager loading
/// through the downloader alike. A class, so that transfers are merged by this downloader's identity.
final class DownloaderTransport: Transport {
    let loaders: ImageLoaders
    let configuration: ImageDownloaderConfiguration
    let events: EventBroadcaster<DownloadEvent>
    let metrics: DownloadMetrics
    private let rateLimiter: TokenBucket?
    private var logger: Logger { configuration.logger }

    init(loaders: ImageLoaders, configuration: ImageDownloaderConfiguration) {
        self.loaders = loaders
        self.configuration = configuration
        events = EventBroadcaster<DownloadEvent>()
        metrics = DownloadMetrics(factory: configuration.metricsFactory)
        rateLimiter = configuration.rateLimit.map { TokenBucket(limit: $0) }
    }

    var identity: PartIdentity { PartIdentity(self) }

    func canLoad(_ url: URL) -> Bool {
        loaders.canLoad(url)
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
