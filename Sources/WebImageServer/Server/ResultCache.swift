import WebImage
import Foundation
import WebImageRedis

/// Rendered results, in memory (bounded by cost in bytes), on disk (the library's disk cache, with the ETag and
/// Last-Modified stored as the entry's validators) and, when configured, in Redis shared with other proxies: one
/// chain of tiers (``DataCacheTiers``), so a hit in a slower tier is copied into the faster ones.
///
/// A new result goes to memory (and Redis); the disk takes it when it is asked for a second time (or at once, when
/// it is too large for memory). Most results of
/// a thumbnail service behind a CDN are asked for once, and a file created for each cost every render the file
/// system's inode and block work on the cores the decoder needs (a sixth of a 1 MP render's CPU here). A result
/// asked for again is written before that answer goes out, so from then on it outlives memory and a restart.
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

    /// The result for `key` when memory holds it and nothing is left to write (the disk has it too).
    func memoryResult(forKey key: String) -> RenderedResult? {
        guard let kept = memory.kept(forKey: key), kept.isOnDisk else { return nil }
        return kept.result
    }

    /// The result for `key`, from memory, disk or Redis, with where it was found. A result asked for again that
    /// only memory holds is written to disk first.
    func result(forKey key: String) async -> (result: RenderedResult, tier: Tier)? {
        // Memory is asked here rather than through the chain, so a hit is the stored result itself, not a copy.
        if let kept = memory.kept(forKey: key) {
            if !kept.isOnDisk { await persist(kept.result, forKey: key) }
            return (kept.result, .memory)
        }
        guard let hit = await tiers.lookup(forKey: key, from: 1),
              let result = memory.result(forKey: key) ?? Self.result(from: hit.entry)
        else { return nil }
        return (result, hit.kind == .disk ? .disk : .redis)
    }

    /// A result stored by another proxy while this one waited for its lease: kept in memory, as one rendered here.
    func adopt(_ stored: CachedImageData, forKey key: String) -> RenderedResult? {
        guard let result = Self.result(from: stored) else { return nil }
        memory.keep(result, forKey: key, isOnDisk: false)
        return result
    }

    /// Keeps a new `result` (whose bytes are `data`, so they are not copied out of its buffer again) in memory and
    /// in Redis, or on disk at once when memory cannot hold it (no repeat would find it there to write it); a
    /// failed write only costs a later render.
    func store(_ result: RenderedResult, data: Data, forKey key: String) async {
        let inMemory = memory.keep(result, forKey: key, isOnDisk: false)
        try? await tiers.store(data, forKey: key, validators: Self.validators(of: result),
                               in: inMemory ? .remote : [.disk, .remote])
    }

    /// Writes a result asked for again to disk, and remembers that the disk has it. Concurrent requests may both
    /// write it (the same bytes); a full disk leaves it in memory, for the next request to try again.
    private func persist(_ result: RenderedResult, forKey key: String) async {
        let stored = (try? await tiers.store(result.data, forKey: key, validators: Self.validators(of: result),
                                             in: .disk)) != nil
        if stored { memory.keep(result, forKey: key, isOnDisk: true) }
    }

    private static func validators(of result: RenderedResult) -> HTTPValidators {
        HTTPValidators(etag: result.etag, lastModified: result.lastModified, expires: result.sourceExpires)
    }

    private static func result(from stored: CachedImageData) -> RenderedResult? {
        guard let metadata = stored.metadata else { return nil }
        return ResultMemory.result(stored.data, format: metadata.format, validators: metadata.validators)
    }
}
