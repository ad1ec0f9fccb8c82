/// How to decode: size, frames, orientation, colour and limits. The defaults decode everything at full size, upright.
public struct DecodeOptions: Sendable, Hashable {
    /// Decode straight to a bitmap no larger than this (SDWebImage's `imageThumbnailPixelSize`). A bitmap source
    /// is never scaled up; a vector one (SVG, PDF) has no resolution to lose and is drawn at the box's size,
    /// larger or smaller than its own, as SDWebImage's vector coders do. With ``preserveAspectRatio`` the result fits inside the box; without it, the result
    /// is exactly this size.
    public var thumbnailPixelSize: PixelSize?
    /// Keep the aspect ratio when making a thumbnail. On by default.
    public var preserveAspectRatio: Bool
    /// With ``thumbnailPixelSize`` and ``preserveAspectRatio``: cover the box instead of fitting inside it, then
    /// keep the centre, so that the thumbnail is the box's size exactly (each side no larger than the source's):
    /// a square avatar from any photo, as imgproxy's `resizing_type:fill` makes it. Off by default (SDWebImage's
    /// thumbnails fit inside the box).
    public var thumbnailFill: Bool
    /// Decode no larger than this many bytes of RGBA pixels per frame (SDWebImage's scale-down limit).
    public var scaleDownLimitBytes: Int?
    /// Decode only the first frame of an animation.
    public var firstFrameOnly: Bool
    /// Decode only this frame of an animation or page of a document (counting from 0), fully composited, as a
    /// still image. Documents (PDF) and multi-page files (TIFF) render one page either way, the first when this
    /// is `nil`; a coder that cannot pick one frame ignores it and returns every frame. An index past the last
    /// frame or page throws `ImageError.Code.invalidParameter`.
    public var frameIndex: Int?
    /// Turn the pixels upright according to the EXIF orientation. When off, the raw stored pixels are returned
    /// and ``Image/orientation`` still reports the tag.
    public var applyOrientation: Bool
    /// The image's display scale; `nil` takes it from ``fileNameHint`` (`@2x`, `@3x`), else 1.
    public var scaleFactor: Double?
    /// The file name or URL the data came from, used for the scale factor.
    public var fileNameHint: String?
    /// Bomb protection; see ``DecodeLimits``.
    public var limits: DecodeLimits
    /// What colour the samples come out in: sRGB by default, converted from the file's ICC profile or colour
    /// code points with Little CMS. See ``ColorHandling``.
    public var colorHandling: ColorHandling
    /// Read the file's EXIF, XMP and IPTC blocks onto ``Image/metadata`` (off by default: most callers only
    /// draw pixels). With ``applyOrientation`` the EXIF orientation is set to upright, as the pixels are.
    public var readsMetadata: Bool
    /// Decode the image's embedded thumbnail instead of the image itself, whatever the thumbnail's size (the
    /// first one when there are several), as imgproxy's `enforce_thumbnail` does; ``thumbnailPixelSize`` and the
    /// other options then apply to the thumbnail. Off by default. Only coders that read embedded thumbnails honour
    /// it (HEIC and HEIF; AVIF when its coder is given a thumbnail reader); a file without one decodes as usual.
    public var prefersEmbeddedThumbnail: Bool
    /// Keep a source's samples of more than 8 bits (16-bit PNG and TIFF, 10- and 12-bit AVIF and HEIC, deep JPEG
    /// XL) on each still frame as ``ImageFrame/deepPixels``, colour converted in 16 bits, beside the 8-bit
    /// ``ImageFrame/pixels`` (imgproxy's `preserve_hdr`). Off by default: the extra bitmap costs twice the memory
    /// of the 8-bit one. Animations and 8-bit sources decode as usual.
    public var keepsHighBitDepth: Bool

    /// Creates decode options; every parameter has the default described on its property.
    public init(
        thumbnailPixelSize: PixelSize? = nil, preserveAspectRatio: Bool = true, scaleDownLimitBytes: Int? = nil,
        firstFrameOnly: Bool = false, frameIndex: Int? = nil, applyOrientation: Bool = true, scaleFactor: Double? = nil,
        fileNameHint: String? = nil, limits: DecodeLimits = .default, colorHandling: ColorHandling = .sRGB,
        readsMetadata: Bool = false, prefersEmbeddedThumbnail: Bool = false, keepsHighBitDepth: Bool = false,
        thumbnailFill: Bool = false
    ) {
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.thumbnailFill = thumbnailFill
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.firstFrameOnly = firstFrameOnly
        self.frameIndex = frameIndex
        self.applyOrientation = applyOrientation
        self.scaleFactor = scaleFactor
        self.fileNameHint = fileNameHint
        self.limits = limits
        self.colorHandling = colorHandling
        self.readsMetadata = readsMetadata
        self.prefersEmbeddedThumbnail = prefersEmbeddedThumbnail
        self.keepsHighBitDepth = keepsHighBitDepth
    }

    /// The scale factor to stamp on the decoded image.
    public var resolvedScale: Double {
        if let scaleFactor, scaleFactor > 0 { return scaleFactor }
        return fileNameHint.map(ScaleFactor.fromName) ?? 1
    }

    /// The size to decode a source of `displayedSize` (after orientation) to, or `nil` to keep it whole.
    /// Combines the thumbnail box and the scale-down limit; never larger than the source, never below 1×1.
    public func targetSize(forDisplayed displayedSize: PixelSize) -> PixelSize? {
        let sourceWidth = Double(displayedSize.width), sourceHeight = Double(displayedSize.height)
        var width = sourceWidth, height = sourceHeight
        var rounding = FloatingPointRoundingRule.toNearestOrAwayFromZero
        if let box = thumbnailPixelSize, box.width > 0, box.height > 0 {
            if preserveAspectRatio {
                let ratio = min(Double(box.width) / sourceWidth, Double(box.height) / sourceHeight, 1)
                width = sourceWidth * ratio
                height = sourceHeight * ratio
            } else {
                width = min(Double(box.width), sourceWidth)
                height = min(Double(box.height), sourceHeight)
            }
        }
        if let limit = scaleDownLimitBytes, limit > 0 {
            let maxPixels = Double(limit) / Double(PixelBuffer.bytesPerPixel)
            if width * height > maxPixels {
                let ratio = (maxPixels / (width * height)).squareRoot()
                width *= ratio
                height *= ratio
                rounding = .down  // rounding up could cross the byte limit
            }
        }
        let target = PixelSize(width: max(1, Int(width.rounded(rounding))), height: max(1, Int(height.rounded(rounding))))
        return target == displayedSize ? nil : target
    }
}
