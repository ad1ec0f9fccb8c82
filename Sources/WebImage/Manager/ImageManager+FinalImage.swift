import Foundation

// The final stage of a load, in SDWebImage's order: query the final key, then the original; load and decode
// (the stages below); transform; store; deliver.
extension ImageManager {
    /// The final stage's work with its bookkeeping: failed URLs, metrics, log, events.
    func finalImage(_ resolved: ResolvedImageRequest, in task: FinalImageTask) async throws -> FinalImage {
        let url = resolved.url
        do {
            let value = try await finalImageStages(resolved, in: task)
            if resolved.options.contains(.retryFailed) { failedURLs.remove(url) }
            logger.debug("loaded", metadata: ["url": "\(url)"])
            if events.hasListeners {
                // A load that waits for its stores finishes after them, as its caller sees it.
                if resolved.options.contains(.waitStoreCache), let stores = value.stores {
                    Task { [events] in
                        await stores.value
                        events.emit(.finished(url, error: nil))
                    }
                } else {
                    events.emit(.finished(url, error: nil))
                }
            }
            return value
        } catch {
            let failure = Task.isCancelled ? ImageError(.cancelled, "the load was cancelled")
                                           : ImageError.fromTransport(error)
            if FailedURLs.blocks(after: failure) { failedURLs.insert(url, failure: failure) }
            metrics.recordError(failure.code)
            logger.debug("load failed", metadata: ["url": "\(url)", "error": "\(failure)"])
            if events.hasListeners { events.emit(.finished(url, error: failure.code)) }
            throw failure
        }
    }

    private func finalImageStages(_ resolved: ResolvedImageRequest, in task: FinalImageTask) async throws
        -> FinalImage {
        if !resolved.options.contains(.fromLoaderOnly) {
            if let hit = try await queryFinal(resolved, in: task) {
                if needsRevalidation(hit, options: resolved.options) {
                    return try await revalidate(resolved, cached: hit, in: task)
                }
                return FinalImage(result: hit, stores: nil)
            }
            if resolved.hasDerivedKey, let derived = try await deriveFromCachedOriginal(resolved, in: task) {
                return derived
            }
        }
        guard !resolved.options.contains(.fromCacheOnly) else {
            throw ImageError(.notFoundInCache, "\(resolved.finalKey) is not cached and fromCacheOnly was given")
        }
        metrics.misses.increment()
        if events.hasListeners { events.emit(.cacheMiss(resolved.url)) }
        let original = try await decodedOriginal(resolved, extraHeaders: HTTPHeaderFields(), for: task)
        return try await finish(original, resolved: resolved, in: task)
    }

    // MARK: Cache queries

    /// The final image from the cache: from memory as it is, from disk decoded here (bounded, with the load's
    /// decoding options) and put in memory.
    private func queryFinal(_ resolved: ResolvedImageRequest, in task: FinalImageTask) async throws -> ImageResult? {
        let options = resolved.options
        let types = resolved.context.queryCacheType
        let cache = resolved.cache
        let key = resolved.finalKey
        // For a memory hit the disk is read only for its bytes: a missing entry leaves the hit a hit.
        let remembered = types.contains(.memory) ? cache.image(forKey: key) : nil
        // An encoded result's bytes are its disk entry: a memory hit reads them rather than encoding again.
        let encodes = resolved.context.resultEncoding != nil
        let wantsData = encodes || options.hitNeedsStoredData(animated: remembered?.isAnimated ?? true)
        let synchronous = options.contains(.queryDiskDataSync)
            || (wantsData && options.contains(.queryMemoryDataSync))
        let stored: CachedImageData?
        if (remembered == nil && types.contains(.disk)) || (remembered != nil && wantsData) {
            stored = synchronous ? cache.cachedDataSynchronously(forKey: key) : await cache.cachedData(forKey: key)
        } else {
            stored = nil
        }
        try checkCancellation()
        let image: Image
        let cacheType: ImageCacheType
        if let remembered {
            image = Self.deliverable(remembered, decodeOptions: resolved.decodeOptions)
            cacheType = .memory
        } else if let data = stored?.data,
                  let decoded = try? await decode(data, resolved: resolved, options: resolved.cachedDecodeOptions,
                                                 for: task) {
            image = decoded
            cacheType = stored?.tier ?? .disk
            if resolved.context.storeCacheType.contains(.memory), !resolved.isTrimmedAnimation(data) {
                cache.storeImage(image, forKey: key)
            }
        } else {
            return nil  // A miss; bytes no coder reads count as one too, and the load replaces them.
        }
        metrics.recordHit(cacheType)
        if events.hasListeners { events.emit(.cacheHit(resolved.url, cacheType)) }
        // A disk hit comes with its bytes, as SDWebImage's does; a memory hit only when they were asked for, or
        // when they are the result's encoding (encoded again only if its disk entry is gone).
        var data = stored?.data
        if encodes, data == nil { data = try await encodedResult(image, resolved: resolved, for: task) }
        return ImageResult(image: image, data: data, cacheType: cacheType, url: resolved.url,
                           validators: stored?.metadata?.validators)
    }

