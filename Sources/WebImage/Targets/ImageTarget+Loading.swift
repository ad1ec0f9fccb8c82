import Foundation

extension ImageTarget {
    /// The operation key used when none is given: one load at a time per target.
    public nonisolated static var defaultOperationKey: String { "image" }

    /// Loads `url` into this target.
    ///
    /// Cancels the earlier load of `operationKey`; shows `placeholder` at once (with
    /// ``ImageTargetOptions/delayPlaceholder``: only if the load fails); shows a memory-cache hit synchronously,
    /// before returning; otherwise shows the loaded image when it arrives (not with
    /// ``ImageTargetOptions/avoidAutoSetImage``) and, with ``ImageOptions/progressiveLoad``, previews before it.
    /// `completion` runs on the main actor for the latest load only; a replaced or cancelled load completes
    /// nothing. Returns the load's task (its ``ImageTask/events`` carry progress), or `nil` when it finished
    /// synchronously.
    @discardableResult
    public func setImage(
        with url: URL?, placeholder: Image? = nil, options: ImageOptions = [], context: ImageContext = ImageContext(),
        targetOptions: ImageTargetOptions = [], operationKey: String? = nil, manager: ImageManager = .shared,
        completion: (@MainActor (Result<ImageResult, ImageError>) -> Void)? = nil
    ) -> ImageTask? {
        let key = operationKey ?? Self.defaultOperationKey
        let state = imageLoading
        let generation = state.begin(key, url: url)
        guard let url else {
            display(placeholder, cacheType: nil)
            completion?(.failure(ImageError(.invalidURL, "no URL was given")))
            return nil
        }
        // The manager's own fast path: the same options processor, cache types and frame rules as a load.
        if let hit = manager.memoryFastPath(ImageRequest(url: url, options: options, context: context)) {
            if !targetOptions.contains(.avoidAutoSetImage) { display(hit.image, cacheType: .memory) }
            completion?(.success(hit))
            return nil
        }
        if !targetOptions.contains(.delayPlaceholder) { display(placeholder, cacheType: nil) }
        let task = manager.loadImage(from: url, options: options, context: context) {
            [weak self, completion] result in
            Task { @MainActor in
                guard let self, state.isCurrent(generation, key: key) else { return }
                state.end(key, generation: generation)
                self.finishLoad(result, placeholder: placeholder, options: targetOptions, completion: completion)
            }
        }
        state.attach(task, key: key, generation: generation)
        if options.contains(.progressiveLoad), !targetOptions.contains(.avoidAutoSetImage) {
            showPreviews(of: task, key: key, generation: generation)
        }
        return task
    }

    /// Cancels the load of `operationKey` (default: the target's only one); nothing is shown or completed for it.
    public func cancelImageLoad(operationKey: String? = nil) {
        imageLoading.cancel(operationKey ?? Self.defaultOperationKey)
    }

    private func finishLoad(_ result: Result<ImageResult, ImageError>, placeholder: Image?, options: ImageTargetOptions,
                            completion: (@MainActor (Result<ImageResult, ImageError>) -> Void)?) {
        switch result {
        case .success(let value):
            if !options.contains(.avoidAutoSetImage) { display(value.image, cacheType: value.cacheType) }
        case .failure(let error):
            if error.code == .cancelled { return }
            if options.contains(.delayPlaceholder) { display(placeholder, cacheType: nil) }
        }
        completion?(result)
    }

    private func showPreviews(of task: ImageTask, key: String, generation: Int) {
        let events = task.events
        let state = imageLoading
        Task { @MainActor [weak self] in
            do {
                for try await event in events {
                    guard case .preview(let image) = event else { continue }
                    guard let self, state.isRunning(generation, key: key) else { return }
                    self.display(image, cacheType: nil)
                }
            } catch {
                return  // The completion reports failures.
            }
        }
    }
}
