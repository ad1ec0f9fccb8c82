/// How the manager loads one image (SDWebImage's `SDWebImageOptions`). Combine freely; the default is none.
public struct ImageOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    /// Creates options from their raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Load even when an earlier load of the URL failed permanently (the URL is "blocked"); a success unblocks it.
    public static let retryFailed = ImageOptions(rawValue: 1 << 0)
    /// Queue the download behind normal ones (prefetching): the same as ``ImageRequest/priority`` `.low`.
    public static let lowPriority = ImageOptions(download: .lowPriority)
    /// Queue the download ahead of everything else: the same as ``ImageRequest/priority`` `.high`.
    public static let highPriority = ImageOptions(download: .highPriority)
    /// Decode while bytes arrive and deliver partial images as ``ImageTaskEvent/preview(_:)`` events.
    public static let progressiveLoad = ImageOptions(download: .progressiveLoad)
    /// Revalidate a cached image with the server (`If-None-Match` / `If-Modified-Since`): a 304 delivers the
    /// cached image once and refreshes its validators; a 200 replaces it and delivers the new image.
    public static let refreshCached = ImageOptions(rawValue: 1 << 4)
    /// Send stored cookies and store the response's cookies.
    public static let handleCookies = ImageOptions(download: .handleCookies)
    /// Accept a TLS certificate that does not verify (self-signed test servers). Off by default.
    public static let allowInvalidSSLCertificates = ImageOptions(download: .allowInvalidSSLCertificates)
    /// Apply the transformer to animated images too (every frame); by default they are delivered untransformed.
    public static let transformAnimatedImage = ImageOptions(rawValue: 1 << 7)
    /// Decode large images scaled down to ``ImageContext/scaleDownLimitBytes`` (90 MB of RGBA by default).
    public static let scaleDownLargeImages = ImageOptions(rawValue: 1 << 8)
    /// Also return the stored bytes (``ImageResult/data``) on a memory-cache hit.
    public static let queryMemoryData = ImageOptions(rawValue: 1 << 9)
    /// With ``queryMemoryData``: read those bytes on the calling task rather than the I/O threads.
    public static let queryMemoryDataSync = ImageOptions(rawValue: 1 << 10)
    /// Read a disk-cache hit on the calling task rather than the I/O threads.
    public static let queryDiskDataSync = ImageOptions(rawValue: 1 << 11)
    /// Never load: a cache miss fails with `ImageError.Code.notFoundInCache`.
    public static let fromCacheOnly = ImageOptions(rawValue: 1 << 12)
    /// Skip the cache query and always load (the result is still stored).
    public static let fromLoaderOnly = ImageOptions(rawValue: 1 << 13)
    /// Decode only the first frame of an animated image.
    public static let decodeFirstFrameOnly = ImageOptions(rawValue: 1 << 14)
    /// Decode every frame before delivering, even with ``avoidDecodeImage``.
    public static let preloadAllFrames = ImageOptions(rawValue: 1 << 15)
    /// Deliver only after the cache stores have finished (by default they finish after delivery).
    public static let waitStoreCache = ImageOptions(rawValue: 1 << 16)
    /// Do not decode every frame of an animation up front: the result holds the first frame and the encoded
    /// bytes (``ImageResult/data``), from which ``AnimatedImage`` decodes frames on demand. Still images are
    /// decoded as usual (a bitmap is what an ``Image`` is).
    public static let avoidDecodeImage = ImageOptions(rawValue: 1 << 17)

    /// Like ``refreshCached``, but by HTTP's rules (RFC 9111): a cached entry still fresh (`max-age`, `Expires`,
    /// `Age`) is delivered with no request; a stale one, or one stored with `no-cache`, costs one conditional
    /// request, and a `304` refreshes its validators and freshness. An entry with no freshness information is
    /// stale.
    public static let refreshIfStale = ImageOptions(rawValue: 1 << 20)

    /// Where the download switches sit: a ``DownloadOptions`` value, shifted past the manager's own bits. So
    /// the flags a manager passes on to its loads are the downloader's, defined once.
    private static let downloadShift = 24
    private static let downloadMask = (1 << 6) - 1

    private init(download: DownloadOptions) {
        self.init(rawValue: download.rawValue << Self.downloadShift)
    }

    /// The download switches among these options.
    var downloadOptions: DownloadOptions {
        DownloadOptions(rawValue: (rawValue >> Self.downloadShift) & Self.downloadMask)
    }

    /// The priority the two priority flags ask for (``ImageRequest`` turns them into its ``ImageRequest/priority``).
    var priority: ImagePriority { downloadOptions.priority }

    /// The options that change what a load produces; loads that agree on them may share one run. Priority, how
    /// a caller reads the cache (synchronously or not) and whether it waits for the stores are the caller's own.
    var sharedBehaviour: ImageOptions {
        subtracting([.lowPriority, .highPriority, .queryMemoryDataSync, .queryDiskDataSync, .waitStoreCache])
    }
}
