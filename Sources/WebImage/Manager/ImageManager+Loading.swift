import Foundation

// The decode stage and what it stands on: the bytes from the transfer stage (shared with every caller of the
// same stage, a downloader's direct callers included), the load's hooks applied, then decoded (with previews
// while they arrive, for progressiveLoad).
extension ImageManager {
    /// The original image for `resolved`, decoded from freshly loaded bytes (`extraHeaders` make the request
    /// conditional). Joins an equal decode, and below it an equal transfer, when one runs.
    func decodedOriginal(_ resolved: ResolvedImageRequest, extraHeaders: HTTPHeaderFields,
                         for task: FinalImageTask) async throws -> DecodedOriginal {
        let loadRequest = try resolved.loadRequest(extraHeaders: extraHeaders)
        let progressive = resolved.options.contains(.progressiveLoad)
        let decodeKey = DecodeTaskKey(
            transfer: TransferStage.key(for: loadRequest, retries: true, via: resolved.transport),
            unique: resolved.unique, decodeOptions: resolved.decodeOptions, coders: PartIdentity(resolved.coders),
            progressive: progressive)
        return try await task.dependency(on: decodeTasks, key: decodeKey, onUpdate: { task.report($0) }) {
            [self] decodeTask in
            let previewer = progressive
                ? ProgressivePreviewer(options: resolved.decodeOptions, coders: resolved.coders) : nil
            let onUpdate: @Sendable (ImageLoadProgress) -> Void = { progress in
                var progress = progress
                if !progressive { progress.partialData = nil }
                decodeTask.report(.progress(progress))
                if let previewer, let data = progress.partialData, let preview = previewer.preview(from: data) {
                    decodeTask.report(.preview(preview))
                }
            }
            // Thumbnails of every size share one transfer, which stops where the first of them is served: one
            // that needs more (a larger scale) reads the whole file.
            let response = try await TransferStage.complete(loadRequest) { request in
                try await load(request, resolved: resolved, for: decodeTask, onUpdate: onUpdate)
            }
            let image = try await decode(response.data, resolved: resolved, options: resolved.decodeOptions,
                                         for: decodeTask)
            return DecodedOriginal(image: image, response: response,
                                   isTrimmedAnimation: resolved.isTrimmedAnimation(response.data))
        }
    }

    /// The response to `request` from the stage (joined when an equal transfer runs there, for this manager or
    /// any other caller of the stage), then the load's response modifier and decryptor, once.
    private func load(_ request: ImageLoadRequest, resolved: ResolvedImageRequest, for decodeTask: DecodeTask,
                      onUpdate: @escaping @Sendable (ImageLoadProgress) -> Void) async throws -> ImageLoadResponse {
        let shared = try await resolved.stage.response(to: request, retries: true, via: resolved.transport,
                                                       for: decodeTask, onUpdate: onUpdate)
        let response = try resolved.hooks.apply(to: shared).get()
        metrics.bytesLoaded.increment(by: response.data.count)
        if events.hasListeners { events.emit(.loaded(resolved.url, bytes: response.data.count, notModified: false)) }
        return response
    }

    /// Decodes `data` on the bounded decode slots, waiting there at `task`'s priority as it changes.
    func decode<Value, Update>(_ data: Data, resolved: ResolvedImageRequest, options: DecodeOptions,
                               for task: SharedTask<Value, Update>) async throws -> Image {
        let coders = resolved.coders
        let start = ContinuousClock.now
        let image = try await decoding.run(for: task) { try coders.decode(data, options: options) }
        let elapsed = start.duration(to: .now)
        metrics.decodeTime.recordNanoseconds(elapsed.nanoseconds)
        if events.hasListeners { events.emit(.decoded(resolved.url, duration: elapsed)) }
        return image
    }

    /// Applies the transformer on the bounded slots, waiting there at `task`'s priority as it changes (animated
    /// images only with `transformAnimatedImage`).
    func transform(_ image: Image, resolved: ResolvedImageRequest, for task: FinalImageTask) async throws -> Image {
        guard let transformer = resolved.transformer,
              !image.isAnimated || resolved.options.contains(.transformAnimatedImage) else { return image }
        try checkCancellation()
        let start = ContinuousClock.now
        let result = try await decoding.run(for: task) { try transformer.transform(image) }
        let elapsed = start.duration(to: .now)
        metrics.transformTime.recordNanoseconds(elapsed.nanoseconds)
        if events.hasListeners { events.emit(.transformed(resolved.url, duration: elapsed)) }
        return result
    }

    /// The final image's bytes in the load's ``ImageContext/resultEncoding``, encoded on the bounded slots at
    /// `task`'s priority; `nil` when the load asks for none.
    func encodedResult(_ image: Image, resolved: ResolvedImageRequest, for task: FinalImageTask) async throws
        -> Data? {
        guard let encoding = resolved.context.resultEncoding else { return nil }
        try checkCancellation()
        let coders = resolved.coders
        return try await decoding.run(for: task) {
            try coders.encode(image, as: encoding.format, options: encoding.options)
        }
    }

    func checkCancellation() throws {
        if Task.isCancelled { throw ImageError(.cancelled, "the load was cancelled") }
    }
}
