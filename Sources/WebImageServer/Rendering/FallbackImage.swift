import Foundation
import WebImage

/// The fallback image as loaded at start-up (``ImageProxy/loadFallbackImage()``): its encoded bytes, which each
/// request whose source cannot be fetched renders as it would have rendered the source, and a digest of them.
struct FallbackImage: Sendable {
    /// The encoded image.
    let data: Data
    /// A digest of the bytes: a fallback answer's result key holds it, so that servers (or restarts) with another
    /// fallback image never answer each other's fallback results from disk or Redis.
    let identity: String

    /// The fallback image encoded in `data`, checked as a start-up setting: bytes of no known format or that do
    /// not decode stop the start, rather than every later failure being answered with a 500.
    init(data: Data, coders: ImageCoders) throws(ProxyConfigurationError) {
        guard ImageFormat.detect(data) != .unknown else {
            throw ProxyConfigurationError("the fallback image is not an image: its format is unknown")
        }
        do {
            _ = try coders.decode(data, options: DecodeOptions(firstFrameOnly: true))
        } catch {
            throw ProxyConfigurationError("the fallback image does not decode: \(error)")
        }
        self.data = data
        identity = data.withUnsafeBytes { SHA256.hex(SHA256.hash($0), words: 4) }
    }

    /// The key of the fallback's result for `request`: never the key of the source's own result, which the
    /// source answers once its origin has it.
    func key(for request: RenderRequest) -> String {
        "fallback:\(identity)\n\(request.key)"
    }
}

/// Where renders find the fallback image: set once at start-up (it may have to be downloaded first), read when a
/// source cannot be fetched.
final class FallbackImageStore: Sendable {
    private let image = Locked<FallbackImage?>(nil)

    /// The fallback image; `nil` while none is configured (failures are then answered with their status).
    var current: FallbackImage? {
        get { image.withLock { $0 } }
        set { image.withLock { $0 = newValue } }
    }
}
