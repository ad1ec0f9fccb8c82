import Foundation
import WebImage

/// What `fetch`, `prefetch` and `demo` ask of the loading pipeline, gathered from their flags.
struct LoadSettings: Sendable {
    /// The disk cache folder; `nil` for the default one (see `webimage cache path`).
    var cacheFolder: URL?
    /// Most downloads at once; `nil` for the downloader's default.
    var concurrency: Int?
    /// Total seconds allowed per request; `nil` for the downloader's default.
    var timeoutSeconds: Double?
    /// Ignore cached copies and load again (`--refresh`).
    var refresh = false
    /// Revalidate a cached copy only when its HTTP freshness has run out (`--refresh-if-stale`).
    var refreshIfStale = false
    /// Try URLs that failed before again (`--retry-failed`).
    var retryFailed = false
    /// Keep results in memory only; the disk cache is neither read nor written (`--memory-only`).
    var memoryOnly = false
    /// Answer from the caches only, never the network (`--from-cache-only`).
    var fromCacheOnly = false
    /// Decode to fit inside N×N pixels (`--thumbnail N`).
    var thumbnail: Int?
    /// Transform steps in the order given.
    var transforms: [TransformStep] = []
    /// Return the original bytes with memory hits too (a disk read each): `fetch` saves and counts them.
    var wantsData = false

    /// The disk cache folder this run uses.
    var resolvedCacheFolder: URL { cacheFolder ?? DiskCache.defaultFolder() }
}

/// One finished load, in the shape of the manager's `ImageResult`.
struct LoadedImage: Sendable {
    /// The decoded (and, when asked, thumbnailed and transformed) image.
    var image: Image
    /// The original bytes, when the pipeline has them.
    var data: Data?
    /// The size of the original as far as this load knows it: ``data``'s, or, for a thumbnail whose download
    /// stopped once it had what the thumbnail needs (the library keeps no partial original), the bytes it read.
    var byteCount: Int
    /// Where it came from: `.none` for the network, `.memory` or `.disk` for a cache hit.
    var cacheType: ImageCacheType
    /// The URL asked for.
    var url: URL
}

/// What a prefetch did, as `prefetch --json` prints it.
struct PrefetchSummary: Sendable, Equatable {
    var total: Int
    var finished: Int
    var skipped: Int
    var failed: Int
}

extension ImageCacheType {
    /// The contract's JSON spelling: `none`, `memory` or `disk`.
    var jsonName: String {
        if contains(.memory) { return "memory" }
        if contains(.disk) { return "disk" }
        return "none"
    }
}
