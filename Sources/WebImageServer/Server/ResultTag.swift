import WebImage
import Foundation

/// A result's entity tag. The result key names everything a rendering depends on but the source's bytes, so the
/// key and the source's `Last-Modified` identify the result as well as a digest of its bytes would, and cost a
/// digest of a hundred bytes instead of the whole body. A source without `Last-Modified` could change under the
/// same key, so its results are tagged by a digest of their bytes. Either way every instance that renders the
/// same result gives it the same tag.
enum ResultTag {
    /// Changed when the same key and source would render different bytes (a new rendering rule), so that clients
    /// holding the old bytes are not told they are current.
    static let renderingGeneration = "1"

    /// The quoted tag of the result rendered for `key` from a source last modified at `sourceLastModified`.
    static func etag(key: String, sourceLastModified: String?, body: Data) -> String {
        let digest: SIMD8<UInt32>
        if let sourceLastModified {
            let identity = Data("\(renderingGeneration)\n\(key)\n\(sourceLastModified)".utf8)
            digest = identity.withUnsafeBytes { SHA256.hash($0) }
        } else {
            digest = body.withUnsafeBytes { SHA256.hash($0) }
        }
        return "\"" + SHA256.hex(digest, words: 4) + "\""
    }
}
