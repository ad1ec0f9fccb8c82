import Foundation

extension ImageDownloader {
    /// Joins the running transfer of an equal request in the downloader's stage, or starts one that waits for a
    /// slot at its callers' highest priority. Returns this caller's token.
    func enqueue(_ request: ImageLoadRequest, retries: Bool, hooks: TransferHooks,
                 progress: ImageLoadProgressHandler?, completion: @escaping DownloadCompletion) -> DownloadToken {
        guard loaders.canLoad(request.url) else {
            let failure = ImageError(.invalidURL, "no loader handles \(request.url.absoluteString)")
            metrics.recordError(failure.code)
            completion(.failure(failure))
            return DownloadToken(url: request.url, cancellation: nil)
        }
        // A decryptor reads the bytes after the transfer: what arrives is not the image, so nothing can judge
        // when it is enough.
        var request = request
        if hooks.decryptor != nil { request.earlyStop = nil }
        let subscriber = DownloadSubscriber(
            wantsPartialData: request.wantsPartialData, minimumProgressInterval: configuration.minimumProgressInterval,
            hooks: hooks, progress: progress, completion: completion)
        let (subscription, joined) = stage.subscribe(request, retries: retries,
                                                     onUpdate: { subscriber.post(progress: $0) },
                                                     onCompletion: { subscriber.post(result: $0) })
        if joined {
            metrics.coalescedJoins.increment()
            logger.debug("joined transfer", metadata: ["url": "\(request.url)"])
        }
        return DownloadToken(url: request.url) {
            subscription.cancel()
            subscriber.post(result: .failure(DownloaderTransport.cancelled))
        }
    }
}
