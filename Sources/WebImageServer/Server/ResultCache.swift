@_spi(ServerSupport) import WebImage
import Foundation
import WebImageRedis

/// Rendered results, in memory (bounded by cost in bytes), on disk (the library's disk cache, with the ETag and
/// Last-Modified stored as the entry's validators) and, when configured, in Redis shared with other proxies. A hit
/// in a slower tier is copied into the faster ones.
final class ResultCache: Sendable {
    /// Where a result was found.
    enum Tier { case memory, disk, redis }

    private let memory: MemoryCache<String, RenderedResult>
    private let disk: ImageCache
    let shared: RedisImageCache?

    init(folder: URL, memoryBytes: Int, disk configuration: DiskCache.Configuration, shared: RedisImageCache?) {
        memory = MemoryCache(limits: .init(costLimit: max(1, memoryBytes)))
        // The image half of this cache is never used: results are bytes.
        disk = ImageCache(folder: folder, memoryLimits: .init(costLimit: 1, countLimit: 1),
                          diskConfiguration: configuration)
        self.shared = shared
    }

    /// The result for `key` when memory holds it.
    func memoryResult(forKey key: String) -> RenderedResult? {
        memory.value(forKey: key)
    }

    /// The result for `key`, from memory, disk or Redis, with where it was found.
    func result(forKey key: String) async -> (result: RenderedResult, tier: Tier)? {
        if let hit = memory.value(forKey: key) { return (hit, .memory) }
        if let stored = await disk.cachedData(forKey: key), let result = Self.result(from: stored) {
            memory.setValue(result, forKey: key, cost: result.body.readableBytes)
            return (result, .disk)
        }
        guard let shared, let stored = await shared.cachedData(forKey: key), let result = Self.result(from: stored) else {
            return nil
        }
        await keepLocally(result, forKey: key)
        return (result, .redis)
    }

    /// A result stored by another proxy while this one waited for its lease: kept in memory and on disk.
    func adopt(_ stored: CachedImageData, forKey key: String) async -> RenderedResult? {
        guard let result = Self.result(from: stored) else { return nil }
        await keepLocally(result, forKey: key)
        return result
    }

    /// Keeps `result` (whose bytes are `data`, so they are not copied out of its buffer again) in every tier; a
    /// failed write only costs a later render.
    func store(_ result: RenderedResult, data: Data, forKey key: String) async {
        await keepLocally(result, data: data, forKey: key)
        try? await shared?.storeData(data, forKey: key, validators: Self.validators(of: result))
    }

    private func keepLocally(_ result: RenderedResult, data: Data? = nil, forKey key: String) async {
        memory.setValue(result, forKey: key, cost: result.body.readableBytes)
        try? await disk.storeData(data ?? result.data, forKey: key, validators: Self.validators(of: result))
    }

    private static func validators(of result: RenderedResult) -> HTTPValidators {
        HTTPValidators(etag: result.etag, lastModified: result.lastModified)
    }

    private static func result(from stored: CachedImageData) -> RenderedResult? {
        guard let metadata = stored.metadata,
              let etag = metadata.validators.etag, let lastModified = metadata.validators.lastModified
        else { return nil }
        return RenderedResult(data: stored.data, format: metadata.format, etag: etag, lastModified: lastModified)
    }
}
