@_spi(ServerSupport) import WebImage
import Foundation
import WebImageRedis

/// Rendered results, in memory (bounded by cost in bytes), on disk (the library's disk cache, with the ETag and
/// Last-Modified stored as the entry's validators) and, when configured, in Redis shared with other proxies: one
/// chain of tiers (``DataCacheTiers``), so a hit in a slower tier is copied into the faster ones.
final class ResultCache: Sendable {
    /// Where a result was found.
    enum Tier { case memory, disk, redis }

    private let memory: ResultMemory
    private let tiers: DataCacheTiers
    let shared: RedisImageCache?

    init(folder: URL, memoryBytes: Int, disk configuration: DiskCache.Configuration, shared: RedisImageCache?) {
        memory = ResultMemory(bytes: memoryBytes)
        var tiers = [DataCacheTiers.Tier(memory, kind: .memory),
                     DataCacheTiers.Tier(DiskDataCache(disk: DiskCache(folder: folder, configuration: configuration)),
                                         kind: .disk)]
        if let shared { tiers.append(DataCacheTiers.Tier(shared, kind: .remote)) }
        self.tiers = DataCacheTiers(tiers)
        self.shared = shared
    }

    /// The result for `key` when memory holds it.
    func memoryResult(forKey key: String) -> RenderedResult? {
        memory.result(forKey: key)
    }

    /// The result for `key`, from memory, disk or Redis, with where it was found.
    func result(forKey key: String) async -> (result: RenderedResult, tier: Tier)? {
        // Memory is asked here rather than through the chain, so a hit is the stored result itself, not a copy.
        if let hit = memory.result(forKey: key) { return (hit, .memory) }
        guard let hit = await tiers.lookup(forKey: key, from: 1),
              let result = memory.result(forKey: key) ?? Self.result(from: hit.entry)
        else { return nil }
        return (result, hit.kind == .disk ? .disk : .redis)
    }

    /// A result stored by another proxy while this one waited for its lease: kept in memory and on disk.
    func adopt(_ stored: CachedImageData, forKey key: String) async -> RenderedResult? {
        guard let result = Self.result(from: stored) else { return nil }
        memory.keep(result, forKey: key)
        try? await tiers.store(stored.data, forKey: key, validators: Self.validators(of: result), in: .disk)
        return result
    }

    /// Keeps `result` (whose bytes are `data`, so they are not copied out of its buffer again) in every tier; a
    /// failed write only costs a later render.
    func store(_ result: RenderedResult, data: Data, forKey key: String) async {
        memory.keep(result, forKey: key)
        try? await tiers.store(data, forKey: key, validators: Self.validators(of: result), in: [.disk, .remote])
    }

    private static func validators(of result: RenderedResult) -> HTTPValidators {
        HTTPValidators(etag: result.etag, lastModified: result.lastModified)
    }

    private static func result(from stored: CachedImageData) -> RenderedResult? {
        guard let metadata = stored.metadata else { return nil }
        return ResultMemory.result(stored.data, format: metadata.format, validators: metadata.validators)
    }
}
