import Foundation

/// One rendered answer, as cached and served: the bytes, their format and their validators.
public struct RenderedResult: Sendable {
    /// The encoded image.
    public var data: Data
    /// Its format.
    public var format: OutputFormat
    /// A strong entity tag: a quoted digest of the bytes, so equal bytes have equal tags on every instance.
    public var etag: String
    /// When the result was rendered, as an HTTP date.
    public var lastModified: String
}
