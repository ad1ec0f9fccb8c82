import Foundation

// The stages of one job, in the order SDWebImage runs them: query the final key, then the original; load;
// decode; transform; store; deliver.
extension ImageManager {
    /// Runs `job` to the end and hands the outcome to its callers.
    func run(_ job: PipelineJob) async {
        let plan = job.plan
        let outcome: Result<ImageResult, ImageError>
        do {
            outcome = .success(try await pipeline(job))
        } catch {
            outcome = .failure(Task.isCancelled ? ImageError(.cancelled, "the load was cancelled")
                                                : ImageError.fromTransport(error))
        }
        retire(job)
        switch outcome {
        case .success:
            if plan.options.contains(.retryFailed) { failedURLs.remove(plan.url) }
            logger.debug("loaded", metadata: ["url": "\(plan.url)"])
        case .failure(let error):
            if FailedURLs.blocks(after: error) { failedURLs.insert(plan.url) }
            metrics.recordError(error.code)
            logger.debug("load failed", metadata: ["url": "\(plan.url)", "error": "\(error)"])
        }
        if events.hasListeners { events.emit(.finished(plan.url, error: outcome.failureCode)) }
        job.finish(outcome)
    }

    private func pipeline(_ job: PipelineJob) async throws -> ImageResult {
        let plan = job.plan
        if !plan.options.contains(.fromLoaderOnly) {
            if let hit = try await queryFinal(plan) {
                if plan.options.contains(.refreshCached) { return try await revalidate(job, cached: hit) }
                return hit
            }
            if plan.hasDerivedKey, let result = try await deriveFromCachedOriginal(plan) { return result }
        }
        guard !plan.options.contains(.fromCacheOnly) else {
            throw ImageError(.notFoundInCache, "\(plan.finalKey) is not cached and fromCacheOnly was given")
        }
        metrics.misses.increment()
        if events.hasListeners { events.emit(.cacheMiss(plan.url)) }
        let response = try await load(job, extraHeaders: HTTPHeaderFields())
        return try await process(response, job: job)
    }

    // MARK: Cache queries

    /// The final image from the cache, decoded here (bounded) when it came from disk.
    private func queryFinal(_ plan: LoadPlan) async throws -> ImageResult? {
        let wantsData = plan.options.contains(.queryMemoryData) || plan.options.contains(.refreshCached)
        let options = ImageCacheQueryOptions(includeData: wantsData, skipDecoding: true, fillsMemory: false)
        let synchronous = plan.options.contains(.queryDiskDataSync)
            || (wantsData && plan.options.contains(.queryMemoryDataSync))
        let hit = synchronous
            ? plan.cache.querySynchronously(forKey: plan.finalKey, in: plan.context.queryCacheType, options: options)
            : await plan.cache.query(forKey: plan.finalKey, in: plan.context.queryCacheType, options: options)
        guard let hit else { return nil }
        try checkCancellation()
        var image: Image
        if let cached = hit.image {
            image = cached
            // Memory holds complete animations; a first-frame-only load takes the poster frame.
            if plan.decodeOptions.firstFrameOnly, image.isAnimated { image.frames = [image.frames[0]] }
        } else if let data = hit.data, let decoded = try? await decode(data, plan: plan, options: plan.cachedDecodeOptions) {
            image = decoded
            if plan.context.storeCacheType.contains(.memory) {
                try? await plan.cache.store(image, data: nil, forKey: plan.finalKey, in: .memory, validators: .none)
            }
        } else {
            return nil  // Bytes no coder reads count as a miss; the load replaces them.
        }
        metrics.recordHit(hit.cacheType)
        if events.hasListeners { events.emit(.cacheHit(plan.url, hit.cacheType)) }
        return ImageResult(image: image, data: hit.data, cacheType: hit.cacheType, url: plan.url,
                           validators: hit.metadata?.validators)
    }

