import Foundation

extension ImageDownloader {
    /// Joins the running transfer of an equal request, or starts one that waits for a slot at its callers'
    /// highest priority. Returns this caller's token.
    func enqueue(_ request: ImageLoadRequest, retries: Bool, responseModifier: DownloadResponseModifier?,
                 decryptor: (any DownloadDecryptor)?, progress: ImageLoadProgressHandler?,
                 completion: @escaping DownloadCompletion) -> DownloadToken {
        guard let loader = loaders.loader(for: request.url) else {
            let failure = ImageError(.invalidURL, "no loader handles \(request.url.absoluteString)")
            metrics.recordError(failure.code)
            completion(.failure(failure))
            return DownloadToken(url: request.url, cancellation: nil)
        }
        // A decryptor reads the bytes after the transfer: what arrives is not the image, so nothing can judge
        // when it is enough.
        var request = request
        if decryptor != nil { request.earlyStop = nil }
        let subscriber = DownloadSubscriber(
            wantsPartialData: request.wantsPartialData, minimumProgressInterval: configuration.minimumProgressInterval,
            responseModifier: responseModifier, decryptor: decryptor, progress: progress, completion: completion)
        // The loader always collects partial data; callers that did not ask for it never see it.
        let shared = {
            var shared = request
            shared.wantsPartialData = true
            return shared
        }()
        let attempts = RetryingImageLoader(
            loader, policy: retries ? configuration.retryPolicy : .none, rateLimiter: rateLimiter,
            onAttempt: { [metrics] url, retry in
                let scheme = url.scheme?.lowercased()
                if scheme == "http" || scheme == "https" { metrics.requests.increment() }
                if retry > 0 { metrics.retries.increment() }
            })
        // The place in line is taken now, in the order callers asked, not when the transfer's task first runs.
        let place = PrioritySlots.Place()
        let (subscription, joined) = transfers.subscribe(
            ImageLoadKey(request, retries: retries), priority: request.priority,
            onUpdate: { subscriber.post(progress: $0) },
            onCompletion: { subscriber.post(result: $0) },
            work: { [weak self] transfer in
                guard let self else { throw Self.cancelled }
                return try await self.run(shared, with: attempts, in: transfer, place: place)
            })
        if !joined { slots.reserve(place, priority: request.priority) }
        if joined {
            metrics.coalescedJoins.increment()
            logger.debug("joined transfer", metadata: ["url": "\(request.url)"])
        }
        return DownloadToken(url: request.url) {
            subscription.cancel()
            subscriber.post(result: .failure(Self.cancelled))
        }
    }

    /// The body of one transfer: a slot, the attempts, the events.
    private func run(_ request: ImageLoadRequest, with loader: RetryingImageLoader,
                     in transfer: SharedTask<ImageLoadResponse, ImageLoadProgress>,
                     place: PrioritySlots.Place) async throws -> ImageLoadResponse {
        let url = request.url
        return try await slots.run(in: place, for: transfer) {
            events.emit(.started(url))
            logger.debug("transfer started", metadata: ["url": "\(url)", "priority": "\(transfer.priority)"])
            let result: Result<ImageLoadResponse, ImageError>
            do {
                result = .success(try await loader.load(request) { [events] progress in
                    if let response = progress.response {
                        events.emit(.receivedResponse(url, statusCode: response.statusCode))
                    }
                    transfer.report(progress)
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
    }

    static var cancelled: ImageError { ImageError(.cancelled, "the download was cancelled") }
}
