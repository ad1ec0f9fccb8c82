import WebImage
import Foundation

/// The memory tier of the source loader: recent sources' bytes, bounded by their size, each with whether the disk
/// cache has it too and whether it is only the start of the source (an early-stopped download, kept for the
/// renders it is enough for). As a tier of a ``DataCacheTiers`` it answers whole sources only: a start is never
/// a hit for the chain, and never leaves this tier.
final class RecentSources: ImageDataCaching {
    /// A kept source.
    struct Recent: Sendable {
        let data: Data
        let lastModified: String?
        let isOnDisk: Bool
        var isPrefix = false
        /// When the origin's lifetime for it ends (``SourceLifetime``), kept for the tiers it is written to.
        var expires: Double?
    }

    private let sources: MemoryCache<String, Recent>

    init(bytes: Int) {
        sources = MemoryCache(limits: .init(costLimit: max(1, bytes)))
    }

    /// What memory holds for `key`, a start of the source included.
    func kept(forKey key: String) -> Recent? {
        sources.value(forKey: key)
    }

    func remember(_ kept: Recent, forKey key: String) {
        sources.setValue(kept, forKey: key, cost: kept.data.count)
    }

    // MARK: ImageDataCaching

    func cachedData(forKey key: String) async -> CachedImageData? {
        cachedDataSynchronously(forKey: key)
    }

    func cachedDataSynchronously(forKey key: String) -> CachedImageData? {
        guard let kept = sources.value(forKey: key), !kept.isPrefix else { return nil }
        let now = Date().timeIntervalSince1970
        let metadata = CacheEntryMetadata(
            key: key, format: ImageFormat.detect(kept.data), payloadLength: kept.data.count,
            fileSize: kept.data.count, created: now, lastAccess: now,
            validators: HTTPValidators(lastModified: kept.lastModified, expires: kept.expires))
        return CachedImageData(data: kept.data, metadata: metadata, tier: .memory)
    }

    /// Keeps a whole source that no disk holds yet (one from the origin).
    func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        remember(Recent(data: data, lastModified: validators.lastModified, isOnDisk: false,
                        expires: validators.expires), forKey: key)
    }

    /// Keeps a source found on disk or in Redis, remembering whether the disk has it.
    func backFill(_ hit: CachedImageData, forKey key: String) async throws {
        remember(Recent(data: hit.data, lastModified: hit.metadata?.validators.lastModified,
                        isOnDisk: hit.tier == .disk, expires: hit.metadata?.validators.expires), forKey: key)
    }

    func removeData(forKey key: String) async {
        sources.removeValue(forKey: key)
    }

    func containsData(forKey key: String) async -> Bool {
        sources.value(forKey: key).map { !$0.isPrefix } ?? false
    }

    func removeAllData() async {
        sources.removeAll()
    }
}
