import Foundation

extension ImageDownloader {
    /// Joins the running transfer of an equal request, or starts one that waits for a slot at its callers'
    /// highest priority. Returns this caller's token.
    func enqueue(_ request: ImageLoadRequest, retries: Bool, responseModifier: DownloadResponseModifier?,
                 decryptor: (any DownloadDecryptor)?, progress: ImageLoadProgressHandler?,
                 completion: @escaping DownloadCompletion) -> DownloadToken {
        guard loaders.canLoad(request.url) else {
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
        // The place in line is taken now, in the order callers asked, not when the transfer's task first runs.
        let place = PrioritySlots.Place(group: Self.origin(of: request.url))
        let (subscription, joined) = transfers.subscribe(
            ImageLoadKey(request, retries: retries), priority: request.priority,
            onUpdate: { subscriber.post(progress: $0) },
            onCompletion: { subscriber.post(result: $0) },
            work: { [slots, transferLoader, retries] transfer in
                try await slots.run(in: place, for: transfer) {
                    try await transferLoader.transfer(shared, retries: retries) { transfer.report($0) }
                }
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

    /// The origin whose share of the slots a transfer of `url` counts against: scheme, host and port (the
    /// scheme's default when none is given), as the URL names it before any redirect. `nil` for URLs without a
    /// host (`file:`, `data:`), which no origin's bound concerns.
    static func origin(of url: URL) -> String? {
        guard let host = url.host, !host.isEmpty else { return nil }
        let origin = Origin(url)
        return "\(origin.scheme)://\(origin.host):\(origin.port)"
    }

    static var cancelled: ImageError { DownloaderTransferLoader.cancelled }
}
