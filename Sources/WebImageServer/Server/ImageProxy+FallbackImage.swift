import Foundation

extension ImageProxy {
    /// Reads (or downloads) and checks the fallback image of ``ProxyConfiguration/fallbackImage``, once, before
    /// serving: until then (and without one) a source that cannot be fetched is answered with its error status.
    /// - Throws: ``ProxyConfigurationError`` when the status is not 0 or 100–599, the lifetime is negative, the
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
