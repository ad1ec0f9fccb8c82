import Foundation

/// Maps a URL to the key its image is cached under (SDWebImage's `SDWebImageCacheKeyFilter`): strip a
/// signature from a signed URL, drop a cache-busting query, map mirrors to one key.
public struct CacheKeyFilter: Sendable {
    private let body: @Sendable (URL) -> String

    /// A filter computing the key with `body`.
    public init(_ body: @escaping @Sendable (URL) -> String) {
        self.body = body
    }

    /// The key for `url`.
    public func key(for url: URL) -> String { body(url) }

    /// The key is the URL without its query and fragment.
    public static let droppingQuery = CacheKeyFilter { url in
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.query = nil
        components.fragment = nil
        return components.string ?? url.absoluteString
    }
}

/// How the manager derives cache keys, in SDWebImage's order: the filter's key (or the absolute URL), then the
/// thumbnail suffix, then the transformer's.
enum CacheKeys {
    /// `key` with `suffix` inserted before the path extension: `https://h/a/b-Suffix.png?q#f` for
    /// `https://h/a/b.png?q#f`; the query and fragment are kept. A key whose last path component has no
    /// extension gets `-suffix` at the very end (`https://h/a/b?q-Suffix`), as SDWebImage does. Unlike
    /// SDWebImage the suffix is not percent-encoded, so the key stays readable.
    public static func key(_ key: String, appending suffix: String) -> String {
        guard !suffix.isEmpty else { return key }
        // The path ends at the first `?` or `#`; what follows is kept as it is.
        let pathEnd = key.firstIndex { $0 == "?" || $0 == "#" } ?? key.endIndex
        let path = key[..<pathEnd]
        let componentStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let component = path[componentStart...]
        guard let dot = component.lastIndex(of: "."), dot != component.startIndex,
              path.index(after: dot) != path.endIndex else {
            return key + "-" + suffix
        }
        return String(key[..<dot]) + "-" + suffix + String(key[dot...])
    }

    /// The suffix naming a thumbnail decode: `Thumbnail({200,100},1)` (the flag is preserveAspectRatio), and
    /// `Thumbnail({200,100},1,fill)` for one that fills its box (``DecodeOptions/thumbnailFill``).
    public static func thumbnailSuffix(_ size: PixelSize, preserveAspectRatio: Bool, fill: Bool = false) -> String {
        let filling = fill && preserveAspectRatio ? ",fill" : ""
        return "Thumbnail({\(size.width),\(size.height)},\(preserveAspectRatio ? 1 : 0)\(filling))"
    }
}
