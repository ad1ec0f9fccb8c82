@_spi(ServerSupport) import WebImage
import Foundation
import WebImageRedis

/// Where a proxy's source images come from: recent sources in memory, the source cache on disk, then Redis when
/// configured (shared with other proxies), else the origin through the library's downloader, which applies the
/// address policy on every redirect hop, bounds the body, and joins concurrent fetches of one URL into one.
///
/// Bytes, not decoded images, are what is kept: each request decodes only what its answer needs
/// (``SourceDecodePlan``), which a cached full-size bitmap would not save. They are kept only after they decoded
/// (``keep(_:for:)``), so nothing that fails to decode is ever cached.
///
/// A fetched source stays in bounded memory, where a second rendition (another size of a photo just asked for is
/// common) finds it; it is written to disk only when that second rendering uses it. Most sources of a thumbnail
/// service are rendered once, and writing each to a file of its own cost every render a file creation and the
/// kernel's block work for the whole source, on the two cores the decoder needs.
final class SourceLoader: Sendable {
    /// Where a source's bytes came from.
    enum Origin { case memory, disk, redis, origin }

    /// A source's bytes, where they came from, and the origin's `Last-Modified` when it sent one (kept with the
    /// bytes in every tier, so that a cached source still says when it changed). `isPrefix`: only the start of
    /// the source, fetched for one request's decode (``EarlyStop``), never kept.
    struct Source: Sendable {
        let data: Data
        let origin: Origin
        let lastModified: String?
        var isPrefix = false
    }

    /// A source kept in memory, whether the disk cache has it too, and whether it is only the start of the source
    /// (an early-stopped download: kept in memory for renders it is enough for, never written anywhere).
    private struct Recent: Sendable {
        let data: Data
        let lastModified: String?
        let isOnDisk: Bool
        var isPrefix = false
    }

    /// Encoded sources, under the same keys (the absolute URL) the library's image cache would use.
    let cache: DiskCache
    private let recent: MemoryCache<String, Recent>
    private let shared: RedisImageCache?
    private let downloader: ImageDownloader
    /// Where the cache's file reads and writes run: off the cooperative pool, without taking a CPU slot.
    private let files = IOExecutor.shared

    init(downloader: ImageDownloader, cache: DiskCache, memoryBytes: Int, shared: RedisImageCache?) {
        self.downloader = downloader
        self.cache = cache
        recent = MemoryCache(limits: .init(costLimit: max(1, memoryBytes)))
        self.shared = shared
    }

    /// The source's bytes, and where they came from. The disk cache is read and written on the I/O lanes. With
    /// `earlyStop`, a download may end once the bytes are enough for the decode it plans.
    func bytes(for url: URL, earlyStop: EarlyStop? = nil) async throws -> Source {
        let cache = self.cache, key = url.absoluteString
        if let kept = recent.value(forKey: key) {
            if !kept.isPrefix {
                if !kept.isOnDisk { await persist(kept, forKey: key) }
                return Source(data: kept.data, origin: .memory, lastModified: kept.lastModified)
            }
            // Another thumbnail of a progressive JPEG that stopped early: the kept start serves it when it holds
            // everything this decode reads; otherwise the whole source is fetched (no other tier keeps starts).
            if let earlyStop, earlyStop.isSatisfied(by: kept.data) {
                return Source(data: kept.data, origin: .memory, lastModified: kept.lastModified, isPrefix: true)
            }
        }
        if let entry = await files.run(lane: key.hashValue, { cache.entry(forKey: key) }) {
            let lastModified = entry.metadata.validators.lastModified
            remember(Recent(data: entry.data, lastModified: lastModified, isOnDisk: true), forKey: key)
            return Source(data: entry.data, origin: .disk, lastModified: lastModified)
        }
        if let shared, let stored = await shared.cachedData(forKey: key) {
            let lastModified = stored.metadata?.validators.lastModified
            remember(Recent(data: stored.data, lastModified: lastModified, isOnDisk: false), forKey: key)
            return Source(data: stored.data, origin: .redis, lastModified: lastModified)
        }
        var response: ImageLoadResponse
        if let earlyStop {
            var request = try downloader.makeRequest(for: url)
            request.earlyStop = earlyStop
            response = try await downloader.load(request, progress: nil)
            // A download shared with a render that needs less stopped too early for this one.
            if response.isPrefix, !earlyStop.isSatisfied(by: response.data) {
                response = try await downloader.download(url)
            }
        } else {
            response = try await downloader.download(url)
        }
        return Source(data: response.data, origin: .origin, lastModified: response.metadata.headers["Last-Modified"],
                      isPrefix: response.isPrefix)
    }

    /// Keeps `source`, which decoded and came from the origin, in memory here and in Redis for other proxies (only
    /// in memory when it is the start of the source). A cache that cannot be written (Redis down) costs a later
    /// request a fetch, never this one its answer.
    func keep(_ source: Source, for url: URL) async {
        guard source.origin == .origin else { return }
        let key = url.absoluteString
        remember(Recent(data: source.data, lastModified: source.lastModified, isOnDisk: false,
                        isPrefix: source.isPrefix), forKey: key)
        guard !source.isPrefix else { return }
        try? await shared?.storeData(source.data, forKey: key,
                                     validators: HTTPValidators(lastModified: source.lastModified))
    }

    private func remember(_ kept: Recent, forKey key: String) {
        recent.setValue(kept, forKey: key, cost: kept.data.count)
    }

    /// Writes a source that a second rendering uses to the disk cache (a file write: on the I/O lanes), so it
    /// outlives its place in memory and a restart. A full disk costs a later request a fetch.
    private func persist(_ kept: Recent, forKey key: String) async {
        let cache = self.cache, data = kept.data, validators = HTTPValidators(lastModified: kept.lastModified)
        let stored = (try? await files.run(lane: key.hashValue) {
            try cache.store(data, forKey: key, validators: validators)
        }) != nil
        if stored { remember(Recent(data: data, lastModified: kept.lastModified, isOnDisk: true), forKey: key) }
    }
}
