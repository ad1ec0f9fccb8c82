import Foundation

// The two stages below the final image: load the bytes (any loader, one queue, the context's hooks), and
// decode them (with previews while they arrive, for progressiveLoad).
extension ImageManager {
    /// The original image for `resolved`, decoded from freshly loaded bytes (`extraHeaders` make the request
    /// conditional). Joins an equal decode, and below it an equal load, when one runs.
    func decodedOriginal(_ resolved: ResolvedImageRequest, extraHeaders: HTTPHeaderFields,
                         for task: FinalImageTask) async throws -> DecodedOriginal {
        let loadRequest = try resolved.loadRequest(extraHeaders: extraHeaders)
        let dataKey = resolved.dataTaskKey(for: loadRequest)
        let progressive = resolved.options.contains(.progressiveLoad)
        let decodeKey = DecodeTaskKey(data: dataKey, decodeOptions: resolved.decodeOptions,
                                      coders: PartIdentity(resolved.coders), progressive: progressive)
        return try await task.dependency(on: decodeTasks, key: decodeKey, onUpdate: { task.report($0) }) {
            [self] decodeTask in
            let previewer = progressive
                ? ProgressivePreviewer(options: resolved.decodeOptions, coders: resolved.coders) : nil
            let onUpdate: @Sendable (ImageLoadProgress) -> Void = { progress in
                decodeTask.report(.progress(progress))
                if let previewer, let data = progress.partialData, let preview = previewer.preview(from: data) {
                    decodeTask.report(.preview(preview))
                }
            }
            var response = try await decodeTask.dependency(on: dataTasks, key: dataKey, onUpdate: onUpdate) {
                [self] dataTask in
                try await load(loadRequest, resolved: resolved, in: dataTask)
            }
            // Thumbnails of every size share one transfer, which stops where the first of them is served: one
            // that needs more (a larger scale) reads the whole file.
            if response.isPrefix, let rule = loadRequest.earlyStop, !rule.isSatisfied(by: response.data) {
                let whole = {
                    var whole = loadRequest
                    whole.earlyStop = nil
                    return whole
                }()
                response = try await decodeTask.dependency(on: dataTasks, key: resolved.dataTaskKey(for: whole),
                                                           onUpdate: onUpdate) { [self] dataTask in
                    try await load(whole, resolved: resolved, in: dataTask)
                }
            }
            let image = try await decode(response.data, resolved: resolved, options: resolved.decodeOptions)
            return DecodedOriginal(image: image, response: response,
                                   isTrimmedAnimation: resolved.isTrimmedAnimation(response.data))
        }
    }

    /// Loads `request` with the resolved loader once a load slot is free, then applies the response modifier and
    /// decryptor (the context's, else the downloader's), once. The same path for every loader.
    private func load(_ request: ImageLoadRequest, resolved: ResolvedImageRequest,
                      in task: DataTask) async throws -> ImageLoadResponse {
        try await loadSlots.run(for: task) {
            var response: ImageLoadResponse
            do {
                response = try await resolved.loader.load(request) { task.report($0) }
            } catch {
                throw ImageError.fromTransport(error)
            }
            if let modifier = resolved.responseModifier {
                guard let metadata = modifier(response.metadata) else {
                    throw ImageError(.invalidDownloadResponse, "the response modifier rejected the response")
                }
                response.metadata = metadata
            }
            if let decryptor = resolved.decryptor {
                guard let data = decryptor.decrypt(response.data, response: response.metadata), !data.isEmpty else {
                    throw ImageError(.badImageData, "the loaded data could not be decrypted")
                }
                response.data = data
            }
            metrics.bytesLoaded.increment(by: response.data.count)
            if events.hasListeners { events.emit(.loaded(resolved.url, bytes: response.data.count, notModified: false)) }
            return response
        }
    }

    /// Decodes `data` on the bounded decode slots.
    func decode(_ data: Data, resolved: ResolvedImageRequest, options: DecodeOptions) async throws -> Image {
        let coders = resolved.coders
        let start = ContinuousClock.now
        let image = try await decoding.run { try coders.decode(data, options: options) }
        let elapsed = start.duration(to: .now)
        metrics.decodeTime.recordNanoseconds(elapsed.nanoseconds)
        if events.hasListeners { events.emit(.decoded(resolved.url, duration: elapsed)) }
        return image
    }

    /// Applies the transformer on the bounded slots (animated images only with `transformAnimatedImage`).
    func transform(_ image: Image, resolved: ResolvedImageRequest) async throws -> Image {
        guard let transformer = resolved.transformer,
              !image.isAnimated || resolved.options.contains(.transformAnimatedImage) else { return image }
        try checkCancellation()
        let start = ContinuousClock.now
        let result = try await decoding.run { try transformer.transform(image) }
        let elapsed = start.duration(to: .now)
        metrics.transformTime.recordNanoseconds(elapsed.nanoseconds)
        if events.hasListeners { events.emit(.transformed(resolved.url, duration: elapsed)) }
        return result
    }

    func checkCancellation() throws {
        if Task.isCancelled { throw ImageError(.cancelled, "the load was cancelled") }
    }
}
