import Foundation

/// Per-load settings that are values rather than flags (SDWebImage's `SDWebImageContext`): which cache,
/// loader, coders and transformer to use, decoding sizes, which caches to query and store in, and request
/// hooks. Everything left `nil` falls back to the manager's own.
public struct ImageContext: Sendable {
    /// The cache for this load instead of the manager's.
    public var cache: (any ImageCaching)?
    /// The loader for this load instead of the manager's: sent through the manager's transfer stage (its limit,
    /// and merged with equal loads through the same loader), with the library's request defaults rather than a
    /// downloader's.
    public var loader: (any ImageLoader)?
    /// The coders for this load instead of the manager's.
    public var coders: ImageCoders?
    /// The transformer: the manager's default, none (switching a default off), or a given one.
    public var transformer: TransformerChoice
    /// Decode to a thumbnail no larger than this (it becomes part of the cache key).
    public var thumbnailPixelSize: PixelSize?
    /// Keep the aspect ratio of thumbnails (default `true`).
    public var preserveAspectRatio: Bool
    /// Make thumbnails the box's size exactly by covering it and keeping the centre, rather than fitting inside
    /// it (``DecodeOptions/thumbnailFill``; part of the cache key). Off by default.
    public var thumbnailFill: Bool
    /// The display scale of the image (`nil`: from `@2x` / `@3x` in the key).
    public var scaleFactor: Double?
    /// With ``ImageOptions/scaleDownLargeImages``: the most bytes of RGBA a decoded frame may take (default
    /// 90 MB, SDWebImage's macOS value).
    public var scaleDownLimitBytes: Int?
    /// Where to look for the final (thumbnail / transformed) image. Default: memory and disk.
    public var queryCacheType: ImageCacheType
    /// Where to store the final image. Default: memory and disk.
    public var storeCacheType: ImageCacheType
    /// Where to look for the original when the final image is missing. Default: disk.
    public var originalQueryCacheType: ImageCacheType
    /// Where to store the original bytes of a thumbnail or transformed image. Default: disk.
    public var originalStoreCacheType: ImageCacheType
    /// The cache for originals (default: ``cache``).
    public var originalCache: (any ImageCaching)?
    /// The request's own headers, credentials, timeout and hooks, on top of the loader's defaults: the same
    /// additions a downloader's ``ImageDownloader/download(_:options:context:progress:)`` takes.
    public var download: DownloadContext
    /// Maps the URL to its cache key (default: the manager's filter, else the absolute URL).
    public var cacheKeyFilter: CacheKeyFilter?
    /// Decides what is written to disk (default: the manager's ``ImageManager/Configuration/cacheSerializer``).
    public var cacheSerializer: CacheSerializer?
    /// Pixel and frame limits for decoding (default: the manager's).
    public var decodeLimits: DecodeLimits?
    /// Deliver the final image's bytes in this encoding too (``ImageResult/data``), encoded once and kept as its
    /// disk entry (part of the cache key). `nil` (default): the data is the downloaded or cached bytes.
    public var resultEncoding: ResultEncoding?

    /// Creates a context; every parameter defaults to "use the manager's".
    public init(
        cache: (any ImageCaching)? = nil, loader: (any ImageLoader)? = nil, coders: ImageCoders? = nil,
        transformer: TransformerChoice = .managerDefault, thumbnailPixelSize: PixelSize? = nil,
        preserveAspectRatio: Bool = true, scaleFactor: Double? = nil, scaleDownLimitBytes: Int? = nil,
        queryCacheType: ImageCacheType = .all, storeCacheType: ImageCacheType = .all,
        originalQueryCacheType: ImageCacheType = .disk, originalStoreCacheType: ImageCacheType = .disk,
        originalCache: (any ImageCaching)? = nil, download: DownloadContext = DownloadContext(),
        cacheKeyFilter: CacheKeyFilter? = nil,
        cacheSerializer: CacheSerializer? = nil, decodeLimits: DecodeLimits? = nil, thumbnailFill: Bool = false,
        resultEncoding: ResultEncoding? = nil
    ) {
        self.thumbnailFill = thumbnailFill
        self.resultEncoding = resultEncoding
        self.cache = cache
        self.loader = loader
        self.coders = coders
        self.transformer = transformer
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleFactor = scaleFactor
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.queryCacheType = queryCacheType
        self.storeCacheType = storeCacheType
        self.originalQueryCacheType = originalQueryCacheType
        self.originalStoreCacheType = originalStoreCacheType
        self.originalCache = originalCache
        self.download = download
        self.cacheKeyFilter = cacheKeyFilter
        self.cacheSerializer = cacheSerializer
        self.decodeLimits = decodeLimits
    }
}

/// Which transformer a load uses.
public enum TransformerChoice: Sendable {
    /// The manager's ``ImageManager/Configuration/defaultTransformer`` (none if it has none).
    case managerDefault
    /// No transformer, even when the manager has a default.
    case none
    /// This transformer.
    case transformer(any ImageTransformer)

    /// This transformer: `.use(.resize(to: size, fit: .aspectFill))`.
    public static func use<Transformer: ImageTransformer>(_ transformer: Transformer) -> TransformerChoice {
        .transformer(transformer)
    }
}
