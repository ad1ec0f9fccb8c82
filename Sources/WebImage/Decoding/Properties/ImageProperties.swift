/// What an encoded image says about itself, read from its headers and chunk or record tables without decoding
/// a single pixel (ImageIO's `CGImageSourceCopyPropertiesAtIndex`, SDWebImage's `sd_imageFormat` and frame
/// count). Reading them costs a few kilobytes of memory whatever the image's size or frame count.
///
/// Every field agrees with what a full ``ImageCoders/decode(_:options:)-(Data,_)`` with default options reports:
/// ``size`` is the size after EXIF orientation, ``hasAlpha`` is the same flag the decoded ``Image`` carries. The
/// colour fields are the exception: they describe the samples stored in the file, which a default decode has
/// converted to sRGB.
public struct ImageProperties: Sendable, Hashable {
    /// The encoded format.
    public var format: ImageFormat
    /// Width and height in pixels after orientation (what a default decode produces). For vector formats (SVG,
    /// PDF) the intrinsic size, rounded to whole pixels.
    public var size: PixelSize
    /// Frames in an animation or pages in a document; 1 for a still image.
    public var frameCount: Int
    /// How many times an animation plays; 0 means forever. 1 for still images.
    public var loopCount: Int
    /// Whether the image declares an alpha channel or transparency.
    public var hasAlpha: Bool
    /// The EXIF (or container) orientation; ``Orientation/up`` when none is declared.
    public var orientation: Orientation
    /// Each frame's display time in seconds, in order, for animations; empty for still images and documents.
    public var frameDurations: [Double]
    /// The space the stored samples are in: the embedded profile's or code points' (``colorProfile``), else
    /// what an untagged file of its kind is (``ColorSpace/gray`` for one channel, ``ColorSpace/cmyk`` for four
    /// inks, otherwise ``ColorSpace/sRGB``).
    public var colorSpace: ColorSpace = .sRGB
    /// The colour description the file carries, when it is not sRGB; the decoder converts from it.
    public var colorProfile: ColorProfile?

    /// Creates properties; a still, opaque, upright image unless told otherwise.
    public init(
        format: ImageFormat, size: PixelSize, frameCount: Int = 1, loopCount: Int = 1, hasAlpha: Bool = false,
        orientation: Orientation = .up, frameDurations: [Double] = []
    ) {
        self.format = format
        self.size = size
        self.frameCount = frameCount
        self.loopCount = loopCount
        self.hasAlpha = hasAlpha
        self.orientation = orientation
        self.frameDurations = frameDurations
    }

    /// The properties of an image already decoded: the fallback for coders that have no header reader.
    public init(of image: Image) {
        self.init(
            format: image.format, size: image.size, frameCount: image.frames.count, loopCount: image.loopCount,
            hasAlpha: image.hasAlpha, orientation: image.orientation,
            frameDurations: image.isAnimated ? image.frames.map(\.duration) : [])
    }

    /// Sets ``colorProfile`` and ``colorSpace`` from what a header reader found: `untagged` names the space of
    /// samples that carry no description.
    public mutating func describeColor(_ profile: ColorProfile?, untagged: ColorSpace = .sRGB) {
        colorProfile = profile
        colorSpace = profile?.space ?? untagged
    }

    /// More than one frame that plays in time (documents with several pages are not animated).
    public var isAnimated: Bool { !frameDurations.isEmpty && frameCount > 1 }
}
