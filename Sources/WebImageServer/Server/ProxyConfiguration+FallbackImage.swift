import Foundation

extension ProxyConfiguration {
    /// The image answered instead of an error when a request's source cannot be fetched (imgproxy's fallback
    /// image): rendered with the request's own options, so a missing photo's thumbnail is a placeholder of the
    /// thumbnail's size and format. What counts as "cannot be fetched" is imgproxy's: the origin's error statuses,
    /// a source that cannot be reached, times out or is over the byte limits, and bytes of no image format at all
    /// (an origin's HTML page); not an image of a known format that fails to decode or is over the pixel limits,
    /// nor a URL refused before anything is fetched (a bad signature, options or source).
    public struct FallbackImage: Sendable, Equatable {
        /// Where the fallback image's bytes come from.
        public enum Source: Sendable, Equatable {
            /// The image's bytes themselves (imgproxy's `IMGPROXY_FALLBACK_IMAGE_DATA`, Base64 there).
            case data(Data)
            /// A file holding it (imgproxy's `IMGPROXY_FALLBACK_IMAGE_PATH`).
            case file(String)
            /// Where it is downloaded from, once at start-up, under the sources' address policy and byte limit
            /// (imgproxy's `IMGPROXY_FALLBACK_IMAGE_URL`).
            case url(URL)
        }

        /// The fallback image, read and checked by ``ImageProxy/loadFallbackImage()``; `nil`, the default: none,
        /// a source that cannot be fetched is answered with its error status.
        public var source: Source?
        /// The status of an answer made of the fallback image (imgproxy's `IMGPROXY_FALLBACK_IMAGE_HTTP_CODE`): 0
        /// answers with the status the source's failure would have had, else 100–599. Default 200, imgproxy's.
        public var status = 200
        /// `Cache-Control: max-age` of an answer made of the fallback image, in seconds (imgproxy's
        /// `IMGPROXY_FALLBACK_IMAGE_TTL`), never past the URL's expiry; 0, the default:
        /// ``ProxyConfiguration/timeToLive``.
        public var timeToLive = 0

        /// No fallback image, and imgproxy's status and lifetime for when one is set.
        public init() {}
    }
}
