import Foundation

extension ImageDownloader {
    /// The body of a transfer's task: attempts with retries, then delivery.
    func run(transferID: Int, request: ImageLoadRequest, loader: any ImageLoader, retries: Bool) async {
        events.emit(.started(request.url))
        logger.debug("transfer started", metadata: ["url": "\(request.url)", "priority": "\(request.priority)"])
        let result = await attempts(transferID: transferID, request: request, loader: loader, retries: retries)
        logger.debug("transfer ended", metadata: [
            "url": "\(request.url)",
            "result": "\((try? result.get()).map { "\($0.data.count) bytes" } ?? "\(result)")",
        ])
        finish(transferID: transferID, url: request.url, result: result)
    }

    /// Loads, retrying transient failures with backoff and resuming broken bodies when the server allows it.
    private func attempts(transferID: Int, request: ImageLoadRequest, loader: any ImageLoader, retries: Bool) async
        -> Result<ImageLoadResponse, ImageError> {
        let policy = retries ? configuration.retryPolicy : .none
        let scheme = request.url.scheme?.lowercased()
        let isNetwork = scheme == "http" || scheme == "https"
        var retry = 0
        var resume: ResumePoint?
        while true {
            if Task.isCancelled { return .failure(Self.cancelled) }
            if isNetwork, let rateLimiter {
                do {
                    try await rateLimiter.acquire()
                } catch {
                    return .failure(Self.cancelled)
                }
            }
            let record = TransferRecord()
            var attempt = request
            attempt.record = record
            attempt.resume = resume
            if isNetwork { metrics.requests.increment() }
            do {
                let url = request.url
                let response = try await loader.load(attempt) { [weak self] progress in
                    self?.deliverProgress(transferID: transferID, url: url, progress)
                }
                return .success(response)
            } catch {
                let failure = ImageError.fromTransport(error)
                if Task.isCancelled || failure.code == .cancelled { return .failure(Self.cancelled) }
                guard retry < policy.maximumRetries,
                      policy.isTransient(failure, statusCode: record.statusCode) else { return .failure(failure) }
                retry += 1
                if policy.resumesInterruptedTransfers, let point = record.resumePoint {
                    resume = point
                } else if record.statusCode != nil {
                    // A response arrived but left nothing to continue from: start over.
                    resume = nil
                }
                metrics.retries.increment()
                let delay = policy.delay(beforeRetry: retry)
                logger.debug("retrying", metadata: [
                    "url": "\(request.url)", "retry": "\(retry)", "error": "\(failure)",
                    "resumeFrom": "\(resume?.data.count ?? 0)", "delay": "\(delay)",
                ])
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return .failure(Self.cancelled)
                }
            }
        }
    }

    static var cancelled: ImageError { ImageError(.cancelled, "the download was cancelled") }
}
