/// How to encode an image.
public struct EncodeOptions: Sendable, Hashable {
    /// Lossy quality from 0 (smallest) to 1 (best), for JPEG and lossy WebP. Default 0.9.
    public var quality: Double
    /// Encode WebP losslessly (PNG and GIF are always lossless; JPEG never is).
    public var lossless: Bool
    /// Encode only the first frame of an animation.
    public var firstFrameOnly: Bool
    /// The colour that shows through transparent pixels in formats without alpha (JPEG). Default white.
    public var backgroundColor: RGBA
    /// Scale the image down to fit inside a square of this many pixels before encoding, when given.
    public var maxPixelSize: Int?
    /// Write JPEG as progressive scans (coarse to fine) instead of one baseline pass. Other formats ignore it.
    public var progressive: Bool

    /// Creates encode options; every parameter has the default described on its property.
    public init(
        quality: Double = 0.9, lossless: Bool = false, firstFrameOnly: Bool = false,
        backgroundColor: RGBA = RGBA(255, 255, 255), maxPixelSize: Int? = nil,
        progressive: Bool = false
    ) {
        self.quality = quality
        self.lossless = lossless
        self.firstFrameOnly = firstFrameOnly
        self.backgroundColor = backgroundColor
        self.maxPixelSize = maxPixelSize
        self.progressive = progressive
    }

    /// ``quality`` clamped to 0...1, NaN read as the default.
    public var clampedQuality: Double { quality.isNaN ? 0.9 : min(max(quality, 0), 1) }
}
