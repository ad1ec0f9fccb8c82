@_spi(ServerSupport) import WebImage
import Foundation

/// Rendered results, in memory (bounded by cost in bytes) and on disk (the library's disk cache, with the ETag and
/// Last-Modified stored as the entry's validators). A disk hit is promoted to memory.
final class ResultCache: Sendable {
    /// Where a result was found.
    enum Tier { case memory, disk }

    private let memory: MemoryCache<String, RenderedResult>
    private let disk: ImageCache

    init(folder: URL, memoryBytes: Int) {
        memory = MemoryCache(limits: .init(costLimit: max(1, memoryBytes)))
        // The image half of this cache is never used: results are bytes.
        disk = ImageCache(folder: folder, memoryLimits: .init(costLimit: 1, countLimit: 1))
    }

    /// The result for `key`, from memory or disk, with where it was found.
    func result(forKey key: String) async -> (result: RenderedResult, tier: Tier)? {
        if let hit = memory.value(forKey: key) { return (hit, .memory) }
        guard let stored = await disk.cachedData(forKey: key), let metadata = stored.metadata,
              let format = OutputFormat.allCases.first(where: { $0.imageFormat == metadata.format }),
              let etag = metadata.validators.etag, let lastModified = metadata.validators.lastModified
        else { return nil }
        let result = RenderedResult(data: stored.data, format: format, etag: etag, lastModified: lastModified)
        memory.setValue(result, forKey: key, cost: result.data.count)
        return (result, .disk)
    }

    /// Keeps `result` in memory and writes it to disk; a failed write only costs a later render.
    func store(_ result: RenderedResult, forKey key: String) async {
        memory.setValue(result, forKey: key, cost: result.data.count)
        let validators = HTTPValidators(etag: result.etag, lastModified: result.lastModified)
        try? await disk.storeData(result.data, forKey: key, validators: validators)
    }
}
