import Foundation

extension ImageDownloaderConfiguration {
    /// For a server that loads the URLs its clients send: `http` and `https` only (no `file:` or `data:`), public
    /// addresses only (no loopback, private or link-local address, on every redirect too), a 3 s connect
    /// timeout, 10 s for the whole download, bodies of 20 MB at most, 5 redirects, and one retry of a broken
    /// transfer or a 5xx, but none after a refused connection or a timeout (a client's URL that points nowhere
    /// costs one attempt).
    public static var server: ImageDownloaderConfiguration {
        var configuration = ImageDownloaderConfiguration()
        configuration.loadsFileAndDataURLs = false
        configuration.addressPolicy = .publicOnly
        configuration.connectTimeout = .seconds(3)
        configuration.readTimeout = .seconds(10)
        configuration.timeout = .seconds(10)
        configuration.maximumBodySize = 20 * 1024 * 1024
        configuration.maximumRedirects = 5
        configuration.retryPolicy = RetryPolicy(maximumRetries: 1)
        configuration.retryPolicy.retriesTimeouts = false
        configuration.retryPolicy.retriesRefusedConnections = false
        return configuration
    }
}

extension ImageManager.Configuration {
    /// For a server: images of at most 50 megapixels (and animations of at most 1 000 frames, 2^28 pixels in
    /// all) decoded, a URL that failed for good blocked for 10 minutes rather than for the process's life.
    public static var server: ImageManager.Configuration {
        var configuration = ImageManager.Configuration()
        configuration.decodeLimits = DecodeLimits(maxPixels: 50_000_000, maxFrames: 1_000, maxTotalPixels: 1 << 28)
        configuration.failedURLExpiry = .seconds(600)
        return configuration
    }
}

extension ImageManager {
    /// A manager for a server app, not ``shared`` (a loader for apps on a device): its downloader is
    /// ``ImageDownloaderConfiguration/server`` (public `http(s)` URLs only, short timeouts, no retry of a refused
    /// connection), its limits ``Configuration/server``, and its cache a folder of its own,
    /// ``DiskCache/defaultFolder(namespace:)`` under `cacheNamespace`.
    public static func forServer(cacheNamespace: String = "server") -> ImageManager {
        ImageManager(cache: ImageCache(namespace: cacheNamespace),
                     loader: ImageDownloader(configuration: .server), configuration: .server)
    }
}
