import Foundation

/// Encoded bytes kept in memory, bounded by their total size: the fastest tier of a ``DataCacheTiers``, for bytes
/// that are served or decoded anew each time (a proxy's sources and results) rather than kept decoded.
///
/// Least recently used entries go first once ``MemoryCache/Limits/costLimit`` bytes are held; an entry larger than
/// the single-entry cap is not kept. A hit's ``CachedImageData/tier`` is ``ImageCacheType/memory``.
public final class MemoryDataCache: ImageDataCaching {
    /// The entries, charged at their byte count.
    public let entries: MemoryCache<String, CachedImageData>

    /// A cache holding at most `limits` (its cost is bytes).
    public init(limits: MemoryCache<String, CachedImageData>.Limits) {
        entries = MemoryCache(limits: limits)
    }

    /// A cache holding at most `bytes` bytes, none of its entries more than a quarter of that.
    public convenience init(bytes: Int) {
        self.init(limits: .init(costLimit: max(1, bytes)))
    }

    public func cachedData(forKey key: String) async -> CachedImageData? {
        cachedDataSynchronously(forKey: key)
    }

    /// The same lookup: memory answers at once.
    public func cachedDataSynchronously(forKey key: String) -> CachedImageData? {
        guard var hit = entries.value(forKey: key) else { return nil }
        hit.tier = .memory
        return hit
    }

    /// Keeps `data` with `validators` and its detected format, stamped now. Never throws: bytes over the
    /// single-entry cap are simply not kept.
    public func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        let now = Date().timeIntervalSince1970
        let metadata = CacheEntryMetadata(key: key, format: ImageFormat.detect(data), payloadLength: data.count,
                                          fileSize: data.count, created: now, lastAccess: now, validators: validators)
        keep(CachedImageData(data: data, metadata: metadata, tier: .memory), forKey: key)
    }

    /// Keeps the hit as it came, with the metadata the slower tier kept (its format and times).
    public func backFill(_ hit: CachedImageData, forKey key: String) async throws {
        keep(hit, forKey: key)
    }

    /// Keeps `hit` as it is (a synchronous store, for callers outside a task).
    public func keep(_ hit: CachedImageData, forKey key: String) {
        entries.setValue(hit, forKey: key, cost: hit.data.count)
    }

    @discardableResult
    public func updateValidators(_ validators: HTTPValidators, forKey key: String) async throws -> Bool {
        guard var hit = entries.value(forKey: key) else { return false }
        if hit.metadata == nil {
            let now = Date().timeIntervalSince1970
            hit.metadata = CacheEntryMetadata(key: key, format: ImageFormat.detect(hit.data),
                                              payloadLength: hit.data.count, fileSize: hit.data.count,
                                              created: now, lastAccess: now, validators: validators)
        } else {
            hit.metadata?.validators = validators
        }
        keep(hit, forKey: key)
        return true
    }

    public func removeData(forKey key: String) async {
        entries.removeValue(forKey: key)
    }

    public func containsData(forKey key: String) async -> Bool {
        entries.contains(key)
    }

    public func removeAllData() async {
        entries.removeAll()
    }
}
