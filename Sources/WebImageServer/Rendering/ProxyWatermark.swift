import Foundation
import Synchronization
import WebImage

/// The server's watermark image, which the `watermark` option draws (imgproxy's `IMGPROXY_WATERMARK_PATH` and
/// `IMGPROXY_WATERMARK_URL`): decoded once when the server starts, then scaled and placed per request.
public struct ProxyWatermark: Sendable {
    /// The watermark's pixels, upright (its first frame when animated).
    public let pixels: PixelBuffer

    /// A watermark of `pixels`.
    public init(pixels: PixelBuffer) {
        self.pixels = pixels
    }

    /// The watermark encoded in `data` (any format `coders` decode; the first frame of an animation).
    /// - Throws: ``ProxyConfigurationError`` when `data` does not decode: a server that cannot draw its
    ///   watermark should not start.
    public init(data: Data, coders: ImageCoders = .shared) throws(ProxyConfigurationError) {
        do {
            pixels = try coders.decode(data, options: DecodeOptions(firstFrameOnly: true)).pixels
        } catch {
            throw ProxyConfigurationError("the watermark image does not decode: \(error)")
        }
    }
}

/// Where a renderer finds the watermark: set once at start-up (the image may have to be downloaded first), read by
/// every rendering.
final class WatermarkStore: Sendable {
    private let watermark: Mutex<ProxyWatermark?>

    init(_ watermark: ProxyWatermark? = nil) {
        self.watermark = Mutex(watermark)
    }

    /// The watermark, `nil` while none is configured (the `watermark` option then draws nothing, as in imgproxy).
    var current: ProxyWatermark? {
        get { watermark.withLock { $0 } }
        set { watermark.withLock { $0 = newValue } }
    }
}
