import WebImage
import Foundation

/// The memory tier of the result cache: rendered results as they are answered (their body a `ByteBuffer`), so a
/// hot result goes out without a copy; bounded by the bytes of their bodies. Each remembers whether the disk tier
/// has it too: a result is written to disk when it is asked for again, not when it is rendered. As a tier of a
/// ``DataCacheTiers`` it takes back-filled hits from disk and Redis (a hit without an ETag and a Last-Modified is
/// no result, and is not kept).
final class ResultMemory: ImageDataCaching {
    /// A result in memory, and whether the disk tier holds it too.
    struct Kept: Sendable {
        let result: RenderedResult
        let isOnDisk: Bool
    }

    private let results: MemoryCache<String, Kept>

    init(bytes: Int) {
        results = MemoryCache(limits: .init(costLimit: max(1, bytes)))
    }

    /// The result for `key` when memory holds it.
    func result(forKey key: String) -> RenderedResult? {
        results.value(forKey: key)?.result
    }

    /// The result for `key` when memory holds it, with whether the disk has it too.
    func kept(forKey key: String) -> Kept? {
        results.value(forKey: key)
    }

    /// Keeps `result`; `false` when it is too large for this memory, which then holds nothing for `key`.
    @discardableResult
    func keep(_ result: RenderedResult, forKey key: String, isOnDisk: Bool) -> Bool {
        results.setValue(Kept(result: result, isOnDisk: isOnDisk), forKey: key, cost: result.body.readableBytes)
    }

    /// A result of `data` when its metadata holds the result's tags.
    static func result(_ data: Data, format: ImageFormat?, validators: HTTPValidators) -> RenderedResult? {
        guard let etag = validators.etag, let lastModified = validators.lastModified else { return nil }
        return RenderedResult(data: data, format: format ?? ImageFormat.detect(data), etag: etag,
                              lastModified: lastModified, sourceExpires: validators.expires)
    }

    // MARK: ImageDataCaching

    func cachedData(forKey key: String) async -> CachedImageData? {
        cachedDataSynchronously(forKey: key)
    }

    func cachedDataSynchronously(forKey key: String) -> CachedImageData? {
        guard let result = results.value(forKey: key)?.result else { return nil }
        let data = result.data, now = Date().timeIntervalSince1970
        let metadata = CacheEntryMetadata(
            key: key, format: result.format, payloadLength: data.count, fileSize: data.count, created: now,
            lastAccess: now, validators: HTTPValidators(etag: result.etag, lastModified: result.lastModified,
                                                        expires: result.sourceExpires))
        return CachedImageData(data: data, metadata: metadata, tier: .memory)
    }

    func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        if let result = Self.result(data, format: nil, validators: validators) {
            keep(result, forKey: key, isOnDisk: false)
        }
    }

    func backFill(_ hit: CachedImageData, forKey key: String) async throws {
        guard let metadata = hit.metadata,
              let result = Self.result(hit.data, format: metadata.format, validators: metadata.validators)
        else { return }
        // A hit from disk, or from Redis, which the chain copies to disk as well.
        keep(result, forKey: key, isOnDisk: true)
    }

    func removeData(forKey key: String) async {
        results.removeValue(forKey: key)
    }

    func containsData(forKey key: String) async -> Bool {
        results.contains(key)
    }

    func removeAllData() async {
        results.removeAll()
    }
}
