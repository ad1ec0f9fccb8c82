/// The HTTP response headers that allow revalidating a cached image later (`If-None-Match`,
/// `If-Modified-Since`) and say how long the server meant it to stay fresh.
public struct HTTPValidators: Sendable, Hashable, Codable {
    /// The `ETag` header, verbatim.
    public var etag: String?
    /// The `Last-Modified` header, verbatim.
    public var lastModified: String?
    /// When the response stops being fresh (from `Cache-Control: max-age` or `Expires`), in seconds since 1970.
    /// Stored for revalidation; the cache itself never drops an entry because of it.
    public var expires: Double?

    /// Creates validators; each one is optional.
    public init(etag: String? = nil, lastModified: String? = nil, expires: Double? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.expires = expires
    }

    /// No validators.
    public static let none = HTTPValidators()
}

/// What a disk cache entry records besides its bytes.
public struct CacheEntryMetadata: Sendable, Hashable {
    /// The cache key the entry was stored under.
    public var key: String
    /// The format of the stored bytes, detected from their magic bytes when stored.
    public var format: ImageFormat
    /// Length of the stored bytes (the payload, without the entry's header).
    public var payloadLength: Int
    /// Size of the whole file on disk, header included: what counts towards the size limit.
    public var fileSize: Int
    /// When the entry was written (or last revalidated), in seconds since 1970.
    public var created: Double
    /// When the entry was last read or written, in seconds since 1970: the age limit and the least recently used
    /// order go by this.
    public var lastAccess: Double
    /// The HTTP validators stored with the entry.
    public var validators: HTTPValidators

    /// Creates metadata; the cache fills these in, callers rarely need to.
    public init(
        key: String, format: ImageFormat, payloadLength: Int, fileSize: Int, created: Double, lastAccess: Double,
        validators: HTTPValidators
    ) {
        self.key = key
        self.format = format
        self.payloadLength = payloadLength
        self.fileSize = fileSize
        self.created = created
        self.lastAccess = lastAccess
        self.validators = validators
    }
}
