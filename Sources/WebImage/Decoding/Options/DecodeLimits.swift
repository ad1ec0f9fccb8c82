/// Ceilings that protect the process from decompression bombs. Checked against the header before any large
/// allocation; exceeding one throws `ImageError.Code.imageTooLarge`.
public struct DecodeLimits: Sendable, Hashable {
    /// Most pixels in one frame. The default matches Pillow's `MAX_IMAGE_PIXELS` (89 478 485, about 9 459²).
    public var maxPixels: Int
    /// Most frames decoded from one animation.
    public var maxFrames: Int
    /// Most pixels over all decoded frames together (frames × canvas area).
    public var maxTotalPixels: Int

    /// Creates limits; the defaults are the ones in ``default``.
    public init(maxPixels: Int = 89_478_485, maxFrames: Int = 10_000, maxTotalPixels: Int = 1 << 28) {
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.maxTotalPixels = maxTotalPixels
    }

    /// Pillow-compatible pixel limit, 10 000 frames, 2²⁸ pixels over all frames (1 GiB of RGBA).
    public static let `default` = DecodeLimits()

    /// Throws when a frame of `size` is over the pixel limit or has no pixels.
    public func check(_ size: PixelSize) throws {
        guard size.width > 0, size.height > 0 else {
            throw ImageError(.badImageData, "the header declares an empty image (\(size))")
        }
        guard size.area <= maxPixels else {
            throw ImageError(.imageTooLarge, "\(size) is \(size.area) pixels, over the limit of \(maxPixels)")
        }
    }

    /// Throws when `frameCount` frames of `canvas` would pass the frame or total-pixel limits.
    public func check(frameCount: Int, canvas: PixelSize) throws {
        guard frameCount <= maxFrames else {
            throw ImageError(.imageTooLarge, "\(frameCount) frames, over the limit of \(maxFrames)")
        }
        let (total, overflow) = canvas.area.multipliedReportingOverflow(by: frameCount)
        guard !overflow, total <= maxTotalPixels else {
            throw ImageError(.imageTooLarge, "\(frameCount) frames of \(canvas) exceed \(maxTotalPixels) pixels in all")
        }
    }
}
