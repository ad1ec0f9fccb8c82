import Foundation

/// The bytes a loader fetched, with what the server said about them.
public struct ImageLoadResponse: Sendable {
    /// The body, decompressed and (when a decryptor was given) decrypted.
    public var data: Data
    /// Status, headers, final URL and validators.
    public var metadata: ImageResponseMetadata
    /// Whether ``data`` is only the start of the resource, read because the request's `ImageLoadRequest.earlyStop`
    /// found it enough for its decode (with an end marker appended so decoders read it as a whole file). Such
    /// bytes serve that decode and nothing else: they are never cached as the resource.
    public var isPrefix = false

    /// Creates a response.
    public init(data: Data, metadata: ImageResponseMetadata) {
        self.data = data
        self.metadata = metadata
    }
}

/// The head of a response: what a response modifier sees and what a cache keeps for revalidation.
public struct ImageResponseMetadata: Sendable, Equatable {
    /// The URL the body came from, after redirects.
    public var url: URL
    /// The HTTP status code; 200 for files and `data:` URLs.
    public var statusCode: Int
    /// The response headers (empty for files and `data:` URLs).
    public var headers: HTTPHeaderFields
    /// The MIME type without parameters, lowercased (`image/png`), when known.
    public var mimeType: String?
    /// The announced body length, when known and not content-encoded.
    public var expectedContentLength: Int64?
    /// The HTTP version the response came with (`HTTP/1.1`, `HTTP/2.0`); `nil` for files and `data:` URLs.
    public var httpVersion: String?

    /// Creates response metadata.
    public init(url: URL, statusCode: Int = 200, headers: HTTPHeaderFields = HTTPHeaderFields(),
                mimeType: String? = nil, expectedContentLength: Int64? = nil, httpVersion: String? = nil) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.mimeType = mimeType
        self.expectedContentLength = expectedContentLength
        self.httpVersion = httpVersion
    }

    /// The entity tag (`ETag`), for `If-None-Match` revalidation and `If-Range` resumption.
    public var etag: String? { headers["ETag"] }
    /// The `Last-Modified` date as sent, for `If-Modified-Since` revalidation.
    public var lastModified: String? { headers["Last-Modified"] }
    /// The `Content-Encoding` the body arrived with (`gzip`, `deflate`), if any.
    public var contentEncoding: String? { headers["Content-Encoding"] }

    /// The media type of a `Content-Type` value: the part before any `;`, trimmed and lowercased.
    package static func mimeType(fromContentType value: String?) -> String? {
        guard let value else { return nil }
        let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
        let trimmed = type.trimmingHTTPWhitespace().lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }
}
