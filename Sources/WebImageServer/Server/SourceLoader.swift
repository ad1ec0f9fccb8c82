import WebImage
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

    /// A source's bytes, where they came from, and the origin's `Last-Modified` when it sent one and the end of
    /// the lifetime it gave (``SourceLifetime``), both kept with the bytes in every tier, so that a cached source
    /// still says when it changed and how long it may be kept. `isPrefix`: only the start of the source, fetched
    /// for one request's decode (``EarlyStop``), never kept.
    struct Source: Sendable {
        let data: Data
        let origin: Origin
        let lastModified: String?
        var isPrefix = false
        var expires: Double?
        /// The origin's `Content-Length`, for a prefix fetched from it.
        var contentLength: Int?

        /// The whole source's bytes: those held, or, for a prefix, what the origin said it would send (`nil` when
        /// it did not say).
        var totalBytes: Int? { isPrefix ? contentLength : data.count }
    }

    /// Encoded sources, under the same keys (the absolute URL) the library's image cache would use.
    let cache: DiskCache
    private let recent: RecentSources
    /// Memory, then the disk cache, then Redis when configured. A Redis hit is copied to memory only: the disk
    /// takes a source on its second rendering, as any other.
    private let tiers: DataCacheTiers
    private let downloader: ImageDownloader
    /// Where `local://` sources are read, when a folder is configured (the policy refuses them otherwise).
    private let localFiles: LocalFileSource?

    init(downloader: ImageDownloader, cache: DiskCache, memoryBytes: Int, shared: RedisImageCache?,
         localFiles: LocalFileSource? = nil) {
        self.downloader = downloader
        self.localFiles = localFiles
        self.cache = cache
        recent = RecentSources(bytes: memoryBytes)
        var tiers = [DataCacheTiers.Tier(recent, kind: .memory),
                     DataCacheTiers.Tier(DiskDataCache(disk: cache), kind: .disk, isBackFilled: false)]
        if let shared { tiers.append(DataCacheTiers.Tier(shared, kind: .remote)) }
        self.tiers = DataCacheTiers(tiers)
    }

    /// The source's bytes, and where they came from. The disk cache is read and written on the I/O lanes. With
    /// `earlyStop`, a download may end once the bytes are enough for the decode it plans.
    func bytes(for url: URL, earlyStop: EarlyStop? = nil) async throws -> Source {
        let key = url.absoluteString
        // Memory is asked here rather than through the chain: a kept start of the source may serve this decode.
        if let kept = recent.kept(forKey: key) {
            if !kept.isPrefix {
                if !kept.isOnDisk { await persist(kept, forKey: key) }
                return Source(data: kept.data, origin: .memory, lastModified: kept.lastModified,
                              expires: kept.expires)
            }
            // Another render of a source whose download stopped early (a progressive JPEG's thumbnail, an
            // animation's first frame): the kept start serves it when it holds everything this decode reads;
            // otherwise the whole source is fetched (no other tier keeps starts).
            if let earlyStop, earlyStop.isSatisfied(by: kept.data) {
                return Source(data: kept.data, origin: .memory, lastModified: kept.lastModified, isPrefix: true,
                              expires: kept.expires)
            }
        }
        if let hit = await tiers.lookup(forKey: key, from: 1) {
            return Source(data: hit.entry.data, origin: hit.kind == .disk ? .disk : .redis,
                          lastModified: hit.entry.metadata?.validators.lastModified,
                          expires: hit.entry.metadata?.validators.expires)
        }
        if let localFiles, LocalFileSource.isLocal(key) {
            let file = try await localFiles.contents(of: url)
            return Source(data: file.data, origin: .origin, lastModified: file.lastModified)
        }
        // The downloader's stage merges this fetch with equal ones, and reads on when one shared with a render
        // that needed less stopped too early for this one.
        var request = try downloader.makeRequest(for: url)
        request.earlyStop = earlyStop
        let response = try await downloader.load(request, progress: nil)
        let headers = response.metadata.headers
        return Source(data: response.data, origin: .origin, lastModified: headers["Last-Modified"],
                      isPrefix: response.isPrefix,
                      expires: SourceLifetime.expiry(headers: headers, now: Date().timeIntervalSince1970),
                      contentLength: headers["Content-Length"].flatMap { Int($0) })
    }

    /// Keeps `source`, which decoded and came from the origin, in memory here and in Redis for other proxies (only
    /// in memory when it is the start of the source). A cache that cannot be written (Redis down) costs a later
    /// request a fetch, never this one its answer.
    func keep(_ source: Source, for url: URL) async {
        guard source.origin == .origin else { return }
        let key = url.absoluteString
        guard !source.isPrefix else {
            recent.remember(RecentSources.Recent(data: source.data, lastModified: source.lastModified,
                                                 isOnDisk: false, isPrefix: true, expires: source.expires), forKey: key)
            return
        }
        try? await tiers.store(source.data, forKey: key,
                               validators: HTTPValidators(lastModified: source.lastModified, expires: source.expires),
                               in: [.memory, .remote])
    }

    /// Writes a source that a second rendering uses to the disk cache (a file write: on the I/O lanes), so it
    /// outlives its place in memory and a restart. A full disk costs a later request a fetch.
    private func persist(_ kept: RecentSources.Recent, forKey key: String) async {
        let validators = HTTPValidators(lastModified: kept.lastModified, expires: kept.expires)
        let stored = (try? await tiers.store(kept.data, forKey: key, validators: validators, in: .disk)) != nil
        if stored {
            recent.remember(RecentSources.Recent(data: kept.data, lastModified: kept.lastModified, isOnDisk: true,
                                                 expires: kept.expires), forKey: key)
        }
    }
}
