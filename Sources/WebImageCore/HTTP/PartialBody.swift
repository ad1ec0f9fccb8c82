import Foundation

/// The bytes of a body that broke off, and the validator that lets a new attempt ask for the rest with `Range`
/// and `If-Range` (only if the resource is still the same). Travels in `ImageError.partialBody`, so a loader
/// that retries (`RetryingImageLoader`) can continue where the failed attempt stopped.
package struct PartialBody: Sendable, Equatable {
    /// What arrived, from the first byte.
    package var data: Data
    /// A strong `ETag` or `Last-Modified` value for `If-Range`.
    package var validator: String

    /// Creates a partial body.
    package init(data: Data, validator: String) {
        self.data = data
        self.validator = validator
    }

    /// The headers that ask for the bytes after ``data``, only if they are still the same representation.
    package var rangeHeaders: HTTPHeaderFields {
        ["Range": "bytes=\(data.count)-", "If-Range": validator]
    }

    /// The validator `If-Range` may use: a strong ETag, else Last-Modified; `nil` for weak ETags, encoded bodies
    /// (ranges would count encoded bytes) or responses that gave neither.
    package static func resumeValidator(for metadata: ImageResponseMetadata) -> String? {
        if let encoding = metadata.contentEncoding, encoding.lowercased() != "identity" { return nil }
        if let etag = metadata.etag, !etag.hasPrefix("W/") { return etag }
        return metadata.lastModified
    }

    /// What a broken body leaves to resume from: nothing without bytes or a usable validator.
    package static func resumable(_ body: Data, validator: String?) -> PartialBody? {
        guard !body.isEmpty, let validator else { return nil }
        return PartialBody(data: body, validator: validator)
    }
}
