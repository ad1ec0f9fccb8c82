import Foundation
import WebImage

/// Where a proxy's source images come from: the source cache, else the origin through the library's downloader,
/// which applies the address policy on every redirect hop, bounds the body, and joins concurrent fetches of one
/// URL into one.
///
/// Bytes, not decoded images, are what is kept: each request decodes only what its answer needs
/// (``SourceDecodePlan``), which a cached full-size bitmap would not save. They are kept only after they decoded
/// (``keep(_:for:)``), so nothing that fails to decode is ever cached.
final class SourceLoader: Sendable {
    /// Encoded sources, under the same keys (the absolute URL) the library's image cache would use.
    let cache: DiskCache
    private let downloader: ImageDownloader

    init(downloader: ImageDownloader, cache: DiskCache) {
        self.downloader = downloader
        self.cache = cache
    }

    /// The source's bytes, and whether they came from the cache. The cache is read on a render thread.
    func bytes(for url: URL) async throws -> (data: Data, cached: Bool) {
        let cache = self.cache, key = url.absoluteString
        if let data = try await RenderThreads.run({ cache.data(forKey: key) }) {
            return (data, true)
        }
        return (try await downloader.download(url).data, false)
    }

    /// Keeps `data`, which decoded, for later requests. A cache that cannot be written (a full disk) costs the
    /// next request a fetch, never this one its answer.
    func keep(_ data: Data, for url: URL) {
        try? cache.store(data, forKey: url.absoluteString)
    }
}
