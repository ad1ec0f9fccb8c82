import Foundation

extension ImageManager {
    /// Runs `work` (the cache stores of one load) after delivery unless a caller waits for it
    /// (``ImageOptions/waitStoreCache``, see ``FinalImage/stores``); counted for ``isRunning`` until done. A
    /// failed store is logged, never delivered as the load's failure (the image itself is fine).
    func startStores(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        storeStarted()
        return Task {
            await work()
            self.storeEnded()
        }
    }

    /// Stores a freshly loaded image: the original bytes under the original key (disk by default) when the
    /// result is a thumbnail or transformed, and the result under the final key (memory and disk by default;
    /// on disk its `encoded` bytes when the load asked for a ``ResultEncoding``).
    /// A response with `Cache-Control: no-store` is kept in memory only.
    func store(_ image: Image, original: DecodedOriginal, encoded: Data?, resolved: ResolvedImageRequest,
               validators: HTTPValidators) async {
        let data = original.response.data
        let lasting = !original.response.metadata.forbidsStorage
        if resolved.hasDerivedKey {
            // The original is kept as bytes only: what was decoded is the thumbnail, not the original. Bytes
            // that stopped early are not the original at all, and are not kept.
            let types = resolved.context.originalStoreCacheType.subtracting(.memory)
            if !types.isEmpty, lasting, !original.response.isPrefix {
                // The context's serializer is for the delivered image; the original keeps the manager's.
                await storeLogged(resolved.originalCache, nil, data: data, key: resolved.originalKey, types: types,
                                  validators: validators, serializer: configuration.cacheSerializer,
                                  coders: resolved.coders)
            }
            await storeFinal(image, originalData: nil, encoded: encoded, resolved: resolved, validators: validators,
                             isTrimmedAnimation: original.isTrimmedAnimation, allowsDisk: lasting)
        } else {
            await storeFinal(image, originalData: data, encoded: encoded, resolved: resolved, validators: validators,
                             isTrimmedAnimation: original.isTrimmedAnimation,
                             allowsDisk: lasting && !original.response.isPrefix)
        }
    }

    /// Stores the delivered image under the final key in the context's store types: the image in memory, and on
    /// disk its `encoded` bytes (a ``ResultEncoding``'s) or else the bytes the context's serializer (else the
    /// configuration's) makes of it, written as they are.
    func storeFinal(_ image: Image, originalData: Data?, encoded: Data? = nil, resolved: ResolvedImageRequest,
                    validators: HTTPValidators, isTrimmedAnimation: Bool, allowsDisk: Bool = true) async {
        var types = resolved.context.storeCacheType
        // The first frame of an animation is not the image other loads expect from memory; a still image is.
        if isTrimmedAnimation { types.remove(.memory) }
        if !allowsDisk { types.remove(.disk) }
        let serializer = encoded.map { bytes in CacheSerializer { _, _, _, _ in bytes } }
            ?? resolved.context.cacheSerializer ?? configuration.cacheSerializer
        await storeLogged(resolved.cache, image, data: originalData, key: resolved.finalKey, types: types,
                          validators: validators, serializer: serializer, coders: resolved.coders)
    }

    /// Stores in `cache`'s parts in `types`; a failed disk write is logged (the image is fine).
    private func storeLogged(_ cache: any ImageCaching, _ image: Image?, data: Data?, key: String,
                             types: ImageCacheType, validators: HTTPValidators,
                             serializer: CacheSerializer, coders: ImageCoders) async {
        var stored = ImageCacheType.none
        if types.contains(.memory), let image {
            cache.storeImage(image, forKey: key)
            stored.insert(.memory)
        }
        if types.contains(.disk) {
            do {
                if let bytes = try serializer.diskData(for: image, originalData: data, forKey: key, coders: coders) {
                    try await cache.storeData(bytes, forKey: key, validators: validators)
                    stored.insert(.disk)
                }
            } catch {
                logger.warning("cache store failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
        if !stored.isEmpty, events.hasListeners { events.emit(.stored(key: key, stored)) }
    }
}
