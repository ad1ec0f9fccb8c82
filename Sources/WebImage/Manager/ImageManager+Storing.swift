import Foundation

extension ImageManager {
    /// Stores a freshly loaded image: the original bytes under the original key (disk by default) when the
    /// result is a thumbnail or transformed, and the result under the final key (memory and disk by default).
    /// Runs before delivery with `waitStoreCache`, else after it; a failed store is logged, never delivered as
    /// the load's failure (the image itself is fine).
    func store(_ image: Image, response: ImageLoadResponse, plan: LoadPlan, validators: HTTPValidators) async throws {
        let work: @Sendable () async -> Void = { [self] in
            if plan.hasDerivedKey {
                // The original is kept as bytes only: what was decoded is the thumbnail, not the original.
                let types = plan.context.originalStoreCacheType.subtracting(.memory)
                if !types.isEmpty {
                    await storeLogged(plan.originalCache, nil, data: response.data, key: plan.originalKey,
                                      types: types, validators: validators)
                }
                await storeFinalLogged(image, originalData: nil, plan: plan, validators: validators)
            } else {
                await storeFinalLogged(image, originalData: response.data, plan: plan, validators: validators)
            }
        }
        if plan.options.contains(.waitStoreCache) {
            await work()
        } else {
            storeStarted()
            Task {
                await work()
                self.storeEnded()
            }
        }
    }

    /// Stores the delivered image under the final key in the context's store types (the context's serializer
    /// decides the disk bytes when it has one). Throws only for a cancelled load.
    func storeFinal(_ image: Image, originalData: Data?, plan: LoadPlan, validators: HTTPValidators) async throws {
        try checkCancellation()
        await storeFinalLogged(image, originalData: originalData, plan: plan, validators: validators)
    }

    private func storeFinalLogged(_ image: Image, originalData: Data?, plan: LoadPlan,
                                  validators: HTTPValidators) async {
        var types = plan.context.storeCacheType
        // A first-frame-only decode of an animation is not the image other loads expect from memory.
        if plan.decodeOptions.firstFrameOnly { types.remove(.memory) }
        var data = originalData
        if types.contains(.disk), let serializer = plan.context.cacheSerializer {
            do {
                data = try serializer.diskData(for: image, originalData: originalData, forKey: plan.finalKey,
                                               coders: plan.coders)
            } catch {
                data = nil
            }
            if data == nil { types.remove(.disk) }
        }
        guard !types.isEmpty else { return }
        await storeLogged(plan.cache, image, data: data, key: plan.finalKey, types: types, validators: validators)
    }

    private func storeLogged(_ cache: any ImageCaching, _ image: Image?, data: Data?, key: String,
                             types: ImageCacheType, validators: HTTPValidators) async {
        do {
            try await cache.store(image, data: data, forKey: key, in: types, validators: validators)
            if events.hasListeners { events.emit(.stored(key: key, types)) }
        } catch {
            logger.warning("cache store failed", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }
}
