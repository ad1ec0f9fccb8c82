import Foundation

/// What the image manager needs from a cache. ``ImageCache`` (memory + disk) and ``ImageCaches`` (several
/// caches chained) conform; so can a custom cache (a shared cache server, say).
///
/// Keys are the manager's cache keys (URL, thumbnail and transformer suffixes). Every method is safe to call
/// from any task.
public protocol ImageCaching: AnyObject, Sendable {
    /// The image for `key` from the caches in `types`, or `nil` on a miss.
    func query(forKey key: String, in types: ImageCacheType, options: ImageCacheQueryOptions) async -> ImageCacheResult?
    /// The same query, answered on the calling thread (disk reads block it): SDWebImage's
    /// `queryMemoryDataSync` / `queryDiskDataSync`.
    func querySynchronously(forKey key: String, in types: ImageCacheType, options: ImageCacheQueryOptions)
        -> ImageCacheResult?
    /// Stores `image` and/or its encoded `data` for `key` in the caches in `types`; returns when stored.
    /// Throws ``ImageError/Code/io`` when the disk write fails (the memory cache is stored all the same).
    func store(_ image: Image?, data: Data?, forKey key: String, in types: ImageCacheType,
               validators: HTTPValidators) async throws
    /// Writes `data` to the disk part for `key` exactly as given: the bytes a context's ``CacheSerializer``
    /// chose, which the cache's own serializer must not serialize again.
    func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws
    /// Replaces the HTTP validators kept with `key`'s disk entry (after a `304 Not Modified`); `false` when
    /// there is no entry. Caches that keep no validators return `false` (the default implementation).
    @discardableResult
    func updateValidators(_ validators: HTTPValidators, forKey key: String) async throws -> Bool
    /// Removes `key` from the caches in `types`.
    func remove(forKey key: String, from types: ImageCacheType) async
    /// Where `key` is: ``ImageCacheType/memory``, ``ImageCacheType/disk``, or ``ImageCacheType/none``.
    func contains(forKey key: String, in types: ImageCacheType) async -> ImageCacheType
    /// Empties the caches in `types`.
    func clear(_ types: ImageCacheType) async
}

extension ImageCaching {
    /// Stores `data` in the disk tier through ``store(_:data:forKey:in:validators:)``: right for caches that keep
    /// given bytes as they are.
    public func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        try await store(nil, data: data, forKey: key, in: .disk, validators: validators)
    }

    /// Keeps no validators: returns `false`.
    @discardableResult
    public func updateValidators(_ validators: HTTPValidators, forKey key: String) async throws -> Bool { false }

    /// The image for `key` from memory, then disk.
    public func query(forKey key: String) async -> ImageCacheResult? {
        await query(forKey: key, in: .all, options: ImageCacheQueryOptions())
    }

    /// The image for `key` from the caches in `types`.
    public func query(forKey key: String, in types: ImageCacheType) async -> ImageCacheResult? {
        await query(forKey: key, in: types, options: ImageCacheQueryOptions())
    }

    /// Stores `image` and/or `data` for `key`, without HTTP validators.
    public func store(_ image: Image?, data: Data?, forKey key: String, in types: ImageCacheType = .all) async throws {
        try await store(image, data: data, forKey: key, in: types, validators: .none)
    }

    /// Removes `key` from memory and disk.
    public func remove(forKey key: String) async {
        await remove(forKey: key, from: .all)
    }
}