    /// On a miss of a thumbnail or transformed image: make it from the cached original instead of loading.
    private func deriveFromCachedOriginal(_ plan: LoadPlan) async throws -> ImageResult? {
        let options = ImageCacheQueryOptions(skipDecoding: true, fillsMemory: false)
        guard let hit = await plan.originalCache.query(forKey: plan.originalKey,
                                                       in: plan.context.originalQueryCacheType, options: options),
              let data = hit.data ?? hit.image.flatMap({ try? plan.coders.encode($0, as: .png) })
        else { return nil }
        try checkCancellation()
        guard let image = try? await decode(data, plan: plan, options: plan.decodeOptions) else { return nil }
        let result = try await transform(image, plan: plan)
        metrics.recordHit(hit.cacheType)
        if events.hasListeners { events.emit(.cacheHit(plan.url, hit.cacheType)) }
        let validators = hit.metadata?.validators ?? .none
        try await storeFinal(result, originalData: nil, plan: plan, validators: validators)
        return ImageResult(image: result, data: nil, cacheType: hit.cacheType, url: plan.url)
    }

    // MARK: Refresh

    /// `refreshCached`: asks the server whether the cached image is still current. A 304 keeps it (with fresh
    /// validators) and delivers it once; a 200 replaces it and delivers the new image.
    private func revalidate(_ job: PipelineJob, cached: ImageResult) async throws -> ImageResult {
        let plan = job.plan
        let validators = cached.validators ?? .none
        do {
            let response = try await load(job, extraHeaders: validators.canRevalidate
                                                 ? validators.conditionalHeaders : HTTPHeaderFields())
            return try await process(response, job: job)
        } catch let error as ImageError where error.code == .cacheNotModified {
            if events.hasListeners { events.emit(.loaded(plan.url, bytes: 0, notModified: true)) }
            // Rewriting the entry's header records the successful revalidation (and its access time).
            _ = try? await plan.cache.updateValidators(validators, forKey: plan.finalKey)
            if plan.hasDerivedKey {
                _ = try? await plan.originalCache.updateValidators(validators, forKey: plan.originalKey)
            }
            var result = cached
            result.validators = nil
            return result
        }
    }

    // MARK: After loading

    /// Decodes, transforms and stores freshly loaded bytes.
    private func process(_ response: ImageLoadResponse, job: PipelineJob) async throws -> ImageResult {
        let plan = job.plan
        let image = try await decode(response.data, plan: plan, options: plan.decodeOptions)
        let result = try await transform(image, plan: plan)
        try checkCancellation()
        let validators = HTTPValidators(response: response.metadata)
        try await store(result, response: response, plan: plan, validators: validators)
        return ImageResult(image: result, data: response.data, cacheType: .none, url: plan.url)
    }

    /// Decodes `data` on the bounded decode slots.
    func decode(_ data: Data, plan: LoadPlan, options: DecodeOptions) async throws -> Image {
        let coders = plan.coders
        let start = ContinuousClock.now
        let image = try await decodeLimiter.run { try coders.decode(data, options: options) }
        let elapsed = start.duration(to: .now)
        metrics.decodeTime.recordNanoseconds(elapsed.nanoseconds)
        if events.hasListeners { events.emit(.decoded(plan.url, duration: elapsed)) }
        return image
    }

    /// Applies the plan's transformer on the bounded slots (animated images only with
    /// `transformAnimatedImage`).
    func transform(_ image: Image, plan: LoadPlan) async throws -> Image {
        guard let transformer = plan.transformer,
              !image.isAnimated || plan.options.contains(.transformAnimatedImage) else { return image }
        try checkCancellation()
        let start = ContinuousClock.now
        let result = try await decodeLimiter.run { try transformer.transform(image) }
        let elapsed = start.duration(to: .now)
        metrics.transformTime.recordNanoseconds(elapsed.nanoseconds)
        if events.hasListeners { events.emit(.transformed(plan.url, duration: elapsed)) }
        return result
    }

    func checkCancellation() throws {
        if Task.isCancelled { throw ImageError(.cancelled, "the load was cancelled") }
    }
}

extension Result where Failure == ImageError {
    var failureCode: ImageError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
