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

    /// A source's bytes, where they came from, and the origin's `Last-Modified` when it sent one (kept with the
    /// bytes in every tier, so that a cached source still says when it changed).
    struct Source: Sendable {
        let data: Data
        let origin: Origin
        let lastModified: String?
    }

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
    func bytes(for url: URL) async throws -> Source {
        let cache = self.cache, key = url.absoluteString
        if let entry = await files.run(lane: key.hashValue, { cache.entry(forKey: key) }) {
            return Source(data: entry.data, origin: .disk, lastModified: entry.metadata.validators.lastModified)
        }
        if let shared, let stored = await shared.cachedData(forKey: key) {
            let data = stored.data, validators = stored.metadata?.validators ?? .none
            _ = try? await files.run(lane: key.hashValue) { try cache.store(data, forKey: key, validators: validators) }
            return Source(data: data, origin: .redis, lastModified: validators.lastModified)
        }
        let response = try await downloader.download(url)
        return Source(data: response.data, origin: .origin, lastModified: response.metadata.headers["Last-Modified"])
    }

    /// Keeps `source`, which decoded and came from the origin, for later requests here and on other proxies. A
    /// cache that cannot be written (a full disk, Redis down) costs a later request a fetch, never this one its
    /// answer.
    func keep(_ source: Source, for url: URL) async {
        let cache = self.cache, key = url.absoluteString, data = source.data
        let validators = HTTPValidators(lastModified: source.lastModified)
        // A file write: off the cooperative pool.
        _ = try? await files.run(lane: key.hashValue) { try cache.store(data, forKey: key, validators: validators) }
        try? await shared?.storeData(data, forKey: key, validators: validators)
    }
}
