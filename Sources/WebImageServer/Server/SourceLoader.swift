@_spi(ServerSupport) import WebImage
import Foundation
import WebImageRedis

/// Where a proxy's source images come from: the source cache on disk, then Redis when configured (shared with
/// other proxies), else the origin through the library's downloader, which applies the address policy on every
/// redirect hop, bounds the body, and joins concurrent fetches of one URL into one.
///
/// Bytes, not decoded images, are what is kept: each request decodes only what its answer needs
/// (``SourceDecodePlan``), which a cached full-size bitmap would not save. They are kept only after they decoded
/// (``keep(_:for:)``), so nothing that fails to decode is ever cached.
final class SourceLoader: Sendable {
    /// Where a source's bytes came from.
    enum Origin { case disk, redis, origin }

    /// Encoded sources, under the same keys (the absolute URL) the library's image cache would use.
    let cache: DiskCache
    private let shared: RedisImageCache?
    private let downloader: ImageDownloader
    /// Where the cache's file reads and writes run: off the cooperative pool, without taking a CPU slot.
    private let files = IOExecutor.shared

    init(downloader: ImageDownloader, cache: DiskCache, shared: RedisImageCache?) {
        self.downloader = downloader
        self.cache = cache
        self.shared = shared
    }

    /// The source's bytes, and where they came from. The disk cache is read and written on the I/O lanes.
    func bytes(for url: URL) async throws -> (data: Data, origin: Origin) {
        let cache = self.cache, key = url.absoluteString
        if let data = await files.run(lane: key.hashValue, { cache.data(forKey: key) }) {
            return (data, .disk)
        }
        if let shared, let stored = await shared.cachedData(forKey: key) {
            let data = stored.data
            _ = try? await files.run(lane: key.hashValue) { try cache.store(data, forKey: key) }
            return (data, .redis)
        }
        return (try await downloader.download(url).data, .origin)
    }

    /// Keeps `data`, which decoded and came from the origin, for later requests here and on other proxies. A
    /// cache that cannot be written (a full disk, Redis down) costs a later request a fetch, never this one its
    /// answer.
    func keep(_ data: Data, for url: URL) async {
        let cache = self.cache, key = url.absoluteString
        _ = try? await files.run(lane: key.hashValue) { try cache.store(data, forKey: key) }  // a file write: off the pool
        try? await shared?.storeData(data, forKey: key, validators: .none)
    }
}
