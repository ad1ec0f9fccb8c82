import Foundation

/// Decoded images held in memory, answered synchronously: the first place the manager looks (Nuke's
/// `ImageCaching`, SDWebImage's memory cache). Keys are the manager's cache keys.
public protocol ImageMemoryCaching: AnyObject, Sendable {
    /// The image for `key`, or `nil` on a miss. Never does I/O.
    func image(forKey key: String) -> Image?
    /// Keeps `image` under `key`, replacing what was there.
    func storeImage(_ image: Image, forKey key: String)
    /// Forgets the image for `key`.
    func removeImage(forKey key: String)
    /// Forgets every image.
    func removeAllImages()
}

/// Encoded image bytes with their metadata, kept somewhere slower than memory (a disk, a cache server): the
/// manager's second place to look, and what it decodes itself (Nuke's `DataCaching`). Keys are the manager's
/// cache keys. A tier that keeps no HTTP validators can leave ``updateValidators(_:forKey:)`` to its default.
public protocol ImageDataCaching: AnyObject, Sendable {
    /// The bytes and metadata stored for `key`, or `nil` on a miss (a damaged entry is a miss).
    func cachedData(forKey key: String) async -> CachedImageData?
    /// The same lookup on the calling thread, which it may block (SDWebImage's `queryDiskDataSync`).
    func cachedDataSynchronously(forKey key: String) -> CachedImageData?
    /// Keeps `data` under `key` exactly as given, with `validators`; returns once stored. Throws
    /// `ImageError.Code.io` when the write fails.
    func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws
    /// Replaces the HTTP validators kept with `key`'s entry (after a `304 Not Modified`); `false` when there is
    /// no entry.
    @discardableResult
    func updateValidators(_ validators: HTTPValidators, forKey key: String) async throws -> Bool
    /// Deletes the entry for `key`.
    func removeData(forKey key: String) async
    /// Whether an entry for `key` exists (without reading it).
    func containsData(forKey key: String) async -> Bool
    /// Deletes every entry.
    func removeAllData() async
    /// Keeps a copy of `hit`, which a slower tier of a ``DataCacheTiers`` answered (its `tier` says which kind),
    /// so that this tier answers next time. A tier that can keep the hit's metadata as it is (its format, its
    /// times) does so; the default stores the bytes with their validators.
    func backFill(_ hit: CachedImageData, forKey key: String) async throws
}

extension ImageDataCaching {
    /// Keeps no validators: returns `false`.
    @discardableResult
    public func updateValidators(_ validators: HTTPValidators, forKey key: String) async throws -> Bool { false }

    /// Stores the hit's bytes with its validators (``storeData(_:forKey:validators:)``).
    public func backFill(_ hit: CachedImageData, forKey key: String) async throws {
        try await storeData(hit.data, forKey: key, validators: hit.metadata?.validators ?? .none)
    }
}

/// A cache the manager can use for a whole load: images in memory in front of bytes on a slower tier.
/// ``ImageCache`` (memory in front of disk and any tiers behind it) and ``ImageCaches`` (several caches chained)
/// are such caches; so can a custom one be. A tier of bytes only (a cache server, say) is an ``ImageDataCaching``
/// and goes behind one of these: `ImageCache(folder:remoteTiers:)`, or a member of ``ImageCaches``.
public typealias ImageCaching = ImageDataCaching & ImageMemoryCaching

/// What a data tier holds for a key: the stored bytes and what was written with them.
public struct CachedImageData: Sendable {
    /// The stored bytes, as they were given to ``ImageDataCaching/storeData(_:forKey:validators:)``.
    public var data: Data
    /// Validators and times kept with the bytes (`nil` for a tier that keeps none).
    public var metadata: CacheEntryMetadata?
    /// Which kind of tier answered: ``ImageCacheType/disk``, ``ImageCacheType/remote`` for a cache server, or
    /// ``ImageCacheType/memory`` for bytes kept in memory (``MemoryDataCache``). The manager reports it as the
    /// result's `cacheType`.
    public var tier: ImageCacheType

    /// Creates a hit.
    public init(data: Data, metadata: CacheEntryMetadata? = nil, tier: ImageCacheType = .disk) {
        self.data = data
        self.metadata = metadata
        self.tier = tier
    }
}

extension ImageMemoryCaching where Self: ImageDataCaching {
    /// Removes `key` from the parts in `types`.
    public func remove(forKey key: String, from types: ImageCacheType = .all) async {
        if types.contains(.memory) { removeImage(forKey: key) }
        if types.contains(.disk) { await removeData(forKey: key) }
    }

    /// Where `key` is: ``ImageCacheType/memory`` before ``ImageCacheType/disk``, or ``ImageCacheType/none``.
    public func contains(forKey key: String, in types: ImageCacheType = .all) async -> ImageCacheType {
        if types.contains(.memory), image(forKey: key) != nil { return .memory }
        if types.contains(.disk), await containsData(forKey: key) { return .disk }
        return .none
    }

    /// Empties the parts in `types`.
    public func clear(_ types: ImageCacheType = .all) async {
        if types.contains(.memory) { removeAllImages() }
        if types.contains(.disk) { await removeAllData() }
    }
}
