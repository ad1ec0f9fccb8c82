import WebImage
import Foundation
import Logging
import WebImageRedis

extension ImageProxy {
    /// What the proxy does before it serves, once: connects the Redis tier (an unreachable Redis leaves it
    /// degraded, with a warning on the proxy's logger, and is retried), reads the watermark and the fallback
    /// image. ``run()`` calls it; call it first yourself to stop before serving when it fails (`webimage serve`
    /// does). Once it has succeeded, later calls do nothing.
    /// - Throws: `ProxyConfigurationError` when Redis refuses the credentials, or the watermark or the fallback
    ///   image cannot be read, downloaded or decoded.
    public func start() async throws(ProxyConfigurationError) {
        guard !started.withLock({ $0 }) else { return }
        do {
            if let degraded = try await connectSharedCache() {
                logger.warning("starting with the Redis tier degraded (it is retried): \(degraded)")
            }
        } catch {
            throw ProxyConfigurationError("Redis at \(configuration.redis?.redactedURL ?? ""): \(error)")
        }
        do {
            try await loadWatermark()
        } catch {
            throw ProxyConfigurationError("watermark: \(error)")
        }
        try await loadFallbackImage()
        started.withLock { $0 = true }
    }

    /// Reads and decodes the watermark image of ``ProxyConfiguration/watermarkPath`` or
    /// ``ProxyConfiguration/watermarkURL``, once, before serving: until then (and without either) the `watermark`
    /// option draws nothing.
    /// - Throws: `ProxyConfigurationError` when the file cannot be read, the download fails, the image does
    ///   not decode, or ``ProxyConfiguration/watermarkOpacity`` is not above 0 and at most 1.
    public func loadWatermark() async throws(ProxyConfigurationError) {
        let data: Data
        if let path = configuration.watermarkPath {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ProxyConfigurationError("cannot read the watermark file \(path)")
            }
            data = contents
        } else if let url = configuration.watermarkURL {
            do {
                data = try await configuredImage(at: url)
            } catch {
                throw ProxyConfigurationError("cannot download the watermark \(url.absoluteString): \(error)")
            }
        } else {
            return
        }
        watermarks.current = try ProxyWatermark(data: data, coders: coders, opacity: configuration.watermarkOpacity)
        // Routes read before the watermark was there carry keys without it.
        routes.removeAll()
    }

    /// The bytes of an image the configuration names by URL (the watermark, the fallback image): a `local:` file
    /// under the local root, or a download (`s3:` and `gs:` objects included), as a source's would be.
    func configuredImage(at url: URL) async throws -> Data {
        if let localFiles = sources.localFiles,
           let file = try localFiles.url(for: url.absoluteString, allowedPrefixes: []) {
            return try await localFiles.contents(of: file).data
        }
        return try await downloader.download(url).data
    }

    /// Connects to Redis when one is configured. Throws `RedisError.authenticationFailed(_:)` for credentials it
    /// refuses (a start-up mistake); an unreachable Redis is not an error: the proxy starts with the tier degraded
    /// and uses it once it answers (the returned error says why it is degraded).
    public func connectSharedCache() async throws(RedisError) -> RedisError? {
        guard let shared else { return nil }
        do {
            try await shared.connect()
            return nil
        } catch {
            if case .authenticationFailed = error { throw error }
            return error
        }
    }

    /// Reads (or downloads) and checks the fallback image of ``ProxyConfiguration/fallbackImage``, once, before
    /// serving: until then (and without one) a source that cannot be fetched is answered with its error status.
    /// - Throws: `ProxyConfigurationError` when the status is not 0 or 100–599, the lifetime is negative, the
    ///   file cannot be read, the download fails, or the bytes are not an image that decodes.
    public func loadFallbackImage() async throws(ProxyConfigurationError) {
        let settings = configuration.fallbackImage
        guard settings.status == 0 || (100...599).contains(settings.status) else {
            throw ProxyConfigurationError("the fallback image's status must be 0 or 100-599, not \(settings.status)")
        }
        guard settings.timeToLive >= 0 else {
            throw ProxyConfigurationError("the fallback image's lifetime cannot be negative (\(settings.timeToLive))")
        }
        let data: Data
        switch settings.source {
        case nil:
            return
        case .data(let bytes):
            data = bytes
        case .file(let path):
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ProxyConfigurationError("cannot read the fallback image file \(path)")
            }
            data = contents
        case .url(let url):
            do {
                data = try await configuredImage(at: url)
            } catch {
                throw ProxyConfigurationError("cannot download the fallback image \(url.absoluteString): \(error)")
            }
        }
        renders.fallbackImage.current = try FallbackImage(data: data, coders: coders)
    }
}