    /// A memory-cached image as a load with `decodeOptions` delivers it: memory holds complete animations, a
    /// first-frame-only load takes the poster frame.
    static func deliverable(_ image: Image, decodeOptions: DecodeOptions) -> Image {
        guard decodeOptions.firstFrameOnly, image.isAnimated else { return image }
        var poster = image
        poster.frames = [image.frames[0]]
        return poster
    }

    /// On a miss of a thumbnail or transformed image: make it from the cached original instead of loading.
    private func deriveFromCachedOriginal(_ resolved: ResolvedImageRequest,
                                          in task: FinalImageTask) async throws -> FinalImage? {
        let types = resolved.context.originalQueryCacheType
        let cache = resolved.originalCache
        let image: Image
        let hitType: ImageCacheType
        let validators: HTTPValidators
        let trimmed: Bool
        if types.contains(.memory), let original = cache.image(forKey: resolved.originalKey) {
            // Reduced from its pixels, as a decode of its file with these options reduces it.
            let options = resolved.decodeOptions
            guard let reduced = try? await decoding.run(for: task, { try options.reduced(original) }) else {
                return nil
            }
            (image, hitType, validators) = (reduced, .memory, .none)
            trimmed = options.firstFrameOnly && original.isAnimated
        } else if types.contains(.disk), let stored = await cache.cachedData(forKey: resolved.originalKey) {
            try checkCancellation()
            guard let decoded = try? await decode(stored.data, resolved: resolved, options: resolved.decodeOptions,
                                                 for: task) else {
                return nil
            }
            (image, hitType, validators) = (decoded, .disk, stored.metadata?.validators ?? .none)
            trimmed = resolved.isTrimmedAnimation(stored.data)
        } else {
            return nil
        }
        let result = try await transform(image, resolved: resolved, for: task)
        let encoded = try await encodedResult(result, resolved: resolved, for: task)
        metrics.recordHit(hitType)
        if events.hasListeners { events.emit(.cacheHit(resolved.url, hitType)) }
        try checkCancellation()
        let stores = startStores {
            await self.storeFinal(result, originalData: nil, encoded: encoded, resolved: resolved,
                                  validators: validators, isTrimmedAnimation: trimmed)
        }
        return FinalImage(result: ImageResult(image: result, data: encoded, cacheType: hitType, url: resolved.url),
                          stores: stores)
    }

    // MARK: Revalidation

    /// Whether a cache hit must be confirmed by the server first: always with `refreshCached`; with
    /// `refreshIfStale` when its stored freshness has run out (or was never given).
    private func needsRevalidation(_ hit: ImageResult, options: ImageOptions) -> Bool {
        if options.contains(.refreshCached) { return true }
        guard options.contains(.refreshIfStale) else { return false }
        return !(hit.validators?.isFresh() ?? false)
    }

    /// `refreshCached`: asks the server whether the cached image is still current. A 304 keeps it (with fresh
    /// validators) and delivers it once; a 200 replaces it and delivers the new image. The one place where a
    /// cached entry's validators meet the network.
    private func revalidate(_ resolved: ResolvedImageRequest, cached: ImageResult,
                            in task: FinalImageTask) async throws -> FinalImage {
        let validators = cached.validators ?? .none
        do {
            let original = try await decodedOriginal(
                resolved, extraHeaders: validators.canRevalidate ? validators.conditionalHeaders : HTTPHeaderFields(),
                for: task)
            return try await finish(original, resolved: resolved, in: task)
        } catch let error as ImageError where error.code == .cacheNotModified {
            if events.hasListeners { events.emit(.loaded(resolved.url, bytes: 0, notModified: true)) }
            // The 304's own ETag, Last-Modified and freshness replace the stored ones (RFC 9111 §4.3.4).
            let refreshed = error.response.map { validators.refreshed(by: $0) } ?? validators
            _ = try? await resolved.cache.updateValidators(refreshed, forKey: resolved.finalKey)
            if resolved.hasDerivedKey {
                _ = try? await resolved.originalCache.updateValidators(refreshed, forKey: resolved.originalKey)
            }
            var result = cached
            result.validators = nil
            return FinalImage(result: result, stores: nil)
        }
    }

    // MARK: After loading

    /// Transforms freshly decoded bytes and starts their stores.
    private func finish(_ original: DecodedOriginal, resolved: ResolvedImageRequest,
                        in task: FinalImageTask) async throws -> FinalImage {
        let result = try await transform(original.image, resolved: resolved, for: task)
        let encoded = try await encodedResult(result, resolved: resolved, for: task)
        try checkCancellation()
        let validators = HTTPValidators(response: original.response.metadata)
        let stores = startStores {
            await self.store(result, original: original, encoded: encoded, resolved: resolved,
                             validators: validators)
        }
        // The start of a file that stopped early is not the file: it is not handed out as its bytes.
        let data = encoded ?? (original.response.isPrefix ? nil : original.response.data)
        return FinalImage(result: ImageResult(image: result, data: data, cacheType: .none, url: resolved.url),
                          stores: stores)
    }
}
