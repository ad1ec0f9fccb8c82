import Foundation
import WebImageServer

extension ServeSettings {
    /// The fallback image: `--fallback-image PATH|URL` (`WEBIMAGE_FALLBACK_IMAGE`), else imgproxy's
    /// `IMGPROXY_FALLBACK_IMAGE_DATA` (Base64), `IMGPROXY_FALLBACK_IMAGE_PATH` and `IMGPROXY_FALLBACK_IMAGE_URL`, the
    /// first set in that order (imgproxy's); its status, `--fallback-image-status`
    /// (`IMGPROXY_FALLBACK_IMAGE_HTTP_CODE`), and lifetime, `--fallback-image-ttl` (`IMGPROXY_FALLBACK_IMAGE_TTL`).
    /// The image itself is read and checked when the server starts (``ImageProxy/loadFallbackImage()``).
    func fallbackImage(_ configuration: inout ProxyConfiguration) throws {
        let options = command.fallbackImageOptions
        let ours = source.text(options.fallbackImage, flag: "--fallback-image", "FALLBACK_IMAGE")
        let data = source.find("", imgproxy: ["IMGPROXY_FALLBACK_IMAGE_DATA"])
        let path = source.find("", imgproxy: ["IMGPROXY_FALLBACK_IMAGE_PATH"])
        let url = source.find("", imgproxy: ["IMGPROXY_FALLBACK_IMAGE_URL"])
        if let ours, !ours.text.isEmpty {
            let isURL = ["http://", "https://"].contains { ours.text.lowercased().hasPrefix($0) }
            configuration.fallbackImage.source = isURL ? .url(try Self.fallbackURL(ours)) : .file(ours.text)
        } else if let data {
            // Go's standard Base64, which skips line breaks (`base64 fallback.png` wraps its lines).
            let text = data.text.filter { !$0.isNewline }
            guard let bytes = Data(base64Encoded: text), !bytes.isEmpty else {
                throw ServeError("\(data.origin): expected the image's bytes in Base64")
            }
            configuration.fallbackImage.source = .data(bytes)
        } else if let path {
            configuration.fallbackImage.source = .file(path.text)
        } else if let url {
            configuration.fallbackImage.source = .url(try Self.fallbackURL(url))
        }
        if let status = try source.wholeNumber(options.fallbackImageStatus, flag: "--fallback-image-status",
                                               "FALLBACK_IMAGE_STATUS", imgproxy: ["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE"],
                                               minimum: 0) {
            guard status == 0 || (100...599).contains(status) else {
                throw ServeError("the fallback image's status must be 0 (the failure's own) or 100-599, not \(status)")
            }
            configuration.fallbackImage.status = status
        }
        if let seconds = try source.wholeNumber(options.fallbackImageTTL, flag: "--fallback-image-ttl",
                                                "FALLBACK_IMAGE_TTL", imgproxy: ["IMGPROXY_FALLBACK_IMAGE_TTL"],
                                                minimum: 0) {
            configuration.fallbackImage.timeToLive = seconds
        }
    }

    private static func fallbackURL(_ found: ServeSettingSource.Found) throws -> URL {
        guard let url = URL(string: found.text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              url.host?.isEmpty == false else {
            throw ServeError("\(found.origin) \(found.text): expected an http or https URL")
        }
        return url
    }
}
