import Foundation
import NIOCore
import WebImage

/// One rendered answer, as cached and served: the bytes, their format and their validators. The bytes are kept
/// as the buffer the server writes, so a cache hit goes to the socket without a copy.
package struct RenderedResult: Sendable {
    /// The encoded image.
    package var body: ByteBuffer
    /// Its format (a source passed through as it came, `raw` or `skip_processing`, may be in any format).
    package var format: ImageFormat
    /// A strong entity tag, the same on every instance that renders this result (``ResultTag``).
    package var etag: String
    /// When the result was rendered, as an HTTP date.
    package var lastModified: String
    /// When the source's own lifetime ends, in seconds since 1970, when its origin gave one (`Cache-Control`
    /// or `Expires`), kept with the result in every tier for ``ProxyConfiguration/passesSourceCacheControl``.
    package var sourceExpires: Double?

    /// A result of `data`'s bytes.
    package init(data: Data, format: ImageFormat, etag: String, lastModified: String, sourceExpires: Double? = nil) {
        self.init(body: ByteBuffer(bytes: data), format: format, etag: etag, lastModified: lastModified,
                  sourceExpires: sourceExpires)
    }

    /// A result of `body`'s bytes.
    package init(body: ByteBuffer, format: ImageFormat, etag: String, lastModified: String,
                sourceExpires: Double? = nil) {
        self.body = body
        self.format = format
        self.etag = etag
        self.lastModified = lastModified
        self.sourceExpires = sourceExpires
    }

    /// The bytes as `Data` (a copy: for the disk and Redis tiers, which store `Data`).
    package var data: Data { Data(body.readableBytesView) }
}
