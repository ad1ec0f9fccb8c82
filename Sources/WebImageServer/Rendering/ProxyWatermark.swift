import Foundation
import WebImage

/// The server's watermark image, which the `watermark` option draws (imgproxy's `IMGPROXY_WATERMARK_PATH` and
/// `IMGPROXY_WATERMARK_URL`): decoded once when the server starts, then scaled and placed per request.
public struct ProxyWatermark: Sendable {
    /// The watermark's pixels, upright (its first frame when animated).
    public let pixels: PixelBuffer
    /// The watermark's own opacity, above 0 and at most 1 (imgproxy's `IMGPROXY_WATERMARK_OPACITY`): each
    /// request's `watermark` opacity is multiplied by it.
    public let opacity: Double
    /// A digest of the pixels and the opacity: what a result drawn with this watermark depends on, for result
    /// keys, so that servers with different watermarks never share a watermarked result (on disk or in Redis).
    let identity: String

    /// A watermark of `pixels`, drawn at `opacity` times each request's opacity.
    public init(pixels: PixelBuffer, opacity: Double = 1) {
        self.pixels = pixels
        self.opacity = opacity
        identity = Self.identity(of: pixels, opacity: opacity)
    }

    /// The watermark encoded in `data` (any format `coders` decode; the first frame of an animation), drawn at
    /// `opacity` times each request's opacity.
    /// - Throws: `ProxyConfigurationError` when `data` does not decode (a server that cannot draw its
    ///   watermark should not start), or when `opacity` is not above 0 and at most 1.
    public init(data: Data, coders: ImageCoders = .shared, opacity: Double = 1) throws(ProxyConfigurationError) {
        guard opacity > 0, opacity <= 1 else {
            throw ProxyConfigurationError("the watermark opacity must be above 0 and at most 1, not \(opacity)")
        }
        do {
            pixels = try coders.decode(data, options: DecodeOptions(firstFrameOnly: true)).pixels
        } catch {
            throw ProxyConfigurationError("the watermark image does not decode: \(error)")
        }
        self.opacity = opacity
        identity = Self.identity(of: pixels, opacity: opacity)
    }

    private static func identity(of pixels: PixelBuffer, opacity: Double) -> String {
        var hasher = SHA256()
        withUnsafeBytes(of: (pixels.width, pixels.height, opacity)) { hasher.update($0) }
        pixels.withUnsafeBytes { hasher.update($0) }
        return SHA256.hex(hasher.finalize(), words: 4)
    }
}

/// Where a renderer finds the watermark: set once at start-up (the image may have to be downloaded first), read by
/// every rendering.
final class WatermarkStore: Sendable {
    private let watermark: Locked<ProxyWatermark?>

    init(_ watermark: ProxyWatermark? = nil) {
        self.watermark = Locked(watermark)
    }

    /// The watermark, `nil` while none is configured (the `watermark` option then draws nothing, as in imgproxy).
    var current: ProxyWatermark? {
        get { watermark.withLock { $0 } }
        set { watermark.withLock { $0 = newValue } }
    }
}
