import Foundation

extension ImageManager {
    /// The synchronous memory path every caller takes first (``loadImage(_:)`` and ``ImageTarget`` alike): the
    /// options processor runs, then a plain memory hit is returned as the full path would return it (the poster
    /// frame for a first-frame-only load), without starting any work. `nil` when the full path is needed.
    func memoryFastPath(_ request: ImageRequest) -> ImageResult? {
        guard let url = request.url else { return nil }
        let request = processed(request, url: url)
        let options = request.options
        // A hit that comes with its stored bytes, which memory does not hold, takes the full path: decided before
        // the lookup when the options alone decide it (or the result's encoding is asked for), after it when the
        // image's being animated does.
        guard !options.contains(.fromLoaderOnly), !options.hitNeedsStoredData(animated: false),
              request.context.resultEncoding == nil,
              request.context.queryCacheType.contains(.memory),
              !failedURLs.contains(url) || options.contains(.retryFailed) else { return nil }
        let context = request.context
        let key = cacheKeys(for: url, context: context, transformer: transformer(for: context)).final
        guard let image = (context.cache ?? cache).image(forKey: key),
              !options.hitNeedsStoredData(animated: image.isAnimated) else { return nil }
        let decodeOptions = DecodeOptions(firstFrameOnly: options.decodesFirstFrameOnly)
        let delivered = Self.deliverable(image, decodeOptions: decodeOptions)
        metrics.recordHit(.memory)
        if events.hasListeners {
            events.emit(.started(url))
            events.emit(.cacheHit(url, .memory))
            events.emit(.finished(url, error: nil))
        }
        return ImageResult(image: delivered, data: nil, cacheType: .memory, url: url)
    }

    /// `request` after the configuration's options processor.
    private func processed(_ request: ImageRequest, url: URL) -> ImageRequest {
        guard let processor = configuration.optionsProcessor else { return request }
        var processed = request
        (processed.options, processed.context) = processor(url, request.options, request.context)
        // A processor that sets a priority flag changes the priority; the flags themselves are not kept.
        if processed.options.contains(.highPriority) || processed.options.contains(.lowPriority) {
            processed.priority = processed.options.priority
            processed.options.subtract([.lowPriority, .highPriority])
        }
        return processed
    }

    /// Makes the caller's task and subscribes it to the final stage of its request.
    func start(_ request: ImageRequest, progress: ImageLoadProgressHandler?, completion: ImageCompletion?)
        -> ImageTask {
        let task = ImageTask(id: makeTaskID(), url: request.url, priority: request.priority, completion: completion,
                             progress: progress)
        guard let url = request.url else {
            task.finish(.failure(ImageError(.invalidURL, "no URL was given")))
            return task
        }
        let request = processed(request, url: url)
        if events.hasListeners { events.emit(.started(url)) }
        if failedURLs.contains(url), !request.options.contains(.retryFailed) {
            finishUnstarted(task, url: url, error: ImageError.blocked(after: failedURLs.failure(for: url)))
            return task
        }
        let resolved = ResolvedImageRequest(url: url, request: request, manager: self)
        guard resolved.transport.canLoad(url) || request.options.contains(.fromCacheOnly) else {
            let error = ImageError(.invalidURL, "no loader handles \(url.absoluteString)")
            failedURLs.insert(url, failure: error)
            finishUnstarted(task, url: url, error: error)
            return task
        }
        let waitsForStores = request.options.contains(.waitStoreCache)
        let (subscription, _) = finalTasks.subscribe(
            resolved.finalTaskKey, priority: task.priority,
            onUpdate: { update in
                switch update {
                case .progress(let report): task.report(report)
                case .preview(let image): task.report(preview: image)
                }
            },
            onCompletion: { outcome in
                switch outcome {
                case .success(let value) where waitsForStores && value.stores != nil:
                    Task {
                        await value.stores?.value
                        task.finish(.success(value.result))
                    }
                case .success(let value):
                    task.finish(.success(value.result))
                case .failure(let error):
                    task.finish(.failure(error))
                }
            },
            work: { [self] finalTask in try await finalImage(resolved, in: finalTask) })
        task.attach(subscription)
        return task
    }

    private func finishUnstarted(_ task: ImageTask, url: URL, error: ImageError) {
        metrics.recordError(error.code)
        if events.hasListeners { events.emit(.finished(url, error: error.code)) }
        logger.debug("load refused", metadata: ["url": "\(url)", "error": "\(error)"])
        task.finish(.failure(error))
    }
}
