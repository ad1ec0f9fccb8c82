import Foundation

extension ImageDownloader {
    /// Adds a caller to the transfer for an equal request, or queues a new transfer.
    func enqueue(_ request: ImageLoadRequest, retries: Bool, responseModifier: DownloadResponseModifier?,
                 decryptor: (any DownloadDecryptor)?, progress: ImageLoadProgressHandler?,
                 completion: @escaping DownloadCompletion) -> DownloadToken {
        guard let loader = loaders.loader(for: request.url) else {
            let failure = ImageError(.invalidURL, "no loader handles \(request.url.absoluteString)")
            metrics.recordError(failure.code)
            completion(.failure(failure))
            return DownloadToken(url: request.url, cancellation: nil)
        }
        let key = TransferKey(request, retries: retries)
        let minimumInterval = configuration.minimumProgressInterval
        let (transferID, subscriberID, joined) = state.withLock { state -> (Int, Int, Bool) in
            let subscriber = DownloadSubscriber(
                id: state.makeSubscriberID(), priority: request.priority, wantsPartialData: request.wantsPartialData,
                minimumProgressInterval: minimumInterval, responseModifier: responseModifier, decryptor: decryptor,
                progress: progress, completion: completion)
            // Mutated in place: a copy of the transfer would copy its subscriber table on every join.
            if let id = state.byKey[key], let priorityChanged = state.transfers[id]?.add(subscriber) {
                if priorityChanged, let transfer = state.transfers[id], case .queued(let sequence) = transfer.phase {
                    state.queue.push(id, priority: transfer.priority, sequence: sequence)
                }
                return (id, subscriber.id, true)
            }
            let id = state.nextTransferID
            state.nextTransferID += 1
            let sequence = state.nextSequence
            state.nextSequence += 1
            // The loader always collects partial data; callers that did not ask for it never see it.
            var shared = request
            shared.wantsPartialData = true
            var transfer = TransferState(id: id, key: key, request: shared, loader: loader, retries: retries,
                                         phase: .queued(sequence: sequence))
            _ = transfer.add(subscriber)
            state.transfers[id] = transfer
            state.byKey[key] = id
            state.queue.push(id, priority: transfer.priority, sequence: sequence)
            startQueued(&state)
            return (id, subscriber.id, false)
        }
        if joined {
            metrics.coalescedJoins.increment()
            logger.debug("joined transfer", metadata: ["url": "\(request.url)"])
        }
        return DownloadToken(url: request.url) { [weak self] in
            self?.cancel(transferID: transferID, subscriberID: subscriberID)
        }
    }

    /// Starts queued transfers while slots are free. Called with the lock held; the tasks it makes wait for the
    /// lock before touching state.
    func startQueued(_ state: inout DownloaderState) {
        while let id = state.popStartable(), let transfer = state.transfers[id] {
            state.running += 1
            let task = Task {
                await self.run(transferID: id, request: transfer.request, loader: transfer.loader,
                               retries: transfer.retries)
            }
            state.transfers[id]?.phase = .running(task)
        }
    }

    /// Ends one caller. The transfer is dropped from the queue, or its task cancelled, when no caller is left.
    func cancel(transferID: Int, subscriberID: Int) {
        let (subscriber, task) = state.withLock { state -> (DownloadSubscriber?, Task<Void, Never>?) in
            guard let removal = state.transfers[transferID]?.remove(subscriberID),
                  let subscriber = removal.subscriber,
                  let transfer = state.transfers[transferID] else { return (nil, nil) }
            guard transfer.subscribers.isEmpty else {
                if removal.priorityChanged, case .queued(let sequence) = transfer.phase {
                    state.queue.push(transferID, priority: transfer.priority, sequence: sequence)
                }
                return (subscriber, nil)
            }
            if state.byKey[transfer.key] == transferID { state.byKey[transfer.key] = nil }
            switch transfer.phase {
            case .queued:
                state.transfers[transferID] = nil
                return (subscriber, nil)
            case .running(let task):
                return (subscriber, task)
            }
        }
        guard let subscriber else { return }
        if let task {
            logger.debug("cancelling transfer: its last caller left", metadata: ["transfer": "\(transferID)"])
            task.cancel()
        }
        subscriber.post(result: .failure(ImageError(.cancelled, "the download was cancelled")))
    }

    /// Hands a progress report to every caller of the transfer.
    func deliverProgress(transferID: Int, url: URL, _ progress: ImageLoadProgress) {
        if let response = progress.response {
            events.emit(.receivedResponse(url, statusCode: response.statusCode))
        }
        let subscribers = state.withLock { state -> [DownloadSubscriber] in
            guard let transfer = state.transfers[transferID] else { return [] }
            return transfer.subscribers.values.filter(\.wantsProgress)
        }
        for subscriber in subscribers { subscriber.post(progress: progress) }
    }

    /// Frees the transfer's slot, starts what is next, and delivers the result to every caller left.
    func finish(transferID: Int, url: URL, result: Result<ImageLoadResponse, ImageError>) {
        let subscribers = state.withLock { state -> [DownloadSubscriber] in
            guard let transfer = state.transfers.removeValue(forKey: transferID) else { return [] }
            state.running -= 1
            if state.byKey[transfer.key] == transferID { state.byKey[transfer.key] = nil }
            startQueued(&state)
            return Array(transfer.subscribers.values)
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
        for subscriber in subscribers { subscriber.post(result: result) }
    }
}
